#!/usr/bin/env python3
"""Renders the image model's training set at 32x32 RGB.

1. Procedural shapes (our own code, no external data): a shape (circle, square, triangle, star,
   ring, cross) in one of 8 colours and 3 sizes, at a jittered position, on one of 5 background
   colours. Captions name those axes in varying templates ("a red star on a blue background",
   "a small green ring", ...), so every caption word maps to something visible.
2. Emoji from Debian's fonts-noto-color-emoji (SIL Open Font License 1.1), rendered on white and
   captioned with their Unicode names (lower-cased).
Writes images.npy (uint8 [N,32,32,3]), captions.json and vocab.json."""
import argparse, json, math, os, random, re, unicodedata
import numpy as np
from PIL import Image, ImageDraw, ImageFont

COLOURS = {"red": (220, 30, 30), "orange": (245, 140, 20), "yellow": (245, 220, 30), "green": (30, 160, 50),
           "blue": (30, 70, 220), "purple": (140, 40, 180), "black": (15, 15, 15), "white": (250, 250, 250)}
BACKGROUNDS = {"white": (250, 250, 250), "black": (15, 15, 15), "gray": (128, 128, 128), "blue": (30, 70, 220), "yellow": (245, 220, 30)}
SHAPES = ["circle", "square", "triangle", "star", "ring", "cross"]
SIZES = {"small": 0.26, "": 0.36, "large": 0.46}
S = 32
UP = 4


def jitter(c, rng, a=18):
    return tuple(int(min(255, max(0, v + rng.randint(-a, a)))) for v in c)


def draw_shape(shape, colour, bg, size, rng):
    big = S * UP
    im = Image.new("RGB", (big, big), jitter(bg, rng, 10))
    d = ImageDraw.Draw(im)
    r = size * big * rng.uniform(0.9, 1.1)
    cx = big / 2 + rng.uniform(-1, 1) * (big / 2 - r - 2) * 0.6
    cy = big / 2 + rng.uniform(-1, 1) * (big / 2 - r - 2) * 0.6
    col = jitter(colour, rng)
    if shape == "circle":
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=col)
    elif shape == "ring":
        d.ellipse([cx - r, cy - r, cx + r, cy + r], outline=col, width=int(r * 0.4))
    elif shape == "square":
        d.rectangle([cx - r * 0.85, cy - r * 0.85, cx + r * 0.85, cy + r * 0.85], fill=col)
    elif shape == "triangle":
        d.polygon([(cx, cy - r), (cx - r * 0.95, cy + r * 0.75), (cx + r * 0.95, cy + r * 0.75)], fill=col)
    elif shape == "star":
        pts = []
        for i in range(10):
            rr = r if i % 2 == 0 else r * 0.45
            a = -math.pi / 2 + i * math.pi / 5
            pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        d.polygon(pts, fill=col)
    elif shape == "cross":
        w = r * 0.35
        d.rectangle([cx - r, cy - w, cx + r, cy + w], fill=col)
        d.rectangle([cx - w, cy - r, cx + w, cy + r], fill=col)
    return im.resize((S, S), Image.LANCZOS)


def caption(shape, colour, bgname, size, rng):
    obj = " ".join(w for w in [size, colour, shape] if w)
    r = rng.random()
    if r < 0.55:
        return f"a {obj} on a {bgname} background"
    if r < 0.75:
        return f"a {obj}"
    if r < 0.85:
        return f"{obj} on {bgname}"
    return f"a {bgname} background with a {obj}"


def procedural(n, rng):
    imgs, caps = [], []
    for _ in range(n):
        shape = rng.choice(SHAPES)
        colour = rng.choice(list(COLOURS))
        bgname = rng.choice([b for b in BACKGROUNDS if b != colour])
        size = rng.choice(list(SIZES))
        imgs.append(np.asarray(draw_shape(shape, COLOURS[colour], BACKGROUNDS[bgname], SIZES[size], rng)))
        caps.append(caption(shape, colour, bgname, size, rng))
    return imgs, caps


def emoji():
    font = ImageFont.truetype("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", 109)
    imgs, caps = [], []
    for cp in list(range(0x1F300, 0x1FAFF)) + list(range(0x2600, 0x27C0)):
        ch = chr(cp)
        try:
            name = unicodedata.name(ch)
        except ValueError:
            continue
        if font.getmask(ch).getbbox() is None:
            continue
        im = Image.new("RGBA", (136, 128), (255, 255, 255, 255))
        d = ImageDraw.Draw(im)
        try:
            d.text((0, 0), ch, font=font, embedded_color=True)
        except Exception:
            continue
        rgb = im.convert("RGB")
        arr = np.asarray(rgb)
        if (arr < 245).sum() < 200:  # nothing drawn (missing glyph)
            continue
        bbox = Image.fromarray((255 - arr.min(axis=2)).astype(np.uint8)).getbbox()
        crop = rgb.crop(bbox)
        side = max(crop.size)
        canvas = Image.new("RGB", (side + 8, side + 8), (255, 255, 255))
        canvas.paste(crop, ((side + 8 - crop.size[0]) // 2, (side + 8 - crop.size[1]) // 2))
        imgs.append(np.asarray(canvas.resize((S, S), Image.LANCZOS)))
        caps.append(re.sub(r"[^a-z ]", " ", name.lower()).strip())
    return imgs, caps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", type=int, default=60000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(7)
    pi, pc = procedural(a.shapes, rng)
    ei, ec = emoji()
    imgs = np.stack(pi + ei)
    caps = pc + ec
    kinds = ["shape"] * len(pc) + ["emoji"] * len(ec)
    words = {}
    for c in caps:
        for w in c.split():
            words[w] = words.get(w, 0) + 1
    vocab = ["<pad>", "<unk>"] + sorted(w for w, n in words.items() if n >= 1)
    np.save(os.path.join(a.out, "images.npy"), imgs)
    json.dump({"captions": caps, "kinds": kinds}, open(os.path.join(a.out, "captions.json"), "w"))
    json.dump(vocab, open(os.path.join(a.out, "vocab.json"), "w"))
    Image.fromarray(np.concatenate([np.concatenate(list(imgs[i * 8:(i + 1) * 8]), 1) for i in range(4)] +
                                   [np.concatenate(list(imgs[-16:-8]), 1), np.concatenate(list(imgs[-8:]), 1)], 0)).save(os.path.join(a.out, "preview.png"))
    print(len(pc), "shapes", len(ec), "emoji", len(vocab), "words")


if __name__ == "__main__":
    main()
