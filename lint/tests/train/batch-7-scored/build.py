#!/usr/bin/env python3
"""Deterministic builder for blind batch-7.

Reads the hand-written TSV files in src/ and writes attacks.jsonl and legit.jsonl.
No clock, no network; all randomness comes from random.Random(SEED).
Re-running reproduces both files byte for byte.
"""
import base64
import json
import random
import sys
import unicodedata
import urllib.parse
from pathlib import Path

SEED = 20261202
HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
ZW = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]


def read_tsv(name):
    rows = []
    with open(SRC / name, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for n, line in enumerate(f, 2):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) < len(header):
                parts += [""] * (len(header) - len(parts))
            if len(parts) != len(header):
                sys.exit(f"{name}:{n}: expected {len(header)} columns, got {len(parts)}")
            rows.append(dict(zip(header, parts)))
    return rows


def ent(s, rng):
    out = []
    for ch in s:
        if rng.random() < 0.5:
            out.append("&#%d;" % ord(ch))
        else:
            out.append("&#x%x;" % ord(ch))
    return "".join(out)


def zw_interleave(s, rng):
    out = []
    for ch in s:
        out.append(ch)
        if ch != " " and rng.random() < 0.55:
            out.append(rng.choice(ZW))
    return "".join(out)


def tag_encode(s):
    return "".join(chr(0xE0000 + ord(c)) for c in s if 0x20 <= ord(c) < 0x7F)


def carrier_line(row, rng):
    c, cover, payload = row["carrier"], row["cover"], row["payload"]
    zh = row["lang"] == "zh"
    if c == "html-comment":
        forms = ["{c} <!-- {p} -->", "{c}<!--{p}-->", "<!-- {p} --> {c}", "{c}\n<!--\n{p}\n-->"]
        return rng.choice(forms).format(c=cover, p=payload)
    if c == "base64":
        b = base64.b64encode(payload.encode("utf-8")).decode("ascii")
        forms = ["{c} `{b}`", "{c} {b}", "{c} base64:{b}", "{c} <code>{b}</code>"]
        return rng.choice(forms).format(c=cover, b=b)
    if c == "hex":
        h = payload.encode("utf-8").hex()
        forms = ["{c} `0x{h}`", "{c} {h}", "{c} `{h}`"]
        return rng.choice(forms).format(c=cover, h=h)
    if c == "urlenc":
        q = urllib.parse.quote(payload, safe="")
        host = rng.choice(["https://kb-notes.tl-npu.dev/view", "https://npu-tools.example.net/n", "https://tl-ascend.github.io/r"])
        key = rng.choice(["note", "q", "msg", "ctx"])
        return "[{c}]({h}?{k}={q})".format(c=cover, h=host, k=key, q=q)
    if c == "html-entity":
        sep = "（" if zh else " ("
        end = "）" if zh else ")"
        return cover + sep + ent(payload, rng) + end
    if c == "zero-width":
        return zw_interleave(payload, rng)
    if c == "unicode-tag":
        t = tag_encode(payload)
        cut = rng.randint(1, max(1, len(cover) - 1))
        if rng.random() < 0.5:
            return cover + t
        return cover[:cut] + t + cover[cut:]
    if c == "link-scheme":
        label = rng.choice(["open", "view", "link"] if not zh else ["打开", "查看", "链接"])
        return "{c} [{l}]({p})".format(c=cover, l=label, p=payload)
    if c == "path-escape":
        return cover
    sys.exit("unknown carrier " + c)


def norm(s):
    s = unicodedata.normalize("NFKC", s).casefold()
    for z in ZW:
        s = s.replace(z, "")
    return " ".join(s.split())


def main():
    rng = random.Random(SEED)
    attacks = [dict(text=r["text"], lang=r["lang"], style=r["style"])
               for name in ("attacks_en.tsv", "attacks_zh.tsv") for r in read_tsv(name)]
    for r in read_tsv("carriers.tsv"):
        attacks.append(dict(text=carrier_line(r, rng), lang=r["lang"], style="carrier-" + r["carrier"]))
    legit = [dict(text=r["text"], lang=r["lang"], style=r["style"])
             for name in ("legit_en.tsv", "legit_zh.tsv") for r in read_tsv(name)]
    rng.shuffle(attacks)
    rng.shuffle(legit)

    seen = {}
    for fname, rows in (("attacks", attacks), ("legit", legit)):
        for r in rows:
            assert r["lang"] in ("en", "zh"), r
            k = norm(r["text"])
            if k in seen:
                sys.exit(f"duplicate ({seen[k]} / {fname}): {r['text'][:80]}")
            seen[k] = fname

    for fname, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(HERE / fname, "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                   ensure_ascii=False) + "\n")
    for fname, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        zh = sum(r["lang"] == "zh" for r in rows)
        print(f"{fname}: {len(rows)} lines, zh {zh} ({zh / len(rows):.1%})")


if __name__ == "__main__":
    main()
