#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# Source checks that need no build, run first by scripts/run-tests.sh:
#  - the plugin boundary: a file in plugins/ includes only its own plugin's
#    headers, the public headers of libexecrpc-1 and libexecrpc-plugin-1, and
#    system headers; never a daemon header (server/**/*.h, or any esd-*.h that
#    is not in its own plugin's directory) nor a *-private.h of the libraries;
#    nor do their meson.build files add the project root, server/ or a daemon
#    library;
#  - what the libraries' *-private.h declare is exported under the _PRIVATE
#    node of their version script, which plugins must not import
#    (tests/plugins/test-plugin-symbols.c checks the built modules);
#  - po/POTFILES.in lists exactly the sources that call _(), N_(), C_()…;
#  - the format: every tracked *.c and *.h matches .clang-format.
# Prints each refusal and exits 1 if there is any.
set -eu
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
failed=0

refuse() {
	echo "check-source: $*"
	failed=1
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	list_files() { git ls-files -- "$@"; }
else
	# a copy of the tree without its .git
	list_files() {
		for pattern in "$@"; do
			find . -path ./build\* -prune -o -type f -path "./$pattern" -print | sed 's|^\./||'
		done | sort -u
	}
fi

# "name path" of every daemon header and every private header of the libraries
header_index=$(for h in $(list_files 'server/*.h' 'libexecrpc/*-private.h' \
	'libexecrpc-plugin/*-private.h'); do echo "${h##*/} $h"; done)

# the repository file a daemon or library header name stands for, if any
resolve() {
	found=$(echo "$header_index" | awk -v name="${1##*/}" '$1 == name { print $2; exit }')
	if [ -n "$found" ]; then
		echo "$found"
		return
	fi
	case "$1" in
	server/* | */server/* | ../*) echo "$1" ;;
	esd-*.h | */esd-*.h) echo "$1" ;;
	*) ;;
	esac
}

# $1 includes $2, found in $3: a file of the plugin $1 belongs to
own_header() {
	[ -f "$3/$2" ] || return 1
	case "$2" in
	*/*) ;;
	*) return 0 ;;
	esac
	plugin_dir=$(realpath "plugins/$(echo "$1" | cut -d/ -f2)")
	case "$(realpath "$3/$2")" in
	"$plugin_dir"/*) return 0 ;;
	*) return 1 ;;
	esac
}

for file in $(list_files 'plugins/*.c' 'plugins/*.h'); do
	dir=$(dirname "$file")
	refused=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$file" |
		while IFS= read -r header; do
			own_header "$file" "$header" "$dir" && continue
			target=$(resolve "$header")
			[ -n "$target" ] || continue
			case "$target" in
			*-private.h) why="a private header of the libraries" ;;
			server/*) why="a header of the daemon" ;;
			*) why="a header from outside the plugin" ;;
			esac
			echo "check-source: $file includes \"$header\" ($target): $why;" \
				"plugins use <execrpc-plugin.h> and their own headers only"
		done)
	if [ -n "$refused" ]; then
		echo "$refused"
		failed=1
	fi
done

# and the build files give plugins no daemon include path or library
for build in $(list_files 'plugins/*meson.build'); do
	refused=$(grep -n -e 'root_inc' -e 'libesd_[a-z_]*dep' -e "include_directories(.*\.\." "$build" |
		grep -v '^[0-9]*:[[:space:]]*#' |
		while IFS= read -r line; do
			echo "check-source: $build:${line%%:*}: ${line#*:}: plugins build with esd_plugin_dep only"
		done)
	if [ -n "$refused" ]; then
		echo "$refused"
		failed=1
	fi
done

# what the private headers of a library declare is what its version script
# exports under the *_PRIVATE node, not under the public pattern erpc_*
for lib in libexecrpc libexecrpc-plugin; do
	map=$lib/$lib.map
	declared=$(list_files "$lib/*-private.h" | xargs -r cat |
		sed -n 's/^\(erpc_[a-z0-9_]*\)(.*/\1/p' | sort -u)
	exported=$(awk '/_PRIVATE[[:space:]]*\{/ { p = 1; next } p && /\}/ { p = 0 } p' "$map" |
		sed -n 's/^[[:space:]]*\(_*erpc_[a-z0-9_]*\);.*/\1/p' | sort -u)
	for name in $declared; do
		echo "$exported" | grep -qx "$name" ||
			refuse "$name is in a private header of $lib but not in the _PRIVATE node of $map"
	done
	for name in $exported; do
		case "$name" in
		_*) continue ;;
		*) ;;
		esac
		echo "$declared" | grep -qx "$name" ||
			refuse "$name is in the _PRIVATE node of $map but in no private header of $lib"
	done
done

# po/POTFILES.in lists exactly the sources that mark strings for translation
# (tests and examples aside: they are not translated)
marked=$(list_files '*.c' '*.h' | grep -v -e '^tests/' -e '^examples/' |
	xargs -r grep -l -E '(^|[^A-Za-z0-9_])(N?_|C_|NC_|Q_)\(' | sort)
listed=$(grep -v -e '^#' -e '^[[:space:]]*$' po/POTFILES.in | sort)
for file in $marked; do
	echo "$listed" | grep -qx "$file" ||
		refuse "$file marks strings for translation but is not in po/POTFILES.in"
done
for file in $listed; do
	echo "$marked" | grep -qx "$file" ||
		refuse "po/POTFILES.in lists $file, which marks no string for translation"
done

if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
	refuse "$CLANG_FORMAT not found (scripts/deps.sh installs it)"
else
	# one run over every file; it names each file that drifts
	sources=$(list_files '*.c' '*.h' | grep -v -e '/generated/' -e '^tests/fuzz/corpus/' || true)
	if ! report=$(echo "$sources" | xargs -r "$CLANG_FORMAT" --dry-run -Werror 2>&1); then
		drifted=$(echo "$report" |
			sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
			sort -u)
		if [ -z "$drifted" ]; then
			refuse "$CLANG_FORMAT failed: $report"
		fi
		for file in $drifted; do
			refuse "$file does not match .clang-format (clang-format -i $file)"
		done
	fi
fi

# REUSE: every file says its licence and copyright (scripts/reuse-headers.py
# puts them in; .reuse/dep5 covers data that cannot carry a comment)
if ! python3 scripts/reuse-headers.py --check >/dev/null 2>&1; then
	refuse "files without a REUSE header: $(python3 scripts/reuse-headers.py --check 2>&1 | tail -n +2 | tr -d ' ' | tr '\n' ' ')(scripts/reuse-headers.py)"
fi
if command -v reuse >/dev/null 2>&1 && ! reuse lint >/dev/null 2>&1; then
	refuse "reuse lint: $(reuse lint 2>&1 | grep -E '^\* ' | tr '\n' ' ')"
fi

[ "$failed" = 0 ] && echo "check-source: ok"
exit "$failed"
