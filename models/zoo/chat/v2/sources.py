"""Readers for the Debian text sources of the chat model v2. Each returns plain Python records;
prepare_data.py turns them into documents and conversations.

  apt lists     package names, sections, short and long descriptions (Packages + Translation-en)
  dpkg          which installed package owns which manual page, and its source package
  man pages     NAME and DESCRIPTION sections of /usr/share/man/man{1,5,7,8} (roff and mdoc)
  WordNet       glosses and examples (wordnet-base)
  dictd files   GCIDE (dict-gcide), FOLDOC (dict-foldoc), the Jargon File (dict-jargon)
"""
import glob, gzip, os, re, subprocess

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _stanzas(text):
    for block in text.split("\n\n"):
        rec, key = {}, None
        for line in block.split("\n"):
            if line.startswith((" ", "\t")) and key:
                rec[key] += "\n" + line
            elif ":" in line:
                key, _, val = line.partition(":")
                rec[key] = val.strip()
        if rec:
            yield rec


def _cat(path):
    return subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], capture_output=True, text=True, check=True).stdout


def long_description(raw):
    """Debian long-description lines (leading space, ' .' paragraph breaks) -> paragraphs."""
    paras, cur = [], []
    for line in raw.split("\n")[1:]:
        s = line.strip()
        if s == ".":
            if cur:
                paras.append(" ".join(cur)); cur = []
        elif s:
            cur.append(re.sub(r"^[*o+-] ", "", s))
    if cur:
        paras.append(" ".join(cur))
    return [re.sub(r"\s+", " ", p) for p in paras]


def apt_packages(translation_files):
    """{package: {source, section, short, long[paragraphs]}} from the apt lists (main)."""
    longs = {}
    for path in translation_files:
        for r in _stanzas(_cat(path)):
            if "Description-en" in r and "Description-md5" in r:
                longs[r["Description-md5"]] = long_description(r["Description-en"])
    out = {}
    for path in sorted(glob.glob("/var/lib/apt/lists/*_main_binary-*_Packages*")):
        for r in _stanzas(_cat(path)):
            name, short = r.get("Package"), r.get("Description", "").split("\n")[0].strip()
            if not name or not short or name in out:
                continue
            src = r.get("Source", name).split(" ")[0]
            out[name] = {"source": src, "section": r.get("Section", "misc").split("/")[-1], "short": short,
                         "long": longs.get(r.get("Description-md5", ""), long_description(r.get("Description", "")))}
    return out


def dpkg_owners():
    """{man page path: (package, source)} for installed packages."""
    src = {}
    for r in _stanzas(open("/var/lib/dpkg/status", encoding="utf-8", errors="ignore").read()):
        if "Package" in r:
            src[r["Package"]] = r.get("Source", r["Package"]).split(" ")[0]
    owners = {}
    for lst in glob.glob("/var/lib/dpkg/info/*.list"):
        pkg = os.path.basename(lst)[:-5].split(":")[0]
        for line in open(lst, encoding="utf-8", errors="ignore"):
            if line.startswith("/usr/share/man/man"):
                owners[line.strip()] = (pkg, src.get(pkg, pkg))
    return owners


INLINE = [(r"\\f(\[[^\]]*\]|\(..|.)", ""), (r"\\s[-+]?\d", ""), (r"\\\(em|\\\[em\]", "-"), (r"\\\(en", "-"),
          (r"\\\(aq|\\\(cq|\\\(oq", "'"), (r"\\\*\(lq|\\\*\(rq|\\\(lq|\\\(rq|\\\(dq", '"'), (r"\\\(bu", "*"),
          (r"\\-", "-"), (r"\\&|\\:|\\/|\\,|\\%|\\c", ""), (r"\\e", "\\\\"), (r"\\ ", " "), (r"\\\(..", ""),
          (r"\\\*\[[^\]]*\]|\\\*\(..|\\\*.", ""), (r"\\\[[^\]]*\]", ""), (r"\\[|^~0]", " "), (r"\\n\[[^\]]*\]|\\n.", "")]
MDOC_KEEP = {"Nm", "Nd", "Ar", "Cm", "Pa", "Em", "Sy", "Li", "Dv", "Ev", "Va", "Ic", "Ql", "Dq", "Sq", "Pq", "Ev", "Er", "Tn", "Ux"}


def roff_inline(s):
    for pat, rep in INLINE:
        s = re.sub(pat, rep, s)
    return s


