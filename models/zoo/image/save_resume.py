#!/usr/bin/env python3
"""Writes the committed starting point for the next training session: a run's EMA weights in FP16
with its vocabulary, architecture and step/image/minute counts (no optimizer state), and its
checksum. `train.py --resume` continues from it with a fresh optimizer."""
import argparse, hashlib, json, os
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True, help="folder for ema-fp16.pt and SHA256SUMS")
    a = ap.parse_args()
    ck = torch.load(a.ckpt, map_location="cpu")
    keep = {k: ck[k] for k in ("vocab", "step", "images_seen", "minutes", "params", "loss", "arch") if k in ck}
    keep["ema"] = {k: v.half() if v.is_floating_point() else v for k, v in ck["ema"].items()}
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "ema-fp16.pt")
    torch.save(keep, path + ".tmp")
    os.replace(path + ".tmp", path)
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    open(os.path.join(a.out, "SHA256SUMS"), "w").write(f"{digest}  resume/ema-fp16.pt\n")
    print(json.dumps({"file": path, "bytes": os.path.getsize(path), "sha256": digest, "step": ck["step"]}))


if __name__ == "__main__":
    main()
