#!/usr/bin/env python3
"""Prompt adherence of the image model, measured with the engine's own sampling algorithm.

Colour: for "a <colour> <shape> on a <background> background" (8 colours x 6 shapes, backgrounds
rotating, fixed seeds), each pixel is assigned the nearest palette colour; the background is the
most common class on the border, the object colour is the most common other class. A sample
counts when the object colour equals the colour word (and, separately, the background too).
Shape: a 5-nearest-neighbour classifier on object masks of 12,000 training renders (its accuracy
on fresh renders is reported alongside)."""
import argparse, json, os, random, sys
import numpy as np
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import load_denoiser, cosine_alphas_cumprod
from sampler import generate
from prepare_data import COLOURS, BACKGROUNDS, SHAPES, SIZES, draw_shape

PALETTE = {**COLOURS, "gray": (128, 128, 128)}
NAMES = list(PALETTE)
PAL = np.array([PALETTE[n] for n in NAMES], dtype=np.float32)


def classes(img):
    d = ((img.reshape(-1, 1, 3).astype(np.float32) - PAL[None]) ** 2).sum(-1)
    return d.argmin(1).reshape(img.shape[:2])


def colours(img):
    c = classes(img)
    border = np.concatenate([c[0], c[-1], c[:, 0], c[:, -1]])
    bg = np.bincount(border, minlength=len(NAMES)).argmax()
    inner = c[c != bg]
    obj = np.bincount(inner, minlength=len(NAMES)).argmax() if inner.size else bg
    return NAMES[obj], NAMES[bg], (c != bg)


def mask_feature(mask):
    m = mask.astype(np.float32)
    if m.sum() < 4:
        return np.zeros(32 * 32, np.float32)
    ys, xs = np.nonzero(m)
    cy, cx = int(round(ys.mean())), int(round(xs.mean()))
    m = np.roll(np.roll(m, 16 - cy, 0), 16 - cx, 1)  # centre the object: position is not the shape
    return (m / np.sqrt(m.sum())).reshape(-1)


def shape_classifier(n=12000, seed=11):
    rng = random.Random(seed)
    feats, labels = [], []
    for _ in range(n):
        shape, col = rng.choice(SHAPES), rng.choice(list(COLOURS))
        bg = rng.choice([b for b in BACKGROUNDS if b != col])
        img = np.asarray(draw_shape(shape, COLOURS[col], BACKGROUNDS[bg], SIZES[rng.choice(list(SIZES))], rng))
        feats.append(mask_feature(colours(img)[2])); labels.append(SHAPES.index(shape))
    F, L = np.stack(feats), np.array(labels)

    def predict(mask):
        sims = F @ mask_feature(mask)
        top = np.argsort(-sims)[:5]
        return SHAPES[np.bincount(L[top], minlength=len(SHAPES)).argmax()]
    return predict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--guidance", type=float, default=8.0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    ck = torch.load(a.ckpt, map_location="cpu")
    m = load_denoiser(ck)
    index = {w: i for i, w in enumerate(ck["vocab"])}
    ac = cosine_alphas_cumprod()
    predict = shape_classifier()
    rng = random.Random(99)
    fresh = [(s, np.asarray(draw_shape(s, COLOURS[c], (250, 250, 250) if c != "white" else (15, 15, 15), 0.36, rng)))
             for s in SHAPES for c in COLOURS if True][:48]
    clf_acc = float(np.mean([predict(colours(img)[2]) == s for s, img in fresh]))
    bgs = [b for b in BACKGROUNDS]
    rows, tiles = [], []
    for ci, col in enumerate(COLOURS):
        for si, shape in enumerate(SHAPES):
            bg = [b for b in bgs if b != col][(ci + si) % 4]
            prompt = f"a {col} {shape} on a {bg} background"
            for seed in range(a.seeds):
                img = generate(m, ac, index, prompt, seed=1000 + seed, steps=a.steps, guidance=a.guidance)
                obj, bgc, mask = colours(img)
                rows.append({"prompt": prompt, "seed": 1000 + seed, "colour": obj, "background": bgc, "shape": predict(mask),
                             "colour_ok": obj == col, "background_ok": bgc == bg, "shape_ok": predict(mask) == shape})
                tiles.append(img)
    res = {"samples": len(rows), "steps": a.steps, "guidance": a.guidance,
           "colour_adherence": round(float(np.mean([r["colour_ok"] for r in rows])), 3),
           "background_adherence": round(float(np.mean([r["background_ok"] for r in rows])), 3),
           "shape_adherence": round(float(np.mean([r["shape_ok"] for r in rows])), 3),
           "shape_classifier_accuracy_on_renders": round(clf_acc, 3),
           "per_colour": {c: round(float(np.mean([r["colour_ok"] for r in rows if r["prompt"].startswith(f"a {c} ")])), 2) for c in COLOURS},
           "checkpoint": {"step": ck["step"], "images_seen": ck["images_seen"], "minutes": round(ck["minutes"], 1)}}
    os.makedirs(a.out, exist_ok=True)
    json.dump({"summary": res, "rows": rows}, open(os.path.join(a.out, "eval.json"), "w"), indent=1)
    from PIL import Image
    grid = np.concatenate([np.concatenate(tiles[r * 12:(r + 1) * 12], 1) for r in range(len(tiles) // 12)], 0)
    Image.fromarray(grid).resize((grid.shape[1] * 2, grid.shape[0] * 2), Image.NEAREST).save(os.path.join(a.out, "samples.png"))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