def roff_text(lines, page=""):
    """roff/mdoc body lines -> paragraphs of plain text (good enough for NAME and DESCRIPTION)."""
    paras, cur = [], []
    flush = lambda: (paras.append(re.sub(r"\s+", " ", " ".join(cur)).strip()), cur.clear()) if cur else None
    for line in lines:
        if line.startswith((".\\\"", "'\\\"", '.\\"')):
            continue
        if line.startswith((".", "'")):
            parts = line[1:].strip().split(None, 1)
            if not parts:
                continue
            mac, args = parts[0], (parts[1] if len(parts) > 1 else "")
            if mac in ("PP", "P", "LP", "TP", "IP", "HP", "sp", "Pp", "It", "Bl", "El", "Bd", "Ed", "RS", "RE", "br", "nf", "fi"):
                if mac in ("IP", "It") and args:
                    cur.append(roff_inline(args.strip('"')))
                flush()
                continue
            if mac in ("B", "I", "SM", "SB"):
                cur.append(roff_inline(args.replace('"', "")))
            elif mac in ("BR", "RB", "IR", "RI", "BI", "IB"):
                cur.append(roff_inline("".join(a or b for a, b in re.findall(r'"([^"]*)"|(\S+)', args))))
            elif mac == "Xr":
                a = args.split()
                cur.append(f"{a[0]}({a[1]})" if len(a) > 1 else args)
            elif mac == "Fl":
                cur.append("-" + args.split()[0] if args else "-")
            elif mac == "Nm" and not args.strip():
                cur.append(page)
            elif mac in MDOC_KEEP:
                cur.append(roff_inline(re.sub(r"\b(Ns|Ar|Pa|Cm|Fl|Ql)\b", "", args)))
            continue
        cur.append(roff_inline(line))
    flush()
    return [p for p in paras if p]


def man_page(path):
    """(name, one-line purpose, [description paragraphs]) or None."""
    try:
        raw = gzip.open(path, "rt", encoding="utf-8", errors="ignore").read() if path.endswith(".gz") else open(path, errors="ignore").read()
    except (OSError, EOFError):
        return None
    if raw.startswith(".so ") or len(raw) < 40:
        return None
    sections, cur = {}, None
    for line in raw.split("\n"):
        m = re.match(r'^\.(SH|Sh)\s+"?([^"]*)"?\s*$', line)
        if m:
            cur = m.group(2).strip().upper(); sections.setdefault(cur, []); continue
        if cur:
            sections[cur].append(line)
    if "NAME" not in sections or "DESCRIPTION" not in sections:
        return None
    nd = [l for l in sections["NAME"] if l.startswith(".Nd ")]
    nm = [l for l in sections["NAME"] if l.startswith(".Nm ")]
    if nd and nm:  # mdoc
        names, purpose = roff_inline(nm[0][4:]), roff_inline(nd[0][4:]).strip().rstrip(".")
    else:
        name_text = " ".join(roff_text(sections["NAME"]))
        m = re.match(r"^(.*?)\s+[-\u2013\u2014]+\s+(.*)$", name_text)
        if not m:
            return None
        names, purpose = m.group(1), m.group(2).strip().rstrip(".")
    name = names.split(",")[0].strip().split()[0] if names.strip() else ""
    desc = [p for p in roff_text(sections["DESCRIPTION"], name) if len(p) > 30 and not p.startswith("-")][:6]
    if not name or not purpose or not desc:
        return None
    return name, purpose, desc


def man_pages(owners):
    """[{name, section, purpose, description, package, source}] for man1/5/7/8 (English pages only)."""
    out, seen, names = [], set(), set()
    for sec in ("1", "8", "5", "7"):
        for path in sorted(glob.glob(f"/usr/share/man/man{sec}/*")):
            base = os.path.basename(path).split(".")[0]
            if (base, sec) in seen or base.split("_")[0] in names and "_" in base:
                continue
            r = man_page(path)
            if not r:
                continue
            if r[0] in names:  # one page per name (google-cloud-cli alone ships 16,000 "gcloud ..." pages)
                continue
            seen.add((base, sec)); names.add(r[0])
            pkg, src = owners.get(path, (None, None))
            out.append({"name": r[0], "section": sec, "purpose": r[1], "description": r[2], "package": pkg, "source": src or r[0]})
    return out


def wordnet():
    items = []
    for pos in ["noun", "verb", "adj", "adv"]:
        for line in open(f"/usr/share/wordnet/data.{pos}", encoding="latin-1"):
            if line.startswith("  ") or "|" not in line:
                continue
            head, gloss = line.split("|", 1)
            parts = head.split()
            n = int(parts[3], 16)
            lemmas = [re.sub(r"\(.*\)$", "", parts[4 + 2 * i].replace("_", " ")) for i in range(n)]
            examples = re.findall(r'"([^"]+)"', gloss)
            defs = [d.strip() for d in re.sub(r'"[^"]*"', "", gloss).split(";") if d.strip()]
            if defs:
                items.append({"pos": pos, "word": lemmas[0], "definition": defs[0], "examples": examples})
    return items


def _b64(s):
    n = 0
    for ch in s:
        n = n * 64 + B64.index(ch)
    return n


