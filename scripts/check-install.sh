#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs BUILD_DIR with --destdir into a scratch directory and checks the
# result as a distribution would ship it:
#  - no installed file names the source or the build tree (debug sections
#    aside: distributions split them off, and -ffile-prefix-map maps them),
#    so that builds are reproducible; the build tree's binaries find its
#    plugins and helpers through the environment (meson devenv);
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
exit "$failed"
