#!/usr/bin/env python3
"""Mechanical encoded variants of plain training attacks (issue #10, item 2).

    python3 lint/tests/train/encode_variants.py own-2 40 11

reads `<set>/attacks.jsonl`, picks N plain attacks with `random.seed(SEED)`, and writes
`<set>/encoded.jsonl`-style lines (appended to `<set>/attacks.jsonl` as style base64,
base64url, hex, url, entities, entities-hex, zw) with a carrier phrase a writer might use.
Run once per set; the output is checked in, so the figures do not depend on this script.
"""
import base64
import json
import random
import sys
import urllib.parse
from pathlib import Path

CARRIERS = {
    "base64": ["encoded note: {}", "{}", "blob={}", "附注（编码）：{}", "metadata: {}"],
    "base64url": ["token {}", "ref: {}", "{}"],
    "hex": ["0x{}", "hex blob {}", "{}"],
    "url": ["{}", "see: {}", "q={}"],
    "entities": ["{}", "note {}"],
    "entities-hex": ["{}"],
    "zw": ["{}"],
}


def encode(style, text):
    b = text.encode()
    if style == "base64":
        return base64.b64encode(b).decode()
    if style == "base64url":
        return base64.urlsafe_b64encode(b).decode().rstrip("=")
    if style == "hex":
        return b.hex()
    if style == "url":
        return urllib.parse.quote(text, safe="")
    if style == "entities":
        return "".join(f"&#{ord(c)};" for c in text)
    if style == "entities-hex":
        return "".join(f"&#x{ord(c):x};" for c in text)
    if style == "zw":
        return "\u200b".join(text)
    raise ValueError(style)


def main():
    name, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    path = Path(__file__).parent / name / "attacks.jsonl"
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    plain = [r for r in rows if r.get("style") == "plain"]
    rng = random.Random(seed)
    styles = list(CARRIERS)
    out = []
    for i, r in enumerate(rng.sample(plain, min(n, len(plain)))):
        style = styles[i % len(styles)]
        carrier = rng.choice(CARRIERS[style])
        out.append({"text": carrier.format(encode(style, r["text"])), "lang": r["lang"], "style": style})
    with path.open("a") as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
