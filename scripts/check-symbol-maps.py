#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The version script of a library lists exactly what it exports: every
symbol the built library exports is named in LIB.map, under the node it
carries, and nothing else; every function its public headers declare is
exported; each public symbol sits in the node of the
release its gi-docgen "Since:" names (a type's _get_type in its type's); the
_PRIVATE node holds only what the library's *-private.h declare.
usage: check-symbol-maps.py SRCDIR LIB LIB.so   (exit 1 with each mistake)"""
import glob, os, re, subprocess, sys

srcdir, lib, so = sys.argv[1:4]
libsrc = os.path.join(srcdir, lib)
failed = []

# the map: node -> symbols
nodes = {}
text = re.sub(r'/\*.*?\*/', '', open(os.path.join(libsrc, lib + '.map')).read(), flags=re.S)
for m in re.finditer(r'([A-Z0-9_.]+)\s*\{(.*?)\}', text, re.S):
    nodes[m.group(1)] = re.findall(r'^\s*([A-Za-z_][A-Za-z0-9_]*);', m.group(2), re.M)
listed = {s: node for node, syms in nodes.items() for s in syms}

# what the library exports, with its version node
out = subprocess.run(['nm', '-D', '--defined-only', so], check=True, capture_output=True,
                     text=True).stdout
exported = {}
for line in out.splitlines():
    parts = line.split()
    if len(parts) != 3 or parts[1] == 'A':
        continue
    name, _, node = parts[2].partition('@')
    exported[name] = node.lstrip('@')
for name, node in sorted(exported.items()):
    if name not in listed:
        failed.append('%s is exported (%s) but not named in %s.map' % (name, node, lib))
    elif listed[name] != node:
        failed.append('%s is exported under %s, the map names it under %s' % (name, node, listed[name]))
for name, node in sorted(listed.items()):
    if name not in exported:
        failed.append('%s.map names %s (%s), which the library does not export' % (lib, name, node))

# every function the installed headers declare is exported
public = ''.join(open(p).read() for p in glob.glob(os.path.join(libsrc, '*.h'))
                 if not p.endswith('-private.h'))
declared = set(re.findall(r'^(erpc_[a-z0-9_]+)\(', public, re.M))
declared |= {m + '_get_type' for m in
             re.findall(r'G_DECLARE_\w+\(\s*\w+,\s*(erpc_[a-z0-9_]+)', public)}
for name in sorted(declared - set(exported)):
    failed.append('%s is declared in a public header of %s but not exported' % (name, lib))

# the release each documented symbol belongs to
since = {}
for path in glob.glob(os.path.join(libsrc, '*.[ch]')):
    for m in re.finditer(r'/\*\*\n \* ([A-Za-z_0-9]+):.*?\*/', open(path).read(), re.S):
        s = re.search(r'Since: (\d+\.\d+)', m.group(0))
        if s:
            since.setdefault(m.group(1).lower(), s.group(1))
private = ''.join(open(p).read() for p in glob.glob(os.path.join(libsrc, '*-private.h')))
for name, node in sorted(listed.items()):
    if node.endswith('_PRIVATE'):
        if not re.search(r'\b%s\b' % re.escape(name), private):
            failed.append('%s is in %s but in no *-private.h of %s' % (name, node, lib))
        continue
    release = since.get(name)
    if release is None and name.endswith('_get_type'):
        release = since.get(name[:-len('_get_type')].replace('_', ''))
    if release is None:
        failed.append('%s has no "Since:" in its documentation' % name)
    elif not node.endswith('_' + release):
        failed.append('%s is Since: %s but in the node %s' % (name, release, node))

for line in failed:
    print('check-symbol-maps: ' + line)
if not failed:
    print('check-symbol-maps: %s.map lists the %d exported symbols, each under its release'
          % (lib, len(listed)))
sys.exit(1 if failed else 0)
