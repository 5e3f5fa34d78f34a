#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# Installs what is missing, builds, and starts execserverd on ws://127.0.0.1:8765
# with the plugins of the build tree. Extra arguments go to the daemon.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
[ -d build ] || meson setup build --buildtype=debugoptimized >&2
ninja -C build >&2
# the build tree's plugins and helpers, which the binaries do not name themselves
eval "$(meson devenv -C build --dump | grep -E '^(export )?(ESD|EXECRPC)_')"
exec build/server/execserverd --listen ws://127.0.0.1:8765 "$@"
