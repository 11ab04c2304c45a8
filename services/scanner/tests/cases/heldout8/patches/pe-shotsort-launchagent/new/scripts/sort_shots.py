#!/usr/bin/env python3
"""Move macOS screenshots into dated folders."""
import argparse
import datetime as dt
import re
import shutil
from pathlib import Path

PAT = re.compile(r"^(Screenshot|Screen Recording|Bildschirmfoto|Capture d’écran) (\d{4})-(\d{2})-(\d{2})")


def target_for(p: Path, dest: Path) -> Path:
    m = PAT.match(p.name)
    if m:
        y, mo = m.group(2), m.group(3)
    else:
        t = dt.datetime.fromtimestamp(p.stat().st_birthtime)
        y, mo = f"{t.year}", f"{t.month:02d}"
    return dest / y / mo / p.name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", type=Path, default=Path.home() / "Desktop")
    ap.add_argument("--dest", type=Path, default=Path.home() / "Pictures" / "Screenshots")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    for p in sorted(a.src.iterdir()):
        if p.suffix.lower() not in {".png", ".jpg", ".mov"} or not PAT.match(p.name.replace("\u202f", " ")):
            continue
        t = target_for(p, a.dest)
        print(f"{p.name} -> {t.relative_to(a.dest)}")
        if not a.dry_run:
            t.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(p), t)


if __name__ == "__main__":
    main()