def dictd(name):
    """[(headword, body text)] from /usr/share/dictd/<name>.index + .dict.dz."""
    idx = f"/usr/share/dictd/{name}.index"
    if not os.path.exists(idx):
        return []
    data = gzip.open(f"/usr/share/dictd/{name}.dict.dz", "rb").read()
    out, seen = [], set()
    for line in open(idx, encoding="utf-8", errors="ignore"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3 or parts[0].startswith("00-database") or parts[0].startswith("00database"):
            continue
        off, ln = _b64(parts[1]), _b64(parts[2])
        if (off, ln) in seen:
            continue
        seen.add((off, ln))
        body = data[off:off + ln].decode("utf-8", errors="ignore")
        out.append((parts[0], body))
    return out


# --- Python documentation (python3.11-doc: the reStructuredText sources of docs.python.org) ------
PY_DOC = "/usr/share/doc/python3.11/html/_sources"


def rst_text(text):
    """reStructuredText -> prose: roles to their text, directives, code blocks and markup dropped."""
    out, skip_indent = [], None
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if not line.strip() or indent > skip_indent:
                continue
            skip_indent = None
        s = line.strip()
        if s.startswith(".. "):  # a directive or comment, and its indented body
            skip_indent = indent
            continue
        if re.fullmatch(r"[=\-~^\"'`#*+.:]{3,}", s):  # section underlines and rules
            continue
        if s.endswith("::"):  # a literal (code) block follows
            skip_indent = indent
            s = s[:-1] if not s.endswith(" ::") else s[:-3]
        s = re.sub(r":[a-z]+(?::[a-z]+)?:`~?!?([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", s)  # :mod:`json`, :ref:`text <label>`
        s = re.sub(r"`([^`<]+?)\s*<[^>]+>`_+", r"\1", s)  # `text <url>`_
        s = re.sub(r"``([^`]+)``", r"\1", s)
        s = re.sub(r"\*\*([^*]+)\*\*|\*([^*]+)\*", lambda m: m.group(1) or m.group(2), s)
        s = re.sub(r"\[#[^\]]*\]_|\|[^|]+\|", "", s)
        out.append(s)
    paras, cur = [], []
    for s in out + [""]:
        if s:
            cur.append(s)
        elif cur:
            paras.append(re.sub(r"\s+", " ", " ".join(cur)).strip()); cur = []
    return [p for p in paras if len(p) > 1 and not p.startswith(("Source code:", "New in version", "Changed in version", "Deprecated since"))]


def python_docs(root=PY_DOC):
    """[(title, paragraphs)] of the tutorial, library reference, HOWTOs, FAQ and language reference."""
    docs = []
    for part in ("tutorial", "library", "howto", "faq", "reference"):
        for path in sorted(glob.glob(os.path.join(root, part, "*.rst.txt"))):
            paras = rst_text(open(path, encoding="utf-8", errors="replace").read())
            if len(paras) >= 2:
                docs.append((paras[0], paras[1:]))
    return docs


def python_modules(root=PY_DOC):
    """[{module, purpose, description[paragraphs]}] from the library reference's ':mod:`x` --- purpose' titles."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, "library", "*.rst.txt"))):
        text = open(path, encoding="utf-8", errors="replace").read()
        m = re.match(r"\s*:mod:`(?:!)?([\w.]+)`\s+(?:---|—|-)\s+(.+)", text)
        if not m:
            continue
        paras = rst_text(text)[1:]
        out.append({"module": m.group(1), "purpose": m.group(2).strip().rstrip("."), "description": [p for p in paras if len(p) > 40][:3]})
    return out


def python_glossary(root=PY_DOC):
    """[(term, definition)] of the Python glossary."""
    text = open(os.path.join(root, "glossary.rst.txt"), encoding="utf-8", errors="replace").read()
    out, term, body = [], None, []
    for line in text.split("\n"):
        if line.startswith("   ") and not line.startswith("      ") and line.strip() and not line.strip().startswith(".."):
            if term and body:
                out.append((term, body))
            term, body = line.strip(), []
        elif line.startswith("      ") and term:
            body.append(line)
    if term and body:
        out.append((term, body))
    return [(t, " ".join(rst_text("\n".join(l.strip() for l in b)))) for t, b in out if rst_text("\n".join(l.strip() for l in b))]


# --- The Debian Reference (debian-reference-en, HTML) ------------------------------------------
def debian_reference(root="/usr/share/debian-reference"):
    """[(chapter title, paragraphs)] of the Debian Reference, from its HTML (tables and code dropped)."""
    from html.parser import HTMLParser

    class Text(HTMLParser):
        def __init__(self):
            super().__init__()
            self.paras, self.cur, self.skip, self.title = [], [], 0, ""

        def handle_starttag(self, tag, attrs):
            if tag in ("pre", "table", "script", "style", "code"):
                self.skip += 1
            if tag in ("p", "li", "h1", "h2", "h3", "dd", "dt"):
                self.flush()

        def handle_endtag(self, tag):
            if tag in ("pre", "table", "script", "style", "code"):
                self.skip = max(0, self.skip - 1)
            if tag in ("p", "li", "h1", "h2", "h3", "dd", "dt"):
                self.flush()

        def handle_data(self, data):
            if not self.skip:
                self.cur.append(data)

        def flush(self):
            s = re.sub(r"\s+", " ", "".join(self.cur)).strip()
            self.cur = []
            if len(s) > 30:
                self.paras.append(s)

    out = []
    for path in sorted(glob.glob(os.path.join(root, "ch*.en.html"))):
        p = Text()
        p.feed(open(path, encoding="utf-8", errors="replace").read())
        p.flush()
        if len(p.paras) >= 2:
            out.append((p.paras[0], p.paras[1:]))
    return out
