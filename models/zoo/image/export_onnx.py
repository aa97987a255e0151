#!/usr/bin/env python3
"""Exports the EMA denoiser to ONNX (inputs x [B,3,32,32] f32, t [B] f32, tokens [B,16] i64;
output eps [B,3,32,32]) and writes the sidecar JSON the engine reads (vocabulary, schedule)."""
import argparse, hashlib, json, os, sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import load_denoiser, cosine_alphas_cumprod, MAX_TOKENS


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True, help="path of the .onnx file; the .json sidecar is written beside it")
    ap.add_argument("--guidance", type=float, default=8.0, help="default guidance scale written to the sidecar")
    a = ap.parse_args()
    ck = torch.load(a.ckpt, map_location="cpu")
    vocab = ck["vocab"]
    m = load_denoiser(ck)
    x, t, tok = torch.randn(2, 3, 32, 32), torch.tensor([500.0, 20.0]), torch.zeros(2, MAX_TOKENS, dtype=torch.long)
    tok[0, :3] = torch.tensor([2, 3, 4])
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    tmp = a.out + ".tmp"
    torch.onnx.export(m, (x, t, tok), tmp, input_names=["x", "t", "tokens"], output_names=["eps"], opset_version=14,
                      dynamic_axes={"x": {0: "batch"}, "t": {0: "batch"}, "tokens": {0: "batch"}, "eps": {0: "batch"}})
    os.replace(tmp, a.out)
    side = {"format": "svc-diffusion-v1", "resolution": 32, "channels": 3, "prediction": "epsilon", "maxTokens": MAX_TOKENS,
            "timesteps": 1000, "alphasCumprod": [round(float(v), 8) for v in cosine_alphas_cumprod()],
            "defaults": {"steps": 20, "guidance": a.guidance}, "tokenizer": {"type": "word", "lowercase": True, "pad": 0, "unk": 1}, "vocab": vocab}
    json.dump(side, open(os.path.splitext(a.out)[0] + ".json", "w"))
    data = open(a.out, "rb").read()
    print(json.dumps({"file": a.out, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "params": ck["params"],
                      "step": ck["step"], "images_seen": ck["images_seen"], "minutes": round(ck["minutes"], 1)}))


if __name__ == "__main__":
    main()
