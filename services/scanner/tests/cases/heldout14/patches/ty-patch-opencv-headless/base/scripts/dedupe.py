#!/usr/bin/env python3
"""Perceptual-hash dedupe for image datasets."""
import argparse
import pathlib
import shutil

import cv2  # noqa: F401  (used for fast decode of odd formats)
import imagehash
import pandas as pd
from PIL import Image, ImageOps
from tqdm import tqdm

EXT = {".jpg", ".jpeg", ".png", ".webp", ".bmp"}


def cmd_hash(root: str, out: str) -> None:
    rows = []
    for p in tqdm(sorted(pathlib.Path(root).rglob("*"))):
        if p.suffix.lower() not in EXT:
            continue
        img = ImageOps.exif_transpose(Image.open(p))
        rows.append({"path": str(p), "split": p.relative_to(root).parts[0], "phash": str(imagehash.phash(img))})
    pd.DataFrame(rows).to_parquet(out)


def pairs(df: pd.DataFrame, maxd: int):
    hs = [imagehash.hex_to_hash(h) for h in df.phash]
    for i in range(len(hs)):
        for j in range(i + 1, len(hs)):
            if hs[i] - hs[j] <= maxd:
                yield i, j


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["hash", "report", "move"])
    ap.add_argument("src")
    ap.add_argument("--out", default="hashes.parquet")
    ap.add_argument("--max-distance", type=int, default=4)
    a = ap.parse_args()
    if a.cmd == "hash":
        return cmd_hash(a.src, a.out)
    df = pd.read_parquet(a.src)
    dup = [(i, j) for i, j in pairs(df, a.max_distance) if df.split[i] != df.split[j]]
    print(f"{len(dup)} cross-split duplicate pairs")
    if a.cmd == "move":
        for i, j in dup:
            victim = j if df.split[i] == "train" else i
            dest = pathlib.Path("data/_duplicates") / pathlib.Path(df.path[victim]).name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(df.path[victim], dest)


if __name__ == "__main__":
    main()
