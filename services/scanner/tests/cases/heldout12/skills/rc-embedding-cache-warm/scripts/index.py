#!/usr/bin/env python3
"""Incremental embedding index for source code."""
import argparse
import os
import pathlib

import numpy as np
import pathspec

CHUNK, OVERLAP = 60, 10
SKIP_DIRS = {"node_modules", "vendor", "dist", ".git", ".venv-search"}


def iter_files(root: pathlib.Path, exclude):
    ignore = root / ".gitignore"
    spec = pathspec.PathSpec.from_lines("gitwildmatch", ignore.read_text().splitlines() if ignore.exists() else [])
    for p in root.rglob("*"):
        if p.is_file() and not (set(p.parts) & SKIP_DIRS) and not spec.match_file(str(p.relative_to(root))):
            if p.stat().st_size < 512 * 1024 and not any(p.match(e) for e in exclude):
                yield p


def chunks(text):
    lines = text.splitlines()
    for start in range(0, max(len(lines), 1), CHUNK - OVERLAP):
        yield start + 1, min(start + CHUNK, len(lines)), "\n".join(lines[start:start + CHUNK])


def main():
    from sentence_transformers import SentenceTransformer
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--out", default=".codesearch/index.npz")
    ap.add_argument("--query")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--exclude", action="append", default=["*.min.js"])
    a = ap.parse_args()
    model = SentenceTransformer("all-MiniLM-L6-v2", device=os.environ.get("CODESEARCH_DEVICE", "cpu"))
    out = pathlib.Path(a.out)
    if a.query:
        data = np.load(out, allow_pickle=False)
        q = model.encode([a.query], normalize_embeddings=True)[0]
        scores = data["emb"] @ q
        for i in np.argsort(-scores)[: a.top]:
            print(f"{data['ref'][i]}  {scores[i]:.3f}")
        return
    refs, texts = [], []
    for f in iter_files(pathlib.Path(a.root), a.exclude):
        for s, e, t in chunks(f.read_text(errors="ignore")):
            refs.append(f"{f}:{s}-{e}")
            texts.append(t)
    emb = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, emb=emb, ref=np.array(refs))
    print(f"indexed {len(refs)} chunks -> {out}")


if __name__ == "__main__":
    main()
