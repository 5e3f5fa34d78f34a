#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# End-to-end check: the real Codex CLI (`codex exec`) uses execserverd as its
# only execution environment, driven by a scripted mock model
# (mock-responses.js). See README.md.
#
# usage: tests/codex-cli/run.sh [EXECSERVERD_BINARY | --reference]
#   default binary: <repo>/build/server/execserverd
#   --reference:    run `codex exec-server` instead (checks the harness itself)
# environment: CODEX_BIN (default: the 0.171.0 CLI that scripts/run-tests.sh installs),
#              KEEP_SCRATCH=1 keeps the scratch directory, NODE (default node).
# exit status: 0 all checks passed, 1 a check failed, 2 setup problem.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
CODEX_BIN=${CODEX_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/execserverd/codex-0.171.0/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex}
NODE=${NODE:-node}
mode=ours
daemon=${1:-$repo/build/server/execserverd}
if [ "$daemon" = "--reference" ]; then mode=reference; daemon=$CODEX_BIN; fi
[ -x "$daemon" ] || { echo "run.sh: no executable $daemon" >&2; exit 2; }
[ -x "$CODEX_BIN" ] || { echo "run.sh: no codex CLI at $CODEX_BIN" >&2; exit 2; }
# a daemon of a build tree finds its plugins and helpers through meson devenv
daemon_build=$(dirname "$(dirname "$daemon")")
if [ "$mode" = ours ] && [ -d "$daemon_build/meson-private" ]; then
    eval "$(meson devenv -C "$daemon_build" --dump | grep -E '^(export )?(ESD|EXECRPC)_')"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/codex-cli-e2e.XXXXXX")
