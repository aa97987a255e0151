#!/usr/bin/env python3
"""Trains the chat model v2 on CPU (or a GPU where there is one), resumably.

Schedule with no fixed end (warmup-stable-decay): linear warm-up, then a constant learning rate
for as long as training accumulates across sessions; an export takes a short linear decay to
zero on a copy (--cooldown-steps), leaving the stable run untouched for the next session.

Data: train.bin read in order from a saved token position (wrapping to the next epoch), packed
into sequences of 512 tokens, and of 2,048 tokens on every fourth step (the full context, so the
model is trained at that length). Each step sees --step-tokens tokens in micro-batches of 2,048.

State (--out/state.pt, every --save-min minutes and on exit, SIGTERM/SIGINT included): weights,
AdamW state, step, tokens, cumulative minutes, data position and epoch. --resume takes that file
or the committed compact form (resume/state.pt, see checkpoint.py)."""
import argparse, datetime as dt, hashlib, json, math, os, signal, sys, time
import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from model import Cfg, Llama  # noqa: E402  (the v1 module: same architecture, larger config)
import checkpoint as ckpt  # noqa: E402

ARCH = dict(dim=256, layers=8, heads=4, kv_heads=2, ffn=704, ctx=2048)
TINY = dict(dim=64, layers=2, heads=2, kv_heads=1, ffn=128, ctx=2048)  # --tiny: smoke tests of the pipeline


def forward(model, idx, grad_ckpt):
    x = model.embed(idx)
    for b in model.blocks:
        x = checkpoint(b, x, model.cos, model.sin, model.mask, use_reentrant=False) if grad_ckpt else b(x, model.cos, model.sin, model.mask)
    return model.norm(x) @ model.embed.weight.t()


def seq_len(step, ctx):
    return ctx if step % 4 == 3 else 512


class Data:
    def __init__(self, path, pos=0, epoch=0):
        self.tok = np.memmap(path, dtype=np.uint16, mode="r")
        self.pos, self.epoch = pos % len(self.tok), epoch

    def take(self, B, T):
        need = B * (T + 1)
        if self.pos + need > len(self.tok):
            self.pos, self.epoch = 0, self.epoch + 1
        x = torch.from_numpy(self.tok[self.pos:self.pos + need].astype(np.int64)).view(B, T + 1)
        self.pos += need
        return x[:, :-1], x[:, 1:]


