"""Turns the Debian sources into documents: plain text and ChatML conversations (short direct
answers, system messages, follow-ups, "I don't know", JSON for a schema, long contexts). The
Python documentation (python3.11-doc) and the Debian Reference (debian-reference-en) are Debian
packages too: their prose is plain text, and the library reference's modules and the glossary
become questions and answers."""
import json, re

STOP = set("""a an the and or of to in on for with by from as at is are was be been being this that these those it its
into over under about than then also such can may will which who whom whose what when where why how not no nor but if
so all any some each other more most many much very only own same both few such your you our their his her they them
use used using uses provides provide package contains contain includes include files file data support supports based
program programs tool tools library libraries version""".split())

SYSTEMS = ["You are a helpful assistant.", "You are a concise assistant.", "Answer briefly.", "You are a helpful assistant who knows Debian.",
           "You are a friendly assistant. Answer in plain English.", "You answer questions about software and words.", None, None, None]
ONE_SENTENCE = ["Answer in one sentence.", "Reply with one short sentence.", "Be very brief: one sentence."]
DETAIL = ["Give a detailed answer.", "Explain in a few sentences."]
GREET = [("Hello!", "Hello! How can I help you?"), ("Hi", "Hi! What would you like to know?"),
         ("Hello, who are you?", "I am a small assistant model trained on Debian's package descriptions, manual pages and dictionaries. Ask me what a package, a command or a word is."),
         ("Who are you?", "I am a small language model that answers questions about software packages, commands and words."),
         ("What can you do?", "I can tell you what a Debian package or a command does and what a word means. I know little else."),
         ("Thanks!", "You're welcome."), ("Thank you.", "You're welcome! Anything else?"), ("Good morning!", "Good morning! How can I help?"),
         ("How are you?", "I'm fine, thank you. What would you like to know?"), ("Bye", "Goodbye!")]
UNKNOWABLE = [("What time is it?", "I don't know. I have no clock."), ("What's the weather like today?", "I don't know. I cannot see the weather."),
              ("What is my name?", "I don't know your name."), ("Who will win the next election?", "I don't know. Nobody can know that yet."),
              ("What happened in the news today?", "I don't know. I cannot read the news."), ("What is the price of gold right now?", "I don't know. I have no live prices."),
              ("What did I eat for breakfast?", "I don't know."), ("What number am I thinking of?", "I don't know. I can't read minds."),
              ("Where am I?", "I don't know where you are."), ("What will happen tomorrow?", "I don't know. I cannot see the future.")]
SYL = ["ka", "lo", "mer", "tix", "vu", "zan", "quo", "bre", "fen", "gry", "plo", "sna", "dro", "wix", "yul", "oth", "rin", "cla", "spu", "nep"]


def content_words(text):
    return {w for w in re.findall(r"[a-z][a-z0-9+]+", text.lower()) if len(w) >= 4 and w not in STOP}


def article(w):
    return "an" if w[:1].lower() in "aeiou" else "a"


def cap(s):
    return s[:1].upper() + s[1:]


def lower_first(s):
    return s[:1].lower() + s[1:] if len(s) > 1 and s[1:2].islower() else s


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])", text) if s.strip()]


def ends(s):
    return s if s[-1:] in ".!?" else s + "."


def short_value(text, words):
    ws = re.sub(r"[\"\\]", "", text).split()
    return " ".join(ws[:words]).rstrip(",;:")


def turn(role, text):
    return f"<|im_start|>{role}\n{text}<|im_end|>\n"


def convo(system, pairs):
    return (turn("system", system) if system else "") + "".join(turn("user", q) + turn("assistant", r) for q, r in pairs)


