#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files next to this script."""
import base64, hashlib, html, json, os, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ZW = "\u200b"


def rows(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("%%"):
                continue
            yield n, line


def encode(kind, p):
    if kind == "b64":
        return base64.b64encode(p.encode()).decode()
    if kind == "hex":
        return p.encode().hex()
    if kind == "pct":
        return urllib.parse.quote(p, safe="/")
    if kind == "ent":
        return "".join("&#%d;" % ord(c) for c in p)
    if kind == "esc":
        return html.escape(p, quote=False)
    if kind == "zw":
        return ZW.join(p)
    if kind == "raw":
        return p
    if kind == "sha256b64":
        return base64.b64encode(hashlib.sha256(p.encode()).digest()).decode()
    if kind == "sha1hex10":
        return hashlib.sha1(p.encode()).hexdigest()[:10]
    raise ValueError(kind)


def plain(name, lang):
    out = []
    for n, line in rows(name):
        style, sep, text = line.partition("@@")
        assert sep and style and text, (name, n)
        out.append({"text": text, "lang": lang, "style": style})
    return out


def encoded(name):
    out = []
    for n, line in rows(name):
        parts = line.split("@@")
        assert len(parts) == 5, (name, n, parts)
        lang, kind, style, tmpl, payload = parts
        assert "{X}" in tmpl, (name, n)
        out.append({"text": tmpl.replace("{X}", encode(kind, payload)), "lang": lang, "style": style})
    return out


def main():
    attacks = plain("src_attacks_en.txt", "en") + plain("src_attacks_zh.txt", "zh") + encoded("src_carriers.txt")
    legit = plain("src_legit_en.txt", "en") + plain("src_legit_zh.txt", "zh") + encoded("src_legit_encoded.txt")
    errors = []
    for label, recs in (("attacks", attacks), ("legit", legit)):
        texts = [r["text"] for r in recs]
        dup = {t for t in texts if texts.count(t) > 1}
        if dup:
            errors.append("%s duplicates: %r" % (label, sorted(dup)))
        for r in recs:
            if "\n" in r["text"] or "\r" in r["text"]:
                errors.append("newline in %r" % r["text"])
            if r["lang"] not in ("en", "zh"):
                errors.append("bad lang %r" % r)
        if len(recs) < 270:
            errors.append("%s count %d < 270" % (label, len(recs)))
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in recs) / len(recs)
            if share < 0.40:
                errors.append("%s %s share %.3f < 0.40" % (label, lang, share))
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if both:
        errors.append("lines in both sets: %r" % sorted(both))
    carriers = sum(r["style"].startswith("carrier_") for r in attacks)
    if carriers / len(attacks) > 0.25:
        errors.append("carrier share %.3f > 0.25" % (carriers / len(attacks)))
    if any(r["style"].startswith("carrier_") for r in legit):
        errors.append("legit uses a carrier_ style label")
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    for fname, recs in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, fname), "w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    def summary(recs):
        en = sum(r["lang"] == "en" for r in recs)
        return "%d (en %d = %.1f%%, zh %d = %.1f%%)" % (len(recs), en, 100 * en / len(recs), len(recs) - en, 100 * (len(recs) - en) / len(recs))
    print("attacks:", summary(attacks))
    print("legit:  ", summary(legit))
    print("carriers: %d of %d attacks = %.1f%%" % (carriers, len(attacks), 100 * carriers / len(attacks)))
    styles = {}
    for r in attacks:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("attack styles:", dict(sorted(styles.items())))
    styles = {}
    for r in legit:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("legit styles:", dict(sorted(styles.items())))


if __name__ == "__main__":
    main()
