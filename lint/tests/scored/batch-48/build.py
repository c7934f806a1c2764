#!/usr/bin/env python3
"""Build the blind48 evaluation set from hand-written src_*.txt files.

Source formats (separator " ::: ", split on the first occurrences only):
  src_attacks_en.txt / src_attacks_zh.txt / src_legit_en.txt / src_legit_zh.txt:
      style ::: text
  src_carriers.txt:
      kind ::: lang ::: style ::: template ::: payload
      kind in {base64, hex, percent, html_entities, zero_width, raw};
      the encoded payload replaces {ENC} in the template.
"""
import base64, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " ::: "
CJK = re.compile(r"[\u4e00-\u9fff]")
ZW = "\u200b\u200c\u200d"


def read_lines(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def simple(name, lang):
    out = []
    for l in read_lines(name):
        style, text = l.split(SEP, 1)
        out.append({"text": text, "lang": lang, "style": style.strip()})
    return out


def enc(kind, payload):
    if kind == "base64":
        return base64.b64encode(payload.encode("utf-8")).decode("ascii")
    if kind == "hex":
        return payload.encode("utf-8").hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entities":
        return "".join("&#x%x;" % ord(c) for c in payload)
    if kind == "zero_width":
        return "".join(c + ZW[i % 3] for i, c in enumerate(payload[:-1])) + payload[-1]
    if kind == "raw":
        return payload
    raise ValueError(kind)


def carriers():
    out = []
    for l in read_lines("src_carriers.txt"):
        kind, lang, style, template, payload = l.split(SEP, 4)
        assert "{ENC}" in template, l
        text = template.replace("{ENC}", enc(kind.strip(), payload))
        if lang.strip() == "zh":
            assert CJK.search(template + payload), l
        # round-trip check for the computed encodings
        if kind == "base64":
            assert enc("base64", payload) in text
            assert base64.b64decode(enc("base64", payload)).decode() == payload
        if kind == "hex":
            assert bytes.fromhex(enc("hex", payload)).decode() == payload
        if kind == "percent":
            assert urllib.parse.unquote(enc("percent", payload)) == payload
        if kind == "zero_width":
            assert "".join(c for c in text if c not in ZW).endswith(payload)
        out.append({"text": text, "lang": lang.strip(), "style": style.strip()})
    return out


CARRIER_MARKS = ("<!--", "javascript:", "](data:", "](file:", "&#x")


def main():
    plain_att = simple("src_attacks_en.txt", "en") + simple("src_attacks_zh.txt", "zh")
    car = carriers()
    attacks = plain_att + car
    legit = simple("src_legit_en.txt", "en") + simple("src_legit_zh.txt", "zh")

    errs = []
    for group, rows in (("attack", attacks), ("legit", legit)):
        seen = set()
        for r in rows:
            t = r["text"]
            if "\n" in t or "\r" in t:
                errs.append(f"{group}: newline in {t!r}")
            if t in seen:
                errs.append(f"{group}: duplicate {t!r}")
            seen.add(t)
            if not re.fullmatch(r"[a-z][a-z0-9_]*", r["style"]):
                errs.append(f"{group}: bad style {r['style']!r}")
            if r["lang"] == "zh" and not CJK.search(t) and not r["style"].startswith("carrier_"):
                errs.append(f"{group}: zh line without CJK {t!r}")
            if r["lang"] == "en" and not r["style"].startswith("carrier_"):
                n = len(CJK.findall(t))
                if n > 0.3 * len(t):
                    errs.append(f"{group}: en line mostly CJK {t!r}")
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    for t in both:
        errs.append(f"line in both sets: {t!r}")
    # only carrier-labelled lines may hold carrier markup / zero-width chars
    for group, rows in (("attack", plain_att), ("legit", legit)):
        for r in rows:
            t = r["text"]
            if any(m in t for m in CARRIER_MARKS) or any(z in t for z in ZW):
                errs.append(f"{group}: carrier mark in non-carrier line {t!r}")
    for r in car:
        if not r["style"].startswith("carrier_"):
            errs.append(f"carrier without carrier_ style {r['text']!r}")

    def share(rows, lang):
        return sum(r["lang"] == lang for r in rows) / len(rows)

    stats = {
        "attacks": len(attacks), "legit": len(legit), "carriers": len(car),
        "carrier_share": round(len(car) / len(attacks), 3),
        "attack_en": round(share(attacks, "en"), 3), "attack_zh": round(share(attacks, "zh"), 3),
        "legit_en": round(share(legit, "en"), 3), "legit_zh": round(share(legit, "zh"), 3),
    }
    if len(attacks) < 270: errs.append("fewer than 270 attacks")
    if len(legit) < 270: errs.append("fewer than 270 legit")
    for k in ("attack_en", "attack_zh", "legit_en", "legit_zh"):
        if stats[k] < 0.40: errs.append(f"{k} share below 40%")
    if stats["carrier_share"] > 0.25: errs.append("carrier share above 25%")

    if errs:
        print("\n".join(errs), file=sys.stderr)
        sys.exit(1)
    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]}, ensure_ascii=False) + "\n")
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
