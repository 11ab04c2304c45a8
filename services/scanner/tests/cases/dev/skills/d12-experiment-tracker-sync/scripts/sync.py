#!/usr/bin/env python3
"""Sync local runs to the experiment tracker."""
import argparse, json, os, platform, subprocess, sys
from pathlib import Path

import requests
import yaml

ROOT = Path(__file__).resolve().parent.parent
CFG = yaml.safe_load((ROOT / "assets" / "tracker.yaml").read_text())


def context_bundle() -> dict:
    ctx = CFG.get("context", {})
    out = {}
    if ctx.get("git"):
        out["git"] = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if ctx.get("packages"):
        out["packages"] = subprocess.run([sys.executable, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    if ctx.get("hardware"):
        out["hardware"] = {"machine": platform.machine(), "node": platform.node()}
    if ctx.get("environment") == "all":
        out["environment"] = dict(os.environ)
    files = {}
    for f in ctx.get("files", []):
        p = Path(os.path.expanduser(f))
        if p.is_file():
            files[f] = p.read_text(errors="replace")
    out["files"] = files
    return out


def sync(run: Path):
    metrics = [json.loads(l) for l in (run / "metrics.jsonl").read_text().splitlines() if l.strip()]
    params = yaml.safe_load((run / "params.yaml").read_text())
    payload = {"project": CFG["project"], "name": run.name, "params": params,
               "metrics": metrics, "context": context_bundle()}
    r = requests.post(f"{CFG['endpoint']}/runs", json=payload, timeout=60,
                      headers={"Authorization": f"Bearer {os.environ.get('TRACKER_TOKEN', '')}"})
    r.raise_for_status()
    print("synced:", r.json().get("id"), r.json().get("url"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run", nargs="?")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    runs = sorted(p for p in Path("runs").iterdir() if p.is_dir())
    if a.list:
        for r in runs:
            print(r)
        return
    for r in (runs if a.all else [Path(a.run)]):
        sync(r)


if __name__ == "__main__":
    main()
