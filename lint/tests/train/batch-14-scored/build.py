#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

Source format (src_attacks_*.txt / src_legit_*.txt, except src_attacks_carriers.txt):
  '@style NAME'  sets the style label for the following lines
  any other non-blank line is one text (kept verbatim, trailing newline stripped)
  legit lines may contain {sha256:X} {pct:X} {b64:X} which are replaced by the encoding of X
Carrier format (src_attacks_carriers.txt):
  '@style NAME' lines are ignored (style = 'carrier-' + encoding)
  ENC ||| WRAPPER ||| PAYLOAD   -- WRAPPER holds one '{}' that receives encode(ENC, PAYLOAD)
  PAYLOAD is a plain, hand-written attack; lang is taken from the payload.
"""
import base64, hashlib, html, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r'[\u4e00-\u9fff]')
ZW = ['\u200b', '\u200c', '\u200d', '\u2060']


def lang_of(s):
    return 'zh' if CJK.search(s) else 'en'


def encode(enc, p):
    b = p.encode('utf-8')
    if enc == 'b64':
        return base64.b64encode(b).decode()
    if enc == 'hex':
        return b.hex()
    if enc == 'pct':
        return urllib.parse.quote(p, safe='')
    if enc == 'html':
        return ''.join('&#x%x;' % ord(c) for c in p)
    if enc == 'htmlmix':  # named + numeric entities for every char that has a name, numeric otherwise
        return ''.join(('&%s;' % html.entities.codepoint2name[ord(c)]) if ord(c) in html.entities.codepoint2name else '&#%d;' % ord(c) for c in p)
    if enc == 'zw':
        out = []
        for i, c in enumerate(p):
            out.append(c)
            if i < len(p) - 1:
                out.append(ZW[i % len(ZW)])
        return ''.join(out)
    if enc == 'comment':
        return '<!-- ' + p + ' -->'
    if enc == 'js':
        return 'javascript:' + p
    if enc == 'data':
        return 'data:text/html;base64,' + base64.b64encode(b).decode()
    if enc == 'datatxt':
        return 'data:text/plain;charset=utf-8,' + urllib.parse.quote(p, safe='')
    if enc == 'file':
        return 'file://' + p
    raise ValueError('unknown encoding ' + enc)


import html.entities  # noqa: E402


def subst(text):
    def rep(m):
        kind, arg = m.group(1), m.group(2)
        if kind == 'sha256':
            return hashlib.sha256(arg.encode('utf-8')).hexdigest()
        if kind == 'pct':
            return urllib.parse.quote(arg, safe='')
        if kind == 'b64':
            return base64.b64encode(arg.encode('utf-8')).decode()
        raise ValueError(kind)
    return re.sub(r'\{(sha256|pct|b64):([^{}]*)\}', rep, text)


def read_plain(fn, legit):
    rows = []
    style = None
    with open(os.path.join(HERE, fn), encoding='utf-8') as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip('\n').rstrip('\r')
            if not line.strip():
                continue
            if line.startswith('@style '):
                style = line[7:].strip()
                continue
            assert style, '%s:%d no style' % (fn, ln)
            text = subst(line) if legit else line
            rows.append({'text': text, 'lang': lang_of(text), 'style': style, '_carrier': False})
    return rows


def read_carriers(fn):
    rows = []
    with open(os.path.join(HERE, fn), encoding='utf-8') as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip('\n').rstrip('\r')
            if not line.strip() or line.startswith('@style '):
                continue
            parts = line.split(' ||| ')
            assert len(parts) == 3, '%s:%d bad carrier line' % (fn, ln)
            enc, wrapper, payload = parts
            assert wrapper.count('{}') == 1, '%s:%d wrapper needs one {}' % (fn, ln)
            text = wrapper.replace('{}', encode(enc.strip(), payload))
            rows.append({'text': text, 'lang': lang_of(payload), 'style': 'carrier-' + enc.strip(), '_carrier': True})
    return rows


def main():
    files = sorted(os.listdir(HERE))
    attacks, legit = [], []
    for fn in files:
        if not (fn.startswith('src_') and fn.endswith('.txt')):
            continue
        if fn == 'src_attacks_carriers.txt':
            attacks += read_carriers(fn)
        elif fn.startswith('src_attacks'):
            attacks += read_plain(fn, False)
        elif fn.startswith('src_legit'):
            legit += read_plain(fn, True)
    errors = []
    for name, rows in (('attacks', attacks), ('legit', legit)):
        seen = {}
        for r in rows:
            t = r['text']
            if '\n' in t or '\r' in t or '\u2028' in t or '\u2029' in t or '\x85' in t:
                errors.append('%s: line break inside text: %r' % (name, t[:60]))
            if t in seen:
                errors.append('%s: duplicate: %r' % (name, t[:80]))
            seen[t] = 1
            if t != t.strip():
                errors.append('%s: surrounding whitespace: %r' % (name, t[:60]))
        n = len(rows)
        zh = sum(r['lang'] == 'zh' for r in rows)
        en = n - zh
        print('%s: %d lines, en %d (%.1f%%), zh %d (%.1f%%)' % (name, n, en, 100.0 * en / n, zh, 100.0 * zh / n))
        if n < 270:
            errors.append('%s: fewer than 270 lines' % name)
        if zh < 0.4 * n or en < 0.4 * n:
            errors.append('%s: language share below 40%%' % name)
    overlap = set(r['text'] for r in attacks) & set(r['text'] for r in legit)
    if overlap:
        errors.append('texts in both files: %r' % list(overlap)[:5])
    nc = sum(r['_carrier'] for r in attacks)
    print('attack carriers: %d of %d (%.1f%%)' % (nc, len(attacks), 100.0 * nc / len(attacks)))
    if nc > 0.25 * len(attacks):
        errors.append('carrier share above 25%')
    if errors:
        for e in errors:
            print('ERROR:', e, file=sys.stderr)
        sys.exit(1)
    for name, rows in (('attacks', attacks), ('legit', legit)):
        with open(os.path.join(HERE, name + '.jsonl'), 'w', encoding='utf-8', newline='\n') as f:
            for r in rows:
                f.write(json.dumps({'text': r['text'], 'lang': r['lang'], 'style': r['style']}, ensure_ascii=False) + '\n')
    print('wrote', os.path.join(HERE, 'attacks.jsonl'), os.path.join(HERE, 'legit.jsonl'))


if __name__ == '__main__':
    main()
