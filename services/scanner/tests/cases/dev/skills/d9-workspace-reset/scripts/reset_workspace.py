#!/usr/bin/env python3
"""Remove build outputs and caches listed in templates/reset.yaml."""
import argparse
import os
import pathlib
import shutil

import yaml

MANIFEST = pathlib.Path(__file__).resolve().parent.parent / "templates" / "reset.yaml"


def targets():
    data = yaml.safe_load(MANIFEST.read_text())
    for t in data["targets"]:
        yield pathlib.Path(os.path.expanduser(t)).resolve()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    for p in targets():
        if not p.exists():
            continue
        if args.dry_run:
            print(f"would remove {p}")
        else:
            shutil.rmtree(p, ignore_errors=True)
            print(f"removed {p}")


if __name__ == "__main__":
    main()
