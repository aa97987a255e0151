#!/usr/bin/env python3
"""v3's held-out measures next to v2's committed ones (the served export's: v2/eval/perplexity.json
and answers-v2.json; general-v2.json for the short general questions). Perplexity (overall and per kind of document) must be lower, relevance
(share and strictShare) higher, JSON at least v2's and at least 99% (v2 sits at that ceiling),
the long conversation accepted. Prints a table and the verdict; writes comparison.json beside v3's."""
import argparse, json, os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--v2-perplexity", default="models/zoo/chat/v2/eval/perplexity.json")
    ap.add_argument("--v2-answers", default="models/zoo/chat/v2/eval/answers-v2.json")
    ap.add_argument("--v2-general", default="models/zoo/chat/v2/eval/general-v2.json")
    ap.add_argument("--v3", required=True, help="folder with v3's perplexity.json and answers-v3.json")
    a = ap.parse_args()
    p2, p3 = json.load(open(a.v2_perplexity)), json.load(open(os.path.join(a.v3, "perplexity.json")))
    r2, r3 = json.load(open(a.v2_answers)), json.load(open(os.path.join(a.v3, "answers-v3.json")))
    rows = []  # (measure, v2, v3, better)
    for kind in sorted(k for k in p2 if isinstance(p2[k], dict) and "perplexity" in p2[k] and k in p3):
        rows.append((f"perplexity {kind}", p2[kind]["perplexity"], p3[kind]["perplexity"], p3[kind]["perplexity"] < p2[kind]["perplexity"]))
    for m in ("share", "strictShare"):
        rows.append((f"relevance {m}", r2["relevance"][m], r3["relevance"][m], r3["relevance"][m] > r2["relevance"][m]))
    j2, j3 = r2["json"]["parses"], r3["json"]["parses"]
    rows.append(("json parses", j2, j3, j3 >= j2 and j3 >= 0.99))
    if "general" in r3 and os.path.exists(a.v2_general):
        g2, g3 = json.load(open(a.v2_general))["general"]["share"], r3["general"]["share"]
        rows.append(("general questions", g2, g3, g3 > g2))
    l2, l3 = bool((r2.get("long") or {}).get("accepted")), bool((r3.get("long") or {}).get("accepted"))
    rows.append(("long conversation accepted", l2, l3, l3))
    beats = all(r[3] for r in rows)
    print(f"{'measure':<28} {'v2':>8} {'v3':>8}  better")
    for m, x, y, ok in rows:
        print(f"{m:<28} {x!s:>8} {y!s:>8}  {'yes' if ok else 'NO'}")
    ck = p3.get("checkpoint", {})
    print(f"v3: {ck.get('params')} parameters, {ck.get('tokens_seen')} training tokens, questions {r3['relevance']['questions']}, JSON tries {r3['json']['tries']}")
    print("verdict: v3 beats v2 on every measure: serve it" if beats else "verdict: v3 does NOT beat v2 on every measure: keep serving v2")
    out = {"beats_v2_on_every_measure": beats, "rows": [{"measure": m, "v2": x, "v3": y, "better": ok} for m, x, y, ok in rows]}
    json.dump(out, open(os.path.join(a.v3, "comparison.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
