#!/usr/bin/env python3
"""Perplexity on text the model never saw in any form. prepare_data.py holds out whole documents,
but its chat examples quote verses, glosses, fortunes and definitions drawn from all of the text,
so a held-out document's sentences may still occur inside training chat examples. This scores
only held-out KJV verses and WordNet entries whose text occurs nowhere in train.jsonl, each as its
own sequence (BOS + text). Prints JSON."""
import argparse, json, math, os, re, sys
import torch
import torch.nn.functional as F
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Cfg, Llama
import prepare_data


@torch.no_grad()
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--max-items", type=int, default=400)
    a = ap.parse_args()
    torch.set_num_threads(1)
    train = "\n".join(json.loads(l)["text"] for l in open(os.path.join(a.data, "train.jsonl")))
    valid = [json.loads(l) for l in open(os.path.join(a.data, "valid.jsonl"))]
    vk = [d["text"] for d in valid if d["kind"] == "kjv"]
    verses = [v for ch in prepare_data.kjv() if " ".join(ch) in vk for v in ch]
    unseen_kjv = [v for v in verses if v not in train][: a.max_items]
    wn_lines = [l for d in valid if d["kind"] == "wordnet" for l in d["text"].split("\n")]
    unseen_wn = []
    for l in wn_lines:
        definition = l.split(": ", 1)[1].split(".")[0] if ": " in l else l
        if definition not in train:
            unseen_wn.append(l)
    unseen_wn = unseen_wn[: a.max_items]
    ck = torch.load(a.ckpt, map_location="cpu")
    m = Llama(Cfg(**ck["cfg"])).eval(); m.load_state_dict(ck["model"])
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.data, "tokenizer.model"))
    out = {}
    for name, items in [("kjv_verses", unseen_kjv), ("wordnet_entries", unseen_wn)]:
        nll, ntok, nchar = 0.0, 0, 0
        for t in items:
            ids = torch.tensor([sp.bos_id()] + sp.encode(t)[: ck["cfg"]["ctx"]])
            nll += F.cross_entropy(m(ids[None, :-1])[0], ids[1:], reduction="sum").item()
            ntok += ids.numel() - 1; nchar += len(t)
        out[name] = {"items": len(items), "tokens": ntok, "perplexity": round(math.exp(nll / ntok), 2), "bits_per_char": round(nll / nchar / math.log(2), 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
