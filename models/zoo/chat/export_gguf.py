#!/usr/bin/env python3
"""Writes the trained checkpoint as a GGUF v3 llama model (F16 or Q8_0 matrices, F32 norms, tied output)
with its SentencePiece tokenizer and a ChatML chat template. Debian 12 has no python3-gguf, so
this is a minimal writer for exactly the fields llama.cpp reads."""
import argparse, hashlib, json, os, struct, sys
import numpy as np
import torch

GGUF_TYPES = {"u32": 4, "i32": 5, "f32": 6, "bool": 7, "str": 8, "arr": 9}
CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
ALIGN = 32


def s(x):
    b = x.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


class Writer:
    def __init__(self):
        self.kv, self.tensors = [], []

    def add(self, key, kind, value):
        out = s(key) + struct.pack("<I", GGUF_TYPES[kind])
        if kind == "u32": out += struct.pack("<I", value)
        elif kind == "i32": out += struct.pack("<i", value)
        elif kind == "f32": out += struct.pack("<f", value)
        elif kind == "bool": out += struct.pack("<?", value)
        elif kind == "str": out += s(value)
        self.kv.append(out)

    def arr(self, key, elem, values):
        out = s(key) + struct.pack("<II", GGUF_TYPES["arr"], GGUF_TYPES[elem]) + struct.pack("<Q", len(values))
        if elem == "str": out += b"".join(s(v) for v in values)
        elif elem == "f32": out += np.asarray(values, dtype="<f4").tobytes()
        elif elem == "i32": out += np.asarray(values, dtype="<i4").tobytes()
        self.kv.append(out)

    def tensor(self, name, t, f16, q8=False):
        a = t.detach().float().numpy()
        if q8 and f16:
            self.tensors.append((name, list(reversed(a.shape)), q8_0(a), 8))
            return
        a = a.astype("<f2" if f16 else "<f4")
        self.tensors.append((name, list(reversed(a.shape)), a.tobytes(), 1 if f16 else 0))

    def bytes(self):
        head = b"GGUF" + struct.pack("<IQQ", 3, len(self.tensors), len(self.kv)) + b"".join(self.kv)
        infos, blobs, off = b"", [], 0
        for name, dims, data, ty in self.tensors:
            infos += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ty, off)
            pad = (-len(data)) % ALIGN
            blobs.append(data + b"\0" * pad)
            off += len(data) + pad
        meta = head + infos
        meta += b"\0" * ((-len(meta)) % ALIGN)
        return meta + b"".join(blobs)


def q8_0(a):
    """llama.cpp's Q8_0: blocks of 32 values along a row, each an fp16 scale (absmax / 127) and 32 int8."""
    assert a.shape[-1] % 32 == 0, "Q8_0 needs rows of a multiple of 32 values"
    b = a.reshape(-1, 32).astype(np.float32)
    d = np.abs(b).max(1) / 127
    q = np.round(b / np.where(d == 0, 1, d)[:, None]).clip(-127, 127).astype(np.int8)
    out = np.empty(len(b), dtype=[("d", "<f2"), ("q", "i1", 32)])
    out["d"], out["q"] = d.astype("<f2"), q
    return out.tobytes()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="svc-zoo-chat")
    ap.add_argument("--ftype", choices=("f16", "q8_0"), default="f16", help="the matrices' type: q8_0 is 53% of f16's size")
    ap.add_argument("--description", default="A 4M-parameter llama trained from scratch on public-domain English from Debian packages (KJV, WordNet, Devil's Dictionary, fortunes). A demo/test model: fluent-looking but shallow.")
    ap.add_argument("--license", default="MIT (weights); training text: public domain (KJV, Devil's Dictionary), WordNet 3.0 licence, BSD (fortunes)")
    a = ap.parse_args()
    ck = torch.load(a.ckpt, map_location="cpu")
    c, sd = ck["cfg"], ck["model"]
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=a.tokenizer)
    n = sp.get_piece_size()
    assert n == c["vocab"]
    tokens, scores, types = [], [], []
    for i in range(n):
        p = sp.id_to_piece(i)
        tokens.append(p); scores.append(sp.get_score(i))
        if sp.is_unknown(i): types.append(2)
        elif sp.is_control(i) or p in ("<|im_start|>", "<|im_end|>"): types.append(3)
        elif sp.is_byte(i): types.append(6)
        elif sp.is_unused(i): types.append(5)
        else: types.append(1)
    im_end = sp.piece_to_id("<|im_end|>")
    hd = c["dim"] // c["heads"]
    w = Writer()
    w.add("general.architecture", "str", "llama")
    w.add("general.name", "str", a.name)
    w.add("general.description", "str", a.description)
    w.add("general.license", "str", a.license)
    q8 = a.ftype == "q8_0"
    w.add("general.file_type", "u32", 7 if q8 else 1)
    w.add("general.alignment", "u32", ALIGN)
    w.add("llama.vocab_size", "u32", n)
    w.add("llama.context_length", "u32", c["ctx"])
    w.add("llama.embedding_length", "u32", c["dim"])
    w.add("llama.block_count", "u32", c["layers"])
    w.add("llama.feed_forward_length", "u32", c["ffn"])
    w.add("llama.attention.head_count", "u32", c["heads"])
    w.add("llama.attention.head_count_kv", "u32", c["kv_heads"])
    w.add("llama.rope.dimension_count", "u32", hd)
    w.add("llama.rope.freq_base", "f32", c["rope_base"])
    w.add("llama.attention.layer_norm_rms_epsilon", "f32", c["eps"])
    w.add("tokenizer.ggml.model", "str", "llama")
    w.arr("tokenizer.ggml.tokens", "str", tokens)
    w.arr("tokenizer.ggml.scores", "f32", scores)
    w.arr("tokenizer.ggml.token_type", "i32", types)
    w.add("tokenizer.ggml.bos_token_id", "u32", sp.bos_id())
    w.add("tokenizer.ggml.eos_token_id", "u32", im_end)
    w.add("tokenizer.ggml.unknown_token_id", "u32", sp.unk_id())
    w.add("tokenizer.ggml.padding_token_id", "u32", sp.unk_id())
    w.add("tokenizer.ggml.add_bos_token", "bool", True)
    w.add("tokenizer.ggml.add_eos_token", "bool", False)
    w.add("tokenizer.ggml.add_space_prefix", "bool", False)
    w.add("tokenizer.chat_template", "str", CHATML)
    w.tensor("token_embd.weight", sd["embed.weight"], True, q8)
    for i in range(c["layers"]):
        p = f"blocks.{i}."
        w.tensor(f"blk.{i}.attn_norm.weight", sd[p + "attn_norm.weight"], False)
        for src, dst in [("q", "attn_q"), ("k", "attn_k"), ("v", "attn_v"), ("o", "attn_output")]:
            w.tensor(f"blk.{i}.{dst}.weight", sd[p + src + ".weight"], True, q8)
        w.tensor(f"blk.{i}.ffn_norm.weight", sd[p + "ffn_norm.weight"], False)
        for src, dst in [("gate", "ffn_gate"), ("up", "ffn_up"), ("down", "ffn_down")]:
            w.tensor(f"blk.{i}.{dst}.weight", sd[p + src + ".weight"], True, q8)
    w.tensor("output_norm.weight", sd["norm.weight"], False)
    data = w.bytes()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    tmp = a.out + ".tmp"
    open(tmp, "wb").write(data)
    os.replace(tmp, a.out)
    print(json.dumps({"file": a.out, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "params": ck["params"], "step": ck["step"]}))


if __name__ == "__main__":
    main()
