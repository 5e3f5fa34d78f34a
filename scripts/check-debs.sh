#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# The Debian packages as a distribution gets them: built from contrib/debian
# (scripts/build-debs.sh, without the unit suite the rest of CI runs),
# lintian at its default level (any error or warning fails), installed on
# this machine with apt, the installed daemon started (its /readyz, a
# command through the installed execrpc) and the installed tests run
# against it with gnome-desktop-testing-runner. The packages are purged
# afterwards, whatever happens, unless they were installed before.
# Needs root; ends with "debian: passed" or "debian: failed".
# usage: scripts/check-debs.sh [OUTDIR]
set -eu
cd "$(dirname "$0")/.."
outdir=${1:-build-deb}
packages="execserverd execserverd-tests libexecrpc-1-0 libexecrpc-1-dev libexecrpc-1-doc
gir1.2-execrpc-1 gir1.2-execrpcplugin-1"

preinstalled=""
for p in $packages; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		preinstalled="$preinstalled $p"
	fi
done
if [ -n "$preinstalled" ]; then
	echo "check-debs: already installed:$preinstalled; not replacing them" >&2
	echo "debian: failed"
	exit 1
fi

daemon_pid=""
workdir=$(mktemp -d)
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null || true
	rm -rf "$workdir"
	installed=""
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" &&
			installed="$installed $p"
	done
	# shellcheck disable=SC2086
	[ -z "$installed" ] || DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $installed >/dev/null
}
trap cleanup EXIT INT TERM

step() {
	echo "check-debs: $*" >&2
}
fail() {
	echo "check-debs: $*" >&2
	echo "debian: failed"
	exit 1
}

mkdir -p "$outdir"
step "building the packages"
DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" scripts/build-debs.sh "$outdir" \
	>"$outdir/dpkg-buildpackage.log" 2>&1 || {
	tail -40 "$outdir/dpkg-buildpackage.log" >&2
	fail "dpkg-buildpackage failed ($outdir/dpkg-buildpackage.log)"
}

step "lintian"
lint=0
# its caches (mldbm-elf-*) go to TMPDIR: one of the output's, removed after
mkdir -p "$outdir/lintian-tmp"
TMPDIR="$outdir/lintian-tmp" lintian --fail-on error,warning "$outdir"/*.changes \
	>"$outdir/lintian.log" 2>&1 || lint=$?
rm -rf "$outdir/lintian-tmp"
# root is how CI runs; lintian only remarks on it
grep -v 'running with root privileges' "$outdir/lintian.log" >&2 || true
[ "$lint" = 0 ] || fail "lintian"

step "installing"
# shellcheck disable=SC2046
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	$(ls "$outdir"/*.deb | grep -v -- '-dbgsym_' | sed 's|^|./|;s|^\./\/|/|') \
	>"$outdir/apt-install.log" 2>&1 || { tail -20 "$outdir/apt-install.log" >&2; fail "apt-get install"; }

step "starting /usr/bin/execserverd"
/usr/bin/execserverd --listen ws://127.0.0.1:0 >"$workdir/url" 2>"$workdir/log" &
daemon_pid=$!
url=""
for _ in $(seq 50); do
	url=$(head -n1 "$workdir/url")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$workdir/log" >&2; fail "the installed daemon printed no URL"; }
http=$(echo "$url" | sed 's|^ws://|http://|')
curl -fsS "$http/readyz" >/dev/null || fail "GET $http/readyz"
out=$(/usr/bin/execrpc --url "$url" run -- sh -c 'echo installed') || fail "execrpc run"
[ "$out" = installed ] || fail "execrpc run printed '$out'"
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null || true
daemon_pid=""

step "installed tests"
# G_MESSAGES_DEBUG from the runner makes every test log at debug level: to a file
(cd "$workdir" && gnome-desktop-testing-runner --tap --timeout=180 \
	--log-directory="$workdir/logs" execserverd) >"$workdir/tap" 2>&1 || status=$?
grep -E '^(ok|not ok) .*\.test|^# SUMMARY' "$workdir/tap" >&2 || true
if [ "${status:-0}" != 0 ]; then
	grep -E '^not ok|^# FAIL' "$workdir/tap" >&2 || true
	fail "installed tests"
fi
echo "debian: passed"
