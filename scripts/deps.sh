#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# Installs the Debian 12 packages execserverd needs to build, run and test.
# Does nothing for packages already installed; needs root to install.
# The last line: the Debian packages (scripts/check-debs.sh) and the
# deployment check (scripts/check-deploy.py).
set -eu

packages="meson ninja-build pkg-config gcc libc6-dev binutils gettext
libglib2.0-dev libglib2.0-bin libsoup-3.0-dev libjson-glib-dev libseccomp-dev libssl-dev
bubblewrap dbus-daemon valgrind curl glib-networking clang-format git
gobject-introspection libgirepository1.0-dev python3-gi gi-docgen gjs
libyaml-dev g++ libtomlplusplus-dev socat openssh-client openssh-server
help2man scdoc man-db groff-base bash-completion abigail-tools reuse
dpkg-dev debhelper fakeroot lintian gnome-desktop-testing python3-yaml systemd openssl"
if [ "${ESD_WITH_FUZZER:-0}" = 1 ]; then
	packages="$packages clang libclang-rt-14-dev llvm"
fi

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# the Codex CLI end-to-end test needs npm; a machine may have its own
# Node.js (whose nodejs package conflicts with Debian's npm): Debian's only
# when there is none
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing" >&2
	echo "deps.sh: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >&2
