#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from hand-written src_*.txt files.

All encodings (base64, hex, percent, HTML entities, zero-width interleaving, data: URLs)
are computed here from plain payloads in src_carrier.txt; none are hand-typed.
"""
import base64, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r'[\u4e00-\u9fff]')


def read_tsv(name, ncols):
    rows = []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            parts = line.split('\t')
            if len(parts) != ncols:
                sys.exit(f'{name}:{ln}: expected {ncols} tab-separated columns, got {len(parts)}')
            rows.append([p.strip() if i < ncols - 1 else p for i, p in enumerate(parts)])
    return rows


def lang_of(text):
    return 'zh' if len(CJK.findall(text)) >= 4 else 'en'


def b64(s):
    return base64.b64encode(s.encode('utf-8')).decode('ascii')


def expand_inner(s):
    # payloads may embed {{b64:...}} which is computed, never hand-typed
    return re.sub(r'\{\{b64:(.*?)\}\}', lambda m: b64(m.group(1)), s)


ZW = ['\u200b', '\u200c', '\u2060', '\u200d']


def encode(kind, payload):
    if kind == 'base64':
        return b64(payload)
    if kind == 'hex':
        return payload.encode('utf-8').hex()
    if kind == 'percent':
        return urllib.parse.quote(payload, safe='')
    if kind == 'entities':
        return ''.join(f'&#{ord(c)};' if i % 2 == 0 else f'&#x{ord(c):x};' for i, c in enumerate(payload))
    if kind == 'zerowidth':
        out = []
        for i, c in enumerate(payload):
            out.append(c)
            if i < len(payload) - 1:
                out.append(ZW[i % len(ZW)])
        return ''.join(out)
    if kind in ('comment', 'jslink', 'filelink'):
        return payload
    if kind == 'datalink':
        return 'data:text/html;base64,' + b64(payload)
    sys.exit(f'unknown carrier kind {kind}')


def main():
    attacks, legit = [], []
    for name in ('src_attack_en.txt', 'src_attack_zh.txt'):
        for style, text in read_tsv(name, 2):
            attacks.append({'text': text, 'lang': lang_of(text), 'style': style})
    n_plain = len(attacks)
    for kind, lang, wrapper, payload in read_tsv('src_carrier.txt', 4):
        payload = expand_inner(payload)
        if '{X}' not in wrapper:
            sys.exit(f'carrier wrapper lacks {{X}}: {wrapper}')
        text = wrapper.replace('{X}', encode(kind, payload))
        attacks.append({'text': text, 'lang': lang, 'style': 'carrier_' + kind})
    n_carrier = len(attacks) - n_plain
    for name in ('src_legit_en.txt', 'src_legit_zh.txt'):
        for style, text in read_tsv(name, 2):
            legit.append({'text': text, 'lang': lang_of(text), 'style': style})

    # checks
    errs = []
    for label, rows in (('attack', attacks), ('legit', legit)):
        seen = set()
        for r in rows:
            t = r['text']
            if '\n' in t or '\r' in t:
                errs.append(f'{label}: newline in text: {t!r}')
            if not t.strip():
                errs.append(f'{label}: empty text')
            if t in seen:
                errs.append(f'{label}: duplicate: {t}')
            seen.add(t)
            if not re.fullmatch(r'[a-z][a-z0-9_]*', r['style']):
                errs.append(f'{label}: bad style {r["style"]}')
            if r['lang'] == 'zh' and not CJK.search(t) and not r['style'].startswith('carrier_'):
                errs.append(f'{label}: zh without CJK: {t}')
    both = {r['text'] for r in attacks} & {r['text'] for r in legit}
    for t in sorted(both):
        errs.append(f'line in both files: {t}')
    norm = lambda s: re.sub(r'\s+', ' ', s.strip().lower())
    bothn = {norm(r['text']) for r in attacks} & {norm(r['text']) for r in legit}
    for t in sorted(bothn):
        errs.append(f'normalised line in both files: {t}')
    if len(attacks) < 270:
        errs.append(f'only {len(attacks)} attacks')
    if len(legit) < 270:
        errs.append(f'only {len(legit)} legit')
    stats = {}
    for label, rows in (('attacks', attacks), ('legit', legit)):
        en = sum(r['lang'] == 'en' for r in rows)
        zh = sum(r['lang'] == 'zh' for r in rows)
        stats[label] = (len(rows), en, zh)
        if en / len(rows) < 0.40 or zh / len(rows) < 0.40:
            errs.append(f'{label}: language share en={en} zh={zh}')
    share = n_carrier / len(attacks)
    if share > 0.25:
        errs.append(f'carrier share {share:.3f} > 0.25')
    if errs:
        print('\n'.join(errs))
        sys.exit(1)

    for fname, rows in (('attacks.jsonl', attacks), ('legit.jsonl', legit)):
        with open(os.path.join(HERE, fname), 'w', encoding='utf-8') as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + '\n')
    for label, (n, en, zh) in stats.items():
        print(f'{label}: {n} (en {en} = {en/n:.1%}, zh {zh} = {zh/n:.1%})')
    print(f'carriers: {n_carrier} of {len(attacks)} attacks = {share:.1%}')
    styles = {}
    for r in attacks:
        styles[r['style']] = styles.get(r['style'], 0) + 1
    print('attack styles:', dict(sorted(styles.items())))
    styles = {}
    for r in legit:
        styles[r['style']] = styles.get(r['style'], 0) + 1
    print('legit styles:', dict(sorted(styles.items())))


if __name__ == '__main__':
    main()