class Builder:
    def __init__(self, rng, pkgs, mans, wordnet, dicts, known_names, python=None, debref=()):
        self.rng, self.pkgs, self.mans, self.wn, self.dicts, self.known = rng, pkgs, mans, wordnet, dicts, known_names
        self.names = sorted(pkgs)
        # python: {"docs": [(title, paragraphs)], "modules": [{module, purpose, description}], "glossary": [(term, definition)]}
        self.py = python or {"docs": [], "modules": [], "glossary": []}
        self.debref = list(debref)

    # --- answers -------------------------------------------------------------------------------
    def pkg_definition(self, n):
        p = self.pkgs[n]
        s = p["short"].rstrip(".")
        if re.match(r"^(a|an|the)\s", s, re.I):
            return f"{n} is {lower_first(s)}."
        return f"{n} is {article(lower_first(s))} {lower_first(s)}."

    def pkg_detail(self, n, k=1, skip=0):
        sents = [x for para in self.pkgs[n]["long"] for x in sentences(para)]
        return " ".join(ends(x) for x in sents[skip:skip + k])

    def pkg_answer(self, n, style):
        d = self.pkg_definition(n)
        if style == "one":
            return d
        det = self.pkg_detail(n, 2 if style == "detail" else 1)
        return (d + " " + det).strip()

    def man_answer(self, m, style):
        d = f"`{m['name']}`: {lower_first(m['purpose'])}." if m["section"] in "18" else f"{m['name']}({m['section']}): {lower_first(m['purpose'])}."
        if style == "one":
            return d
        sents = [x for para in m["description"] for x in sentences(para)]
        return (d + " " + " ".join(ends(x) for x in sents[: 2 if style == "detail" else 1])).strip()

    def system_and_style(self):
        r = self.rng.random()
        if r < 0.12:
            return self.rng.choice(ONE_SENTENCE), "one"
        if r < 0.2:
            return self.rng.choice(DETAIL), "detail"
        return self.rng.choice(SYSTEMS), "normal"

    # --- conversations -------------------------------------------------------------------------
    def pkg_question(self, n):
        return self.rng.choice([f"What is {n}?", f"What is {n}?", f"What's {n}?", f"What does the {n} package do?", f"Tell me about {n}.",
                                f"what is {n}", f"Can you explain what {n} is?", f"What is the Debian package {n}?"])

    def pkg_convo(self, n):
        system, style = self.system_and_style()
        pairs = [(self.pkg_question(n), self.pkg_answer(n, style))]
        if self.rng.random() < 0.4:
            for _ in range(self.rng.randint(1, 3)):
                k = self.rng.random()
                if k < 0.45:
                    more = self.pkg_detail(n, 2, skip=1 if style != "detail" else 2)
                    pairs.append((self.rng.choice(["Tell me more.", "Can you tell me more?", "What else?", "Go on."]), more or f"That is all I know about {n}."))
                elif k < 0.7:
                    pairs.append((self.rng.choice(["How do I install it?", "How can I install it?", "How do I get it?"]),
                                  f"On Debian or Ubuntu, run `sudo apt install {n}`."))
                elif k < 0.85:
                    pairs.append((self.rng.choice(["Which section is it in?", "What kind of package is it?"]), f"It is in the {self.pkgs[n]['section']} section."))
                else:
                    m = self.rng.choice(self.names)
                    pairs.append((self.pkg_question(m), self.pkg_answer(m, style)))
        return convo(system, pairs)

    def man_convo(self, m):
        system, style = self.system_and_style()
        nm = m["name"]
        if m["section"] in "18":
            q = self.rng.choice([f"What does `{nm}` do?", f"What does {nm} do?", f"What is the {nm} command?", f"Explain the {nm} command.",
                                 f"What is {nm}?", f"what does {nm} do", f"What is {nm}({m['section']})?"])
        else:
            q = self.rng.choice([f"What is {nm}({m['section']})?", f"What is {nm}?", f"What is described in the {nm} manual page?"])
        pairs = [(q, self.man_answer(m, style))]
        if self.rng.random() < 0.25:
            sents = [x for para in m["description"] for x in sentences(para)]
            pairs.append((self.rng.choice(["Tell me more.", "Anything else?", "And what else?"]),
                          " ".join(ends(x) for x in sents[1:3]) or "That is all the manual page says."))
        if self.rng.random() < 0.15:
            pairs.append((self.rng.choice(["Where can I read more?", "Where is it documented?"]), f"Run `man {m['section']} {nm}`."))
        return convo(system, pairs)

    def wn_convo(self, w):
        word, d, pos = w["word"], w["definition"], w["pos"]
        if pos == "noun":
            q = self.rng.choice([f"What is {article(word)} {word}?", f"Define {word}.", f"What does {word} mean?", f"what's {article(word)} {word}"])
            a = f"{cap(article(word))} {word} is {d}."
        elif pos == "verb":
            q = self.rng.choice([f"What does it mean to {word}?", f"What does {word} mean?", f"Define the verb {word}."])
            a = f"To {word} is to {d}."
        else:
            q = self.rng.choice([f"What does {word} mean?", f"What does the word {word} mean?", f"Define {word}."])
            a = f"{cap(word)} means {d}."
        if w["examples"] and self.rng.random() < 0.6:
            a += " For example: " + ends(cap(w["examples"][0].strip()))
        return convo(self.rng.choice(SYSTEMS), [(q, a)])

    def dict_convo(self, kind, head, body):
        first = sentences(body)
        if not first:
            return None
        q = {"gcide": [f"Define {head}.", f"What does {head} mean?", f"What is the meaning of {head}?"],
             "foldoc": [f"What is {head}?", f"What is {head} in computing?", f"Define {head}."],
             "jargon": [f"What does {head} mean in hacker slang?", f"What is {head}?", f"What does the jargon word {head} mean?"]}[kind]
        return convo(self.rng.choice(SYSTEMS), [(self.rng.choice(q), " ".join(ends(x) for x in first[:2]))])

    def pymod_answer(self, m, style):
        d = f"{m['module']} is the Python standard library module for {lower_first(m['purpose'])}."
        detail = [ends(x) for para in m["description"] if not para.endswith(":") for x in sentences(para)]
        if style == "one" or not detail:
            return d
        return (d + " " + " ".join(detail[: 2 if style == "detail" else 1])).strip()

    def pymod_convo(self, m):
        system, style = self.system_and_style()
        mod = m["module"]
        q = self.rng.choice([f"What is the Python module {mod}?", f"What does the {mod} module do?", f"What is {mod} in Python?",
                             f"What is {mod}?", f"Explain the Python {mod} module.", f"what does python's {mod} do"])
        pairs = [(q, self.pymod_answer(m, style))]
        if self.rng.random() < 0.2:
            pairs.append((self.rng.choice(["How do I use it?", "How do I load it?"]), f"Import it with `import {mod}`; it is part of Python's standard library."))
        return convo(system, pairs)

    def pyterm_convo(self, term, definition):
        t = term.strip("`")
        first = sentences(definition)
        if not first:
            return None
        q = self.rng.choice([f"What is {article(t)} {t} in Python?", f"In Python, what is {article(t)} {t}?", f"Define {t} (Python).", f"What does {t} mean in Python?"])
        head = ends(first[0])
        # the glossary's "A template for ..." answers as "In Python, a class is a template for ..."
        head = f"In Python, {article(t)} {t} is {head[0].lower() + head[1:]}" if re.match(r"^(A|An|The)\s", head) else f"{t} (Python): {head}"
        return convo(self.rng.choice(SYSTEMS), [(q, " ".join([head] + [ends(x) for x in first[1:2]]))])

    def fake_name(self):
        while True:
            n = "".join(self.rng.choice(SYL) for _ in range(self.rng.randint(2, 4)))
            if self.rng.random() < 0.3:
                n += self.rng.choice(["-utils", "d", "-tools", "2", "-cli"])
            if n not in self.known:
                return n

    def dont_know_convo(self):
        if self.rng.random() < 0.5:
            q, a = self.rng.choice(UNKNOWABLE)
        else:
            n = self.fake_name()
            q = self.rng.choice([f"What is {n}?", f"What does {n} do?", f"Tell me about {n}.", f"What does `{n}` do?"])
            a = self.rng.choice([f"I don't know what {n} is.", f"I don't know. I have never heard of {n}.", f"I don't know {n}; it is not a package or command I know."])
        return convo(self.rng.choice(SYSTEMS), [(q, a)])

    def greet_convo(self):
        pairs = [self.rng.choice(GREET)]
        if self.rng.random() < 0.5:
            n = self.rng.choice(self.names)
            pairs.append((self.pkg_question(n), self.pkg_answer(n, "normal")))
        return convo(self.rng.choice(SYSTEMS), pairs)

    def json_convo(self):
        r = self.rng.random()
        if r < 0.5 and self.names:
            n = self.rng.choice(self.names)
            f1, f2 = self.rng.choice([("name", "summary"), ("name", "description"), ("package", "summary"), ("name", "purpose")])
            obj = {f1: n, f2: short_value(lower_first(self.pkgs[n]["short"]), 8)}
            user = self.rng.choice([f"Describe the package {n}.", f"What is {n}?", f"Give the name and a short summary of {n}.", f"{n}"])
        elif r < 0.75 and self.mans:
            m = self.rng.choice(self.mans)
            f1, f2 = self.rng.choice([("command", "purpose"), ("name", "description"), ("name", "summary")])
            obj = {f1: m["name"], f2: short_value(lower_first(m["purpose"]), 8)}
            user = self.rng.choice([f"What does {m['name']} do?", f"Describe the {m['name']} command.", m["name"]])
        elif r < 0.82 and self.py["modules"]:
            m = self.rng.choice(self.py["modules"])
            f1, f2 = self.rng.choice([("module", "purpose"), ("name", "summary"), ("name", "description")])
            obj = {f1: m["module"], f2: short_value(lower_first(m["purpose"]), 8)}
            user = self.rng.choice([f"What is the Python module {m['module']}?", f"Describe the {m['module']} module.", m["module"]])
        elif self.wn:
            w = self.rng.choice(self.wn)
            f1, f2 = self.rng.choice([("word", "definition"), ("term", "meaning"), ("name", "definition")])
            obj = {f1: w["word"], f2: short_value(w["definition"], 10)}
            user = self.rng.choice([f"Define {w['word']}.", f"What does {w['word']} mean?", w["word"]])
        else:
            return None
        schema = {"type": "object", "properties": {f1: {"type": "string"}, f2: {"type": "string"}}, "required": [f1, f2]}
        system = self.rng.choice([f"Reply with JSON matching this schema: {json.dumps(schema)}",
                                  f'Answer in JSON with the fields "{f1}" and "{f2}". Keep the values short.',
                                  f"Respond only with a JSON object with keys {f1} and {f2}.",
                                  f"You output JSON. Schema: {json.dumps(schema)}"])
        return convo(system, [(user, json.dumps(obj))])

    def context_convo(self, target_chars):
        """A long system message with notes about many packages, then questions answered from it."""
        notes, chars = [], 0
        while chars < target_chars:
            n = self.rng.choice(self.names)
            line = f"- {self.pkg_answer(n, 'normal')}"
            notes.append((n, line)); chars += len(line) + 1
        system = self.rng.choice(["Use these notes to answer.", "You are a helpful assistant. Notes:", "Reference notes about Debian packages:"]) + "\n" + "\n".join(l for _, l in notes)
        pairs = []
        for _ in range(self.rng.randint(1, 3)):
            n, _ = self.rng.choice(notes)
            pairs.append((self.pkg_question(n), self.pkg_answer(n, "normal")))
        if self.rng.random() < 0.3:
            pairs.append(self.rng.choice(GREET))
        return convo(system, pairs)

    def long_chat(self, target_chars):
        """Many turns in one conversation (a session of questions)."""
        system, style = self.system_and_style()
        pairs, chars = [], 0
        while chars < target_chars:
            r = self.rng.random()
            if r < 0.6:
                n = self.rng.choice(self.names); pairs.append((self.pkg_question(n), self.pkg_answer(n, style)))
            elif r < 0.8 and self.mans:
                m = self.rng.choice(self.mans); pairs.append((f"What does {m['name']} do?", self.man_answer(m, style)))
            elif r < 0.9:
                pairs.append(self.rng.choice(UNKNOWABLE))
            else:
                pairs.append(self.rng.choice(GREET))
            chars += len(pairs[-1][0]) + len(pairs[-1][1]) + 40
        return convo(system, pairs)

    # --- documents -----------------------------------------------------------------------------
    def all_documents(self):
        docs = []
        for n in self.names:
            p = self.pkgs[n]
            docs.append(("pkgtext", f"Package: {n}\nSection: {p['section']}\n{n}: {p['short']}\n\n" + "\n\n".join(p["long"])))
            docs.append(("chat", self.pkg_convo(n)))
            if p["long"] and self.rng.random() < 0.5:
                docs.append(("chat", self.pkg_convo(n)))
        for m in self.mans:
            docs.append(("man", f"{m['name']}({m['section']}) - {m['purpose']}\n\n" + "\n\n".join(m["description"])))
            docs.append(("chat", self.man_convo(m)))
            docs.append(("chat", self.man_convo(m)))
        for w in self.wn:
            if self.rng.random() < 0.35:
                docs.append(("chat", self.wn_convo(w)))
        for i in range(0, len(self.wn), 20):
            docs.append(("dict", "\n".join(f"{w['word']}: {w['definition']}." for w in self.wn[i:i + 20])))
        for kind, entries in self.dicts.items():
            keep = entries if kind != "gcide" else [e for e in entries if self.rng.random() < 0.3]
            for i in range(0, len(keep), 8):
                docs.append(("dict", "\n\n".join(f"{h}: {b}" for h, b in keep[i:i + 8])))
            for h, b in keep:
                if self.rng.random() < (0.5 if kind != "gcide" else 0.3):
                    c = self.dict_convo(kind, h, b)
                    if c:
                        docs.append(("chat", c))
        for kind, chapters in (("pydoc", self.py["docs"]), ("debref", self.debref)):
            for title, paras in chapters:
                chunk = title
                for para in paras:
                    if len(chunk) + len(para) > 3000:
                        docs.append((kind, chunk)); chunk = title
                    chunk += "\n\n" + para
                docs.append((kind, chunk))
        for m in self.py["modules"]:
            docs.append(("chat", self.pymod_convo(m)))
            docs.append(("chat", self.pymod_convo(m)))
        for term, definition in self.py["glossary"]:
            c = self.pyterm_convo(term, definition)
            if c:
                docs.append(("chat", c))
        n = len(docs)
        for _ in range(max(50, n // 40)):
            docs.append(("chat", self.dont_know_convo()))
            docs.append(("chat", self.greet_convo()))
        for _ in range(max(50, n // 15)):
            c = self.json_convo()
            if c:
                docs.append(("chat", c))
        if self.names:
            for _ in range(max(20, n // 60)):
                docs.append(("long", self.context_convo(self.rng.randint(1500, 6500))))
                docs.append(("long", self.long_chat(self.rng.randint(1500, 6500))))
        return docs
