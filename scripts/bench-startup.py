#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Start-up time of execserverd against the reference exec-server, side by side.

Each trial starts a fresh server and measures, from just before the exec:
  stdio  the answer to an `initialize` written to its stdin at once;
  ws     the listening URL line on stdout, the first accepted WebSocket
         upgrade (connect attempts every 0.5 ms, as a client that polls),
         and the answer to `initialize` on that connection.
The servers alternate trial by trial; the CPU each one used (user + system,
from wait4 once it has exited) is reported too, since wall time is noisy on a
shared machine. Prints medians, p90 and the ratio execserverd / reference.
For stdio two floor rows are measured the same way: `head -n 1`, which
answers the request by echoing it, is what exec, the dynamic loader and
this script's own fork cost a minimal program; `libs floor`
(bench-startup-libs.c, built here) is a program linked like execserverd,
against the same libraries, that answers with a canned line: what any
daemon on those libraries pays before its main() runs. execserverd minus
the library floor is the daemon's own start-up. Not a test: nothing here
passes or fails.

  scripts/bench-startup.py [-n 30] [--build build] [--baseline OTHER-BUILD]
                           [--only stdio|ws] [--no-ref]

--baseline adds a second execserverd build (another checkout's build
directory, with its own plugins) to the alternation, for before/after.
"""

import argparse
import base64
import json
import os
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

REF = ("/work/ref/node_modules/@openai/codex-linux-x64/vendor/"
       "x86_64-unknown-linux-musl/bin/codex")
INIT = {"id": 1, "method": "initialize", "params": {"clientName": "bench-startup"}}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def try_reap(proc):
    """the CPU seconds of @proc once it has exited, else None (never Popen.poll:
    it would reap the child and lose its rusage)"""
    if getattr(proc, "cpu_s", None) is None:
        pid, _status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid != proc.pid:
            return None
        proc.cpu_s = usage.ru_utime + usage.ru_stime
        proc.returncode = 0
    return proc.cpu_s


def reap(proc, sig=None):
    """ends @proc (by its pid) and returns its CPU seconds"""
    if sig is not None and try_reap(proc) is None:
        os.kill(proc.pid, sig)
    deadline = time.monotonic() + 5
    while try_reap(proc) is None:
        if time.monotonic() > deadline:
            os.kill(proc.pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
        time.sleep(0.001)
    return proc.cpu_s


def read_line(fd, deadline):
    buf = b""
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError("no line from the server")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise EOFError("the server closed its output")
        buf += chunk
    return buf.split(b"\n", 1)[0]


def trial_stdio(argv, env):
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        proc.stdin.write((json.dumps(INIT) + "\n").encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 20
        while True:
            line = read_line(proc.stdout.fileno(), deadline)
            if json.loads(line).get("id") == 1:
                break
        t_init = time.perf_counter() - t0
    finally:
        proc.stdin.close()
    cpu = reap(proc, signal.SIGTERM)
    proc.stdout.close()
    return {"init_ms": t_init * 1e3, "cpu_ms": cpu * 1e3}


def ws_upgrade(port):
    """one WebSocket upgrade to 127.0.0.1:@port; the socket, or None when refused"""
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port))
    except ConnectionRefusedError:
        s.close()
        return None
    s.settimeout(10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            s.close()
            return None
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError("upgrade refused: " + head.split(b"\r\n", 1)[0].decode())
    return s


def ws_send_text(s, text):
    data = text.encode()
    mask = os.urandom(4)
    n = len(data)
    if n < 126:
        head = struct.pack("!BB", 0x81, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return buf


def ws_recv_text(s):
    while True:
        b0, b1 = recv_exact(s, 2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", recv_exact(s, 2))[0]
        elif n == 127:
            n = struct.unpack("!Q", recv_exact(s, 8))[0]
        payload = recv_exact(s, n)
        if b0 & 0x0F == 0x1:
            return payload.decode()


def trial_ws(argv, env):
    port = free_port()
    argv = [a.replace("PORT", str(port)) for a in argv]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    url_at = []

    def watch():
        try:
            while True:
                line = read_line(proc.stdout.fileno(), time.monotonic() + 20)
                if line.startswith(b"ws://"):
                    url_at.append(time.perf_counter() - t0)
                    break
        except (TimeoutError, EOFError):
            pass

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        deadline = time.monotonic() + 20
        while True:
            s = ws_upgrade(port)
            if s is not None:
                break
            if try_reap(proc) is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{argv[0]} is not accepting on port {port}")
            time.sleep(0.0005)
        t_conn = time.perf_counter() - t0
        with s:
            ws_send_text(s, json.dumps(INIT))
            while json.loads(ws_recv_text(s)).get("id") != 1:
                pass
            t_init = time.perf_counter() - t0
        watcher.join(20)
    finally:
        cpu = reap(proc, signal.SIGTERM)
        watcher.join()
        proc.stdout.close()
    return {"url_ms": url_at[0] * 1e3 if url_at else float("nan"),
            "connect_ms": t_conn * 1e3, "init_ms": t_init * 1e3, "cpu_ms": cpu * 1e3}


def build_libs_floor(build):
    """bench-startup-libs.c linked as execserverd is (PIE, -z now, every library
    kept), or None when it cannot be built"""
    out = os.path.join(build, "bench-startup-libs")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-startup-libs.c")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return out
    flags = subprocess.run(["pkg-config", "--libs", "glib-2.0", "gobject-2.0", "gio-2.0",
                            "json-glib-1.0", "libseccomp"], capture_output=True, text=True)
    if flags.returncode != 0:
        return None
    dirs = [os.path.join(build, "libexecrpc-plugin"), os.path.join(build, "libexecrpc")]
    libs = [os.path.join(dirs[0], "libexecrpc-plugin-1.so"),
            os.path.join(dirs[1], "libexecrpc-1.so")]
    if not all(os.path.exists(lib) for lib in libs):
        return None
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-fPIE", "-pie", "-o", out, src,
                    "-Wl,--no-as-needed", "-Wl,-z,relro", "-Wl,-z,now"]
                   + [f"-Wl,-rpath,{d}" for d in dirs] + libs + flags.stdout.split(),
                   check=True)
    return out


def p90(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=30, help="trials per server and transport")
    parser.add_argument("--build", default=os.path.join(here, "..", "build"),
                        help="the build directory of execserverd (default build/)")
    parser.add_argument("--plugins-dir", help="default: BUILD/plugins")
    parser.add_argument("--baseline", help="another execserverd build directory to compare")
    parser.add_argument("--ref", default=REF, help="the reference codex binary")
    parser.add_argument("--no-ref", action="store_true", help="execserverd only")
    parser.add_argument("--only", choices=["stdio", "ws"], help="one transport only")
    args = parser.parse_args()

    build = os.path.abspath(args.build)
    esd = os.path.join(build, "server", "execserverd")
    plugins = args.plugins_dir or os.path.join(build, "plugins")
    codex_home = tempfile.mkdtemp(prefix="bench-startup-home-")
    ref_env = dict(os.environ, CODEX_HOME=codex_home)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from esd_devenv import devenv
    servers = [("execserverd", [esd, "--plugins-dir", plugins], devenv(esd))]
    if args.baseline:
        base = os.path.abspath(args.baseline)
        servers.append(("baseline", [os.path.join(base, "server", "execserverd"),
                                     "--plugins-dir", os.path.join(base, "plugins")],
                        devenv(os.path.join(base, "server", "execserverd"))))
    if not args.no_ref:
        if not os.access(args.ref, os.X_OK):
            sys.exit(f"no reference binary at {args.ref} (or pass --no-ref)")
        servers.append(("reference", [args.ref, "exec-server"], ref_env))
    transports = [args.only] if args.only else ["stdio", "ws"]
    floor = shutil.which("head")
    libs_floor = build_libs_floor(build) if "stdio" in transports else None
    listen = {"stdio": ["--listen", "stdio"], "ws": ["--listen", "ws://127.0.0.1:PORT"]}
    trial = {"stdio": trial_stdio, "ws": trial_ws}
    results = {(name, t): [] for name, _, _ in servers for t in transports}
    results[("floor", "stdio")] = []
    results[("libs floor", "stdio")] = []

    try:
        for transport in transports:
            # one warm-up start each, so that the page cache holds both binaries
            for name, argv, env in servers:
                trial[transport](argv + listen[transport], env)
            for i in range(args.n):
                order = servers[i % len(servers):] + servers[:i % len(servers)]
                for name, argv, env in order:
                    results[(name, transport)].append(
                        trial[transport](argv + listen[transport], env))
                if transport == "stdio" and floor:
                    results[("floor", "stdio")].append(
                        trial_stdio([floor, "-n", "1"], dict(os.environ)))
                if transport == "stdio" and libs_floor:
                    results[("libs floor", "stdio")].append(
                        trial_stdio([libs_floor], dict(os.environ)))
    finally:
        shutil.rmtree(codex_home, ignore_errors=True)

    print(f"{args.n} trials each, alternating; ms from exec; median / p90")
    for transport in transports:
        metrics = ["init_ms", "cpu_ms"] if transport == "stdio" else \
            ["url_ms", "connect_ms", "init_ms", "cpu_ms"]
        print(f"\n--listen {transport}")
        print(f"  {'':12}" + "".join(f"{m:>20}" for m in metrics))
        med = {}
        rows_of = [name for name, _, _ in servers]
        if transport == "stdio" and results[("floor", "stdio")]:
            rows_of.append("floor")
        if transport == "stdio" and results[("libs floor", "stdio")]:
            rows_of.append("libs floor")
        for name in rows_of:
            rows = results[(name, transport)]
            cells = []
            for m in metrics:
                values = [r[m] for r in rows if r[m] == r[m]]
                med[(name, m)] = statistics.median(values) if values else float("nan")
                cells.append(f"{med[(name, m)]:9.2f} / {p90(values) if values else 0:7.2f}")
            print(f"  {name:12}" + "".join(f"{c:>20}" for c in cells))
        names = [name for name, _, _ in servers]
        for other in ("reference", "baseline"):
            if other not in names:
                continue
            ratios = [med[("execserverd", m)] / med[(other, m)]
                      if med[(other, m)] else float("nan") for m in metrics]
            print(f"  {'/ ' + other:12}" + "".join(f"{r:>20.2f}" for r in ratios))
        for fl in ("floor", "libs floor"):
            if fl in rows_of:
                diffs = [med[("execserverd", m)] - med[(fl, m)] for m in metrics]
                print(f"  {'- ' + fl:12}" + "".join(f"{d:>20.2f}" for d in diffs))


if __name__ == "__main__":
    main()
