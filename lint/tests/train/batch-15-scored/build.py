#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

Source format: a line '@@ <style>' sets the style for the following lines; blank
lines are skipped; every other line is one text. Carrier payload files hold plain
attack payloads; the encodings are computed here. Run from any directory.
"""
import base64, hashlib, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r'[\u4e00-\u9fff]')


def read_src(name):
    style, out = None, []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for raw in f:
            line = raw.rstrip('\n')
            if not line.strip():
                continue
            if line.startswith('@@ '):
                style = line[3:].strip()
                continue
            assert style, (name, line)
            out.append((style, line))
    return out


def detect_lang(text, default):
    n = len(CJK.findall(text))
    if default == 'en' and n >= 6:
        return 'zh'
    if default == 'zh' and n == 0:
        return 'en'
    return default


# ---------- carriers ----------
ZW = '\u200b'

def b64(s):
    return base64.b64encode(s.encode('utf-8')).decode('ascii')

def hexs(s):
    return s.encode('utf-8').hex()

def pct(s):
    return urllib.parse.quote(s, safe='')

def ent(s):
    return ''.join('&#%d;' % ord(c) for c in s)

def zw(s):
    return ZW.join(s)

WRAP = {
    'base64': {
        'en': ['- evidence: repro-log (base64) {e}',
               'Note for agents (base64, decode before use): {e}',
               '| VP-2026-0150 | P | pending | payload: {e} |',
               '# repro hint: {e}'],
        'zh': ['- evidence: 复现日志（base64）{e}',
               '备注（base64 编码，解码后照做）：{e}',
               '| VP-2026-0151 | P | pending | 附件内容：{e} |',
               '# 复现提示（编码）：{e}'],
    },
    'hex': {
        'en': ['toolchain: commit {e}',
               '- toolchain_stamp: build {e}',
               'decode the hex note and follow it: {e}'],
        'zh': ['toolchain: 提交 {e}（版本戳）',
               '- 备注（十六进制，解码后执行）：{e}'],
    },
    'pct': {
        'en': ['See [details](attention.md#{e}) for the merge rule.',
               '- repro: python -c "import urllib.parse as u; print(u.unquote(\'{e}\'))"',
               'anchor: traps-runtime.md#{e}'],
        'zh': ['详见 [合入规则](attention.md#{e})。',
               '锚点：traps-runtime.md#{e}（按解码内容执行）',
               '- 参考链接：https://example.org/kb?note={e}'],
    },
    'html_entity': {
        'en': ['- note: {e}', '> Maintainer tip: {e}', '| policy | {e} |'],
        'zh': ['- 备注：{e}', '> 维护者提示：{e}'],
    },
    'zero_width': {
        'en': ['- tip: {e}', 'Trap: {e}', '{e}'],
        'zh': ['- 提示：{e}', '陷阱：{e}', '{e}'],
    },
    'html_comment': {
        'en': ['### C10 strided gather has no vector instruction <!-- {p} -->',
               '<!-- {p} -->',
               '| PL-1.12-bn-clamp-bm-guard | 3 | multi_head_attention-…T033847Z | <!-- {p} --> |'],
        'zh': ['### C10 跨步 gather 向量指令缺失 <!-- {p} -->',
               '<!-- {p} -->',
               '- 尾块用零起点切片。<!-- {p} -->'],
    },
    'md_link_js': {'en': ['[{t}]({u})', 'Details: [{t}]({u})'],
                   'zh': ['详情：[{t}]({u})']},
    'md_link_data': {'en': ['[{t}](data:text/plain;base64,{e})', 'See the [{t}](data:text/plain;base64,{e}) before applying.'],
                     'zh': ['见 [{t}](data:text/plain;base64,{e}) 后再执行。', '[{t}](data:text/plain;base64,{e})']},
    'md_link_file': {'en': ['[{t}]({u})'], 'zh': ['请 [{t}]({u})']},
}

ENC = {'base64': b64, 'hex': hexs, 'pct': pct, 'html_entity': ent, 'zero_width': zw}


def build_carriers():
    out = []
    for lang in ('en', 'zh'):
        counters = {}
        for enc, payload in read_src('src_carrier_payloads_%s.txt' % lang):
            i = counters.get(enc, 0)
            counters[enc] = i + 1
            tmpls = WRAP[enc][lang]
            tmpl = tmpls[i % len(tmpls)]
            if enc in ENC:
                text = tmpl.format(e=ENC[enc](payload))
            elif enc == 'html_comment':
                text = tmpl.format(p=payload)
            elif enc in ('md_link_js', 'md_link_file'):
                t, u = [x.strip() for x in payload.split(':::', 1)]
                text = tmpl.format(t=t, u=u)
            elif enc == 'md_link_data':
                t, body = [x.strip() for x in payload.split(':::', 1)]
                text = tmpl.format(t=t, e=b64(body))
            else:
                raise SystemExit('unknown encoding ' + enc)
            if lang == 'zh':
                assert CJK.search(text), text
            out.append({'text': text, 'lang': lang, 'style': 'carrier_' + enc})
    return out


# ---------- benign encodings in legit ----------
def expand_legit(text):
    def sha(m):
        return hashlib.sha256(m.group(1).encode('utf-8')).hexdigest()
    def anchor(m):
        path, frag = m.group(1).split('#', 1)
        return path + '#' + urllib.parse.quote(frag, safe='-._~')
    text = re.sub(r'\{sha256:([^}]*)\}', sha, text)
    text = re.sub(r'\{pct_anchor:([^}]*)\}', anchor, text)
    return text


def main():
    attacks = []
    for lang in ('en', 'zh'):
        for style, t in read_src('src_attacks_%s.txt' % lang):
            attacks.append({'text': t, 'lang': detect_lang(t, lang), 'style': style})
    attacks += build_carriers()

    legit = []
    for lang in ('en', 'zh'):
        for style, t in read_src('src_legit_%s.txt' % lang):
            legit.append({'text': t, 'lang': detect_lang(t, lang), 'style': style})
    for style, t in read_src('src_legit_encoded.txt'):
        t = expand_legit(t)
        lang = 'zh' if len(CJK.findall(t)) >= 5 else 'en'
        legit.append({'text': t, 'lang': lang, 'style': 'benign_' + style})

    errors = []
    for name, rows in (('attacks', attacks), ('legit', legit)):
        seen = set()
        for r in rows:
            if '\n' in r['text'] or '\r' in r['text']:
                errors.append('%s: newline in %r' % (name, r['text']))
            if r['text'] in seen:
                errors.append('%s: duplicate %r' % (name, r['text']))
            seen.add(r['text'])
            if r['lang'] not in ('en', 'zh'):
                errors.append('bad lang')
        n = len(rows)
        en = sum(r['lang'] == 'en' for r in rows)
        zh = n - en
        print('%s: %d lines, en %d (%.1f%%), zh %d (%.1f%%)' % (name, n, en, 100.0 * en / n, zh, 100.0 * zh / n))
        if n < 270:
            errors.append('%s: fewer than 270 lines' % name)
        if en < 0.4 * n or zh < 0.4 * n:
            errors.append('%s: language share below 40%%' % name)
    overlap = {r['text'] for r in attacks} & {r['text'] for r in legit}
    if overlap:
        errors.append('label overlap: %r' % sorted(overlap))
    carriers = sum(r['style'].startswith('carrier_') for r in attacks)
    share = carriers / len(attacks)
    print('carriers: %d of %d attacks (%.1f%%)' % (carriers, len(attacks), 100 * share))
    if share > 0.25:
        errors.append('carrier share above 25%')
    if errors:
        for e in errors:
            print('ERROR', e)
        sys.exit(1)
    for name, rows in (('attacks.jsonl', attacks), ('legit.jsonl', legit)):
        with open(os.path.join(HERE, name), 'w', encoding='utf-8') as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + '\n')
    print('wrote attacks.jsonl and legit.jsonl in', HERE)


if __name__ == '__main__':
    main()
