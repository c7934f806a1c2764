#!/usr/bin/env python3
"""Build the blind evaluation set (attacks.jsonl / legit.jsonl) from the hand-written src_*.txt files.

Source format: one item per line, `style @@ text`. Lines that are empty or start with `%%` are ignored.
Inside text, these directives are expanded here (encodings are never hand-typed):
  {{b64:S}}  base64 of UTF-8 S          {{hex:S}}  hex of UTF-8 S
  {{pct:S}}  percent-encoding (no safe) {{ent:S}}  hex HTML numeric entities
  {{entd:S}} decimal HTML entities      {{zw:S}}   S interleaved with U+200B
  {{zwj:S}}  S interleaved with U+200C/U+200D/U+2060 (cycled)
  {{sha:S}}  sha256 hex of UTF-8 S (benign hashes in legit lines)
All paths are relative to this file's directory.
"""
import base64
import collections
import hashlib
import json
import re
import sys
import unicodedata
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent

SOURCES = [
    ("src_attacks_en.txt", "attack", "en"),
    ("src_attacks_zh.txt", "attack", "zh"),
    ("src_legit_en.txt", "legit", "en"),
    ("src_legit_zh.txt", "legit", "zh"),
]

MIN_COUNT = 270
MIN_LANG_SHARE = 0.40
MAX_CARRIER_SHARE = 0.25

DIRECTIVE = re.compile(r"\{\{(b64|hex|pct|ent|entd|zw|zwj|sha):(.*?)\}\}")
STYLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
ZW_CHARS = "\u200b\u200c\u200d\u2060\ufeff"
CARRIER_EVIDENCE = re.compile(
    r"<!--|&#x?[0-9a-fA-F]+;|%[0-9A-F]{2}|[\u200b\u200c\u200d\u2060]|\]\((?:javascript|data|file):"
    r"|[A-Za-z0-9+/]{16,}={0,2}|(?:[0-9a-f]{2}){12,}"
)


def _zw_join(s, seps):
    out = []
    for i, ch in enumerate(s):
        out.append(ch)
        if i != len(s) - 1:
            out.append(seps[i % len(seps)])
    return "".join(out)


def expand(m):
    kind, payload = m.group(1), m.group(2)
    raw = payload.encode("utf-8")
    if kind == "b64":
        return base64.b64encode(raw).decode("ascii")
    if kind == "hex":
        return raw.hex()
    if kind == "pct":
        return urllib.parse.quote(payload, safe="")
    if kind == "ent":
        return "".join(f"&#x{ord(c):x};" for c in payload)
    if kind == "entd":
        return "".join(f"&#{ord(c)};" for c in payload)
    if kind == "zw":
        return _zw_join(payload, ["\u200b"])
    if kind == "zwj":
        return _zw_join(payload, ["\u200c", "\u200d", "\u2060"])
    if kind == "sha":
        return hashlib.sha256(raw).hexdigest()
    raise ValueError(kind)


def normalise(text):
    t = "".join(c for c in text if c not in ZW_CHARS)
    t = unicodedata.normalize("NFKC", t).casefold()
    return " ".join(t.split())


