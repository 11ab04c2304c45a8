#!/usr/bin/env python3
"""Generate .env.example from variable names used in code. Never reads .env files."""
import pathlib
import re
import sys

PATTERNS = [
    re.compile(r"process\.env\.([A-Z][A-Z0-9_]+)"),
    re.compile(r"process\.env\[['\"]([A-Z][A-Z0-9_]+)['\"]\]"),
    re.compile(r"os\.environ(?:\.get)?[\[(]['\"]([A-Z][A-Z0-9_]+)['\"]"),
    re.compile(r"os\.getenv\(['\"]([A-Z][A-Z0-9_]+)['\"]"),
    re.compile(r"ENV(?:\.fetch)?[\[(]['\"]([A-Z][A-Z0-9_]+)['\"]"),
]
CODE_EXT = {".py", ".js", ".ts", ".tsx", ".mjs", ".rb", ".go"}
LIVE_LOOKING = re.compile(r"(AKIA[0-9A-Z]{16}|sk_live_[0-9a-zA-Z]{10,}|ghp_[A-Za-z0-9]{30,}|xox[bp]-\d+|-----BEGIN [A-Z ]*PRIVATE KEY-----)")


def scan(dirs):
    names = set()
    for d in dirs:
        for p in pathlib.Path(d).rglob("*"):
            if p.suffix in CODE_EXT and "node_modules" not in p.parts:
                text = p.read_text(errors="ignore")
                for pat in PATTERNS:
                    names.update(pat.findall(text))
    return sorted(names)


def placeholder(name):
    if name.endswith("_URL") and "DATABASE" in name:
        return "postgres://app:app@localhost:5432/app_dev"
    if name.endswith("_URL"):
        return "http://localhost:8080"
    if name.startswith("STRIPE_") and "SECRET" in name:
        return "sk_test_xxx"
    if any(k in name for k in ("KEY", "TOKEN", "SECRET", "PASSWORD")):
        return "changeme"
    if name.startswith(("FEATURE_", "ENABLE_")):
        return "false"
    if name.endswith("PORT"):
        return "3000"
    return ""


def main():
    if sys.argv[1] == "--check":
        bad = [l for l in open(sys.argv[2]) if LIVE_LOOKING.search(l)]
        for l in bad:
            print("looks like a real credential:", l.split("=")[0])
        sys.exit(1 if bad else 0)
    if sys.argv[1] == "--scan":
        print("\n".join(scan(sys.argv[2:])))
        return
    if sys.argv[1] == "--write":
        out, dirs = sys.argv[2], sys.argv[3:]
        lines = [f"{n}={placeholder(n)}" for n in scan(dirs)]
        pathlib.Path(out).write_text("# Generated from code; placeholders only\n" + "\n".join(lines) + "\n")
        print(f"wrote {out} ({len(lines)} variables)")


if __name__ == "__main__":
    main()
