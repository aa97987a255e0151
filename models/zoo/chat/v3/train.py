#!/usr/bin/env python3
"""Trains the chat model v3 (28 M parameters: v2's llama architecture, tokenizer and data, wider)
in one GPU session of about 10 minutes, or resumes it (--resume FOLDER).

The script keeps to a wall-clock budget (--wall-s, counted from its start, imports included):
compilation comes out of it, then the learning rate follows the time left (linear warm-up over
--warmup steps, constant, then a linear decay to zero over the last --decay share of the
training time), and the state is saved --reserve-s before the end. So it ends inside the `run`
tool's limit whatever the card's speed. State every --save-s and at the end (state.py: fp16
weight shards + state.pt, each under 16 MiB). Data: train.bin or train.bin.xz (pack_data.py),
all on the device; windows of --seq + 1 tokens in a new random order each epoch, each epoch's
windows shifted by a different offset; the position (epoch, window) is saved. --max-epochs (8)
ends the schedule early when a fast card would repeat the data more often than that.

CUDA: bf16 autocast, fused AdamW, PyTorch's scaled_dot_product_attention (flash), torch.compile
(off with COMPILE=0; falls back to eager if the first compiled step fails). CPU (Debian's torch
1.13, the smoke test --tiny): fp32, model.py's own attention."""
import time

T_START = time.time()
import argparse, hashlib, json, lzma, math, os, signal, sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from model import Cfg, Llama  # noqa: E402  (the architecture export_gguf.py writes)
import state as st_io  # noqa: E402

ARCH = dict(dim=512, layers=8, heads=8, kv_heads=4, ffn=1408, ctx=2048)  # 27.8 M parameters with vocab 8,192
TINY = dict(dim=64, layers=2, heads=2, kv_heads=1, ffn=128, ctx=2048)


def forward(model, idx, fast):
    x = model.embed(idx)
    for b in model.blocks:
        x = b(x, model.cos, model.sin, None if fast else model.mask)
    return model.norm(x) @ model.embed.weight.t()


def load_tokens(folder):
    path = os.path.join(folder, "train.bin")
    raw = open(path, "rb").read() if os.path.exists(path) else lzma.open(path + ".xz").read()
    return np.frombuffer(raw, dtype="<u2"), hashlib.sha256(raw).hexdigest()


