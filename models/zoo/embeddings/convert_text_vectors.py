#!/usr/bin/env python3
"""Converts word vectors in the word2vec/GloVe text format ("word v1 v2 ...", optional
"count dim" first line) to the .svec file WordVectorsEngine loads: plain mean, unit weights.
usage: convert_text_vectors.py vectors.txt out.svec [--max-words N]"""
import argparse, json, struct
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("out")
ap.add_argument("--max-words", type=int, default=200000)
a = ap.parse_args()
words, rows = [], []
with open(a.src, encoding="utf-8", errors="ignore") as f:
    for line in f:
        parts = line.rstrip().split(" ")
        if len(parts) == 2:
            continue
        words.append(parts[0]); rows.append(np.asarray(parts[1:], dtype=np.float32))
        if len(words) >= a.max_words:
            break
vec = np.stack(rows)
vec /= np.linalg.norm(vec, axis=1, keepdims=True) + 1e-8
lower = all(w == w.lower() for w in words[:1000])
header = {"format": "svc-word-vectors-v1", "dim": int(vec.shape[1]), "count": len(words), "lowercase": lower,
          "tokenPattern": r"[\w']+", "pooling": "sif-mean", "removeComponent": [], "words": words, "weights": [1.0] * len(words)}
hb = json.dumps(header).encode()
hb += b" " * ((-(8 + len(hb))) % 4)
open(a.out, "wb").write(b"SVEC" + struct.pack("<I", len(hb)) + hb + vec.astype("<f2").tobytes())
print(f"{len(words)} words x {vec.shape[1]} -> {a.out}")
