#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# The SDK as a third party gets it: installs the build BUILD_DIR with
# `meson install --destdir`, checks what was installed (headers, .pc files,
# GIRs: no private header, no path into the source or build tree, the build
# id the daemon checks), builds examples/hello-plugin and the README's
# "Writing a plugin" example against that install with PKG_CONFIG_PATH alone,
# then loads both into the daemon of BUILD_DIR with --plugins-dir and calls
# their methods and the example's launch hook (the environment of a
# process/start) over the protocol (tests/sdk/sdk-client.py), with the
# example's option from the config file and the command line. TAP output;
# exits 1 if anything failed.
#
#   tests/sdk/run.sh BUILD_DIR
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/esd-sdk-XXXXXX")
trap 'rm -rf "$work"' EXIT
dest=$work/destdir
n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}
not_ok() {
	n=$((n + 1))
	failed=1
	echo "not ok $n - $1"
	shift
	for line in "$@"; do printf '%s\n' "$line" | sed 's/^/# /'; done
}
# $1 the check, $2 a log shown when it fails, then the command
run() {
	what=$1
	log=$2
	shift 2
	if "$@" >"$log" 2>&1; then
		ok "$what"
	else
		not_ok "$what" "$*"
		sed 's/^/#   /' "$log" | tail -n 40
		return 1
	fi
}
finish() {
	echo "1..$n"
	exit "$failed"
}

run "meson install --destdir" "$work/install.log" \
	meson install -C "$build" --destdir "$dest" --no-rebuild || finish

