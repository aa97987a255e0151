#!/usr/bin/env python3
"""Trains the chat model until a wall-clock deadline. The learning rate follows a cosine over the
time budget (not a step count), so the run ends annealed whenever the deadline is. Evaluates
held-out loss every --eval-min minutes and keeps the best checkpoint."""
import argparse, datetime as dt, json, math, os, random, sys, time
import torch
import torch.nn.functional as F
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Cfg, Llama

WEIGHTS = {"chat": 0.40, "kjv": 0.22, "wordnet": 0.16, "fortune": 0.16, "devil": 0.06}


def encode_docs(path, sp, bos, eos):
    by_kind, chars = {}, {}
    for line in open(path):
        d = json.loads(line)
        ids = [bos] + sp.encode(d["text"]) + [eos]
        by_kind.setdefault(d["kind"], []).append(torch.tensor(ids, dtype=torch.int16))
        chars[d["kind"]] = chars.get(d["kind"], 0) + len(d["text"])
    return by_kind, chars


def stream(by_kind, rng):
    kinds = [k for k in WEIGHTS if k in by_kind]
    w = [WEIGHTS[k] for k in kinds]
    while True:
        k = rng.choices(kinds, w)[0]
        yield by_kind[k][rng.randrange(len(by_kind[k]))]


def batches(by_kind, B, T, rng):
    it = stream(by_kind, rng)
    buf = torch.empty(0, dtype=torch.int16)
    while True:
        while buf.numel() < B * (T + 1):
            buf = torch.cat([buf, next(it)])
        x = buf[: B * (T + 1)].view(B, T + 1).long()
        buf = buf[B * (T + 1):]
        yield x[:, :-1], x[:, 1:]


@torch.no_grad()
def evaluate(model, valid, T):
    model.eval()
    out = {}
    for kind, docs in valid.items():
        flat = torch.cat(docs).long()
        n = (flat.numel() - 1) // T
        n = min(n, 60)
        tot, cnt = 0.0, 0
        for i in range(0, n, 8):
            j = min(n, i + 8)
            x = torch.stack([flat[k * T:(k + 1) * T] for k in range(i, j)])
            y = torch.stack([flat[k * T + 1:(k + 1) * T + 1] for k in range(i, j)])
            loss = F.cross_entropy(model(x).reshape(-1, model.c.vocab), y.reshape(-1), reduction="sum")
            tot += loss.item(); cnt += y.numel()
        out[kind] = (tot, cnt)
    model.train()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--until", required=True, help="UTC HH:MM deadline")
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=704)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--eval-min", type=float, default=6)
    ap.add_argument("--max-steps", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(1234)
    rng = random.Random(1234)
    now = dt.datetime.utcnow()
    hh, mm = map(int, a.until.split(":"))
    deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    if deadline <= now:
        deadline += dt.timedelta(days=1)
    budget = (deadline - now).total_seconds()
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.data, "tokenizer.model"))
    t0 = time.time()
    train, _ = encode_docs(os.path.join(a.data, "train.jsonl"), sp, sp.bos_id(), sp.eos_id())
    valid, vchars = encode_docs(os.path.join(a.data, "valid.jsonl"), sp, sp.bos_id(), sp.eos_id())
    print(f"encoded in {time.time()-t0:.0f}s; train tokens", {k: sum(d.numel() for d in v) for k, v in train.items()}, flush=True)
    c = Cfg(vocab=sp.get_piece_size(), dim=a.dim, layers=a.layers, heads=a.heads, kv_heads=a.kv_heads, ffn=a.ffn, ctx=a.ctx)
    model = Llama(c)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"params {nparams}", flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    nodecay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": nodecay, "weight_decay": 0.0}], lr=a.lr, betas=(0.9, 0.95))
    os.makedirs(a.out, exist_ok=True)
    log = open(os.path.join(a.out, "train_log.jsonl"), "a")
    start = time.time()
    budget -= (start - t0)
    warm = 150
    best, step, tokens, last_eval = float("inf"), 0, 0, start
    gen = batches(train, a.batch, a.ctx, rng)
    while True:
        el = time.time() - start
        done = el >= budget or (a.max_steps and step >= a.max_steps)
        if done or time.time() - last_eval >= a.eval_min * 60:
            ev = evaluate(model, valid, a.ctx)
            tot = sum(v[0] for v in ev.values()); cnt = sum(v[1] for v in ev.values())
            vloss = tot / cnt
            rec = {"step": step, "tokens": tokens, "minutes": round(el / 60, 2), "val_loss": round(vloss, 4), "val_ppl": round(math.exp(vloss), 2),
                   "per_kind_ppl": {k: round(math.exp(v[0] / v[1]), 2) for k, v in ev.items()}}
            print(json.dumps(rec), flush=True); log.write(json.dumps(rec) + "\n"); log.flush()
            if vloss < best:
                best = vloss
                torch.save({"cfg": c.to_dict(), "model": model.state_dict(), "step": step, "tokens": tokens, "minutes": el / 60,
                            "val_loss": vloss, "params": nparams, "eval": rec}, os.path.join(a.out, "best.pt.tmp"))
                os.replace(os.path.join(a.out, "best.pt.tmp"), os.path.join(a.out, "best.pt"))
            last_eval = time.time()
            if done:
                break
        frac = min(1.0, el / budget)
        lr = a.lr * min(1.0, (step + 1) / warm) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = next(gen)
        loss = F.cross_entropy(model(x).reshape(-1, c.vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1; tokens += x.numel()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.3f} lr {lr:.2e} tok/s {tokens/(time.time()-start):.0f} min {el/60:.1f}", flush=True)


if __name__ == "__main__":
    main()
