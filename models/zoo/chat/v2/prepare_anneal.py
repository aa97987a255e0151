#!/usr/bin/env python3
"""Builds anneal.bin: the instruction-style part of the training set, for the export's decay.

The decay (train.py --cooldown-steps) draws --anneal-share of its sequences from this file and
the rest from train.bin, as in annealing on high-quality data at the end of a warmup-stable-decay
run. It holds the training conversations only ("chat": short direct answers, system messages,
follow-ups, "I don't know", JSON), with the JSON ones twice. Nothing held out is in it: it is
read from train.jsonl, which prepare_data.py wrote from the training split.

usage: prepare_anneal.py --data tmp/zoo/chat-v2-data   (writes --data/anneal.bin)"""
import argparse, json, os, random
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed", type=int, default=4096)
    a = ap.parse_args()
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.data, "tokenizer.model"))
    texts = []
    with open(os.path.join(a.data, "train.jsonl")) as f:
        for line in f:
            d = json.loads(line)
            if d["kind"] != "chat":
                continue
            texts.append(d["text"])
            if "JSON" in d["text"].split("<|im_end|>", 1)[0]:
                texts.append(d["text"])
    random.Random(a.seed).shuffle(texts)
    chunks = []
    for i in range(0, len(texts), 2000):
        for ids in sp.encode(texts[i:i + 2000]):
            chunks.append(np.asarray([sp.bos_id()] + ids + [sp.eos_id()], dtype=np.uint16))
    arr = np.concatenate(chunks)
    tmp = os.path.join(a.data, "anneal.bin.tmp")
    arr.tofile(tmp)
    os.replace(tmp, os.path.join(a.data, "anneal.bin"))
    print(json.dumps({"anneal_documents": len(texts), "anneal_tokens": int(arr.size)}))


if __name__ == "__main__":
    main()
