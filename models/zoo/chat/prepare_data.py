#!/usr/bin/env python3
"""Builds the chat model's training text from Debian packages and trains its SentencePiece tokenizer.

Sources (all installed by apt, see train.sh):
  bible-kjv + bible-kjv-text  King James Bible, public domain
  dict-devil                  Ambrose Bierce, The Devil's Dictionary (1911), public domain
  wordnet-base                WordNet 3.0 glosses and example sentences (Princeton WordNet licence, permissive)
  fortunes                    BSD fortune cookie files (the non-offensive set; BSD licence)
Plain text is used for language modelling; part of it is also recast as ChatML conversations
(questions about words answered with their WordNet definition, requests for verses, sayings and
definitions) so that the model learns the turn structure, including a system message.
"""
import argparse, glob, gzip, json, os, random, re, subprocess

SYSTEMS = ["You are a helpful assistant.", "You are a concise assistant.", "You are a friendly assistant who answers in plain English.",
           "Answer briefly.", "You are an assistant that speaks in the style of the King James Bible."]
ART = {"art", "ascii-art"}


def kjv():
    out = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True, check=True).stdout
    chapters, cur, key = [], [], None
    for line in out.splitlines():
        m = re.match(r"^(\S+?)(\d+):(\d+) (.*)$", line)
        if not m:
            continue
        k = (m.group(1), m.group(2))
        if k != key and cur:
            chapters.append(cur); cur = []
        key = k
        cur.append(m.group(4).strip())
    if cur:
        chapters.append(cur)
    return chapters  # list of list of verses


def devil():
    raw = gzip.open("/usr/share/dictd/devil.dict.dz", "rt", encoding="latin-1").read()
    body = raw[raw.find("ABASEMENT"):] if "ABASEMENT" in raw else raw
    entries = []
    for block in re.split(r"\n\s*\n", body):
        text = " ".join(l.strip() for l in block.splitlines() if l.strip())
        m = re.match(r"^([A-Z][A-Z' -]+), (n|v|adj|adv|x|pp|p|prep|pro|conj|interj)\.? *(.*)$", text)
        if m and len(m.group(3)) > 10:
            entries.append((m.group(1).strip().lower(), m.group(3).strip()))
        elif len(text) > 40 and not text.isupper():
            if entries:
                entries[-1] = (entries[-1][0], entries[-1][1] + " " + text)
    return entries


def wordnet():
    items = []
    for pos in ["noun", "verb", "adj", "adv"]:
        for line in open(f"/usr/share/wordnet/data.{pos}", encoding="latin-1"):
            if line.startswith("  ") or "|" not in line:
                continue
            head, gloss = line.split("|", 1)
            parts = head.split()
            n = int(parts[3], 16)
            lemmas = [parts[4 + 2 * i].replace("_", " ") for i in range(n)]
            lemmas = [re.sub(r"\(.*\)$", "", l) for l in lemmas]
            examples = re.findall(r'"([^"]+)"', gloss)
            defs = [d.strip() for d in re.sub(r'"[^"]*"', "", gloss).split(";") if d.strip()]
            if defs:
                items.append((pos, lemmas, defs[0], examples))
    return items


def fortunes():
    out = []
    for f in sorted(glob.glob("/usr/share/games/fortunes/*")):
        name = os.path.basename(f)
        if "." in name or name in ART or os.path.isdir(f):
            continue
        for cookie in open(f, encoding="utf-8", errors="ignore").read().split("\n%\n"):
            c = cookie.strip()
            if 20 < len(c) < 600 and not re.search(r"[|_\\/]{4,}", c):
                out.append(c)
    return out


def article(w):
    return "an" if w[:1].lower() in "aeiou" else "a"


def chatml(system, user, assistant):
    s = f"<|im_start|>system\n{system}<|im_end|>\n" if system else ""
    return s + f"<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n{assistant}<|im_end|>\n"


def cap(s):
    return s[:1].upper() + s[1:]


