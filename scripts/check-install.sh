#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# Installs BUILD_DIR with --destdir into a scratch directory and checks the
# result as a distribution would ship it:
#  - no installed file names the source or the build tree (debug sections
#    aside: distributions split them off, and -ffile-prefix-map maps them),
#    so that builds are reproducible; the build tree's binaries find its
#    plugins and helpers through the environment (meson devenv);
#  - each .pc file requires what its installed headers include, and no
#    package they do not (Requires.private is for the library alone);
# Exits 1 on the first failed check, with what it found.
set -eu
build=$(cd "${1:?usage: check-install.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
dest=$(mktemp -d "${TMPDIR:-/tmp}/esd-check-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT INT TERM
failed=0
fail() {
	echo "check-install: $*" >&2
	failed=1
}

meson install -C "$build" --destdir "$dest" --no-rebuild >/dev/null

# every installed file, ELF files without their debug sections
stripped=$dest.stripped
mkdir -p "$stripped"
trap 'rm -rf "$dest" "$stripped"' EXIT INT TERM
find "$dest" -type f | while IFS= read -r file; do
	copy=$stripped/$(echo "${file#"$dest"/}" | tr / _)
	if head -c 4 "$file" | grep -q "ELF"; then
		objcopy --strip-debug "$file" "$copy"
	else
		cp "$file" "$copy"
	fi
	if grep -q -F -e "$build" -e "$src/" "$copy"; then
		echo "${file#"$dest"}"
	fi
done >"$stripped.list"
if [ -s "$stripped.list" ]; then
	fail "installed files that name the build or source tree:" $(cat "$stripped.list")
fi
rm -f "$stripped.list"
[ "$failed" = 0 ] && echo "check-install: no installed file names $build or $src"

# each .pc file requires what its headers include, and nothing more: a
# package a header needs is in Requires, one that no header needs is not
# (Requires.private is for the library alone)
for pc in $(find "$dest" -name 'libexecrpc*.pc'); do
	problems=$(python3 - "$pc" "$dest" <<'PY'
import glob, os, re, subprocess, sys
pc, dest = sys.argv[1:3]
# the package each included header belongs to, and what that package brings
owner = [(r'^execrpc\.h$', 'libexecrpc-1'), (r'^gmodule\.h$', 'gmodule-2.0'),
         (r'^gio/gunix', 'gio-unix-2.0'), (r'^gio/', 'gio-2.0'),
         (r'^glib-object\.h$|^gobject/', 'gobject-2.0'), (r'^glib\.h$|^glib/', 'glib-2.0'),
         (r'^json-glib/', 'json-glib-1.0'), (r'^libsoup/', 'libsoup-3.0')]
brings = {'gio-2.0': {'gobject-2.0', 'glib-2.0'}, 'gobject-2.0': {'glib-2.0'},
          'gmodule-2.0': {'glib-2.0'}, 'json-glib-1.0': {'gio-2.0', 'gobject-2.0', 'glib-2.0'},
          'libexecrpc-1': {'gio-2.0', 'gobject-2.0', 'glib-2.0', 'json-glib-1.0'}}
text = open(pc).read()
field = lambda name: set(re.findall(r'[A-Za-z0-9_.+-]+', (re.search(r'^%s:(.*)$' % name, text, re.M) or re.match('()', '')).group(1)))
requires, private = field('Requires'), field(r'Requires\.private')
sub = re.search(r'^Cflags:.*-I\$\{includedir\}/(\S+)', text, re.M).group(1)
hdrs = glob.glob(os.path.join(dest, '**', 'include', sub, '*.h'), recursive=True)
needed = set()
for h in hdrs:
    for inc in re.findall(r'^#\s*include\s*<([^>]+)>', open(h).read(), re.M):
        for pattern, pkg in owner:
            if re.search(pattern, inc):
                needed.add(pkg)
                break
implied = set().union(*(brings.get(p, set()) for p in needed)) if needed else set()
name = os.path.basename(pc)
for pkg in sorted(needed - requires - implied):
    print('%s: its headers include %s, which Requires does not name' % (name, pkg))
for pkg in sorted(requires - needed - implied):
    print('%s: Requires names %s, which no header includes' % (name, pkg))
for pkg in sorted(private & needed):
    print('%s: Requires.private names %s, which a header includes' % (name, pkg))
# a private requirement is a library the shared library links
lib = re.search(r'^Libs:.*-l(\S+)', text, re.M).group(1)
so = (glob.glob(os.path.join(dest, '**', 'lib%s.so.*' % lib), recursive=True) or [''])[0]
needed_libs = set(re.findall(r'\(NEEDED\).*\[(.*)\]', subprocess.run(
    ['readelf', '-d', so], capture_output=True, text=True).stdout)) if so else set()
for pkg in sorted(private):
    libs = subprocess.run(['pkg-config', '--libs-only-l', pkg], capture_output=True,
                          text=True).stdout.split()
    # the package's own library comes first, then those of what it requires
    if not any(('lib%s.so' % l[2:]) in n for l in libs[:1] for n in needed_libs):
        print('%s: Requires.private names %s, whose libraries %s does not link' % (name, pkg, os.path.basename(so)))
if not hdrs:
    print('%s: no installed header under include/%s' % (name, sub))
PY
	)
	if [ -n "$problems" ]; then
		fail "$problems"
	else
		echo "check-install: $(basename "$pc") requires what its headers include"
	fi
done
exit "$failed"
