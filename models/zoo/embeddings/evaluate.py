#!/usr/bin/env python3
"""Scores an .svec model on similarity-set.json exactly as apps/chat's WordVectorsEngine embeds
(SIF-weighted mean, common component removed, unit length); prints JSON."""
import json, os, re, struct, sys
import numpy as np


def load(path):
    b = open(path, "rb").read()
    assert b[:4] == b"SVEC"
    n = struct.unpack("<I", b[4:8])[0]
    h = json.loads(b[8:8 + n])
    v = np.frombuffer(b[8 + n:], dtype="<f2").astype(np.float32).reshape(h["count"], h["dim"])
    return h, v


def embedder(h, v):
    index = {w: i for i, w in enumerate(h["words"])}
    pat = re.compile(h["tokenPattern"])
    wts = np.array(h["weights"], np.float32)
    pc = np.array(h["removeComponent"], np.float32)

    def embed(s):
        ids = [index[w] for w in pat.findall(s.lower()) if w in index]
        if not ids:
            return np.zeros(h["dim"], np.float32)
        x = (wts[ids, None] * v[ids]).sum(0)
        x /= np.linalg.norm(x) + 1e-12
        if pc.size:
            x -= (x @ pc) * pc
            x /= np.linalg.norm(x) + 1e-12
        return x
    return embed


def main():
    h, v = load(sys.argv[1])
    embed = embedder(h, v)
    items = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "similarity-set.json")))["items"]
    rows, wins, rel, unrel = [], 0, [], []
    for it in items:
        a, r, u = embed(it["anchor"]), embed(it["related"]), embed(it["unrelated"])
        sr, su = float(a @ r), float(a @ u)
        wins += sr > su
        rel.append(sr); unrel.append(su)
        rows.append({"anchor": it["anchor"], "related": round(sr, 3), "unrelated": round(su, 3), "ok": sr > su})
    print(json.dumps({"items": len(items), "related_above_unrelated": round(wins / len(items), 3),
                      "mean_cos_related": round(float(np.mean(rel)), 3), "mean_cos_unrelated": round(float(np.mean(unrel)), 3),
                      "failures": [r for r in rows if not r["ok"]]}, indent=1))


if __name__ == "__main__":
    main()
