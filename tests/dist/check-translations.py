#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The translations are complete and reach the programs: every language of
po/LINGUAS translates every message the sources of po/POTFILES.in mark
(xgettext run afresh, compared with msgcmp), nothing fuzzy or untranslated;
and execrpc and execserverd, run under LANGUAGE=LL with the C.UTF-8 locale
and the build tree's catalogs ($ESD_LOCALEDIR), print those translations.
usage: check-translations.py SRCDIR EXECSERVERD EXECRPC (TAP output)"""
import os, re, subprocess, sys, tempfile

srcdir, daemon, execrpc = sys.argv[1:4]
po_dir = os.path.join(srcdir, 'po')
langs = [word for line in open(os.path.join(po_dir, 'LINGUAS'))
         if not line.lstrip().startswith('#') for word in line.split()]
results = []


def check(name, ok, detail=''):
    results.append((name, ok, detail))


def catalog(path):
    """msgid -> msgstr of a .po file, without the header"""
    entries, cur, field = {}, None, None
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        m = re.match(r'^(msgid|msgstr) (".*")$', line)
        if m:
            field = m.group(1)
            if field == 'msgid':
                cur = ['', '']
            cur[0 if field == 'msgid' else 1] = eval(m.group(2))
            if field == 'msgstr':
                entries[cur[0]] = cur
        elif line.startswith('"') and cur is not None:
            cur[0 if field == 'msgid' else 1] += eval(line)
    return {k: v[1] for k, v in entries.items() if k}


with tempfile.TemporaryDirectory() as tmp:
    pot = os.path.join(tmp, 'execserverd.pot')
    subprocess.run(['xgettext', '--from-code=UTF-8', '--keyword=_', '--keyword=N_',
                    '--keyword=C_:1c,2', '--keyword=NC_:1c,2', '-D', srcdir,
                    '--files-from', os.path.join(po_dir, 'POTFILES.in'), '-o', pot], check=True)
    for lang in langs:
        po = os.path.join(po_dir, lang + '.po')
        cmp = subprocess.run(['msgcmp', po, pot], capture_output=True, text=True)
        check('%s.po has every message of the sources' % lang, cmp.returncode == 0, cmp.stderr)
        stats = subprocess.run(['msgfmt', '--check', '--statistics', '-o', os.devnull, po],
                               capture_output=True, text=True)
        check('%s.po is valid, nothing fuzzy or untranslated' % lang,
              stats.returncode == 0 and 'fuzzy' not in stats.stderr and
              'untranslated' not in stats.stderr, stats.stderr)

        env = dict(os.environ, LC_ALL='C.UTF-8', LANGUAGE=lang)
        env.pop('LANG', None)
        tr = catalog(po)
        runs = [
            ('execrpc --help', [execrpc, '--help'], 0, 'stdout',
             'COMMAND [ARGS…]'),
            ('execrpc --help', [execrpc, '--help'], 0, 'stdout',
             'Start a private execserverd and talk to it over its stdio'),
            ('execrpc with an unknown command', [execrpc, 'bogus'], 2, 'stderr',
             'unknown command %s'),
            ('execserverd --help', [daemon, '--help'], 0, 'stdout',
             'Execution server for coding agents (Codex exec-server protocol)'),
            ('execserverd --help', [daemon, '--help'], 0, 'stdout', 'Log more to stderr'),
            ('execserverd --help-all, a plugin\'s group', [daemon, '--help-all'], 0, 'stdout',
             'WebSocket authentication and TLS (ws plugin):'),
        ]
        for what, argv, status, stream, msgid in runs:
            proc = subprocess.run(argv, env=env, capture_output=True, text=True)
            text = proc.stdout if stream == 'stdout' else proc.stderr
            expect = tr.get(msgid, '').replace('%s', 'bogus')
            english = msgid.replace('%s', 'bogus')
            ok = (proc.returncode == status and expect != '' and expect != english and
                  expect in text and english not in text)
            check('%s under LANGUAGE=%s prints %r' % (what, lang, expect), ok,
                  'exit %d\n%s' % (proc.returncode, text))

print('1..%d' % len(results))
for i, (name, ok, detail) in enumerate(results, 1):
    print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
    if not ok:
        for line in detail.splitlines()[:20]:
            print('# ' + line)
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
