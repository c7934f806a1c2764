#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files.

All encodings (base64, hex, percent, HTML entities, zero-width interleaving,
data: URLs, hashes) are computed here; none are hand-typed in the sources.
Source line formats (fields separated by " ::: "):
  src_attacks_{en,zh}.txt, src_legit_{en,zh}.txt : style ::: text
  src_carriers.txt                              : type ::: lang ::: wrapper ::: payload
  src_legit_special.txt                         : type ::: lang ::: style ::: wrapper ::: payload
The wrapper's first "{}" is replaced by the encoded payload.
"""
import base64
import hashlib
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " ::: "
CARRIER_TYPES = {"base64", "hex", "percent", "html_entities", "zero_width",
                 "html_comment", "md_link_js", "md_link_data", "md_link_file"}
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def read_lines(name):
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as f:
        out = []
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            out.append((n, line))
        return out


def b64(s):
    return base64.b64encode(s.encode("utf-8")).decode("ascii")


def zero_width(s, lang):
    zw = "\u200b" if lang == "en" else "\u200d"
    return zw.join(s)


def entities(s):
    # numeric character references for every character, alternating dec/hex
    return "".join(("&#%d;" % ord(c)) if i % 2 == 0 else ("&#x%x;" % ord(c))
                   for i, c in enumerate(s))


def encode_carrier(kind, lang, payload):
    if kind == "base64":
        return b64(payload)
    if kind == "hex":
        return payload.encode("utf-8").hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entities":
        return entities(payload)
    if kind == "zero_width":
        return zero_width(payload, lang)
    if kind == "html_comment":
        return payload
    if kind == "md_link_js":
        return payload
    if kind == "md_link_data":
        return b64(payload)
    if kind == "md_link_file":
        return payload
    raise ValueError(kind)


def encode_special(kind, payload):
    import html
    if kind == "plain":
        return payload
    if kind == "percent_path":
        return urllib.parse.quote(payload, safe="/")
    if kind == "sha256":
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()
    if kind == "sha1_10":
        return hashlib.sha1(payload.encode("utf-8")).hexdigest()[:10]
    if kind == "html_escape":
        return html.escape(payload, quote=False)
    if kind == "base64":
        return b64(payload)
    raise ValueError(kind)


def fill(wrapper, enc):
    assert "{}" in wrapper, wrapper
    return wrapper.replace("{}", enc, 1)


def simple(name, lang):
    rows = []
    for n, line in read_lines(name):
        parts = line.split(SEP, 1)
        assert len(parts) == 2, (name, n, line)
        style, text = parts[0].strip(), parts[1].strip()
        rows.append({"text": text, "lang": lang, "style": style, "_src": "%s:%d" % (name, n)})
    return rows


def main():
    attacks = simple("src_attacks_en.txt", "en") + simple("src_attacks_zh.txt", "zh")
    for n, line in read_lines("src_carriers.txt"):
        parts = line.split(SEP)
        assert len(parts) == 4, ("src_carriers.txt", n, line)
        kind, lang, wrapper, payload = [p.strip() if i < 2 else p for i, p in enumerate(parts)]
        wrapper, payload = wrapper.strip(), payload.strip()
        assert kind in CARRIER_TYPES, kind
        text = fill(wrapper, encode_carrier(kind, lang, payload))
        attacks.append({"text": text, "lang": lang, "style": "carrier_" + kind,
                        "_src": "src_carriers.txt:%d" % n})

    legit = simple("src_legit_en.txt", "en") + simple("src_legit_zh.txt", "zh")
    for n, line in read_lines("src_legit_special.txt"):
        parts = [p.strip() for p in line.split(SEP)]
        assert len(parts) == 5, ("src_legit_special.txt", n, line)
        kind, lang, style, wrapper, payload = parts
        text = fill(wrapper, encode_special(kind, payload))
        legit.append({"text": text, "lang": lang, "style": style,
                      "_src": "src_legit_special.txt:%d" % n})

    errors = []
    for label, rows in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in rows:
            t = r["text"]
            if "\n" in t or "\r" in t:
                errors.append("%s newline in %s" % (label, r["_src"]))
            if not t.strip():
                errors.append("%s empty text %s" % (label, r["_src"]))
            if r["lang"] not in ("en", "zh"):
                errors.append("%s bad lang %s" % (label, r["_src"]))
            if not STYLE_RE.match(r["style"]):
                errors.append("%s bad style %r %s" % (label, r["style"], r["_src"]))
            if r["lang"] == "zh" and not CJK.search(t) and not r["style"].startswith("carrier_"):
                errors.append("%s zh line without CJK %s" % (label, r["_src"]))
            if t in seen:
                errors.append("%s duplicate %s and %s" % (label, seen[t], r["_src"]))
            seen[t] = r["_src"]
    overlap = {r["text"] for r in attacks} & {r["text"] for r in legit}
    for t in overlap:
        errors.append("line in both sets: %r" % t)
    # normalised overlap check too (whitespace / case)
    norm = lambda s: re.sub(r"\s+", " ", s).strip().lower()
    nover = {norm(r["text"]) for r in attacks} & {norm(r["text"]) for r in legit}
    for t in nover:
        errors.append("normalised line in both sets: %r" % t)

    def share(rows, lang):
        return sum(1 for r in rows if r["lang"] == lang) / len(rows)

    n_carrier = sum(1 for r in attacks if r["style"].startswith("carrier_"))
    stats = {
        "attacks": len(attacks), "legit": len(legit),
        "attacks_en": sum(r["lang"] == "en" for r in attacks),
        "attacks_zh": sum(r["lang"] == "zh" for r in attacks),
        "legit_en": sum(r["lang"] == "en" for r in legit),
        "legit_zh": sum(r["lang"] == "zh" for r in legit),
        "carriers": n_carrier,
        "carrier_share": round(n_carrier / len(attacks), 4),
    }
    if len(attacks) < 270:
        errors.append("too few attacks")
    if len(legit) < 270:
        errors.append("too few legit")
    for label, rows in (("attacks", attacks), ("legit", legit)):
        for lang in ("en", "zh"):
            if share(rows, lang) < 0.40:
                errors.append("%s %s share %.3f < 0.40" % (label, lang, share(rows, lang)))
    if n_carrier / len(attacks) > 0.25:
        errors.append("carrier share too high")
    if any(r["style"].startswith("carrier_") for r in legit):
        errors.append("carrier style in legit")

    if errors:
        for e in errors:
            print("ERROR:", e, file=sys.stderr)
        sys.exit(1)

    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                   ensure_ascii=False) + "\n")
    print(json.dumps(stats, indent=2))
    from collections import Counter
    print("attack styles:", dict(Counter(r["style"] for r in attacks)))
    print("legit styles:", dict(Counter(r["style"] for r in legit)))


if __name__ == "__main__":
    main()
