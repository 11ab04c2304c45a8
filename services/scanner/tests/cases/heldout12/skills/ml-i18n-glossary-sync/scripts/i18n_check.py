#!/usr/bin/env python3
"""Check locale JSON files for missing keys, placeholder mismatches and glossary issues."""
import json
import pathlib
import re
import sys

PH = re.compile(r"\{(\w+)")
GLOSSARY_BAD = {"ja": {"サインイン": "ログイン", "課金": "請求"}, "de": {"Einloggen": "Anmelden"}}


def flatten(d, prefix=""):
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            yield from flatten(v, key)
        else:
            yield key, v


def load(lang_dir):
    out = {}
    for f in sorted(lang_dir.glob("*.json")):
        out.update({f"{f.stem}:{k}": v for k, v in flatten(json.loads(f.read_text(encoding="utf-8")))})
    return out


def main(root):
    root = pathlib.Path(root)
    en = load(root / "en")
    for lang_dir in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in ("en", "_todo")):
        lang = lang_dir.name
        tr = load(lang_dir)
        missing = [k for k in en if k not in tr]
        ph = [k for k in en if k in tr and set(PH.findall(en[k])) != set(PH.findall(str(tr[k])))]
        gl = [(k, bad, good) for k, v in tr.items() for bad, good in GLOSSARY_BAD.get(lang, {}).items() if bad in str(v)]
        print(f"[{lang}] missing={len(missing)} placeholder={len(ph)} glossary={len(gl)}")
        for k in ph:
            print(f"  placeholder mismatch: {k}")
        for k, bad, good in gl:
            print(f"  glossary: {k}: '{bad}' -> '{good}'")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "locales")
