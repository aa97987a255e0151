#!/usr/bin/env python3
"""Held-out perplexity (per token) and bits per character of a v2 checkpoint (train.py's state.pt
or export.pt), per kind of document, on valid.jsonl: only packages and manual pages whose source
package is held out, and held-out dictionary entries (prepare_data.py). Windows of the full
context (2,048 tokens). Prints JSON."""
import argparse, json, math, os, sys
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from model import Cfg, Llama  # noqa: E402
import checkpoint as ckpt  # noqa: E402


@torch.no_grad()
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--max-tokens-per-kind", type=int, default=40000)
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    st = ckpt.expand(torch.load(a.ckpt, map_location="cpu"))
    m = Llama(Cfg(**st["cfg"])).eval()
    m.load_state_dict(st["model"])
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.data, "tokenizer.model"))
    T = st["cfg"]["ctx"]
    by = {}
    for line in open(os.path.join(a.data, "valid.jsonl")):
        d = json.loads(line)
        by.setdefault(d["kind"], []).append(d["text"])
    out, tn, tt, tc = {}, 0.0, 0, 0
    for kind, texts in sorted(by.items()):
        nll, ntok, nchar = 0.0, 0, 0
        for text in texts:
            ids = [sp.bos_id()] + sp.encode(text) + [sp.eos_id()]
            for s in range(0, len(ids) - 1, T):
                chunk = torch.tensor(ids[s:s + T + 1])
                if chunk.numel() < 2:
                    break
                nll += F.cross_entropy(m(chunk[None, :-1])[0], chunk[1:], reduction="sum").item()
                ntok += chunk.numel() - 1
            nchar += len(text) + 1
            if ntok >= a.max_tokens_per_kind:
                break
        out[kind] = {"documents_scored": texts.index(text) + 1, "tokens": ntok, "perplexity": round(math.exp(nll / ntok), 2),
                     "bits_per_char": round(nll / nchar / math.log(2), 3)}
        tn += nll; tt += ntok; tc += nchar
    out["all"] = {"tokens": tt, "perplexity": round(math.exp(tn / tt), 2), "bits_per_char": round(tn / tc / math.log(2), 3)}
    out["checkpoint"] = {"step": st["step"], "tokens_seen": st["tokens"], "minutes": round(st["minutes"], 1), "params": st["params"]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