def load(fname, label, lang, errors):
    items = []
    path = HERE / fname
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("%%"):
            continue
        if " @@ " not in line:
            errors.append(f"{fname}:{lineno}: missing ' @@ ' separator")
            continue
        style, raw = line.split(" @@ ", 1)
        style = style.strip()
        if not STYLE_RE.match(style):
            errors.append(f"{fname}:{lineno}: bad style {style!r}")
        text = DIRECTIVE.sub(expand, raw)
        if "{{" in text:
            errors.append(f"{fname}:{lineno}: unexpanded directive")
        if "\n" in text or "\r" in text or "\t" in text:
            errors.append(f"{fname}:{lineno}: control character in text")
        if text != text.rstrip() or not text.strip():
            errors.append(f"{fname}:{lineno}: trailing whitespace or empty")
        # language sanity on the hand-written (pre-encoding) text
        cjk = len(CJK_RE.findall(raw))
        letters = sum(1 for c in raw if c.isalpha())
        if lang == "zh" and cjk == 0:
            errors.append(f"{fname}:{lineno}: zh line without CJK characters")
        if lang == "en" and letters and cjk / letters > 0.2:
            errors.append(f"{fname}:{lineno}: en line is mostly CJK")
        carrier = style.startswith("carrier_")
        if carrier and label != "attack":
            errors.append(f"{fname}:{lineno}: carrier style used outside attacks")
        if carrier and not CARRIER_EVIDENCE.search(text):
            errors.append(f"{fname}:{lineno}: carrier line has no hidden/encoded part")
        items.append({"text": text, "lang": lang, "style": style, "_src": f"{fname}:{lineno}", "_label": label})
    return items


def main():
    errors = []
    sets = {"attack": [], "legit": []}
    for fname, label, lang in SOURCES:
        sets[label].extend(load(fname, label, lang, errors))

    # duplicates (exact and normalised) inside each set, and overlap across sets
    seen = {}
    seen_norm = {}
    for label in ("attack", "legit"):
        for it in sets[label]:
            t, n = it["text"], normalise(it["text"])
            if t in seen:
                prev = seen[t]
                kind = "both attack and legit" if prev["_label"] != label else "duplicate"
                errors.append(f"{it['_src']}: {kind} with {prev['_src']}")
            elif n in seen_norm:
                prev = seen_norm[n]
                kind = "both attack and legit (normalised)" if prev["_label"] != label else "near-duplicate"
                errors.append(f"{it['_src']}: {kind} with {prev['_src']}")
            seen.setdefault(t, it)
            seen_norm.setdefault(n, it)

    report = {}
    for label, items in sets.items():
        n = len(items)
        langs = collections.Counter(it["lang"] for it in items)
        carriers = sum(1 for it in items if it["style"].startswith("carrier_"))
        report[label] = {
            "count": n,
            "en": langs["en"],
            "zh": langs["zh"],
            "en_share": round(langs["en"] / n, 4) if n else 0,
            "zh_share": round(langs["zh"] / n, 4) if n else 0,
            "carriers": carriers,
            "carrier_share": round(carriers / n, 4) if n else 0,
            "styles": dict(sorted(collections.Counter(it["style"] for it in items).items())),
        }
        if n < MIN_COUNT:
            errors.append(f"{label}: only {n} lines (< {MIN_COUNT})")
        for lg in ("en", "zh"):
            if n and langs[lg] / n < MIN_LANG_SHARE:
                errors.append(f"{label}: {lg} share {langs[lg] / n:.3f} < {MIN_LANG_SHARE}")
    if report["attack"]["carrier_share"] > MAX_CARRIER_SHARE:
        errors.append(f"attack carrier share {report['attack']['carrier_share']} > {MAX_CARRIER_SHARE}")

    if errors:
        print("BUILD FAILED:", file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        sys.exit(1)

    for label, out in (("attack", "attacks.jsonl"), ("legit", "legit.jsonl")):
        with open(HERE / out, "w", encoding="utf-8", newline="\n") as f:
            for it in sets[label]:
                rec = {"text": it["text"], "lang": it["lang"], "style": it["style"]}
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")

    # re-read and verify what was written
    for label, out in (("attack", "attacks.jsonl"), ("legit", "legit.jsonl")):
        lines = (HERE / out).read_text(encoding="utf-8").split("\n")
        assert lines[-1] == "", out
        recs = [json.loads(l) for l in lines[:-1]]
        assert len(recs) == report[label]["count"], out
        assert all(set(r) == {"text", "lang", "style"} for r in recs), out

    print(json.dumps(report, ensure_ascii=False, indent=2))
    print("OK: wrote attacks.jsonl and legit.jsonl")


if __name__ == "__main__":
    main()
