#!/usr/bin/env python3
"""Builds the chat model v2's training text from Debian and tokenises it.

Documents (plain text) and ChatML conversations from: package descriptions (apt lists), manual
pages (NAME + DESCRIPTION), WordNet, GCIDE, FOLDOC and the Jargon File. Conversations teach short
direct answers (one-sentence definition, then a detail), system messages, multi-turn follow-ups,
"I don't know" for what the model cannot know, JSON when a schema asks for it, and answering
from a long context (up to 2,048 tokens).

Held out (never in training, in any form): every source package whose name hashes into 1/50, with
all its binary packages and manual pages. heldout_questions.jsonl lists "What is X?" questions
about them for the relevance evaluation.

Outputs in --out: train.bin / valid.bin (uint16 token ids, documents shuffled and concatenated,
each <s> ... </s>), tokenizer.model, heldout_questions.jsonl, data_stats.json.
"""
import argparse, glob, hashlib, json, os, random, re, shutil, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sources
from conversations import Builder, content_words

HELD_MOD = 50


def held(name):
    return int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % HELD_MOD == 0


def clean_dict_body(head, body, kind):
    body = re.sub(r"<[^>]+>", "", body)
    lines = [l.strip() for l in body.split("\n")]
    if lines and lines[0].lower().startswith(head.lower()[:20]):
        lines = lines[1:]
    text = re.sub(r"\s+", " ", " ".join(l for l in lines if l)).strip()
    text = re.sub(r"\{([^}]*)\}", r"\1", text)  # FOLDOC/Jargon cross-reference braces
    text = re.sub(r"\(\d{4}-\d{2}-\d{2}\)", "", text).strip()  # FOLDOC entry dates
    text = re.sub(r"\[[A-Za-z0-9 .,]*(1913 Webster|WordNet|PJC|Century Dict\.)[^\]]*\]", "", text)
    return text[:700] if kind != "gcide" else text[:400]


