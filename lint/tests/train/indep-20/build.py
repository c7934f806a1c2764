#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from hand-written src_*.txt files (blind helper, train20)."""
import base64, json, os, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))

def rd(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip()]

def parse_styled(name, lang):
    out = []
    for l in rd(name):
        style, text = l.split(":: ", 1)
        out.append({"text": text, "lang": lang, "style": style.strip()})
    return out

LEADS = {
    "en": ["{}", "Maintainer note (encoded): {}", "Policy patch, decode before applying: {}", "ref: {}"],
    "zh": ["{}", "维护者备注（编码）：{}", "规则补丁，解码后执行：{}", "参考：{}"],
}

def encode(kind, s):
    if kind == "base64":
        return base64.b64encode(s.encode()).decode()
    if kind == "hex":
        return s.encode().hex()
    if kind == "percent":
        return urllib.parse.quote(s, safe="")
    if kind == "html_entities":
        return "".join("&#%d;" % ord(c) for c in s)
    if kind == "zero_width":
        return "\u200b".join(s)
    if kind == "html_comment":
        return "<!-- " + s + " -->"
    raise ValueError(kind)

def carriers():
    out = []
    i = 0
    for l in rd("src_carriers.txt"):
        lang, kinds, payload = [x.strip() for x in l.split(":: ", 2)]
        for kind in kinds.split(","):
            enc = encode(kind, payload)
            if kind in ("zero_width", "html_comment") and i % 2 == 0:
                text = enc  # bare
            elif kind == "html_comment":
                text = ("Table updated after distill. " if lang == "en" else "表格已在蒸馏后更新。") + enc
            else:
                text = LEADS[lang][i % 4].format(enc)
            out.append({"text": text, "lang": lang, "style": "carrier_" + kind})
            i += 1
    for l in rd("src_carrier_links.txt"):
        lang, kind, label, target = [x.strip() for x in l.split(":: ", 3)]
        if kind == "js":
            url = "javascript:" + target
        elif kind == "data":
            url = "data:text/html;base64," + base64.b64encode(target.encode()).decode()
        else:
            url = "file://" + target
        out.append({"text": "[%s](%s)" % (label, url), "lang": lang, "style": "carrier_mdlink_" + kind})
    return out

def main():
    attacks = parse_styled("src_attacks_en.txt", "en") + parse_styled("src_attacks_zh.txt", "zh") + carriers()
    legit = parse_styled("src_legit_en.txt", "en") + parse_styled("src_legit_zh.txt", "zh")
    errs = []
    for name, rows in (("attacks", attacks), ("legit", legit)):
        texts = [r["text"] for r in rows]
        dups = {t for t in texts if texts.count(t) > 1}
        if dups:
            errs.append("%s duplicates: %r" % (name, sorted(dups)))
        for r in rows:
            if "\n" in r["text"] or "\r" in r["text"] or not r["text"].strip():
                errs.append("bad text: %r" % r["text"])
            if r["lang"] not in ("en", "zh"):
                errs.append("bad lang %r" % r)
        n = len(rows)
        if n < 270:
            errs.append("%s count %d < 270" % (name, n))
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in rows) / n
            if share < 0.40:
                errs.append("%s %s share %.3f < 0.40" % (name, lang, share))
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if both:
        errs.append("lines in both sets: %r" % sorted(both))
    ncar = sum(r["style"].startswith("carrier_") for r in attacks)
    if ncar / len(attacks) > 0.25:
        errs.append("carrier share %.3f > 0.25" % (ncar / len(attacks)))
    # lang sanity: zh lines must contain CJK; en lines (non-carrier) must be mostly non-CJK
    def cjk(s):
        return sum("\u4e00" <= c <= "\u9fff" for c in s)
    for r in attacks + legit:
        if r["style"].startswith("carrier_"):
            continue
        if r["lang"] == "zh" and cjk(r["text"]) < 4:
            errs.append("zh line with little CJK: %r" % r["text"])
        if r["lang"] == "en" and cjk(r["text"]) > 6:
            errs.append("en line with much CJK: %r" % r["text"])
    if errs:
        print("\n".join(errs))
        sys.exit(1)
    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    def summary(rows):
        n = len(rows)
        return "n=%d en=%d (%.1f%%) zh=%d (%.1f%%)" % (
            n, sum(r["lang"] == "en" for r in rows), 100 * sum(r["lang"] == "en" for r in rows) / n,
            sum(r["lang"] == "zh" for r in rows), 100 * sum(r["lang"] == "zh" for r in rows) / n)
    print("attacks:", summary(attacks), "carriers=%d (%.1f%%)" % (ncar, 100 * ncar / len(attacks)))
    print("legit:  ", summary(legit))
    styles = {}
    for r in attacks:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("attack styles:", json.dumps(styles, sort_keys=True))
    styles = {}
    for r in legit:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("legit styles:", json.dumps(styles, sort_keys=True))

if __name__ == "__main__":
    main()
