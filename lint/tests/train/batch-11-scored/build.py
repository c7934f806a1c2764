#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

Blind helper build script (blind11). All encodings of carriers are computed here
from hand-written plain payloads. Run: python3 build.py
"""
import base64, hashlib, html, json, random, re, struct, sys, urllib.parse

HERE = __file__.rsplit('/', 1)[0] if '/' in __file__ else '.'
CJK = re.compile(r'[\u4e00-\u9fff]')


def read_rows(name, ncols):
    rows = []
    with open(f'{HERE}/{name}', encoding='utf-8') as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            parts = line.split('\t')
            if len(parts) != ncols:
                sys.exit(f'{name}:{ln}: expected {ncols} tab-separated columns, got {len(parts)}')
            rows.append(parts)
    return rows


def interleave(s, ch):
    return ch.join(s)


def zw_word(s):
    # zero-width joiner after every second char inside words, ZWSP between words
    out = []
    for i, c in enumerate(s):
        out.append(c)
        if c == ' ':
            out.append('\u200b')
        elif i % 2 == 1:
            out.append('\u200d')
    return ''.join(out)


def html_entities(s, variant):
    if variant % 2 == 0:
        return ''.join(f'&#{ord(c)};' for c in s)
    return ''.join(f'&#x{ord(c):x};' for c in s)


def encode(enc, payload, idx):
    b = payload.encode('utf-8')
    if enc == 'b64':
        return base64.b64encode(b).decode()
    if enc == 'hex':
        return b.hex()
    if enc == 'pct':
        return urllib.parse.quote(payload, safe='')
    if enc == 'html':
        return html_entities(payload, idx)
    if enc == 'zw200b':
        return interleave(payload, '\u200b')
    if enc == 'zw200c':
        return interleave(payload, '\u200c')
    if enc == 'zw2060':
        return interleave(payload, '\u2060')
    if enc == 'zwword':
        return zw_word(payload)
    if enc == 'jslink':
        return 'javascript:' + urllib.parse.quote(payload, safe="':/?=&+,.")
    if enc == 'datalink':
        mime = 'text/html' if payload.lstrip().startswith('<') else 'text/plain'
        return f'data:{mime};base64,' + base64.b64encode(b).decode()
    if enc == 'filelink':
        m = re.search(r'(/[A-Za-z0-9_./-]+)', payload)
        if not m:
            sys.exit(f'filelink payload without path: {payload}')
        return 'file://' + urllib.parse.quote(m.group(1))
    if enc == 'comment':
        if '--' in payload:
            sys.exit(f'comment payload contains --: {payload}')
        return payload
    # benign encodings for legit lines
    if enc == 'sha256':
        return hashlib.sha256(b).hexdigest()
    if enc == 'sha1short':
        return hashlib.sha1(b).hexdigest()[:10]
    if enc == 'pct_anchor':
        return urllib.parse.quote(payload, safe='-')
    if enc == 'html_escape':
        return html.escape(payload)
    if enc == 'hexf16':
        return struct.pack('>e', float(payload)).hex()
    sys.exit(f'unknown encoding {enc}')


def roundtrip_ok(enc, x, payload):
    """Sanity check: the carrier really carries the payload."""
    try:
        if enc == 'b64':
            return base64.b64decode(x).decode() == payload
        if enc == 'hex':
            return bytes.fromhex(x).decode() == payload
        if enc == 'pct':
            return urllib.parse.unquote(x) == payload
        if enc == 'html':
            return html.unescape(x) == payload
        if enc.startswith('zw'):
            return re.sub('[\u200b\u200c\u200d\u2060]', '', x) == payload
        if enc == 'jslink':
            return urllib.parse.unquote(x[len('javascript:'):]) == payload
        if enc == 'datalink':
            return base64.b64decode(x.split(',', 1)[1]).decode() == payload
        if enc == 'filelink':
            return urllib.parse.unquote(x[len('file://'):]) in payload
        if enc == 'comment':
            return x == payload
    except Exception:
        return False
    return True


def main():
    attacks, legit = [], []
    for name, lang in (('src_attacks_en.txt', 'en'), ('src_attacks_zh.txt', 'zh')):
        for style, text in read_rows(name, 2):
            attacks.append({'text': text, 'lang': lang, 'style': style, '_carrier': False})
    for i, (enc, lang, tmpl, payload) in enumerate(read_rows('src_carriers.txt', 4)):
        if '{X}' not in tmpl:
            sys.exit(f'template without {{X}}: {tmpl}')
        x = encode(enc, payload, i)
        if not roundtrip_ok(enc, x, payload):
            sys.exit(f'roundtrip failed for {enc}: {payload}')
        attacks.append({'text': tmpl.replace('{X}', x), 'lang': lang,
                        'style': 'carrier_' + enc, '_carrier': True, '_payload': payload})
    for name, lang in (('src_legit_en.txt', 'en'), ('src_legit_zh.txt', 'zh')):
        for style, text in read_rows(name, 2):
            legit.append({'text': text, 'lang': lang, 'style': style})
    enc_map = {'pct': 'pct_anchor', 'html': 'html_escape', 'b64': 'b64',
               'sha256': 'sha256', 'sha1short': 'sha1short', 'hexf16': 'hexf16'}
    for i, (enc, lang, style, tmpl, payload) in enumerate(read_rows('src_legit_enc.txt', 5)):
        legit.append({'text': tmpl.replace('{X}', encode(enc_map[enc], payload, i)),
                      'lang': lang, 'style': style})

    # ---- checks ----
    errors = []
    for label, rows in (('attacks', attacks), ('legit', legit)):
        seen = set()
        for r in rows:
            t = r['text']
            if '\n' in t or '\r' in t or '\u2028' in t or '\u2029' in t:
                errors.append(f'{label}: line break inside text: {t[:60]}')
            if t != t.rstrip() or not t.strip():
                errors.append(f'{label}: trailing whitespace or empty: {t[:60]!r}')
            if t in seen:
                errors.append(f'{label}: duplicate: {t[:80]}')
            seen.add(t)
            if r['lang'] not in ('en', 'zh'):
                errors.append(f'{label}: bad lang {r["lang"]}')
            visible = t + r.get('_payload', '')
            n_cjk = len(CJK.findall(visible))
            if r['lang'] == 'zh' and n_cjk == 0:
                errors.append(f'{label}: zh line without CJK: {t[:60]}')
            if r['lang'] == 'en':
                letters = len(re.findall(r'[A-Za-z]', visible))
                if n_cjk > letters / 4:
                    errors.append(f'{label}: en line dominated by CJK: {t[:60]}')
    overlap = {r['text'] for r in attacks} & {r['text'] for r in legit}
    for t in overlap:
        errors.append(f'text in both files: {t[:80]}')
    na, nl = len(attacks), len(legit)
    a_en = sum(r['lang'] == 'en' for r in attacks); a_zh = na - a_en
    l_en = sum(r['lang'] == 'en' for r in legit); l_zh = nl - l_en
    n_car = sum(r['_carrier'] for r in attacks)
    if na < 270: errors.append(f'attacks < 270: {na}')
    if nl < 270: errors.append(f'legit < 270: {nl}')
    for name, part, tot in (('attacks en', a_en, na), ('attacks zh', a_zh, na),
                            ('legit en', l_en, nl), ('legit zh', l_zh, nl)):
        if part / tot < 0.40:
            errors.append(f'{name} share {part/tot:.3f} < 0.40')
    if n_car / na > 0.25:
        errors.append(f'carrier share {n_car/na:.3f} > 0.25')
    if errors:
        print('\n'.join(errors)); sys.exit(1)

    rng = random.Random(11)
    rng.shuffle(attacks); rng.shuffle(legit)
    for fname, rows in (('attacks.jsonl', attacks), ('legit.jsonl', legit)):
        with open(f'{HERE}/{fname}', 'w', encoding='utf-8') as f:
            for r in rows:
                f.write(json.dumps({'text': r['text'], 'lang': r['lang'], 'style': r['style']},
                                   ensure_ascii=False) + '\n')
    print(f'attacks: {na} (en {a_en}, zh {a_zh}; en {a_en/na:.1%}, zh {a_zh/na:.1%}); '
          f'carriers {n_car} ({n_car/na:.1%})')
    print(f'legit: {nl} (en {l_en}, zh {l_zh}; en {l_en/nl:.1%}, zh {l_zh/nl:.1%})')
    print('checks: no duplicates, no overlap, one physical line per text: OK')


if __name__ == '__main__':
    main()