@torch.no_grad()
def evaluate(model, valid, vocab):
    """Held-out loss on a fixed sample: 24 x 512 tokens and 3 x 2,048 tokens from valid.bin."""
    model.eval()
    tok = valid.tok
    out = {}
    for T, n in ((512, 24), (2048, 3)):
        tot, cnt = 0.0, 0
        stride = max(T + 1, (len(tok) - T - 1) // n)
        for i in range(n):
            s = i * stride
            if s + T + 1 > len(tok):
                break
            x = torch.from_numpy(tok[s:s + T + 1].astype(np.int64))[None]
            logits = forward(model, x[:, :-1], False)
            tot += F.cross_entropy(logits.reshape(-1, vocab), x[:, 1:].reshape(-1), reduction="sum").item(); cnt += T
        out[T] = tot / max(cnt, 1)
    model.train()
    return out


def lr_at(step, a, start_step, cooldown):
    if cooldown:
        return a.lr_now * max(0.0, 1 - (step - start_step) / a.cooldown_steps)
    warm = min(1.0, (step + 1) / a.warmup)
    rewarm = min(1.0, (step - start_step + 1) / a.rewarmup) if start_step > 0 else 1.0
    return a.lr * warm * rewarm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--until", default="", help="UTC HH:MM to stop (saves state)")
    ap.add_argument("--max-steps", type=int, default=0, help="stop after this many steps in this run")
    ap.add_argument("--resume", default="")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--rewarmup", type=int, default=20)
    ap.add_argument("--step-tokens", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "2")))
    ap.add_argument("--eval-min", type=float, default=10)
    ap.add_argument("--save-min", type=float, default=10)
    ap.add_argument("--cooldown-steps", type=int, default=0, help="export branch: decay the LR to 0 over this many steps, save export.pt, keep state.pt")
    ap.add_argument("--anneal-share", type=float, default=0.0,
                    help="in the decay, the share of micro-batches drawn from --data/anneal.bin (prepare_anneal.py) when it exists; 0: train.bin only")
    ap.add_argument("--tiny", action="store_true", help="a very small model, to test the pipeline")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(2048)
    os.makedirs(a.out, exist_ok=True)
    stats = json.load(open(os.path.join(a.data, "data_stats.json")))
    import sentencepiece as spm
    tok_path = os.path.join(a.data, "tokenizer.model")
    vocab = spm.SentencePieceProcessor(model_file=tok_path).get_piece_size()
    tok_sha = hashlib.sha256(open(tok_path, "rb").read()).hexdigest()

    state = ckpt.expand(torch.load(a.resume, map_location="cpu")) if a.resume else None
    cfg = Cfg(**state["cfg"]) if state else Cfg(vocab=vocab, **(TINY if a.tiny else ARCH))
    assert cfg.vocab == vocab, "tokenizer does not match the checkpoint"
    # The same vocabulary size is not the same tokenizer: token ids must mean what they meant.
    assert not state or state.get("tokenizer_sha256") in (None, tok_sha), "the data's tokenizer is not the one this state was trained with"
    model = Llama(cfg)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    nodecay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": nodecay, "weight_decay": 0.0}], lr=a.lr, betas=(0.9, 0.95))
    step, tokens, minutes, pos, epoch = 0, 0, 0.0, 0, 0
    if state:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step, tokens, minutes, pos, epoch = state["step"], state["tokens"], state["minutes"], state["data_pos"], state["epoch"]
        if state.get("data_sha256") != stats["train"]["sha256"]:
            print("warning: train.bin differs from the one this state was trained on; continuing at the same position", flush=True)
    model.to(a.device)
    nparams = sum(p.numel() for p in model.parameters())
    data = Data(os.path.join(a.data, "train.bin"), pos, epoch)
    valid = Data(os.path.join(a.data, "valid.bin"))
    cooldown = a.cooldown_steps > 0
    start_step = step
    anneal_path = os.path.join(a.data, "anneal.bin")
    anneal = Data(anneal_path, pos) if cooldown and a.anneal_share > 0 and os.path.exists(anneal_path) else None
    micro_seen = 0
    a.lr_now = lr_at(step, a, -1, False) if cooldown else 0
    deadline = None
    if a.until:
        now = dt.datetime.utcnow(); hh, mm = map(int, a.until.split(":"))
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
        deadline += dt.timedelta(days=1) if deadline <= now else dt.timedelta(0)
    stop = {"flag": False}
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.update(flag=True))
    log = open(os.path.join(a.out, "train_log.jsonl"), "a")
    print(json.dumps({"params": nparams, "cfg": cfg.to_dict(), "step": step, "tokens": tokens, "minutes": round(minutes, 1), "data_pos": data.pos,
                      "epoch": data.epoch, "train_tokens": len(data.tok), "cooldown": a.cooldown_steps,
                      "anneal_share": a.anneal_share if anneal else 0}), flush=True)

    def full_state():
        return {"cfg": cfg.to_dict(), "model": {k: v.detach().cpu() for k, v in model.state_dict().items()}, "optimizer": opt.state_dict(),
                "step": step, "tokens": tokens, "minutes": minutes, "data_pos": data.pos, "epoch": data.epoch, "params": nparams,
                "data_sha256": stats["train"]["sha256"], "tokenizer_sha256": tok_sha, "lr": a.lr, "warmup": a.warmup}

    def save(name, st):
        torch.save(st, os.path.join(a.out, name + ".tmp")); os.replace(os.path.join(a.out, name + ".tmp"), os.path.join(a.out, name))

    t_last, last_eval, last_save, losses = time.time(), time.time(), time.time(), []
    while True:
        done = stop["flag"] or (deadline and dt.datetime.utcnow() >= deadline) or (a.max_steps and step - start_step >= a.max_steps) \
            or (cooldown and step - start_step >= a.cooldown_steps)
        now = time.time(); minutes += (now - t_last) / 60; t_last = now
        if done or now - last_eval >= a.eval_min * 60:
            ev = evaluate(model, valid, cfg.vocab)
            rec = {"step": step, "tokens": tokens, "minutes": round(minutes, 2), "epoch": round(data.epoch + data.pos / len(data.tok), 4),
                   "lr": lr_at(step, a, start_step, cooldown), "train_loss": round(sum(losses) / max(1, len(losses)), 4),
                   "val_loss_512": round(ev[512], 4), "val_ppl_512": round(math.exp(ev[512]), 2), "val_loss_2048": round(ev[2048], 4),
                   "val_ppl_2048": round(math.exp(ev[2048]), 2), "phase": ("anneal" if anneal else "cooldown") if cooldown else "stable", "when": dt.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ")}
            losses = []
            print(json.dumps(rec), flush=True); log.write(json.dumps(rec) + "\n"); log.flush()
            last_eval = time.time()
        if (done or now - last_save >= a.save_min * 60) and not cooldown:
            save("state.pt", full_state()); last_save = time.time()
        if done:
            if cooldown:
                save("export.pt", full_state())
            break
        lr = lr_at(step, a, start_step, cooldown)
        for g in opt.param_groups:
            g["lr"] = lr
        T = seq_len(step, cfg.ctx)
        micro_b = max(1, 2048 // T)
        n_micro = max(1, a.step_tokens // (micro_b * T))
        opt.zero_grad(set_to_none=True)
        tot = 0.0
        for _ in range(n_micro):
            # every micro-batch whose running share of anneal draws falls below --anneal-share comes from anneal.bin
            from_anneal = anneal is not None and int((micro_seen + 1) * a.anneal_share) > int(micro_seen * a.anneal_share)
            x, y = (anneal if from_anneal else data).take(micro_b, T)
            micro_seen += 1
            x, y = x.to(a.device), y.to(a.device)
            loss = F.cross_entropy(forward(model, x, T > 512).reshape(-1, cfg.vocab), y.reshape(-1)) / n_micro
            loss.backward(); tot += loss.item()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1; tokens += n_micro * micro_b * T; losses.append(tot)
        if step % 25 == 0:
            print(f"step {step} T {T} loss {tot:.3f} lr {lr:.2e} tokens {tokens} min {minutes:.1f}", flush=True)


if __name__ == "__main__":
    main()