# where meson put things: the prefix and libdir of the build
options=$(meson introspect --buildoptions "$build")
option() {
	echo "$options" | python3 -c "import json, sys
print(next(o['value'] for o in json.load(sys.stdin) if o['name'] == '$1'))"
}
prefix=$(option prefix)
libdir=$(option libdir)
includedir=$(option includedir)
case "$libdir" in /*) ;; *) libdir=$prefix/$libdir ;; esac
case "$includedir" in /*) ;; *) includedir=$prefix/$includedir ;; esac
pcdir=$dest$libdir/pkgconfig
export PKG_CONFIG_PATH="$pcdir"

# the headers: the plugin library's, erpc-plugin-version.h among them, and
# what the umbrella header includes; nothing private
headers=$dest$includedir/execrpc-plugin-1
missing=""
for header in execrpc-plugin.h erpc-plugin-version.h \
	$(sed -n 's/^#include "\([^"]*\)"/\1/p' "$src/libexecrpc-plugin/execrpc-plugin.h"); do
	[ -f "$headers/$header" ] || missing="$missing $header"
done
if [ -z "$missing" ]; then ok "the plugin library's headers are installed"; else
	not_ok "the plugin library's headers are installed" "missing:$missing"; fi
private=$(find "$dest" -name '*-private.h' -o -name 'esd-*.h' -o -name config.h)
if [ -z "$private" ]; then ok "no private or daemon header is installed"; else
	not_ok "no private or daemon header is installed" $private; fi

# text files of the SDK name nothing of the trees it was built in
leaks=$(find "$dest" -type f \( -name '*.h' -o -name '*.pc' -o -name '*.gir' \) \
	-exec grep -l -F -e "$src/" -e "$build/" {} + || true)
if [ -z "$leaks" ]; then ok "installed headers, .pc files and GIRs name no source or build path"; else
	not_ok "installed headers, .pc files and GIRs name no source or build path" $leaks; fi

# the .pc files: found in the destdir alone, relocatable, with what the
# public headers need, and the plugin library's build id as its header says
pc_ok=1
for pc in libexecrpc-1 libexecrpc-plugin-1; do
	if [ ! -f "$pcdir/$pc.pc" ]; then
		not_ok "$pc.pc is installed" "not in $pcdir"
		pc_ok=0
		continue
	fi
	grep -q '^prefix=${pcfiledir}/' "$pcdir/$pc.pc" ||
		{ not_ok "$pc.pc is relocatable" \
			"prefix is not relative to \${pcfiledir} (meson -Dpkgconfig.relocatable=true)"; pc_ok=0; }
done
[ "$pc_ok" = 1 ] && ok "both .pc files are installed and relocatable"
version=$(pkg-config --modversion libexecrpc-plugin-1 2>&1) || version="($version)"
project_version=$(meson introspect --projectinfo "$build" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
requires=$(pkg-config --print-requires libexecrpc-plugin-1 2>&1 | tr '\n' ' ')
# the relocated prefix comes out as .../pkgconfig/../../..: resolved here
normalize() {
	for word in $1; do
		case "$word" in
		-I/* | -L/*) printf '%s ' "${word%"${word#-?}"}$(realpath -m "${word#-?}")" ;;
		*) printf '%s ' "$word" ;;
		esac
	done
}
cflags=$(pkg-config --cflags libexecrpc-plugin-1 2>&1) || cflags="(failed: $cflags)"
cflags=$(normalize "$cflags")
libs=$(pkg-config --libs libexecrpc-plugin-1 2>&1) || libs="(failed: $libs)"
libs=$(normalize "$libs")
case "$version:$requires:$cflags:$libs" in
"$project_version":*libexecrpc-1*gmodule-2.0*:*"$dest$includedir/execrpc-plugin-1"*"$dest$includedir/execrpc-1"*json-glib-1.0*:*"-L$dest$libdir"*-lexecrpc-plugin-1*-lexecrpc-1*)
	ok "libexecrpc-plugin-1: version, Requires, Cflags and Libs point into the install" ;;
*)
	not_ok "libexecrpc-plugin-1: version, Requires, Cflags and Libs point into the install" \
		"version: $version (project $project_version)" "requires: $requires" \
		"cflags: $cflags" "libs: $libs" ;;
esac
buildid=$(pkg-config --variable=buildid libexecrpc-plugin-1)
header_id=$(sed -n 's/^#define ERPC_BUILD_ID "\(.*\)"$/\1/p' "$headers/erpc-plugin-version.h")
plugindir=$(pkg-config --variable=plugindir libexecrpc-plugin-1)
if [ -n "$buildid" ] && [ "$buildid" = "$header_id" ] &&
	[ "$(realpath -m "$plugindir")" = "$(realpath -m "$dest$libdir/execserverd-1")" ]; then
	ok "buildid and plugindir of the .pc match the header and the install"
else
	not_ok "buildid and plugindir of the .pc match the header and the install" \
		"buildid $buildid, header $header_id, plugindir $plugindir"
fi
for gir in Execrpc-1 ExecrpcPlugin-1; do
	if [ -f "$dest$prefix/share/gir-1.0/$gir.gir" ]; then ok "$gir.gir is installed"; else
		not_ok "$gir.gir is installed" "gobject-introspection missing, or a sanitizer build"; fi
done

# the example plugin, a meson project of its own that sees only the install
hello=$work/hello
if run "examples/hello-plugin builds against the installed SDK" "$work/hello.log" \
	sh -c "meson setup '$hello' '$src/examples/hello-plugin' -Dwerror=true && ninja -C '$hello'"; then
	# and compiled with no include path into the trees
	if grep -q -e "-I$src/lib" -e "-I$build/lib" -e "-I\.\./.*libexecrpc" \
		"$hello/compile_commands.json"; then
		not_ok "the example compiles with the installed headers only" \
			"$(cat "$hello/compile_commands.json")"
	else
		ok "the example compiles with the installed headers only"
	fi
fi

# the README's plugin, exactly as printed there
readme=$work/readme
mkdir -p "$readme"
awk '/^## Writing a plugin/ { section = 1; next } /^## / { section = 0 }
	section && /^```c$/ { code = 1; next } code && /^```$/ { exit } code' \
	"$src/README.md" >"$readme/my-plugin.c"
if [ ! -s "$readme/my-plugin.c" ]; then
	not_ok "the README example compiles" "no \`\`\`c block under \"## Writing a plugin\""
else
	# shellcheck disable=SC2046
	run "the README example compiles" "$readme/cc.log" \
		cc -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror -shared -fPIC \
		$(pkg-config --cflags libexecrpc-plugin-1) -o "$readme/libesd-plugin-my.so" \
		"$readme/my-plugin.c" $(pkg-config --libs libexecrpc-plugin-1) || true
fi

# both loaded into the daemon of the build tree, whose build id they carry
daemon=$build/server/execserverd
# the build tree's esd-supervise and plugins, named by the environment
eval "$(meson devenv -C "$build" --dump | grep -E '^(export )?(ESD|EXECRPC)_')"
list=$("$daemon" --plugins-dir "$hello" --plugins-dir "$readme" --list-plugins 2>&1) || true
case "$list" in
*"path: $hello/libesd-plugin-hello.so"*"path: $readme/libesd-plugin-my.so"*)
	ok "the daemon loads both with --plugins-dir" ;;
*) not_ok "the daemon loads both with --plugins-dir" "$list" ;;
esac
# the protocol, over the daemon's stdio: the example's greeting word, which
# its launch hook also puts in $HELLO of a process/start, is its default,
# then from the config file, then from the command line over it
printf '[hello]\ngreeting=Hi\n' >"$work/execserverd.conf"
for case in "Hello:" "Hi:--config=$work/execserverd.conf" \
	"Howdy:--config=$work/execserverd.conf --hello-greeting=Howdy"; do
	word=${case%%:*}
	# shellcheck disable=SC2086
	if python3 "$src/tests/sdk/sdk-client.py" "$word" "$daemon" --listen stdio \
		--plugins-dir "$hello" --plugins-dir "$readme" ${case#*:} >"$work/client.log" 2>&1; then
		ok "their methods and the launch hook answer over the protocol (${case#*:})"
	else
		not_ok "their methods and the launch hook answer over the protocol (${case#*:})"
	fi
	sed 's/^/#   /' "$work/client.log"
done
help=$("$daemon" --plugins-dir "$hello" --help-all 2>&1) || true
case "$help" in
*"The hello plugin:"*--hello-greeting=WORD*) ok "--help-all shows the example's option" ;;
*) not_ok "--help-all shows the example's option" "$help" ;;
esac
finish