def build(rng):
    chapters, dev, wn, fort = kjv(), devil(), wordnet(), fortunes()
    docs = []  # (kind, text)
    for ch in chapters:
        docs.append(("kjv", " ".join(ch)))
    for w, d in dev:
        docs.append(("devil", f"{w.upper()}, {d}"))
    for c in fort:
        docs.append(("fortune", c))
    wn_text = []
    for pos, lemmas, d, ex in wn:
        t = f"{lemmas[0]}: {d}."
        if ex:
            t += " " + " ".join(cap(e.strip()) + ("" if e.strip()[-1:] in ".!?" else ".") for e in ex)
        wn_text.append(t)
    rng.shuffle(wn_text)
    for i in range(0, len(wn_text), 12):
        docs.append(("wordnet", "\n".join(wn_text[i:i + 12])))

    chats = []
    sysp = lambda: rng.choice(SYSTEMS) if rng.random() < 0.6 else None
    for pos, lemmas, d, ex in wn:
        w = lemmas[0]
        if rng.random() > 0.45 or len(w) < 3:
            continue
        if pos == "noun":
            q = rng.choice([f"What is {article(w)} {w}?", f"What is {article(w)} {w}", f"Tell me what {article(w)} {w} is.", f"Define {w}.", f"what's {article(w)} {w}?"])
            a = f"{cap(article(w))} {w} is {d}."
        elif pos == "verb":
            q = rng.choice([f"What does it mean to {w}?", f"What does {w} mean?", f"Define the verb {w}."])
            a = f"To {w} is to {d}."
        else:
            q = rng.choice([f"What does {w} mean?", f"What does the word {w} mean?", f"Explain the word {w}."])
            a = f"{cap(w)} means {d}."
        if ex:
            a += " For example: " + cap(ex[0].strip()) + ("" if ex[0].strip()[-1:] in ".!?" else ".")
        chats.append(chatml(sysp(), q, a))
    verses = [v for ch in chapters for v in ch]
    for _ in range(30000):
        v = rng.choice(verses)
        words = [w for w in re.findall(r"[a-z]+", v.lower()) if len(w) > 4]
        if words and rng.random() < 0.6:
            k = rng.choice(words)
            q = rng.choice([f"Tell me about {k}.", f"What does the Bible say about {k}?", f"Give me a verse about {k}.", f"Speak to me of {k}."])
        else:
            q = rng.choice(["Give me a verse.", "Quote the Bible.", "Say something from the scriptures.", "Hello!", "Hi, who are you?", "What should I do today?"])
        chats.append(chatml(sysp(), q, v))
    for c in fort:
        q = rng.choice(["Tell me something wise.", "Say something funny.", "Give me a fortune.", "Tell me a joke.", "Any advice?", "What do you think?", "Hello!"])
        chats.append(chatml(sysp(), q, c))
    for w, d in dev:
        q = rng.choice([f"What is {w}?", f"Define {w}.", f"What does {w} mean?"])
        chats.append(chatml(sysp(), q, cap(d)))
    rng.shuffle(chats)
    for i in range(0, len(chats), 4):
        docs.append(("chat", "".join(chats[i:i + 4])))
    return docs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--vocab", type=int, default=4096)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(1234)
    docs = build(rng)
    rng.shuffle(docs)
    held = [d for i, d in enumerate(docs) if i % 50 == 0]
    train = [d for i, d in enumerate(docs) if i % 50 != 0]
    for name, part in [("train", train), ("valid", held)]:
        with open(os.path.join(a.out, f"{name}.jsonl"), "w") as f:
            for kind, text in part:
                f.write(json.dumps({"kind": kind, "text": text}) + "\n")
    stats = {}
    for kind, text in docs:
        s = stats.setdefault(kind, [0, 0]); s[0] += 1; s[1] += len(text)
    # tokenizer: trained on a sample of the training text (chat markers are user-defined symbols)
    sample = os.path.join(a.out, "spm_sample.txt")
    with open(sample, "w") as f:
        for kind, text in train:
            for line in text.split("\n"):
                if line.strip():
                    f.write(line + "\n")
    import sentencepiece as spm
    spm.SentencePieceTrainer.train(
        input=sample, model_prefix=os.path.join(a.out, "tokenizer"), model_type="bpe", vocab_size=a.vocab,
        byte_fallback=True, normalization_rule_name="identity", remove_extra_whitespaces=False, add_dummy_prefix=False,
        split_digits=True, character_coverage=0.9995, input_sentence_size=400000, shuffle_input_sentence=True,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, user_defined_symbols=["<|im_start|>", "<|im_end|>"],
        allow_whitespace_only_pieces=True, split_by_whitespace=True, num_threads=1, minloglevel=2)
    json.dump({"documents": stats, "train_docs": len(train), "valid_docs": len(held)}, open(os.path.join(a.out, "data_stats.json"), "w"), indent=1)
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
