#!/usr/bin/env python3
"""Held-out perplexity (per token) and bits per character of a checkpoint, per text source, on
the documents prepare_data.py held out (every 50th). Prints JSON."""
import argparse, json, math, os, sys
import torch
import torch.nn.functional as F
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Cfg, Llama


@torch.no_grad()
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--max-tokens-per-kind", type=int, default=60000)
    a = ap.parse_args()
    torch.set_num_threads(1)
    ck = torch.load(a.ckpt, map_location="cpu")
    m = Llama(Cfg(**ck["cfg"])).eval(); m.load_state_dict(ck["model"])
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.data, "tokenizer.model"))
    T = ck["cfg"]["ctx"]
    by = {}
    for line in open(os.path.join(a.data, "valid.jsonl")):
        d = json.loads(line)
        by.setdefault(d["kind"], []).append(d["text"])
    out, tn, tt, tc = {}, 0.0, 0, 0
    for kind, texts in sorted(by.items()):
        nll, ntok, nchar = 0.0, 0, 0
        for text in texts:
            ids = [sp.bos_id()] + sp.encode(text)
            for s in range(0, len(ids) - 1, T):
                chunk = torch.tensor(ids[s:s + T + 1])
                if chunk.numel() < 2:
                    break
                logits = m(chunk[None, :-1])[0]
                nll += F.cross_entropy(logits, chunk[1:], reduction="sum").item()
                ntok += chunk.numel() - 1
            nchar += len(text)
            if ntok >= a.max_tokens_per_kind:
                break
        out[kind] = {"tokens": ntok, "perplexity": round(math.exp(nll / ntok), 2), "bits_per_char": round(nll / nchar / math.log(2), 3)}
        tn += nll; tt += ntok; tc += nchar
    out["all"] = {"tokens": tt, "perplexity": round(math.exp(tn / tt), 2), "bits_per_char": round(tn / tc / math.log(2), 3)}
    out["checkpoint"] = {"step": ck["step"], "tokens_seen": ck["tokens"], "minutes": round(ck["minutes"], 1), "params": ck["params"]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
