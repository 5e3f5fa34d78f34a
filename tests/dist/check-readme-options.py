#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Every option of `execserverd --help-all` has a row in the README's option
table and every row names an option the daemon has; every option of
`execrpc --help` is named in the README's execrpc section.
usage: check-readme-options.py README EXECSERVERD EXECRPC (TAP output)"""
import re, subprocess, sys

readme_path, daemon, execrpc = sys.argv[1:4]
readme = open(readme_path, encoding='utf-8').read()
OPTION = re.compile(r'^\s+(?:-\w, )?--([a-z0-9][a-z0-9-]*)', re.M)


def help_options(argv):
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    return {o for o in OPTION.findall(out) if o != 'help' and not o.startswith('help-')}


def table_options():
    """the first cells of the table under "## Running it" """
    section = readme.split('\n## Running it\n', 1)[1].split('\n## ', 1)[0]
    found = set()
    for line in section.splitlines():
        if line.startswith('| `'):
            found.update(re.findall(r'`-?-?(?:\w, )?--([a-z0-9][a-z0-9-]*)', line.split(' | ')[0]))
    return found


results = []
daemon_opts = help_options([daemon, '--help-all'])
rows = table_options()
results.append(('every execserverd --help-all option has a README row', sorted(daemon_opts - rows)))
results.append(('every README row is an option of execserverd', sorted(rows - daemon_opts)))
client = readme.split('`execrpc` is the command-line client', 1)[1].split('\n## ', 1)[0]
client_opts = help_options([execrpc, '--help'])
results.append(('every execrpc --help option is in the README',
                sorted(o for o in client_opts if '--' + o not in client)))

print('1..%d' % len(results))
for i, (name, missing) in enumerate(results, 1):
    if missing:
        print('not ok %d %s' % (i, name))
        print('# missing: ' + ' '.join('--' + m for m in missing))
    else:
        print('ok %d %s' % (i, name))
sys.exit(1 if any(m for _, m in results) else 0)
