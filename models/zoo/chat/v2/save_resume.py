#!/usr/bin/env python3
"""Writes a run's training state (train.py's state.pt) in the compact committed form
(checkpoint.py: fp16 weights, 8-bit AdamW second moment, counters, data position), with the run's
tokenizer and their checksums, so
the next session continues the same run: `train.py --resume models/zoo/chat/v2/resume/state.pt`."""
import argparse, hashlib, json, os, shutil, sys
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checkpoint as ckpt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--out", required=True, help="folder for state.pt, tokenizer.model and SHA256SUMS")
    ap.add_argument("--tokenizer", required=True, help="the run's tokenizer.model: the state's weights only make sense with it")
    a = ap.parse_args()
    st = torch.load(a.state, map_location="cpu")
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "state.pt")
    torch.save(ckpt.compact(st), path + ".tmp")
    os.replace(path + ".tmp", path)
    tok = os.path.join(a.out, "tokenizer.model")
    if os.path.abspath(a.tokenizer) != os.path.abspath(tok):
        shutil.copyfile(a.tokenizer, tok)
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    tok_digest = hashlib.sha256(open(tok, "rb").read()).hexdigest()
    open(os.path.join(a.out, "SHA256SUMS"), "w").write(f"{digest}  state.pt\n{tok_digest}  tokenizer.model\n")
    print(json.dumps({"file": path, "bytes": os.path.getsize(path), "sha256": digest, "step": st["step"], "tokens": st["tokens"], "minutes": round(st["minutes"], 1)}))


if __name__ == "__main__":
    main()
