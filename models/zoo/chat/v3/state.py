"""v3's training state, written so that it comes back from a GPU machine (files of at most
16 MiB, 64 MiB in all): the weights in fp16, split into shards of at most 15.5 MiB
(weights-NN.pt), and state.pt with the config, counters, data position and AdamW's second moment
factored per matrix (row and column means, as Adafactor keeps it: a few kB instead of 4 bytes a
parameter). The first moment is not kept; with betas (0.9, 0.95) both moments average over the
last 10-20 steps and are rebuilt during the re-warm-up of a resumed run.

The weights saved are the run's last ones: a v3 run ends with its learning-rate decay, so the
state and the export are the same weights (keeping a pre-decay copy as v2 does would double the
size). A resumed run re-warms from them."""
import json, os

import torch

SHARD_BYTES = int(15.5 * 2**20)


def save(out, model, opt, meta):
    """Writes weights-NN.pt and state.pt into `out` (atomically per file); returns the file names."""
    os.makedirs(out, exist_ok=True)
    names = {id(p): n for n, p in model.named_parameters()}
    shards, cur, size = [], {}, 0
    for k, v in model.state_dict().items():
        t = v.detach().to("cpu", torch.float16)
        b = t.numel() * 2
        if cur and size + b > SHARD_BYTES:
            shards.append(cur); cur, size = {}, 0
        cur[k] = t; size += b
    shards.append(cur)
    files = []
    for i, sd in enumerate(shards):
        name = f"weights-{i:02d}.pt"
        _atomic(lambda p: torch.save(sd, p), os.path.join(out, name)); files.append(name)
    moments = {}
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p, {})
            if "exp_avg_sq" not in st:
                continue
            v = st["exp_avg_sq"].detach().float().cpu()
            moments[names[id(p)]] = {"row": v.mean(1), "col": v.mean(0), "mean": v.mean()} if v.dim() == 2 else {"full": v}
    state = dict(meta, shards=files, moments=moments, param_groups=[{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups])
    _atomic(lambda p: torch.save(state, p), os.path.join(out, "state.pt"))
    return files + ["state.pt"]


def load(folder):
    """state.pt and its shards -> (state dict without moments expanded, fp32 model state dict)."""
    st = torch.load(os.path.join(folder, "state.pt"), map_location="cpu")
    sd = {}
    for name in st["shards"]:
        sd.update({k: v.float() for k, v in torch.load(os.path.join(folder, name), map_location="cpu").items()})
    return st, sd


def restore_moments(opt, model, st, fused):
    """Second moments from their factored form; first moments zero; AdamW's step counter kept."""
    params = dict(model.named_parameters())
    for name, m in st["moments"].items():
        p = params[name]
        v = m["full"] if "full" in m else torch.outer(m["row"], m["col"]) / m["mean"].clamp_min(1e-30)
        step = torch.tensor(float(st["step"]), dtype=torch.float32, device=p.device if fused else "cpu")
        opt.state[p] = {"step": step, "exp_avg": torch.zeros_like(p), "exp_avg_sq": v.to(p.device, p.dtype)}


def export_ckpt(st, sd):
    """The form that export_gguf.py and v2/eval_perplexity.py read (train.py v2's export.pt)."""
    keys = ("cfg", "step", "tokens", "minutes", "params", "epoch", "data_sha256", "tokenizer_sha256")
    return dict({k: st[k] for k in keys if k in st}, model=sd)


def _atomic(write, path):
    write(path + ".tmp")
    os.replace(path + ".tmp", path)


def q8_roundtrip(t):
    """The weights llama.cpp computes with after export_gguf.py --ftype q8_0 (blocks of 32, fp16 absmax/127 scale)."""
    b = t.reshape(-1, 32)
    d = (b.abs().amax(1, keepdim=True) / 127).half().float()
    return (torch.round(b / torch.where(d == 0, torch.ones_like(d), d)).clamp(-127, 127) * d).view_as(t)


def main():
    import argparse
    ap = argparse.ArgumentParser(description="state folder -> export.pt for export_gguf.py and v2/eval_perplexity.py")
    ap.add_argument("folder")
    ap.add_argument("--export", required=True)
    ap.add_argument("--tokenizer", help="fails unless this is the tokenizer the state was trained with")
    ap.add_argument("--q8", action="store_true", help="round the matrices as the Q8_0 GGUF does, so perplexity measures the served weights")
    a = ap.parse_args()
    st, sd = load(a.folder)
    if a.tokenizer:
        import hashlib
        assert hashlib.sha256(open(a.tokenizer, "rb").read()).hexdigest() == st["tokenizer_sha256"], "the state was trained with another tokenizer"
    if a.q8:
        sd = {k: q8_roundtrip(v) if v.dim() == 2 else v for k, v in sd.items()}
    _atomic(lambda p: torch.save(export_ckpt(st, sd), p), a.export)
    print(json.dumps({k: v for k, v in st.items() if k not in ("moments", "param_groups", "cfg")}, default=str))


if __name__ == "__main__":
    main()
