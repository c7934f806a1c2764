#!/usr/bin/env python3
"""Build the blind evaluation set (attacks.jsonl / legit.jsonl) from hand-written src_*.txt files.

All paths are relative to this file's directory. Encodings are computed here, never hand-typed.
"""
import base64, hashlib, json, os, re, struct, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r'[\u4e00-\u9fff]')
STYLE_RE = re.compile(r'^[a-z][a-z0-9_]*$')
CARRIER_KINDS = {'b64', 'hex', 'pct', 'ent', 'zw', 'comment', 'js', 'data', 'file'}


def read_rows(name, ncols):
    rows = []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip():
                continue
            parts = line.split('\t')
            if len(parts) != ncols:
                sys.exit(f'{name}:{ln}: expected {ncols} tab-separated columns, got {len(parts)}')
            rows.append(parts)
    return rows


def ent(s):
    return ''.join(f'&#x{ord(c):x};' for c in s)


def zw(s):
    return '\u200b'.join(s)


def encode(kind, payload):
    b = payload.encode('utf-8')
    if kind == 'b64':
        return base64.b64encode(b).decode()
    if kind == 'hex':
        return b.hex()
    if kind == 'pct':
        return urllib.parse.quote(payload, safe='')
    if kind == 'ent':
        return ent(payload)
    if kind == 'zw':
        return zw(payload)
    if kind in ('comment', 'file'):
        return payload
    if kind == 'js':
        return urllib.parse.quote(payload, safe="()+'=:/.?,;_")
    if kind == 'data':
        return base64.b64encode(b).decode()
    if kind == 'sha256':
        return hashlib.sha256(b).hexdigest()
    if kind == 'f16b64':
        vals = [float(x) for x in payload.split(',')]
        return base64.b64encode(struct.pack('<%de' % len(vals), *vals)).decode()
    if kind == 'f32hex':
        return struct.pack('<f', float(payload)).hex()
    if kind == 'f16hex':
        return struct.pack('<e', float(payload)).hex()
    sys.exit(f'unknown encoding kind {kind}')


def plain(name):
    return [{'text': t, 'style': s} for s, t in read_rows(name, 2)]


def lang_of(text):
    """zh if the line contains CJK ideographs, else en."""
    return 'zh' if CJK.search(text) else 'en'


def main():
    attacks = []
    for name in ('src_attacks_en.txt', 'src_attacks_zh.txt'):
        want = 'en' if name.endswith('_en.txt') else 'zh'
        for r in plain(name):
            r['lang'] = want
            attacks.append(r)
    n_carrier = 0
    for kind, lang, wrapper, payload in read_rows('src_carriers.txt', 4):
        assert kind in CARRIER_KINDS, kind
        assert '{P}' in wrapper, wrapper
        attacks.append({'text': wrapper.replace('{P}', encode(kind, payload)), 'lang': lang,
                        'style': 'carrier_' + {'b64': 'base64', 'pct': 'percent', 'ent': 'html_entity',
                                               'zw': 'zero_width', 'comment': 'html_comment',
                                               'js': 'js_link', 'data': 'data_link',
                                               'file': 'file_link'}.get(kind, kind)})
        n_carrier += 1

    legit = []
    for name in ('src_legit_en.txt', 'src_legit_zh.txt'):
        want = 'en' if name.endswith('_en.txt') else 'zh'
        for r in plain(name):
            r['lang'] = want
            legit.append(r)
    for kind, lang, wrapper, payload in read_rows('src_legit_encoded.txt', 4):
        legit.append({'text': wrapper.replace('{P}', encode(kind, payload)), 'lang': lang,
                      'style': 'benign_encoded_' + kind})

    errors = []
    for label, rows in (('attack', attacks), ('legit', legit)):
        seen = set()
        for r in rows:
            t = r['text']
            if '\n' in t or '\r' in t:
                errors.append(f'{label}: newline in {t[:60]!r}')
            if t != t.rstrip() or not t.strip():
                errors.append(f'{label}: trailing space or empty {t[:60]!r}')
            if t in seen:
                errors.append(f'{label}: duplicate {t[:80]!r}')
            seen.add(t)
            if not STYLE_RE.match(r['style']):
                errors.append(f'{label}: bad style {r["style"]!r}')
            if r['lang'] not in ('en', 'zh'):
                errors.append(f'{label}: bad lang {r["lang"]!r}')
            # zh lines must contain CJK; en lines must be mostly non-CJK.
            cjk = len(CJK.findall(t))
            if r['lang'] == 'zh' and cjk == 0 and not r['style'].startswith('carrier_'):
                errors.append(f'{label}: zh without CJK {t[:60]!r}')
            if r['lang'] == 'en' and cjk > 0.2 * len(t):
                errors.append(f'{label}: en line mostly CJK {t[:60]!r}')
    overlap = {r['text'] for r in attacks} & {r['text'] for r in legit}
    if overlap:
        errors.append(f'{len(overlap)} lines are both attack and legit: {sorted(overlap)[:3]}')
    for label, rows in (('attack', attacks), ('legit', legit)):
        n = len(rows)
        if n < 270:
            errors.append(f'{label}: only {n} lines (< 270)')
        for lg in ('en', 'zh'):
            share = sum(r['lang'] == lg for r in rows) / n
            if share < 0.40:
                errors.append(f'{label}: {lg} share {share:.3f} < 0.40')
    cshare = n_carrier / len(attacks)
    if cshare > 0.25:
        errors.append(f'carrier share {cshare:.3f} > 0.25')
    if errors:
        print('\n'.join(errors))
        sys.exit(1)

    for name, rows in (('attacks.jsonl', attacks), ('legit.jsonl', legit)):
        with open(os.path.join(HERE, name), 'w', encoding='utf-8', newline='\n') as f:
            for r in rows:
                f.write(json.dumps({'text': r['text'], 'lang': r['lang'], 'style': r['style']},
                                   ensure_ascii=False) + '\n')

    def summary(rows):
        return {lg: sum(r['lang'] == lg for r in rows) for lg in ('en', 'zh')}
    print(f'attacks: {len(attacks)} {summary(attacks)} carriers {n_carrier} ({cshare:.1%})')
    print(f'legit:   {len(legit)} {summary(legit)}')
    print('attack styles:', len({r["style"] for r in attacks}), ' legit styles:', len({r["style"] for r in legit}))


if __name__ == '__main__':
    main()
