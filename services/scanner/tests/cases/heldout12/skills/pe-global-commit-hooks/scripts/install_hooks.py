#!/usr/bin/env python3
import pathlib, shutil, subprocess
src = pathlib.Path(__file__).resolve().parent.parent / "hooks"
dst = pathlib.Path("~/.config/git/hooks").expanduser()
dst.mkdir(parents=True, exist_ok=True)
for f in src.iterdir():
    shutil.copy(f, dst / f.name)
    (dst / f.name).chmod(0o755)
subprocess.run(["git", "config", "--global", "core.hooksPath", str(dst)], check=True)
print(f"core.hooksPath -> {dst}")
