#!/usr/bin/env python3
"""Trains the text-to-image denoiser (epsilon prediction, cosine schedule, 10% empty captions for
classifier-free guidance, EMA weights) until a UTC wall-clock deadline; saves the EMA checkpoint
every --save-min minutes. --xattn adds per-word cross-attention; resuming a checkpoint trained
without it keeps every trained weight and starts the new blocks at zero (no change in output).
--min-snr weights each timestep's loss by min(SNR, gamma)/SNR (Hang et al., 2023), which spends
less of the model's capacity on fine detail at low noise and more on layout and colour."""
import argparse, copy, datetime as dt, json, math, os, random, sys, time
import numpy as np
import torch
import torch.nn.functional as F
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Denoiser, cosine_alphas_cumprod, tokenize


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--until", required=True)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--emoji-frac", type=float, default=0.15)
    ap.add_argument("--save-min", type=float, default=5)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--xattn", action="store_true", help="per-word cross-attention in the UNet")
    ap.add_argument("--min-snr", type=float, default=0.0, help="gamma of min-SNR loss weighting (0: plain MSE)")
    ap.add_argument("--resume", help="checkpoint to continue from (weights, optimizer when saved, step and image counts)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    now = dt.datetime.utcnow()
    hh, mm = map(int, a.until.split(":"))
    deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    if deadline <= now:
        deadline += dt.timedelta(days=1)
    budget = (deadline - now).total_seconds()
    imgs = torch.from_numpy(np.load(os.path.join(a.data, "images.npy"))).permute(0, 3, 1, 2).float() / 127.5 - 1
    meta = json.load(open(os.path.join(a.data, "captions.json")))
    vocab = json.load(open(os.path.join(a.data, "vocab.json")))
    index = {w: i for i, w in enumerate(vocab)}
    toks = torch.tensor([tokenize(c, index) for c in meta["captions"]])
    kinds = np.array(meta["kinds"])
    shape_idx, emoji_idx = np.where(kinds == "shape")[0], np.where(kinds == "emoji")[0]
    arch = {"xattn": True} if a.xattn else {}
    model = Denoiser(len(vocab), **arch)
    ema = copy.deepcopy(model).eval()
    nparams = sum(p.numel() for p in model.parameters())
    print("params", nparams, flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.0)
    ac = cosine_alphas_cumprod()
    os.makedirs(a.out, exist_ok=True)
    step = 0; seen = 0; avg = None; prior_minutes = 0.0
    if a.resume:
        ck = torch.load(a.resume)
        strict = ck.get("arch", {}) == arch  # else: new blocks keep their (output-neutral) initialisation
        ema.load_state_dict(ck["ema"], strict=strict)
        model.load_state_dict(ck.get("model", ck["ema"]), strict=strict)
        if "opt" in ck and strict:
            opt.load_state_dict(ck["opt"])
        step, seen, avg, prior_minutes = ck["step"], ck["images_seen"], ck["loss"], ck["minutes"]
        print(json.dumps({"resumed": a.resume, "step": step, "seen": seen, "minutes": round(prior_minutes, 1)}), flush=True)
    first_step, first_seen = step, seen
    start = time.time(); last_save = start
    while True:
        el = time.time() - start
        done = el >= budget or (a.max_steps and step >= a.max_steps)
        if done or time.time() - last_save >= a.save_min * 60:
            torch.save({"ema": ema.state_dict(), "model": model.state_dict(), "opt": opt.state_dict(), "vocab": vocab, "step": step,
                        "images_seen": seen, "minutes": prior_minutes + el / 60, "params": nparams, "loss": avg, "arch": arch}, os.path.join(a.out, "ema.pt.tmp"))
            os.replace(os.path.join(a.out, "ema.pt.tmp"), os.path.join(a.out, "ema.pt"))
            print(json.dumps({"step": step, "seen": seen, "minutes": round(prior_minutes + el / 60, 1), "loss": avg}), flush=True)
            last_save = time.time()
            if done:
                break
        ne = int(rng.binomial(a.batch, a.emoji_frac))
        idx = np.concatenate([rng.choice(shape_idx, a.batch - ne), rng.choice(emoji_idx, ne)])
        x0 = imgs[idx]
        if rng.random() < 0.5:  # emoji and shapes are symmetric enough that flips only add data
            x0 = x0.flip(3)
        tk = toks[idx].clone()
        tk[torch.rand(a.batch) < 0.1] = 0
        t = torch.randint(0, 1000, (a.batch,))
        noise = torch.randn_like(x0)
        abar = ac[t][:, None, None, None]
        xt = abar.sqrt() * x0 + (1 - abar).sqrt() * noise
        err = ((model(xt, t.float(), tk) - noise) ** 2).mean(dim=(1, 2, 3))
        if a.min_snr > 0:
            snr = ac[t] / (1 - ac[t])
            err = err * snr.clamp(max=a.min_snr) / snr
        loss = err.mean()
        frac = min(1.0, el / budget)
        lr = a.lr * min(1.0, (step - first_step + 1) / 200) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        decay = min(0.999, (1 + step) / (10 + step))
        with torch.no_grad():
            for pe, pm in zip(ema.parameters(), model.parameters()):
                pe.mul_(decay).add_(pm, alpha=1 - decay)
        step += 1; seen += a.batch
        avg = loss.item() if avg is None else 0.98 * avg + 0.02 * loss.item()
        if step % 100 == 0:
            print(f"step {step} loss {avg:.4f} lr {lr:.2e} img/s {(seen - first_seen) / (time.time() - start):.1f} min {prior_minutes + el / 60:.1f}", flush=True)


if __name__ == "__main__":
    main()