home=$scratch/codex-home work=$scratch/work
# the executor's own CODEX_HOME, whose mcp_servers the CLI reads at start-up
# (environmentConfig/read); written once the mock's port is known
executor_home=$scratch/executor-home
mkdir -p "$home" "$work" "$executor_home"
# the HOME of the exec server and the CLI: a login profile that prints,
# exports, and counts its runs, to see the shell snapshot at work
userhome=$scratch/home
mkdir -p "$userhome"
cat >"$userhome/.profile" <<'PROFILE'
echo e2e-profile-out
echo run >>"$HOME/profile-runs"
export E2E_PROFILE_VAR=from-profile
PROFILE
export HOME=$userhome
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ "${KEEP_SCRATCH:-0}" = 1 ]; then echo "scratch kept: $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# first line of FILE, waiting up to 15 s for the process PID to write it
first_line() {
    local file=$1 pid=$2 line=
    for _ in $(seq 150); do
        line=$(head -n1 "$file" 2>/dev/null)
        [ -n "$line" ] && { echo "$line"; return 0; }
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# 1. the execution server
if [ $mode = ours ]; then
    CODEX_HOME="$executor_home" "$daemon" -v --listen ws://127.0.0.1:0 \
        >"$scratch/daemon.out" 2>"$scratch/daemon.log" &
else
    CODEX_HOME="$executor_home" "$daemon" exec-server --listen ws://127.0.0.1:0 \
        >"$scratch/daemon.out" 2>"$scratch/daemon.log" &
fi
pids+=($!)
ws_url=$(first_line "$scratch/daemon.out" "${pids[-1]}") || {
    echo "run.sh: the exec server did not start" >&2; cat "$scratch/daemon.log" >&2; exit 2; }

# 2. the mock model
"$NODE" "$here/mock-responses.js" "$work" "$scratch/mock-requests.jsonl" \
    >"$scratch/mock.out" 2>"$scratch/mock.err" &
pids+=($!)
mock_port=$(first_line "$scratch/mock.out" "${pids[-1]}") || {
    echo "run.sh: the mock model did not start" >&2; cat "$scratch/mock.err" >&2; exit 2; }
mock_port=${mock_port#PORT }

# the executor's HTTP MCP server points at the mock: the CLI connects to it
# only if environmentConfig/read gave it the executor's mcp_servers
cat >"$executor_home/config.toml" <<TOML
[mcp_servers.executor_probe]
url = "http://127.0.0.1:$mock_port/executor-mcp"
TOML

# 3. CODEX_HOME: the mock provider, and the exec server as the only environment.
# gpt-5.5 is a slug of the bundled model catalog whose metadata offers
# exec_command/write_stdin (unified exec) and the freeform apply_patch tool;
# with an unknown slug the fallback metadata offers no apply_patch at all.
cat >"$home/config.toml" <<TOML
model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$mock_port/v1"
wire_api = "responses"
env_key = "CODEX_E2E_MOCK_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
shell_snapshot_v2 = true
TOML
cat >"$home/environments.toml" <<TOML
default = "execserverd"
include_local = false

[[environments]]
id = "execserverd"
url = "$ws_url"
TOML

# 4. codex exec
echo "exec server ($mode): $ws_url   mock model: http://127.0.0.1:$mock_port/v1"
(cd "$work" && env -u CODEX_EXEC_SERVER_URL CODEX_HOME="$home" CODEX_E2E_MOCK_KEY=dummy \
    timeout 180 "$CODEX_BIN" exec --skip-git-repo-check --color never \
    "Follow the scripted steps." </dev/null >"$scratch/codex.out" 2>"$scratch/codex.err")
codex_rc=$?

# 5. checks
fails=0
check() { # description, command...
    local what=$1; shift
    if "$@"; then echo "ok   - $what"; else echo "FAIL - $what"; fails=$((fails + 1)); fi
}
content_is() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
check "codex exec exited 0 (rc=$codex_rc)" [ $codex_rc -eq 0 ]
check "codex reached the final assistant message" grep -q '^mock-done' "$scratch/codex.out"
check "mock saw no scripting error" bash -c "! grep -q 'mock-error' '$scratch/codex.out'"
check "shell command wrote proof.txt" content_is "$work/proof.txt" hello-from-execserverd
check "apply_patch created patched.txt" content_is "$work/patched.txt" \
    "$(printf 'patched-by-codex-through-execserverd\nsecond line')"
check "tty exec + write_stdin wrote tty.txt" content_is "$work/tty.txt" "got:ping-from-codex"
check "the tty program saw a terminal" grep -q 'tty-ready:yes' "$scratch/mock-requests.jsonl"
check "uname output came back to the model" grep -q 'Process exited with code 0' "$scratch/mock-requests.jsonl"
# it reaches that server through the executor's http/request: the mock sees
# the request, or the CLI logs the daemon's answer when it has no http/request
check "the CLI got the executor's mcp_servers (environmentConfig/read)" \
    bash -c "grep -q '\"url\":\"/executor-mcp' '$scratch/mock-requests.jsonl' ||
        grep -q 'HttpRequest(Server.*http/request' '$scratch/codex.err'"
# shell_snapshot_v2: the commands ran with the profile's state, without its
# output, and the profile ran once (the capture) for the two commands
check "shell snapshot: the profile's export reached the command" \
    grep -q 'snapshot-var:from-profile' "$scratch/mock-requests.jsonl"
check "shell snapshot: the profile's output did not" \
    bash -c "! grep -q 'e2e-profile-out' '$scratch/mock-requests.jsonl'"
check "shell snapshot: the profile ran once for two commands" \
    content_is "$userhome/profile-runs" run
if [ $mode = ours ]; then
    server_comm=$(basename "$daemon" | cut -c1-15)
    check "the shell's parent chain contains $server_comm and no codex" \
        bash -c "grep -qw '$server_comm' '$work/ancestry.txt' && ! grep -qw codex '$work/ancestry.txt'"
    check "daemon log: a websocket connection" grep -q 'connection [0-9]* from websocket' "$scratch/daemon.log"
    check "daemon log: a session" grep -q 'started session' "$scratch/daemon.log"
    check "daemon log: environmentConfig/read answered with the user layer" \
        grep -q "environmentConfig/read in .*user ($executor_home/config.toml)" "$scratch/daemon.log"
    check "daemon log: at least two processes (plain + tty)" \
        bash -c "[ \$(grep -c 'process .* started in session' '$scratch/daemon.log') -ge 2 ]"
else
    check "the shell's parent chain contains the reference codex exec-server" \
        grep -qw codex "$work/ancestry.txt"
fi

if [ $fails -ne 0 ] || [ "${VERBOSE:-0}" = 1 ]; then
    echo "--- codex stdout";  cat "$scratch/codex.out"
    echo "--- codex stderr";  grep -v 'could not create PATH aliases' "$scratch/codex.err" | tail -40
    echo "--- exec server log"; tail -40 "$scratch/daemon.log"
    echo "--- ancestry";      cat "$work/ancestry.txt" 2>/dev/null
fi
echo "--- daemon log (connections/processes)"
grep -E 'connection|session|process' "$scratch/daemon.log" | head -20
if [ $fails -eq 0 ]; then echo "PASS ($mode)"; exit 0; fi
echo "FAILED: $fails check(s) ($mode)"; exit 1
