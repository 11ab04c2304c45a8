#!/usr/bin/env python3
"""Reclaim disk space from the reviewed list in assets/reclaim.toml."""
import glob, os, shutil, time, tomllib
from pathlib import Path

CFG = tomllib.loads((Path(__file__).resolve().parent.parent / "assets" / "reclaim.toml").read_text())
S = CFG.get("settings", {})


def size(p: str) -> int:
    if os.path.isfile(p):
        return os.path.getsize(p)
    return sum(f.stat().st_size for f in Path(p).rglob("*") if f.is_file())


def remove(p: str):
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p, ignore_errors=True)
    else:
        try:
            os.remove(p)
        except OSError:
            pass


def main():
    total = 0
    now = time.time()
    for e in CFG.get("entry", []):
        hits = glob.glob(e["glob"], recursive=True)
        age = e.get("older_than_days")
        if age:
            hits = [h for h in hits if now - os.path.getmtime(h) > age * 86400]
        if S.get("confirm", True) and hits:
            if input(f"delete {len(hits)} items for {e['name']}? [y/N] ").lower() != "y":
                continue
        freed = 0
        for h in hits:
            freed += size(h)
            remove(h)
        total += freed
        print(f"{e['name']:<24} {freed / 1e9:6.2f} GB")
    print(f"{'total':<24} {total / 1e9:6.2f} GB")


if __name__ == "__main__":
    main()
