"""The sampling algorithm of apps/media's OnnxDiffusionEngine, step for step (same seeded noise,
same DDIM schedule, same guidance), so figures measured here transfer to the served model."""
import math
import numpy as np
import torch


class Mulberry32:
    def __init__(self, seed):
        self.a = seed & 0xFFFFFFFF

    def next(self):
        self.a = (self.a + 0x6D2B79F5) & 0xFFFFFFFF
        t = self.a
        t = _imul(t ^ (t >> 15), t | 1)
        t = (t + _imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF ^ t
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296.0

    def normal(self):
        u1 = 1.0 - self.next()
        u2 = self.next()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def _imul(a, b):
    return (a * b) & 0xFFFFFFFF


def noise(seed, n):
    r = Mulberry32(seed)
    return np.array([r.normal() for _ in range(n)], dtype=np.float32)


def timesteps(steps, strength=1.0, T=1000):
    top = (T - 1) * strength
    return [int(round(top - i * top / steps)) for i in range(steps)] if steps > 1 else [int(round(top))]


def tokenize(prompt, index, max_tokens=16):
    import re
    words = re.sub(r"[^a-z ]", " ", prompt.lower()).split()
    ids = [index.get(w, 1) for w in words][:max_tokens]
    return ids + [0] * (max_tokens - len(ids))


@torch.no_grad()
def generate(model, ac, index, prompt, seed, steps=20, guidance=4.0, init=None, strength=1.0, size=32):
    """Returns HxWx3 uint8. `init` is an HxWx3 uint8 image for image-to-image."""
    x = torch.from_numpy(noise(seed, 3 * size * size)).view(1, 3, size, size)
    ts = timesteps(steps, strength if init is not None else 1.0)
    if init is not None:
        x0 = torch.from_numpy(init).permute(2, 0, 1)[None].float() / 127.5 - 1
        a = ac[ts[0]]
        x = a.sqrt() * x0 + (1 - a).sqrt() * x
    cond = torch.tensor([tokenize(prompt, index), [0] * 16])
    for i, t in enumerate(ts):
        a = ac[t]
        ap = ac[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0)
        e = model(x.repeat(2, 1, 1, 1), torch.tensor([float(t)] * 2), cond)
        eps = e[1:] + guidance * (e[:1] - e[1:])
        x0 = ((x - (1 - a).sqrt() * eps) / a.sqrt()).clamp(-1, 1)
        eps = (x - a.sqrt() * x0) / (1 - a).sqrt()
        x = ap.sqrt() * x0 + (1 - ap).sqrt() * eps
    return ((x[0].permute(1, 2, 0).clamp(-1, 1) + 1) * 127.5).round().byte().numpy()
