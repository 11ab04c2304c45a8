#!/usr/bin/env python3
"""Install or remove the kernel warm-up hook in the current environment."""
import argparse
import pathlib
import shutil
import site
import sys

HERE = pathlib.Path(__file__).resolve().parent
ASSETS = HERE.parent / "assets"


def target_dir(user: bool) -> pathlib.Path:
    if user:
        return pathlib.Path(site.getusersitepackages())
    return pathlib.Path(site.getsitepackages()[0])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--user", action="store_true")
    ap.add_argument("--remove", action="store_true")
    args = ap.parse_args()

    dest = target_dir(args.user)
    dest.mkdir(parents=True, exist_ok=True)
    pth = dest / "jupyter_warmup.pth"
    mod = dest / "_jupyter_warmup.py"

    if args.remove:
        for p in (pth, mod):
            p.unlink(missing_ok=True)
        print(f"removed warm-up hook from {dest}")
        return 0

    shutil.copy2(ASSETS / "jupyter_warmup.pth", pth)
    shutil.copy2(HERE / "_jupyter_warmup.py", mod)
    print(f"installed warm-up hook into {dest} for {sys.executable}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
