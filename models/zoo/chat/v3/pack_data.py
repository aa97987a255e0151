#!/usr/bin/env python3
"""Packs v2's data for a GPU machine, inside its 64 MiB transfer limit: train.bin (uint16 tokens,
~80 MB) compressed with lzma (xz: 21.5 MB), valid.bin, valid.jsonl (the held-out documents, for
the perplexity measured on the card), tokenizer.model and data_stats.json. Reads --data only; writes --out (a git-ignored folder under tmp/ that the `run`
call names in `carry`). --max-tokens keeps only a prefix (the CPU smoke test)."""
import argparse, hashlib, json, lzma, os, shutil

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="tmp/zoo/chat-v2-data")
    ap.add_argument("--out", default="tmp/zoo/chat-v3-pack")
    ap.add_argument("--max-tokens", type=int, default=0)
    ap.add_argument("--preset", type=int, default=6)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    tok = np.memmap(os.path.join(a.data, "train.bin"), dtype=np.uint16, mode="r")
    if a.max_tokens:
        tok = tok[: a.max_tokens]
    raw = np.ascontiguousarray(tok).astype("<u2").tobytes()
    path = os.path.join(a.out, "train.bin.xz")
    with lzma.open(path + ".tmp", "wb", preset=a.preset) as f:
        for i in range(0, len(raw), 1 << 22):
            f.write(raw[i : i + (1 << 22)])
    os.replace(path + ".tmp", path)
    for name in ("valid.bin", "valid.jsonl", "tokenizer.model", "data_stats.json"):
        shutil.copyfile(os.path.join(a.data, name), os.path.join(a.out, name))
    info = {"train_tokens": len(raw) // 2, "train_sha256": hashlib.sha256(raw).hexdigest(), "xz_bytes": os.path.getsize(path)}
    json.dump(info, open(os.path.join(a.out, "pack.json"), "w"), indent=1)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
