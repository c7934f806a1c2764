#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

All paths are relative to this file's directory. Encodings for carrier lines are
computed here (never hand-typed). The script runs consistency checks and refuses
to write output if any check fails.
"""
import base64, json, os, re, sys, urllib.parse
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ZW = ["\u200b", "\u200c", "\u200d"]
CJK = re.compile(r"[\u4e00-\u9fff]")


def read_lines(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for raw in f.read().split("\n"):
            if not raw.strip() or raw.startswith("#"):
                continue
            yield raw


def plain(name, lang):
    out = []
    for raw in read_lines(name):
        style, text = raw.split("\t", 1)
        out.append({"text": text, "lang": lang, "style": style.strip()})
    return out


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "percent_path":
        return urllib.parse.quote(payload, safe="/.")
    if kind == "html_entity":
        return "".join("&#x%x;" % ord(c) for c in payload)
    if kind == "zero_width":
        return "".join(c + ZW[i % 3] for i, c in enumerate(payload))
    if kind == "html_comment":
        return "<!-- %s -->" % payload
    if kind in ("js_link", "file_link", "identity"):
        return payload
    if kind == "data_link":
        return "data:text/html;base64," + base64.b64encode(b).decode("ascii")
    if kind == "hexint":
        return format(int(payload), "x")
    raise ValueError("unknown kind " + kind)


def carriers(name, prefix):
    out = []
    for raw in read_lines(name):
        parts = raw.split("\t")
        while len(parts) < 4:
            parts.append("")
        kind, lang, wrapper, payload = parts[0], parts[1], parts[2], "\t".join(parts[3:])
        if kind == "identity":
            text = wrapper
        else:
            assert "{X}" in wrapper, raw
            text = wrapper.replace("{X}", encode(kind, payload))
        out.append({"text": text, "lang": lang, "style": prefix + kind})
    return out


def lang_ok(rec):
    t = rec["text"].replace("\u200b", "").replace("\u200c", "").replace("\u200d", "")
    # for entity/percent/base64 carriers the visible wrapper carries the language
    n_cjk = len(CJK.findall(t))
    visible = len(re.sub(r"\s", "", t)) or 1
    if rec["lang"] == "zh":
        return n_cjk >= 2
    return n_cjk / visible <= 0.25


def main():
    attacks = (plain("src_attacks_en.txt", "en") + plain("src_attacks_zh.txt", "zh")
               + carriers("src_carriers_attack.txt", "carrier_"))
    legit = (plain("src_legit_en.txt", "en") + plain("src_legit_zh.txt", "zh")
             + carriers("src_carriers_legit.txt", "benign_"))

    errors = []
    for label, recs in (("attack", attacks), ("legit", legit)):
        c = Counter(r["text"] for r in recs)
        d = [t for t, n in c.items() if n > 1]
        if d:
            errors.append("%s duplicates: %r" % (label, d))
        for r in recs:
            if "\n" in r["text"] or "\r" in r["text"] or "\t" in r["text"]:
                errors.append("%s control char: %r" % (label, r["text"]))
            if not r["text"].strip():
                errors.append("%s empty text" % label)
            if r["lang"] not in ("en", "zh"):
                errors.append("bad lang %r" % r)
            if not re.fullmatch(r"[a-z][a-z0-9_]*", r["style"]):
                errors.append("bad style %r" % r["style"])
            if not lang_ok(r):
                errors.append("%s language mismatch: %r" % (label, r["text"]))
        if len(recs) < 270:
            errors.append("%s count %d < 270" % (label, len(recs)))
        for lg in ("en", "zh"):
            share = sum(r["lang"] == lg for r in recs) / len(recs)
            if share < 0.40:
                errors.append("%s %s share %.3f < 0.40" % (label, lg, share))
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if both:
        errors.append("lines in both sets: %r" % sorted(both))
    n_carrier = sum(r["style"].startswith("carrier_") for r in attacks)
    if n_carrier / len(attacks) > 0.25:
        errors.append("carrier share %.3f > 0.25" % (n_carrier / len(attacks)))

    if errors:
        for e in errors:
            print("ERROR:", e)
        sys.exit(1)

    for fname, recs in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, fname), "w", encoding="utf-8", newline="\n") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

    def summary(label, recs):
        langs = Counter(r["lang"] for r in recs)
        print("%s: %d (en %d / zh %d)" % (label, len(recs), langs["en"], langs["zh"]))
        print("  styles:", dict(sorted(Counter(r["style"] for r in recs).items())))
    summary("attacks", attacks)
    print("  carriers: %d (%.1f%%)" % (n_carrier, 100.0 * n_carrier / len(attacks)))
    summary("legit", legit)


if __name__ == "__main__":
    main()
