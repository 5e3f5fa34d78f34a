#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# The ABI of libexecrpc-1 and libexecrpc-plugin-1 (abigail-tools):
#   abi.sh dump BUILD_DIR   writes data/abi/LIB.abi from BUILD_DIR's libraries,
#                           the baseline of the last release (run it at a release)
#   abi.sh check BUILD_DIR  checks the symbol maps (scripts/check-symbol-maps.py)
#                           and compares BUILD_DIR's libraries with data/abi/:
#                           a removed symbol or a changed type of the public
#                           headers fails; added symbols do not
# Both look at BUILD_DIR installed with --destdir, so that only the installed
# headers count as the public ABI. BUILD_DIR needs debug information (-g).
set -eu
mode=${1:?usage: abi.sh dump|check BUILD_DIR}
build=$(cd "${2:?usage: abi.sh dump|check BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
dest=$(mktemp -d "${TMPDIR:-/tmp}/esd-abi.XXXXXX")
trap 'rm -rf "$dest"' EXIT INT TERM
meson install -C "$build" --destdir "$dest" --no-rebuild >/dev/null
libdir=$(meson introspect --buildoptions "$build" |
	python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"].rstrip("/") + "/" + o["libdir"] if not o["libdir"].startswith("/") else o["libdir"])')
includedir=$(meson introspect --buildoptions "$build" |
	python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"].rstrip("/") + "/" + o["includedir"])')
status=0
# the dumps name no path of the machine that made them
abidw_opts="--no-corpus-path --no-comp-dir-path --no-show-locs --drop-private-types --load-all-types"
for lib in libexecrpc libexecrpc-plugin; do
	so=$dest$libdir/$lib-1.so.0
	headers=$dest$includedir/$(echo "$lib" | sed 's/^lib//')-1
	[ -f "$so" ] || { echo "abi.sh: no $so" >&2; exit 1; }
	case $mode in
	dump)
		mkdir -p "$src/data/abi"
		# shellcheck disable=SC2086
		abidw $abidw_opts --headers-dir "$headers" --out-file "$src/data/abi/$lib-1.abi" "$so"
		echo "abi.sh: wrote data/abi/$lib-1.abi"
		;;
	check)
		python3 "$src/scripts/check-symbol-maps.py" "$src" "$lib" "$so" || status=1
		# both sides read alike, every type of the installed headers included
		# shellcheck disable=SC2086
		abidw $abidw_opts --headers-dir "$headers" --out-file "$dest/$lib-1.abi" "$so"
		abidiff --no-added-syms --non-reachable-types --suppressions "$src/data/abi/private.suppr" \
			"$src/data/abi/$lib-1.abi" \
			"$dest/$lib-1.abi" >"$dest/$lib.diff" 2>&1 && diff_status=0 || diff_status=$?
		# 1 and 2 are errors, 8 an incompatible change; 4 (a change) is
		# fine when all that changed is added
		if [ $((diff_status & 11)) = 0 ] &&
			! grep -q -E '(^|[^0-9])[1-9][0-9]* (Removed|Changed|removed|changed)' "$dest/$lib.diff"; then
			echo "abi.sh: $lib-1: the ABI of data/abi/$lib-1.abi is kept"
		else
			echo "abi.sh: $lib-1: the ABI differs from data/abi/$lib-1.abi:"
			sed 's/^/  /' "$dest/$lib.diff"
			status=1
		fi
		;;
	*)
		echo "usage: abi.sh dump|check BUILD_DIR" >&2
		exit 2
		;;
	esac
done
exit "$status"
