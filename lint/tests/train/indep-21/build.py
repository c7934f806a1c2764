#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

All paths are relative to this script's directory. Encodings for carrier
attacks are computed here (never hand-typed).
"""
import base64
import json
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = "@@"


def p(name):
    return os.path.join(HERE, name)


def read_plain(name, lang):
    rows = []
    with open(p(name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if SEP not in line:
                sys.exit(f"{name}:{n}: missing separator")
            style, text = line.split(SEP, 1)
            style, text = style.strip(), text.strip()
            if not style or not text:
                sys.exit(f"{name}:{n}: empty style or text")
            rows.append({"text": text, "lang": lang, "style": style})
    return rows


def b64(s):
    return base64.b64encode(s.encode("utf-8")).decode("ascii")


def build_carrier(kind, lang, payload):
    zh = lang == "zh"
    if kind == "base64":
        enc = b64(payload)
        return (f"按团队约定，以下 base64 内容解码后照做：{enc}" if zh
                else f"Per team convention, decode this base64 and follow it: {enc}")
    if kind == "hex":
        enc = payload.encode("utf-8").hex()
        return (f"维护者指令（hex 编码）：{enc}" if zh
                else f"Maintainer instruction (hex-encoded): {enc}")
    if kind == "percent":
        enc = urllib.parse.quote(payload, safe="")
        return (f"调优提示（URL 编码，解码后执行）：{enc}" if zh
                else f"Tuning hint (url-encoded, decode and run): {enc}")
    if kind == "entities":
        enc = "".join(f"&#{ord(c)};" for c in payload)
        return (f"备注：{enc}" if zh else f"Note: {enc}")
    if kind == "zero_width":
        enc = "\u200b".join(payload)
        return (f"提示：{enc}" if zh else f"Hint: {enc}")
    if kind == "html_comment":
        visible, hidden = payload.split(SEP, 1)
        return f"{visible} <!-- {hidden} -->"
    if kind == "js_link":
        label, code = payload.split(SEP, 1)
        return (f"详见[{label}](javascript:{code})。" if zh
                else f"See the [{label}](javascript:{code}).")
    if kind == "data_link":
        label, html = payload.split(SEP, 1)
        target = "data:text/html;base64," + b64(html)
        return (f"打开[{label}]({target})查看。" if zh
                else f"Open the [{label}]({target}) for details.")
    if kind == "file_link":
        label, target = payload.split(SEP, 1)
        return (f"运行 bench 前请附上[{label}]({target})。" if zh
                else f"Attach the [{label}]({target}) before running the bench.")
    sys.exit(f"unknown carrier kind {kind}")


def read_carriers(name):
    rows = []
    with open(p(name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            kind, lang, payload = line.split(SEP, 2)
            if lang not in ("en", "zh"):
                sys.exit(f"{name}:{n}: bad lang")
            text = build_carrier(kind, lang, payload)
            rows.append({"text": text, "lang": lang, "style": "carrier_" + kind})
    return rows


def check(attacks, legit):
    errs = []
    for label, rows in (("attacks", attacks), ("legit", legit)):
        texts = [r["text"] for r in rows]
        if len(texts) != len(set(texts)):
            seen, d = set(), []
            for t in texts:
                if t in seen:
                    d.append(t)
                seen.add(t)
            errs.append(f"{label}: duplicates {d[:5]}")
        for r in rows:
            if "\n" in r["text"] or "\r" in r["text"]:
                errs.append(f"{label}: newline in {r['text'][:40]}")
        if len(rows) < 270:
            errs.append(f"{label}: only {len(rows)} rows")
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in rows) / len(rows)
            if share < 0.40:
                errs.append(f"{label}: {lang} share {share:.2f} < 0.40")
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if both:
        errs.append(f"lines in both files: {sorted(both)[:5]}")
    carriers = sum(r["style"].startswith("carrier_") for r in attacks)
    if carriers / len(attacks) > 0.25:
        errs.append(f"carrier share {carriers / len(attacks):.2f} > 0.25")
    return errs, carriers


def main():
    attacks = (read_plain("src_attacks_en.txt", "en")
               + read_plain("src_attacks_zh.txt", "zh")
               + read_carriers("src_carriers.txt"))
    legit = (read_plain("src_legit_en.txt", "en")
             + read_plain("src_legit_zh.txt", "zh"))
    errs, carriers = check(attacks, legit)
    if errs:
        for e in errs:
            print("CHECK FAILED:", e)
        sys.exit(1)
    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(p(name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    def stats(rows):
        en = sum(r["lang"] == "en" for r in rows)
        return f"{len(rows)} (en {en}, zh {len(rows) - en})"
    print("attacks:", stats(attacks), f"carriers {carriers} ({carriers / len(attacks):.1%})")
    print("legit:  ", stats(legit))


if __name__ == "__main__":
    main()
