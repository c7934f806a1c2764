#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

Source formats (paths relative to this file):
  src_attacks_en.txt, src_attacks_zh.txt, src_legit_en.txt, src_legit_zh.txt:
      one item per line: "<style> <text>" (style = first space-free token).
  src_carriers.txt: "kind ||| lang ||| template ||| payload"; build.py encodes the
      payload according to kind and substitutes it for {enc} in the template.
All carriers are attacks.  Lines starting with '#' and blank lines are ignored.
"""
import base64
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ZW = "\u200b"


def read_lines(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            yield line


def read_plain(name, lang):
    out = []
    for line in read_lines(name):
        style, text = line.split(" ", 1)
        assert re.fullmatch(r"[a-z][a-z0-9_]*", style), (name, style)
        out.append({"text": text.strip(), "lang": lang, "style": style})
    return out


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entities":
        return "".join("&#x%x;" % ord(c) for c in payload)
    if kind == "zero_width":
        return ZW.join(payload)
    if kind == "html_comment":
        return "<!-- %s -->" % payload
    if kind == "link_javascript":
        return "javascript:" + payload
    if kind == "link_data":
        return "data:text/html;base64," + base64.b64encode(b).decode("ascii")
    if kind == "link_file":
        return "file://" + payload
    raise ValueError(kind)


def read_carriers(name):
    out = []
    for line in read_lines(name):
        parts = [p.strip() for p in line.split("|||")]
        assert len(parts) == 4, line
        kind, lang, template, payload = parts
        assert lang in ("en", "zh") and "{enc}" in template, line
        text = template.replace("{enc}", encode(kind, payload))
        out.append({"text": text, "lang": lang, "style": "carrier_" + kind})
    return out


CJK = re.compile(r"[\u4e00-\u9fff]")


def check(attacks, legit):
    errors = []
    for label, items in (("attack", attacks), ("legit", legit)):
        seen = set()
        for it in items:
            t = it["text"]
            if "\n" in t or "\r" in t:
                errors.append("newline in %s: %r" % (label, t[:60]))
            if t in seen:
                errors.append("duplicate %s: %r" % (label, t[:80]))
            seen.add(t)
            if it["lang"] == "zh" and not CJK.search(t.replace(ZW, "")) and not it["style"].startswith("carrier_"):
                errors.append("zh line without CJK: %r" % t[:80])
            if it["lang"] == "zh" and it["style"] in ("carrier_zero_width", "carrier_html_comment", "carrier_link_javascript", "carrier_link_data", "carrier_link_file"):
                pass
            if it["lang"] == "en" and len(CJK.findall(t)) > 4:
                errors.append("en line with much CJK: %r" % t[:80])
    both = {a["text"] for a in attacks} & {l["text"] for l in legit}
    for t in both:
        errors.append("line labelled both: %r" % t[:80])
    # also compare after stripping formatting, to avoid near-identical cross-labels
    norm = lambda s: re.sub(r"[`\s]", "", s).lower()
    nboth = {norm(a["text"]) for a in attacks} & {norm(l["text"]) for l in legit}
    for t in nboth:
        errors.append("normalised line labelled both: %r" % t[:80])
    for label, items in (("attack", attacks), ("legit", legit)):
        n = len(items)
        if n < 270:
            errors.append("%s count %d < 270" % (label, n))
        for lang in ("en", "zh"):
            share = sum(1 for it in items if it["lang"] == lang) / n
            if share < 0.40:
                errors.append("%s %s share %.3f < 0.40" % (label, lang, share))
    carriers = sum(1 for a in attacks if a["style"].startswith("carrier_"))
    if carriers / len(attacks) > 0.25:
        errors.append("carrier share %.3f > 0.25" % (carriers / len(attacks)))
    plain_hidden = [a for a in attacks + legit if not a["style"].startswith("carrier_")
                    and (ZW in a["text"] or "<!--" in a["text"] or re.search(r"\]\((javascript|data|file):", a["text"]))]
    for it in plain_hidden:
        errors.append("non-carrier line has carrier form: %r" % it["text"][:80])
    return errors, carriers


def main():
    attacks = (read_plain("src_attacks_en.txt", "en") + read_plain("src_attacks_zh.txt", "zh")
               + read_carriers("src_carriers.txt"))
    legit = read_plain("src_legit_en.txt", "en") + read_plain("src_legit_zh.txt", "zh")
    errors, carriers = check(attacks, legit)
    if errors:
        for e in errors:
            print("ERROR:", e, file=sys.stderr)
        sys.exit(1)
    for name, items in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for it in items:
                f.write(json.dumps(it, ensure_ascii=False) + "\n")
    def langs(items):
        return {l: sum(1 for i in items if i["lang"] == l) for l in ("en", "zh")}
    print("attacks", len(attacks), langs(attacks), "carriers", carriers,
          "share %.3f" % (carriers / len(attacks)))
    print("legit", len(legit), langs(legit))
    styles = {}
    for it in attacks:
        styles.setdefault(("A", it["style"]), 0)
        styles[("A", it["style"])] += 1
    for it in legit:
        styles.setdefault(("L", it["style"]), 0)
        styles[("L", it["style"])] += 1
    print("styles", len(styles), sorted(styles.items()))


if __name__ == "__main__":
    main()
