#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The built man pages: groff and man find nothing to warn about, every
option of `execserverd --help-all` is in execserverd(8) and of
`execrpc --help` in execrpc(1), and every option execserverd-activation(7)
names is one the daemon has.
usage: check-man.py MANDIR EXECSERVERD EXECRPC (TAP output)"""
import os, re, subprocess, sys

mandir, daemon, execrpc = sys.argv[1:4]
OPTION = re.compile(r'^\s+(?:-\w, )?--([a-z0-9][a-z0-9-]*)', re.M)
results = []


def help_options(argv):
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    return {o for o in OPTION.findall(out)}


def page_text(path):
    """the roff source with escapes and font changes taken out"""
    text = open(path, encoding='utf-8').read()
    text = re.sub(r'\\f[BIRP]|\\f\(..', '', text)
    return text.replace('\\-', '-').replace('\\&', '')


pages = {'execserverd.8': help_options([daemon, '--help-all']),
         'execrpc.1': help_options([execrpc, '--help']),
         'execserverd-activation.7': None}
for name, options in pages.items():
    path = os.path.join(mandir, name)
    groff = subprocess.run(['groff', '-k', '-ww', '-z', '-man', '-Tutf8', path],
                           capture_output=True, text=True)
    results.append(('groff -ww finds nothing in %s' % name,
                    groff.returncode == 0 and groff.stderr == '', groff.stderr))
    man = subprocess.run(['man', '--warnings', '-l', path], capture_output=True, text=True,
                         env=dict(os.environ, MANWIDTH='80', MAN_KEEP_FORMATTING='0'))
    results.append(('man --warnings finds nothing in %s' % name,
                    man.returncode == 0 and man.stderr == '', man.stderr))
    text = page_text(path)
    if options is not None:
        missing = sorted(o for o in options if '--' + o not in text)
        results.append(('every option of --help is in %s' % name, not missing,
                        'missing: ' + ' '.join('--' + m for m in missing)))
    else:
        # the examples (.nf … .fi) are other programs' command lines
        prose = re.sub(r'^\.nf$.*?^\.fi$', '', text, flags=re.M | re.S)
        named = set(re.findall(r'(?<![\w-])--([a-z][a-z0-9-]*)', prose))
        stale = sorted(named - pages['execserverd.8'])
        results.append(('every option %s names is one of execserverd' % name, not stale,
                        'unknown: ' + ' '.join('--' + s for s in stale)))

print('1..%d' % len(results))
for i, (name, ok, detail) in enumerate(results, 1):
    print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
    if not ok:
        for line in detail.splitlines()[:20]:
            print('# ' + line)
sys.exit(0 if all(r[1] for r in results) else 1)
