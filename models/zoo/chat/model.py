"""A llama-architecture decoder, written so that its tensors map one to one onto llama.cpp's GGUF
layout: RMSNorm, RoPE on adjacent pairs (llama.cpp's "normal" rope), SwiGLU, grouped-query
attention, tied input/output embeddings."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Cfg:
    def __init__(self, vocab=4096, dim=256, layers=4, heads=8, kv_heads=4, ffn=704, ctx=256, eps=1e-5, rope_base=10000.0):
        self.vocab, self.dim, self.layers, self.heads, self.kv_heads, self.ffn, self.ctx, self.eps, self.rope_base = vocab, dim, layers, heads, kv_heads, ffn, ctx, eps, rope_base

    def to_dict(self):
        return dict(self.__dict__)


class RMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(head_dim, ctx, base):
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    ang = torch.outer(torch.arange(ctx).float(), inv)  # [T, hd/2]
    return ang.cos(), ang.sin()


def apply_rope(x, cos, sin):
    # x: [B, H, T, hd]; pairs (0,1), (2,3), ... rotate together
    x2 = x.reshape(*x.shape[:-1], -1, 2)
    a, b = x2[..., 0], x2[..., 1]
    T = x.shape[2]
    c, s = cos[:T], sin[:T]
    return torch.stack((a * c - b * s, a * s + b * c), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        hd = c.dim // c.heads
        self.c, self.hd = c, hd
        self.attn_norm = RMSNorm(c.dim, c.eps)
        self.q = nn.Linear(c.dim, c.dim, bias=False)
        self.k = nn.Linear(c.dim, c.kv_heads * hd, bias=False)
        self.v = nn.Linear(c.dim, c.kv_heads * hd, bias=False)
        self.o = nn.Linear(c.dim, c.dim, bias=False)
        self.ffn_norm = RMSNorm(c.dim, c.eps)
        self.gate = nn.Linear(c.dim, c.ffn, bias=False)
        self.up = nn.Linear(c.dim, c.ffn, bias=False)
        self.down = nn.Linear(c.ffn, c.dim, bias=False)

    def forward(self, x, cos, sin, mask):
        """mask None: PyTorch's fused causal attention (torch >= 2.0; v3 on a GPU), else the explicit scores."""
        B, T, _ = x.shape
        c, hd = self.c, self.hd
        h = self.attn_norm(x)
        q = self.q(h).view(B, T, c.heads, hd).transpose(1, 2)
        k = self.k(h).view(B, T, c.kv_heads, hd).transpose(1, 2)
        v = self.v(h).view(B, T, c.kv_heads, hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        rep = c.heads // c.kv_heads
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        if mask is None:  # the fp32 rope tables promote q and k under autocast
            y = F.scaled_dot_product_attention(q.to(v.dtype), k.to(v.dtype), v, is_causal=True)
        else:
            y = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + mask[:T, :T]
            y = y.softmax(-1) @ v
        y = y.transpose(1, 2).reshape(B, T, c.dim)
        x = x + self.o(y)
        h = self.ffn_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab, c.dim)
        self.blocks = nn.ModuleList([Block(c) for _ in range(c.layers)])
        self.norm = RMSNorm(c.dim, c.eps)
        cos, sin = rope_tables(c.dim // c.heads, c.ctx, c.rope_base)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.register_buffer("mask", torch.full((c.ctx, c.ctx), float("-inf")).triu(1), persistent=False)
        for n, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
            if n.endswith("o.weight") or n.endswith("down.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * c.layers))

    def forward(self, idx):
        x = self.embed(idx)
        for b in self.blocks:
            x = b(x, self.cos, self.sin, self.mask)
        return self.norm(x) @ self.embed.weight.t()
