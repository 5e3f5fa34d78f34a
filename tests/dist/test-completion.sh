#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# data/completion/execrpc, sourced into bash: the completions it offers for
# a few command lines, with the environment ids of a config file.
# usage: test-completion.sh COMPLETION-FILE EXECRPC (TAP output)
set -u
completion=$1
execrpc=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/esd-completion.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# Codex's environments.toml, in CODEX_HOME
mkdir -p "$scratch/codex"
cat >"$scratch/codex/environments.toml" <<TOML
default = "build"

[[environments]]
id = "build"
url = "ws://127.0.0.1:1/"

[[environments]]
id = "gpu-box"
url = "ws://127.0.0.1:2/"
TOML
printf '[[environments]]\nid = "other"\nurl = "ws://127.0.0.1:3/"\n' >"$scratch/other.conf"
export CODEX_HOME=$scratch/codex
unset EXECRPC_CONFIG

# bash-completion's helpers where they are installed, as in an interactive shell
if [ -f /usr/share/bash-completion/bash_completion ]; then
	# shellcheck disable=SC1091
	. /usr/share/bash-completion/bash_completion
fi
# shellcheck disable=SC1090
. "$completion"

n=0
failed=0
# expect "WORDS" "EXPECTED": WORDS after execrpc, the last one being completed
expect() {
	local line=$1 want=$2 got
	n=$((n + 1))
	read -r -a COMP_WORDS <<<"$line"
	# a trailing space completes an empty word
	[[ $line == *' ' ]] && COMP_WORDS+=('')
	COMP_WORDS=("$execrpc" "${COMP_WORDS[@]}")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="execrpc $line"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_execrpc execrpc "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then
		echo "ok $n execrpc $line"
	else
		echo "not ok $n execrpc $line"
		echo "# expected: '$want'"
		echo "# got:      '$got'"
		failed=1
	fi
}

echo "1..12"
expect " " "envs fs info run status"
expect "f" "fs"
expect "--stdio fs " "cat cp ls mkdir put rm stat"
expect "fs m" "mkdir"
expect "fs rm -" "-f -r"
expect "--st" "--stdio"
expect "--env " "build gpu-box local"
expect "-E g" "gpu-box"
expect "--config $scratch/other.conf --env " "local other"
expect "run --t" "--tty"
expect "run -- l" ""
expect "info --" "--json"
exit "$failed"
