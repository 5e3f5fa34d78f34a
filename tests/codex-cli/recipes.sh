#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# The "Use it from Codex" recipes of README.md, each run with the real Codex
# CLI: the environments.toml blocks marked `<!-- recipe: NAME -->` are taken
# from README.md as they are, and only what names this machine is put in
# (the WebSocket port, the socket path); the scripted mock model of
# mock-responses.js drives a shell command, a patch and a PTY through each.
#
# usage: tests/codex-cli/recipes.sh [EXECSERVERD_BINARY]
#   ws, stdio, socket (systemd-socket-activate + socat), ssh (a private sshd
#   on loopback, as root only), CODEX_EXEC_SERVER_URL, and a daemon with
#   --ws-auth reached with auth_bearer_token (and refusing a wrong one), the
#   same over wss:// with a private CA.
# environment: CODEX_BIN, NODE, KEEP_SCRATCH=1, VERBOSE=1, as run.sh.
# exit status: 0 every recipe passed (or was skipped, with the reason), 1 a
# recipe failed, 2 setup problem.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
CODEX_BIN=${CODEX_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/execserverd/codex-0.171.0/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex}
NODE=${NODE:-node}
daemon=$(realpath "${1:-$repo/build/server/execserverd}")
execrpc=$(dirname "$(dirname "$daemon")")/tools/execrpc
[ -x "$daemon" ] || { echo "recipes.sh: no executable $daemon" >&2; exit 2; }
[ -x "$CODEX_BIN" ] || { echo "recipes.sh: no codex CLI at $CODEX_BIN" >&2; exit 2; }
# a daemon of a build tree finds its plugins and helpers through meson devenv
daemon_build=$(dirname "$(dirname "$daemon")")
if [ -d "$daemon_build/meson-private" ]; then
    eval "$(meson devenv -C "$daemon_build" --dump | grep -E '^(export )?(ESD|EXECRPC)_')"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/codex-recipes.XXXXXX")
chmod 0755 "$scratch"
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

first_line() { # FILE PID: the first line PID writes to FILE, within 15 s
    local line=
    for _ in $(seq 150); do
        line=$(head -n1 "$1" 2>/dev/null)
        [ -n "$line" ] && { echo "$line"; return 0; }
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# the TOML block after `<!-- recipe: NAME -->` in README.md
recipe() {
    awk -v name="$1" '
        $0 == "<!-- recipe: " name " -->" { found = 1; next }
        found && /^```toml$/ { inside = 1; next }
        inside && /^```$/ { exit }
        inside { print }' "$repo/README.md"
}

# `execserverd` on PATH is the binary under test
bin=$scratch/bin
mkdir -p "$bin"
ln -s "$daemon" "$bin/execserverd"
export PATH="$bin:$PATH"

fails=0 passed=0 skipped=0
report() { # NAME RESULT [WHY]
    case $2 in
    ok) echo "ok   - recipe $1"; passed=$((passed + 1)) ;;
    skip) echo "skip - recipe $1: $3"; skipped=$((skipped + 1)) ;;
    *) echo "FAIL - recipe $1: $3"; fails=$((fails + 1)) ;;
    esac
}