class Windows:
    """Epochs of non-overlapping (T+1)-token windows in a seeded random order; resumable by (epoch, index)."""

    def __init__(self, tok, T, device, epoch=0, index=0, seed=3):
        self.tok = torch.from_numpy(tok.astype(np.int32)).to(device)
        self.T, self.device, self.seed = T, device, seed
        self.epoch, self.index = epoch, index
        self._order()

    def _order(self):
        self.offset = (self.epoch * 997) % self.T
        n = (len(self.tok) - self.offset - 1) // self.T
        g = torch.Generator().manual_seed(self.seed * 100003 + self.epoch)
        self.perm = torch.randperm(n, generator=g).to(self.device)

    def take(self, B):
        if self.index + B > len(self.perm):
            self.epoch, self.index = self.epoch + 1, 0
            self._order()
        starts = self.offset + self.perm[self.index:self.index + B] * self.T
        self.index += B
        x = self.tok[starts[:, None] + torch.arange(self.T + 1, device=self.device)].long()
        return x[:, :-1], x[:, 1:]

    def progress(self):
        return self.epoch + self.index / len(self.perm)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="pack_data.py's folder (or v2's data folder)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume", default="", help="a folder holding state.pt and its weight shards")
    ap.add_argument("--wall-s", type=float, default=510, help="the whole script ends within this many seconds of its start")
    ap.add_argument("--reserve-s", type=float, default=25, help="kept at the end for the last evaluation and save")
    ap.add_argument("--max-steps", type=int, default=0, help="instead of time: this many steps (the schedule follows steps)")
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--micro", type=int, default=32, help="sequences per micro-batch")
    ap.add_argument("--accum", type=int, default=2, help="micro-batches per step (131,072 tokens a step by default)")
    ap.add_argument("--lr", type=float, default=1.5e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--rewarmup", type=int, default=50)
    ap.add_argument("--max-epochs", type=float, default=8, help="this run's schedule ends (decay included) after this many passes over train.bin, if time lasts")
    ap.add_argument("--decay", type=float, default=0.3, help="share of the training time spent decaying the learning rate to 0")
    ap.add_argument("--eval-s", type=float, default=60)
    ap.add_argument("--save-s", type=float, default=180)
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "2")))
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(3)
    dev = a.device
    cuda = dev.startswith("cuda")
    import sentencepiece as spm
    tok_path = os.path.join(a.data, "tokenizer.model")
    vocab = spm.SentencePieceProcessor(model_file=tok_path).get_piece_size()
    tok_sha = hashlib.sha256(open(tok_path, "rb").read()).hexdigest()

    resumed, sd = st_io.load(a.resume) if a.resume else (None, None)
    cfg = Cfg(**resumed["cfg"]) if resumed else Cfg(vocab=vocab, **(TINY if a.tiny else ARCH))
    assert cfg.vocab == vocab, "tokenizer does not match the checkpoint"
    assert not resumed or resumed["tokenizer_sha256"] == tok_sha, "the data's tokenizer is not the one this state was trained with"
    model = Llama(cfg)
    if sd:
        model.load_state_dict(sd)
    model.to(dev)
    nparams = sum(p.numel() for p in model.parameters())
    decay = [p for p in model.parameters() if p.dim() == 2]
    nodecay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": nodecay, "weight_decay": 0.0}]
    try:
        opt = torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, 0.95), fused=cuda)
        fused = cuda
    except TypeError:  # torch 1.13 (CPU smoke test) has no fused AdamW
        opt, fused = torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, 0.95)), False
    step, tokens, minutes, epoch, index = 0, 0, 0.0, 0, 0
    if resumed:
        st_io.restore_moments(opt, model, resumed, fused)
        step, tokens, minutes, epoch, index = resumed["step"], resumed["tokens"], resumed["minutes"], resumed["epoch"], resumed["window"]
    tok, data_sha = load_tokens(a.data)
    valid = np.fromfile(os.path.join(a.data, "valid.bin"), dtype="<u2")
    data = Windows(tok, a.seq, dev, epoch, index)

    # scaled_dot_product_attention (torch >= 2.0) must give model.py's numbers: checked once, in fp32;
    # if not, model.py's attention (correct, slower, and far more memory at 2,048 tokens)
    fast = hasattr(F, "scaled_dot_product_attention")
    if fast:
        with torch.no_grad():
            x = data.tok[:2 * 256].long().view(2, 256)
            diff = (forward(model, x, True) - forward(model, x, False)).abs().max().item()
        print(json.dumps({"sdpa_vs_model_py_max_abs_diff": diff}), flush=True)
        fast = diff < 1e-3
        if not fast and cuda:  # the explicit T x T scores of model.py's attention: a quarter of the micro-batch
            a.micro, a.accum = max(1, a.micro // 4), a.accum * 4
    if cuda:  # after the check, which must compare plain fp32
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True

    def loss_of(x, y):
        with torch.autocast("cuda" if cuda else "cpu", dtype=torch.bfloat16, enabled=cuda):
            logits = forward(model, x, fast)
        return F.cross_entropy(logits.float().view(-1, cfg.vocab), y.reshape(-1))

    compiled = None
    if cuda and hasattr(torch, "compile") and os.environ.get("COMPILE", "1") != "0":
        compiled = torch.compile(loss_of)

    @torch.no_grad()
    def evaluate():
        """Held-out loss on 16 fixed windows of --seq tokens from valid.bin."""
        model.eval()
        n = 16
        stride = max(a.seq + 1, (len(valid) - a.seq - 1) // n)
        xs = [valid[i * stride:i * stride + a.seq + 1] for i in range(n) if i * stride + a.seq + 1 <= len(valid)]
        tot = 0.0
        for i in range(0, len(xs), 4):
            x = torch.from_numpy(np.stack(xs[i:i + 4]).astype(np.int64)).to(dev)
            tot += loss_of(x[:, :-1], x[:, 1:]).item() * len(xs[i:i + 4])
        model.train()
        return tot / len(xs)

    os.makedirs(a.out, exist_ok=True)
    log = open(os.path.join(a.out, "train_log.jsonl"), "a")
    stop = {"flag": False}
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.update(flag=True))
    start_step, start_epoch = step, data.progress()
    head = {"params": nparams, "cfg": cfg.to_dict(), "device": torch.cuda.get_device_name() if cuda else "cpu", "torch": torch.__version__,
            "fast_attention": fast, "compile": compiled is not None, "step": step, "tokens": tokens, "train_tokens": len(tok),
            "step_tokens": a.micro * a.accum * a.seq, "startup_s": round(time.time() - T_START, 1)}
    print(json.dumps(head), flush=True)

    def meta():
        return {"cfg": cfg.to_dict(), "step": step, "tokens": tokens, "minutes": minutes, "params": nparams, "epoch": data.epoch,
                "window": data.index, "seq": a.seq, "data_sha256": data_sha, "tokenizer_sha256": tok_sha, "lr": a.lr}

    def save():
        t = time.time()
        files = st_io.save(a.out, model, opt, meta())
        print(json.dumps({"saved": files, "step": step, "s": round(time.time() - t, 1)}), flush=True)

    def lr_at(p):
        warm = min(1.0, (step + 1) / a.warmup) if start_step == 0 else min(1.0, (step - start_step + 1) / a.rewarmup)
        return a.lr * warm * min(1.0, max(0.0, (1 - p) / a.decay))

    end_at = T_START + a.wall_s - a.reserve_s
    t_train0 = None  # set after the first (compiling) step: the schedule divides the time left after it
    last_eval = last_save = t_last = time.time()
    losses, t_rate, tok_rate = [], time.time(), 0
    p = 0.0
    while True:
        now = time.time()
        if t_train0 is not None:
            p = (step - start_step) / a.max_steps if a.max_steps else (now - t_train0) / max(1e-9, end_at - t_train0)
            p = max(p, (data.progress() - start_epoch) / a.max_epochs)
        done = stop["flag"] or p >= 1 or (not a.max_steps and now >= end_at)
        minutes += (now - t_last) / 60; t_last = now
        if done or now - last_eval >= a.eval_s:
            vl = evaluate()
            rec = {"step": step, "tokens": tokens, "epoch": round(data.progress(), 3), "lr": lr_at(p), "train_loss": round(sum(losses) / max(1, len(losses)), 4),
                   "val_loss": round(vl, 4), "val_ppl": round(math.exp(vl), 2), "minutes": round(minutes, 2), "elapsed_s": round(now - T_START, 1)}
            losses = []
            print(json.dumps(rec), flush=True); log.write(json.dumps(rec) + "\n"); log.flush()
            last_eval = time.time()
        if done or time.time() - last_save >= a.save_s:
            save(); last_save = time.time()
        if done:
            break
        lr = lr_at(p)
        for g in opt.param_groups:
            g["lr"] = lr
        batches = [data.take(a.micro) for _ in range(a.accum)]

        def grads(fn):
            opt.zero_grad(set_to_none=True)
            tot = 0.0
            for x, y in batches:
                loss = fn(x, y)
                (loss / a.accum).backward()
                tot += loss.detach()
            return tot

        if compiled is not None:
            try:
                tot = grads(compiled)
            except Exception as e:  # noqa: BLE001  (a compiler failure must not cost the session's GPU time: redo the step eagerly)
                print(json.dumps({"compile_failed": repr(e)[:600]}), flush=True)
                compiled = None
                torch._dynamo.reset()
        if compiled is None:
            tot = grads(loss_of)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1; tokens += a.micro * a.accum * a.seq; tok_rate += a.micro * a.accum * a.seq
        if t_train0 is None:
            tot = tot.item()
            t_train0 = time.time()
            print(json.dumps({"first_step_s": round(t_train0 - now, 1), "loss": round(tot / a.accum, 3), "train_s_left": round(end_at - t_train0, 1)}), flush=True)
            t_rate, tok_rate = time.time(), 0
            losses.append(tot / a.accum)
            continue
        if step % 10 == 0 or a.tiny:
            losses.append(tot.item() / a.accum)
        if step % 50 == 0 or a.tiny:
            dt = time.time() - t_rate
            print(f"step {step} loss {losses[-1] if losses else float('nan'):.3f} lr {lr:.2e} tokens {tokens} epoch {data.progress():.2f} "
                  f"tok/s {tok_rate / max(dt, 1e-9):.0f} p {p:.3f} elapsed {time.time() - T_START:.0f}s", flush=True)
            t_rate, tok_rate = time.time(), 0


if __name__ == "__main__":
    main()
