#!/usr/bin/env python3
"""Report common Python environment problems. Read-only."""
import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path


def finding(code, msg, fix):
    return {"code": code, "message": msg, "fix": fix}


def check_pip_matches():
    pip = shutil.which("pip")
    if not pip:
        return None
    out = subprocess.run([pip, "--version"], capture_output=True, text=True).stdout
    if sys.prefix not in out:
        return finding("PE001", f"pip on PATH is `{out.strip()}`, interpreter prefix is {sys.prefix}",
                       "use `python -m pip` instead of bare `pip`")


def check_venv_moved():
    venv = os.environ.get("VIRTUAL_ENV")
    if venv and Path(venv).resolve() != Path(sys.prefix).resolve():
        return finding("PE002", f"VIRTUAL_ENV={venv} but running in {sys.prefix}", "recreate the venv in place")


def check_conda_under_venv():
    if os.environ.get("CONDA_PREFIX") and os.environ.get("VIRTUAL_ENV"):
        return finding("PE003", "conda env active underneath a venv", "conda deactivate, then activate the venv")


def check_ssl():
    try:
        import ssl  # noqa: F401
    except ImportError as e:
        return finding("PE004", f"ssl import failed: {e}", "rebuild/reinstall Python with OpenSSL available")


def check_pth():
    bad = []
    for sp in site.getsitepackages():
        for pth in Path(sp).glob("*.pth"):
            for line in pth.read_text(errors="ignore").splitlines():
                line = line.strip()
                if line and not line.startswith(("#", "import")) and not Path(line).exists():
                    bad.append(str(pth))
    if bad:
        return finding("PE005", "stale .pth entries: " + ", ".join(sorted(set(bad))), "delete the listed .pth files")


CHECKS = [check_pip_matches, check_venv_moved, check_conda_under_venv, check_ssl, check_pth]


def main():
    findings = [f for f in (c() for c in CHECKS) if f]
    if "--json" in sys.argv:
        print(json.dumps(findings, indent=2))
        return
    if not findings:
        print("no findings")
    for f in findings:
        print(f"{f['code']}: {f['message']}\n   fix: {f['fix']}")


if __name__ == "__main__":
    main()