# runs `codex exec` with the mock model and ENVIRONMENTS_TOML (or none);
# extra environment for the CLI after the first two arguments
run_codex() { # NAME ENVIRONMENTS_TOML [VAR=VALUE...]
    local name=$1 toml=$2; shift 2
    local dir=$scratch/$name
    local home=$dir/codex-home work=$dir/work
    mkdir -p "$home" "$work"
    chmod 0777 "$work"
    "$NODE" "$here/mock-responses.js" "$work" "$dir/mock-requests.jsonl" >"$dir/mock.out" 2>"$dir/mock.err" &
    pids+=($!)
    local mock_pid=$!
    local port
    port=$(first_line "$dir/mock.out" $mock_pid) || { echo "recipes.sh: the mock model did not start" >&2; return 2; }
    port=${port#PORT }
    cat >"$home/config.toml" <<TOML
model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
env_key = "CODEX_E2E_MOCK_KEY"
request_max_retries = 0
stream_max_retries = 0
TOML
    [ -n "$toml" ] && printf '%s\n' "$toml" >"$home/environments.toml"
    (cd "$work" && env -u CODEX_EXEC_SERVER_URL CODEX_HOME="$home" CODEX_E2E_MOCK_KEY=dummy "$@" \
        timeout 120 "$CODEX_BIN" exec --skip-git-repo-check --color never \
        "Follow the scripted steps." </dev/null >"$dir/codex.out" 2>"$dir/codex.err")
    local rc=$?
    kill $mock_pid 2>/dev/null
    return $rc
}

# what a recipe must have done: the scripted steps, through execserverd;
# a daemon the CLI started itself (stdio) has the CLI among its ancestors
recipe_worked() { # NAME
    local work=$scratch/$1/work codex_ok=0
    [ "$1" = stdio ] && codex_ok=1
    [ "$(cat "$work/proof.txt" 2>/dev/null)" = hello-from-execserverd ] &&
        [ "$(cat "$work/tty.txt" 2>/dev/null)" = got:ping-from-codex ] &&
        [ -f "$work/patched.txt" ] &&
        grep -q '^mock-done' "$scratch/$1/codex.out" &&
        grep -qw execserverd "$work/ancestry.txt" &&
        { [ $codex_ok = 1 ] || ! grep -qw codex "$work/ancestry.txt"; }
}

show() { # NAME: what to look at when a recipe failed
    [ "${VERBOSE:-0}" = 1 ] || [ "$2" != ok ] || return 0
    echo "--- $1: codex stdout"; cat "$scratch/$1/codex.out" 2>/dev/null
    echo "--- $1: codex stderr"; grep -v 'could not create PATH aliases' "$scratch/$1/codex.err" 2>/dev/null | tail -20
    for log in "$scratch/$1"/*.log; do [ -f "$log" ] && { echo "--- $log"; tail -20 "$log"; }; done
}

# not in a subshell: the daemon must be in pids, for cleanup
start_ws_daemon() { # NAME [ARGS...]: sets url
    local name=$1; shift
    mkdir -p "$scratch/$name"
    "$daemon" -v --listen ws://127.0.0.1:0 "$@" >"$scratch/$name/daemon.out" 2>"$scratch/$name/daemon.log" &
    pids+=($!)
    url=$(first_line "$scratch/$name/daemon.out" $!) ||
        { echo "recipes.sh: the daemon did not start" >&2; exit 2; }
}

try() { # NAME COMMAND...: one recipe
    local name=$1; shift
    local result=ok why=
    if ! "$@"; then result=fail why="codex exited non-zero"; fi
    if [ $result = ok ] && ! recipe_worked "$name"; then result=fail why="the scripted steps did not all run through execserverd"; fi
    report "$name" $result "$why"
    show "$name" $result
}

# ws
start_ws_daemon ws
toml=$(recipe ws | sed "s|ws://127.0.0.1:8765|$url|")
if "$execrpc" --url "$url" status >"$scratch/ws/status.out" 2>&1 && grep -q ready "$scratch/ws/status.out"; then
    try ws run_codex ws "$toml"
else
    report ws fail "execrpc status: $(cat "$scratch/ws/status.out")"
fi

# stdio
if "$execrpc" --stdio --server "$daemon" status >"$scratch/stdio-status.out" 2>&1; then
    try stdio run_codex stdio "$(recipe stdio)"
else
    report stdio fail "execrpc --stdio status: $(cat "$scratch/stdio-status.out")"
fi

# CODEX_EXEC_SERVER_URL without environments.toml
start_ws_daemon url-env
try url-env run_codex url-env "" CODEX_EXEC_SERVER_URL="$url"

# the user socket: socket activation as systemd does it, bridged by socat
if command -v systemd-socket-activate >/dev/null && command -v socat >/dev/null; then
    mkdir -p "$scratch/socket"
    sock=$scratch/socket/execserverd.sock
    # it passes on only the variables it is told to
    sa_env=()
    for v in $(env | grep -E '^(ESD|EXECRPC)_' | cut -d= -f1); do sa_env+=(-E "$v"); done
    systemd-socket-activate "${sa_env[@]}" -l "$sock" "$daemon" -v >"$scratch/socket/activate.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
    try socket run_codex socket "$(recipe socket | sed "s|/run/user/1000/execserverd.sock|$sock|")"
else
    report socket skip "needs systemd-socket-activate and socat"
fi

# ssh: a private sshd on loopback; `ssh` on PATH reads its client config
if [ "$(id -u)" = 0 ] && [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null; then
    s=$scratch/ssh
    mkdir -p "$s"
    chmod 0700 "$s"
    ssh-keygen -q -t ed25519 -N '' -f "$s/host_key"
    ssh-keygen -q -t ed25519 -N '' -f "$s/user_key"
    cp "$s/user_key.pub" "$s/authorized_keys"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    cat >"$s/sshd_config" <<EOF
ListenAddress 127.0.0.1:$port
HostKey $s/host_key
AuthorizedKeysFile $s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile $s/sshd.pid
SetEnv PATH=$bin:/usr/local/bin:/usr/bin:/bin $(env | grep -E '^(ESD|EXECRPC)_' | tr '\n' ' ')
EOF
    cat >"$s/ssh_config" <<EOF
Host devbox
    HostName 127.0.0.1
    Port $port
    User $(id -un)
    IdentityFile $s/user_key
    IdentitiesOnly yes
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    LogLevel ERROR
EOF
    mkdir -p "$s/bin"
    printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$s/ssh_config" >"$s/bin/ssh"
    chmod +x "$s/bin/ssh"
    mkdir -p /run/sshd
    /usr/sbin/sshd -D -e -f "$s/sshd_config" 2>"$s/sshd.log" &
    pids+=($!)
    for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
    try ssh run_codex ssh "$(recipe ssh)" PATH="$s/bin:$PATH"
else
    report ssh skip "needs root and openssh-server for a private sshd"
fi

# a daemon with a token: the CLI sends auth_bearer_token; a wrong one gets nowhere
printf 'recipe-token\n' >"$scratch/token.txt"
start_ws_daemon token --ws-auth capability-token --ws-token-file "$scratch/token.txt"
toml=$(recipe token | sed -e "s|ws://127.0.0.1:8765|$url|" -e "s|the token of --ws-token-file|recipe-token|")
try token run_codex token "$toml"
toml=$(recipe token | sed -e "s|ws://127.0.0.1:8765|$url|" -e "s|the token of --ws-token-file|wrong-token|")
if run_codex token-wrong "$toml" && recipe_worked token-wrong; then
    report token-wrong fail "the CLI reached a daemon with --ws-auth with a wrong token"
elif [ -f "$scratch/token-wrong/work/proof.txt" ]; then
    report token-wrong fail "a command ran with a wrong token"
elif ! grep -q 'refusing the upgrade: invalid websocket bearer token' "$scratch/token/daemon.log"; then
    report token-wrong fail "the daemon did not log the refusal"
else
    report token-wrong ok
fi

# wss with a token: the CLI checks the daemon's certificate against the
# trust store that SSL_CERT_FILE names (here a private CA's)
if command -v openssl >/dev/null; then
    t=$scratch/wss-tls
    mkdir -p "$t"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -keyout "$t/ca-key.pem" -out "$t/ca.pem" -subj "/CN=recipes CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout "$t/key.pem" -out "$t/leaf.csr" -subj "/CN=127.0.0.1" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$t/ext.cnf"
    openssl x509 -req -in "$t/leaf.csr" -CA "$t/ca.pem" -CAkey "$t/ca-key.pem" -CAcreateserial \
        -out "$t/cert.pem" -days 2 -extfile "$t/ext.cnf" 2>/dev/null
    mkdir -p "$scratch/wss"
    "$daemon" -v --listen wss://127.0.0.1:0 --tls-certificate "$t/cert.pem" --tls-key "$t/key.pem" \
        --ws-auth capability-token --ws-token-file "$scratch/token.txt" \
        >"$scratch/wss/daemon.out" 2>"$scratch/wss/daemon.log" &
    pids+=($!)
    url=$(first_line "$scratch/wss/daemon.out" $!) || { echo "recipes.sh: the daemon did not start" >&2; exit 2; }
    toml=$(recipe wss | sed -e "s|wss://devbox.example.org:8766|$url|" -e "s|the token of --ws-token-file|recipe-token|")
    try wss run_codex wss "$toml" SSL_CERT_FILE="$t/ca.pem"
else
    report wss skip "needs openssl for a certificate"
fi

echo "recipes: $passed passed, $fails failed, $skipped skipped"
[ $fails -eq 0 ]
