"""Training state of the chat model v2, and its compact committed form.

Full state (tmp/, per run): fp32 weights, AdamW state, step, tokens, minutes, data position.
Compact state (committed, resume/state.pt): fp16 weights, AdamW's second moment quantised to 8
bits per value in blocks of 256 (absmax scale per block, stored as its square root, which has a
far smaller range), and the same counters (step, tokens, minutes, data position, epoch). The
first moment is not kept: with beta1 = 0.9 it is an average over the last ~10 steps and is rebuilt
during train.py's 20-step re-warm-up; keeping it would add 1 byte per parameter (8 MB) to the
60 MB zoo budget. Loading the compact form otherwise restores the run up to that rounding."""
import torch

BLOCK = 256


def q8(t):
    flat = t.detach().float().flatten()
    pad = (-flat.numel()) % BLOCK
    blocks = torch.cat([flat, flat.new_zeros(pad)]).view(-1, BLOCK)
    scale = blocks.abs().amax(1).clamp_min(1e-30)
    q = torch.round(blocks / scale[:, None] * 127).to(torch.int8)
    return {"q": q, "scale": scale.half() if scale.max() < 6e4 and scale.min() > 6e-8 else scale, "shape": list(t.shape)}


def dq8(d):
    x = d["q"].float() * (d["scale"].float()[:, None] / 127)
    n = 1
    for s in d["shape"]:
        n *= s
    return x.flatten()[:n].view(d["shape"])


def compact(state):
    """Full training state -> compact state (see module doc)."""
    opt = state["optimizer"]
    moments = {}
    for pid, st in opt["state"].items():
        moments[pid] = {"step": float(st["step"]), "sqrt_v": q8(st["exp_avg_sq"].sqrt())}
    out = {k: v for k, v in state.items() if k not in ("model", "optimizer")}
    out["model_fp16"] = {k: v.half() for k, v in state["model"].items()}
    out["optimizer_q8"] = {"param_groups": opt["param_groups"], "moments": moments}
    return out


def expand(state):
    """Compact or full state -> full state (fp32 weights, AdamW state dict)."""
    if "model" in state:
        return state
    out = {k: v for k, v in state.items() if k not in ("model_fp16", "optimizer_q8")}
    out["model"] = {k: v.float() for k, v in state["model_fp16"].items()}
    oq = state["optimizer_q8"]
    st = {}
    for pid, m in oq["moments"].items():
        v = dq8(m["sqrt_v"]).pow(2)
        st[pid] = {"step": torch.tensor(m["step"]), "exp_avg": torch.zeros_like(v), "exp_avg_sq": v}
    out["optimizer"] = {"state": st, "param_groups": oq["param_groups"]}
    return out
