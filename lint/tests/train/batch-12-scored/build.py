#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

Source line format (lines starting with '#' or blank are ignored):
  plain files:   style @@ text
  carrier file:  style @@ encoding @@ wrapper-with-{P} @@ plain attack payload
Every encoding is computed here from the hand-written plain payload.
"""
import base64, json, os, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " @@ "
ZW = ["\u200b", "\u200c", "\u200d", "\u2060"]


def read_rows(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(SEP)
            rows.append((n, [p.strip() if i == 0 else p for i, p in enumerate(parts)]))
    return rows


def lang_of(text):
    cjk = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    return "zh" if cjk >= 2 else "en"


def encode(enc, payload):
    b = payload.encode("utf-8")
    if enc in ("b64", "datalink", "comment-b64"):
        return base64.b64encode(b).decode("ascii")
    if enc == "hex":
        return b.hex()
    if enc in ("pct", "filelink"):
        return urllib.parse.quote(payload, safe="")
    if enc == "html":
        return "".join("&#x%x;" % ord(c) for c in payload)
    if enc == "zw":
        out = []
        for i, c in enumerate(payload):
            out.append(c)
            if i < len(payload) - 1:
                out.append(ZW[i % len(ZW)])
        return "".join(out)
    if enc == "jslink":
        return urllib.parse.quote(payload, safe="'=+,.:/?!;&")
    if enc == "comment":
        return payload
    raise ValueError("unknown encoding " + enc)


def plain(name, label):
    out = []
    for n, parts in read_rows(name):
        if len(parts) != 2:
            sys.exit(f"{name}:{n}: expected 'style @@ text'")
        style, text = parts
        out.append({"text": text, "lang": lang_of(text), "style": style, "_src": f"{name}:{n}"})
    return out


def carriers(name):
    out = []
    for n, parts in read_rows(name):
        if len(parts) != 4:
            sys.exit(f"{name}:{n}: expected 4 fields")
        style, enc, wrapper, payload = parts
        if "{P}" not in wrapper:
            sys.exit(f"{name}:{n}: wrapper lacks {{P}}")
        text = wrapper.replace("{P}", encode(enc.strip(), payload.strip()))
        lang = lang_of(wrapper + payload)
        out.append({"text": text, "lang": lang, "style": "carrier-" + style, "_src": f"{name}:{n}"})
    return out


def main():
    attacks = plain("src_attack_en.txt", 1) + plain("src_attack_zh.txt", 1) + carriers("src_attack_carriers.txt")
    legit = plain("src_legit_en.txt", 0) + plain("src_legit_zh.txt", 0)
    errors = []
    for nm, rows in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in rows:
            t = r["text"]
            if "\n" in t or "\r" in t:
                errors.append(f"{nm}: newline in {r['_src']}")
            if not t.strip():
                errors.append(f"{nm}: empty text {r['_src']}")
            if t in seen:
                errors.append(f"{nm}: duplicate {r['_src']} == {seen[t]}")
            seen[t] = r["_src"]
        if len(rows) < 270:
            errors.append(f"{nm}: only {len(rows)} rows (<270)")
        zh = sum(r["lang"] == "zh" for r in rows)
        en = sum(r["lang"] == "en" for r in rows)
        if zh < 0.4 * len(rows) or en < 0.4 * len(rows):
            errors.append(f"{nm}: language share en={en} zh={zh} of {len(rows)}")
        print(f"{nm}: {len(rows)} rows, en={en} ({en/len(rows):.1%}), zh={zh} ({zh/len(rows):.1%})")
    overlap = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if overlap:
        errors.append(f"label overlap: {sorted(overlap)[:5]}")
    nc = sum(r["style"].startswith("carrier-") for r in attacks)
    print(f"carriers: {nc}/{len(attacks)} = {nc/len(attacks):.1%}")
    if nc > 0.25 * len(attacks):
        errors.append("carrier share > 25%")
    if errors:
        for e in errors:
            print("ERROR:", e)
        sys.exit(1)
    for nm, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, nm), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]}, ensure_ascii=False) + "\n")
    print("wrote attacks.jsonl and legit.jsonl")


if __name__ == "__main__":
    main()
