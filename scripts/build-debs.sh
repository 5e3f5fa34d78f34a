#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# Builds the Debian binary packages as fwupd does: the tree (tracked and
# untracked files, not ignored ones) copied to OUTDIR/execserverd-VERSION,
# contrib/debian copied to debian/ there, dpkg-buildpackage -us -uc -b.
# The .deb files and the .changes land in OUTDIR (default: build-deb).
# Extra arguments go to dpkg-buildpackage (e.g. -Pnodoc); DEB_BUILD_OPTIONS
# passes through (nocheck: no unit suite in the build).
# usage: scripts/build-debs.sh [OUTDIR] [DPKG-BUILDPACKAGE-ARGS...]
set -eu
cd "$(dirname "$0")/.."
outdir=${1:-build-deb}
[ $# -gt 0 ] && shift
version=$(sed -n '1s/^execserverd (\([^-]*\)-.*/\1/p' contrib/debian/changelog)
src=$outdir/execserverd-$version
rm -rf "$src"
mkdir -p "$src"
rm -f "$outdir"/*.deb "$outdir"/*.changes "$outdir"/*.buildinfo
git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	xargs -0 tar -cf - | tar -xf - -C "$src"
rm -rf "$src/debian"
cp -R contrib/debian "$src/debian"
(cd "$src" && dpkg-buildpackage -us -uc -b "$@")
ls "$outdir"/*.deb