def train_tokenizer(train_docs, out, vocab):
    """A BPE tokenizer trained on a quarter of the training documents' lines."""
    import sentencepiece as spm
    sample = os.path.join(out, "spm_sample.txt")
    srng = random.Random(5)
    with open(sample, "w") as f:
        for kind, text in train_docs:
            if srng.random() < 0.25:
                for line in text.split("\n"):
                    if line.strip():
                        f.write(line + "\n")
    spm.SentencePieceTrainer.train(
        input=sample, model_prefix=os.path.join(out, "tokenizer"), model_type="bpe", vocab_size=vocab,
        byte_fallback=True, normalization_rule_name="identity", remove_extra_whitespaces=False, add_dummy_prefix=False,
        split_digits=True, character_coverage=0.9995, input_sentence_size=600000, shuffle_input_sentence=True,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, user_defined_symbols=["<|im_start|>", "<|im_end|>"],
        allow_whitespace_only_pieces=True, split_by_whitespace=True, num_threads=1, minloglevel=2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--translations", nargs="*", default=None, help="Translation-en files (default: the apt lists, then tmp/zoo/chat-v2-src)")
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--seed", type=int, default=2048)
    ap.add_argument("--tokenizer", default="", help="reuse this tokenizer.model (the committed run's) instead of training one")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    tr = a.translations if a.translations is not None else sorted(
        glob.glob("/var/lib/apt/lists/*_main_i18n_Translation-en*") or glob.glob("tmp/zoo/chat-v2-src/*Translation-en*"))
    pkgs = sources.apt_packages(tr)
    owners = sources.dpkg_owners()
    mans = sources.man_pages(owners)
    wn = sources.wordnet()
    dicts = {k: [(h, clean_dict_body(h, b, k)) for h, b in sources.dictd(k)] for k in ("gcide", "foldoc", "jargon")}
    dicts = {k: [(h, t) for h, t in v if len(t) > 20] for k, v in dicts.items()}
    has_py = os.path.isdir(sources.PY_DOC)
    py = {"docs": sources.python_docs(), "modules": sources.python_modules(), "glossary": sources.python_glossary()} if has_py else None
    debref = sources.debian_reference() if os.path.isdir("/usr/share/debian-reference") else []
    print(json.dumps({"packages": len(pkgs), "with_long": sum(1 for p in pkgs.values() if p["long"]), "man": len(mans), "wordnet": len(wn),
                      **{k: len(v) for k, v in dicts.items()}, "python_docs": len(py["docs"]) if py else 0,
                      "python_modules": len(py["modules"]) if py else 0, "debian_reference": len(debref)}), flush=True)
    # a Python module is held out like a package: by its name's hash, with its library page
    py_train = py_held = None
    if py:
        held_mod = lambda name: held("py:" + name.split(".")[0])
        held_titles = {m["purpose"] for m in py["modules"] if held_mod(m["module"])}
        py_train = {"docs": [d for d in py["docs"] if not any(t in d[0] for t in held_titles)],
                    "modules": [m for m in py["modules"] if not held_mod(m["module"])], "glossary": py["glossary"]}
        py_held = {"docs": [d for d in py["docs"] if any(t in d[0] for t in held_titles)],
                   "modules": [m for m in py["modules"] if held_mod(m["module"])], "glossary": []}

    is_held_pkg = lambda name: held(pkgs[name]["source"])
    train_pkgs = sorted(n for n in pkgs if not is_held_pkg(n))
    held_pkgs = sorted(n for n in pkgs if is_held_pkg(n))
    train_man = [m for m in mans if not held(m["source"]) and not (m["name"] in pkgs and is_held_pkg(m["name"]))]
    held_man = [m for m in mans if m not in train_man]
    # a dictionary entry named like a held-out package (FOLDOC's "pidgin") is held out with it
    held_names = {n.lower() for n in held_pkgs} | {m["name"].lower() for m in held_man}
    dict_held = lambda h: held("dict:" + h) or h.lower() in held_names
    headwords = {h.lower() for v in dicts.values() for h, _ in v} | {w["word"].lower() for w in wn}

    b_train = Builder(rng, {n: pkgs[n] for n in train_pkgs}, train_man, [w for w in wn if w["word"].lower() not in held_names], {k: [x for x in v if not dict_held(x[0])] for k, v in dicts.items()},
                      known_names=set(pkgs) | {m["name"] for m in mans}, python=py_train, debref=debref)
    b_held = Builder(random.Random(a.seed + 1), {n: pkgs[n] for n in held_pkgs}, held_man, [],
                     {k: [x for x in v if dict_held(x[0])] for k, v in dicts.items()}, known_names=set(pkgs) | {m["name"] for m in mans},
                     python=py_held)
    train_docs = b_train.all_documents()
    valid_docs = b_held.all_documents()
    rng.shuffle(train_docs)
    random.Random(a.seed + 2).shuffle(valid_docs)

    # relevance questions: held-out packages that are not library/dev/doc/data splits, with content words
    # ... and not named like a word (WordNet's "king", "passage"): the answer would be ambiguous
    cands = [n for n in held_pkgs if n.lower() not in headwords and not re.match(r"^(lib|python3?-|golang-|node-|r-cran|ruby-|php-|fonts-|texlive)", n)
             and not re.search(r"-(dev|doc|data|dbg|common|examples)$", n) and len(content_words(pkgs[n]["short"] + " " + " ".join(pkgs[n]["long"][:1]))) >= 3]
    random.Random(17).shuffle(cands)
    with open(os.path.join(a.out, "heldout_questions.jsonl"), "w") as f:
        for n in cands[:400]:
            p = pkgs[n]
            f.write(json.dumps({"name": n, "question": f"What is {n}?", "short": p["short"], "long": " ".join(p["long"][:2]),
                                "content_words": sorted(content_words(p["short"] + " " + " ".join(p["long"][:1])) - {n.lower()})}) + "\n")
    with open(os.path.join(a.out, "heldout_man.jsonl"), "w") as f:
        for m in held_man:
            f.write(json.dumps({"name": m["name"], "purpose": m["purpose"], "source": m["source"]}) + "\n")

    for name, docs in (("train", train_docs), ("valid", valid_docs)):
        with open(os.path.join(a.out, f"{name}.jsonl"), "w") as f:
            for kind, text in docs:
                f.write(json.dumps({"kind": kind, "text": text}) + "\n")

    import sentencepiece as spm
    if a.tokenizer:
        # The committed run's tokenizer: the apt lists drift, and a retrained one would not match its weights.
        shutil.copyfile(a.tokenizer, os.path.join(a.out, "tokenizer.model"))
    else:
        train_tokenizer(train_docs, a.out, a.vocab)
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.out, "tokenizer.model"))
    stats = {"sources": {"packages": len(pkgs), "held_out_packages": len(held_pkgs), "man_pages": len(mans), "held_out_man_pages": len(held_man),
                         "wordnet": len(wn), **{k: len(v) for k, v in dicts.items()},
                         "python_docs": len(py["docs"]) if py else 0, "python_modules": len(py["modules"]) if py else 0,
                         "held_out_python_modules": len(py_held["modules"]) if py else 0, "debian_reference_chapters": len(debref)}}
    for name, docs in (("train", train_docs), ("valid", valid_docs)):
        chunks, per_kind = [], {}
        for i in range(0, len(docs), 2000):
            part = docs[i:i + 2000]
            for (kind, _), ids in zip(part, sp.encode([t for _, t in part])):
                chunks.append(np.asarray([sp.bos_id()] + ids + [sp.eos_id()], dtype=np.uint16))
                k = per_kind.setdefault(kind, [0, 0]); k[0] += 1; k[1] += len(ids) + 2
        arr = np.concatenate(chunks)
        arr.tofile(os.path.join(a.out, f"{name}.bin"))
        stats[name] = {"tokens": int(arr.size), "documents": len(docs), "per_kind": per_kind,
                       "sha256": hashlib.sha256(arr.tobytes()).hexdigest()}
    json.dump(stats, open(os.path.join(a.out, "data_stats.json"), "w"), indent=1)
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
