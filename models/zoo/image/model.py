"""Text-conditioned denoiser for 32x32 RGB diffusion: a 2-layer word-level transformer encodes the
caption. Its mean-pooled vector (added to the timestep embedding) scales and shifts every UNet block
(FiLM); with `xattn` the UNet also cross-attends to the per-word vectors at 32, 16 and 8 px, so
"a blue star on a yellow background" can put each colour where its word says (one pooled vector
tends to swap object and background colours). Written with plain ops so torch.onnx.export
(opset 14) produces a graph onnxruntime runs."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

MAX_TOKENS = 16


class TextEncoder(nn.Module):
    def __init__(self, vocab, d=96, layers=2, heads=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(MAX_TOKENS, d))
        self.layers = nn.ModuleList()
        for _ in range(layers):
            self.layers.append(nn.ModuleDict({"n1": nn.LayerNorm(d), "qkv": nn.Linear(d, 3 * d), "o": nn.Linear(d, d),
                                              "n2": nn.LayerNorm(d), "f1": nn.Linear(d, 4 * d), "f2": nn.Linear(4 * d, d)}))
        self.heads, self.d = heads, d
        self.out = nn.LayerNorm(d)

    def forward(self, tokens):  # [B, L] int64, 0 = padding; all-padding = unconditional
        """-> (pooled [B, d], per-word [B, L, d], valid [B, L])"""
        B, L = tokens.shape
        valid = (tokens > 0).float()  # [B, L]
        x = self.emb(tokens) + self.pos[:L]
        bias = (1.0 - valid)[:, None, None, :] * -1e4
        hd = self.d // self.heads
        for l in self.layers:
            h = l["n1"](x)
            q, k, v = l["qkv"](h).split(self.d, dim=-1)
            q = q.reshape(B, L, self.heads, hd).transpose(1, 2)
            k = k.reshape(B, L, self.heads, hd).transpose(1, 2)
            v = v.reshape(B, L, self.heads, hd).transpose(1, 2)
            a = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + bias
            x = x + l["o"]((a.softmax(-1) @ v).transpose(1, 2).reshape(B, L, self.d))
            x = x + l["f2"](F.gelu(l["f1"](l["n2"](x))))
        pooled = (x * valid[..., None]).sum(1) / valid.sum(1, keepdim=True).clamp(min=1.0)
        return self.out(pooled) * valid.amax(1, keepdim=True), x, valid  # pooled is zero when there is no text


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    a = t.float()[:, None] * freqs[None]
    return torch.cat([a.sin(), a.cos()], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, cdim):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(8, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.film = nn.Linear(cdim, 2 * cout)
        self.n2, self.c2 = nn.GroupNorm(8, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, c):
        h = self.c1(F.silu(self.n1(x)))
        s, b = self.film(c)[:, :, None, None].chunk(2, dim=1)
        h = self.n2(h) * (1 + s) + b
        return self.skip(x) + self.c2(F.silu(h))


class Attn(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.n, self.qkv, self.o = nn.GroupNorm(8, ch), nn.Conv2d(ch, 3 * ch, 1), nn.Conv2d(ch, ch, 1)

    def forward(self, x):
        B, C, H, W = x.shape
        q, k, v = self.qkv(self.n(x)).reshape(B, 3, C, H * W).unbind(1)
        a = (q.transpose(1, 2) @ k / math.sqrt(C)).softmax(-1)  # [B, HW, HW]
        return x + self.o((v @ a.transpose(1, 2)).reshape(B, C, H, W))


class CrossAttn(nn.Module):
    """Pixels attend to the caption's words plus one learned "nothing" slot (the only slot of an
    unconditional pass). The output projection starts at zero, so adding these blocks to a trained
    model leaves its output unchanged until training teaches them something."""

    def __init__(self, ch, d, heads=4):
        super().__init__()
        self.n, self.q, self.o = nn.GroupNorm(8, ch), nn.Conv2d(ch, ch, 1), nn.Conv2d(ch, ch, 1)
        self.kn, self.kv = nn.LayerNorm(d), nn.Linear(d, 2 * ch)
        self.heads = heads
        nn.init.zeros_(self.o.weight); nn.init.zeros_(self.o.bias)

    def forward(self, x, ctx, bias):  # ctx [B, L, d], bias [B, 1, 1, L] (0 valid, -1e4 padding)
        B, C, H, W = x.shape
        hd = C // self.heads
        q = self.q(self.n(x)).reshape(B, self.heads, hd, H * W).transpose(2, 3)  # [B, h, HW, hd]
        k, v = self.kv(self.kn(ctx)).chunk(2, dim=-1)
        k = k.reshape(B, -1, self.heads, hd).transpose(1, 2)  # [B, h, L, hd]
        v = v.reshape(B, -1, self.heads, hd).transpose(1, 2)
        a = ((q @ k.transpose(2, 3)) / math.sqrt(hd) + bias).softmax(-1)  # [B, h, HW, L]
        return x + self.o((a @ v).transpose(2, 3).reshape(B, C, H, W))


class Denoiser(nn.Module):
    def __init__(self, vocab, ch=(32, 64, 128), tdim=128, xattn=False):
        super().__init__()
        self.text = TextEncoder(vocab)
        self.xattn = xattn
        if xattn:
            d = self.text.d
            self.null = nn.Parameter(torch.zeros(1, 1, d))
            self.x_d1, self.x_m, self.x_u1, self.x_u0 = CrossAttn(ch[1], d), CrossAttn(ch[2], d), CrossAttn(ch[1], d), CrossAttn(ch[0], d)
        else:
            self.x_d1 = self.x_m = self.x_u1 = self.x_u0 = None
        self.tdim = tdim
        self.cond = nn.Sequential(nn.Linear(tdim + self.text.d, 2 * tdim), nn.SiLU(), nn.Linear(2 * tdim, 2 * tdim))
        cd = 2 * tdim
        c0, c1, c2 = ch
        self.inp = nn.Conv2d(3, c0, 3, padding=1)
        self.d0 = ResBlock(c0, c0, cd)
        self.down0 = nn.Conv2d(c0, c1, 3, stride=2, padding=1)
        self.d1 = ResBlock(c1, c1, cd)
        self.down1 = nn.Conv2d(c1, c2, 3, stride=2, padding=1)
        self.m1, self.mattn, self.m2 = ResBlock(c2, c2, cd), Attn(c2), ResBlock(c2, c2, cd)
        self.up1 = nn.ConvTranspose2d(c2, c1, 4, stride=2, padding=1)
        self.u1 = ResBlock(2 * c1, c1, cd)
        self.up0 = nn.ConvTranspose2d(c1, c0, 4, stride=2, padding=1)
        self.u0 = ResBlock(2 * c0, c0, cd)
        self.outn, self.out = nn.GroupNorm(8, c0), nn.Conv2d(c0, 3, 3, padding=1)
        nn.init.zeros_(self.out.weight); nn.init.zeros_(self.out.bias)

    def forward(self, x, t, tokens):
        pooled, words, valid = self.text(tokens)
        c = self.cond(torch.cat([timestep_embedding(t, self.tdim), pooled], dim=-1))
        if self.xattn:
            ctx = torch.cat([self.null.expand(x.shape[0], 1, self.text.d), words], 1)
            bias = torch.cat([torch.zeros_like(valid[:, :1]), (1.0 - valid) * -1e4], 1)[:, None, None, :]
        words_at = lambda block, h: block(h, ctx, bias) if block is not None else h  # identity without xattn
        h0 = self.d0(self.inp(x), c)
        h1 = words_at(self.x_d1, self.d1(self.down0(h0), c))
        m = self.m2(words_at(self.x_m, self.mattn(self.m1(self.down1(h1), c))), c)
        u1 = words_at(self.x_u1, self.u1(torch.cat([self.up1(m), h1], 1), c))
        u0 = words_at(self.x_u0, self.u0(torch.cat([self.up0(u1), h0], 1), c))
        return self.out(F.silu(self.outn(u0)))


def load_denoiser(ck):
    """The EMA model of a checkpoint, with the architecture it was trained with (older checkpoints
    have no `arch` entry: the pooled-caption model)."""
    m = Denoiser(len(ck["vocab"]), **ck.get("arch", {})).eval()
    m.load_state_dict({k: v.float() for k, v in ck["ema"].items()})
    return m


def cosine_alphas_cumprod(T=1000, s=0.008):
    steps = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((steps + s) / (1 + s) * math.pi / 2) ** 2
    ac = (f / f[0])[1:]
    return ac.clamp(min=1e-5, max=0.9999).float()


def tokenize(caption, index):
    ids = [index.get(w, 1) for w in caption.lower().replace(",", " ").split()][:MAX_TOKENS]
    return ids + [0] * (MAX_TOKENS - len(ids))
