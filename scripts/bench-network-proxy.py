#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The managed network proxy of execserverd against the reference, back to back.

Each server is started over WebSocket (the reference with an empty
CODEX_HOME) and runs, for each workload, a command launched with
`networkProxy` allowing 127.0.0.1, against a local HTTP target of this
script (sendfile from a file in the temporary directory):

  direct   curl fetches SIZE MB without the proxy: the ceiling of the machine
  tunnel   curl fetches SIZE MB through a CONNECT tunnel (curl -p)
  http     curl fetches SIZE MB as a plain HTTP forward request
  latency  a client in the command makes N small requests, each on a new
           connection, through the proxy and then directly; the added
           latency is the difference of the medians, the server's CPU is
           per proxied request
  idle     K processes with a proxy each, sleeping: the server's memory
           (Pss, from /proc/PID/smaps_rollup) before and after, per process
  tunnels  one process opens M CONNECT tunnels and holds them: the server's
           memory per open tunnel

The target is a process of its own: in this one its threads would wait for
the interpreter's lock while the JSON-RPC client reads the servers'
notifications (network/policyDecision, one per request), which put the
client's work into the latency measured.

Throughput is the curl's speed; the server's CPU (user + system from
/proc/PID/stat) is measured around each transfer and reported per MB. The
servers alternate workload by workload, --reps times; medians are printed,
with the ratio execserverd / reference. Not a test: nothing passes or fails.

  spawn    N commands (`true`) started one after the other, each with its
           proxy: the median time from process/start to process/closed
  masked   credentialMasking with a provider bound to the target's TLS
           port: curl fetches SIZE MB over HTTPS with the secret's
           placeholder in its Authorization, then a client makes N small
           HTTPS requests. execserverd intercepts the tunnel and puts the
           secret in; 0.171.0 masks nothing, so its figure is a plain
           tunnel: the row is the price of masking, not a like-for-like ratio

With --sandbox every command runs in a sandbox (the root readable, the
network restricted) with enforceManagedNetwork, so it reaches its proxy
through the managed network only (the reference: its proxy routing
bridge; its helper is found as codex-linux-sandbox on PATH); the direct
workload is then left out, as nothing is reachable without the proxy.

  scripts/bench-network-proxy.py [--build build] [--size 500] [--reps 3]
                                 [--only tunnel,http,latency,idle,tunnels,spawn]
                                 [--sandbox]
"""

import argparse
import base64
import json
import os
import select
import shutil
import socket
import socketserver
import ssl
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

REF = ("/work/ref/node_modules/@openai/codex-linux-x64/vendor/"
       "x86_64-unknown-linux-musl/bin/codex")
TICK = os.sysconf("SC_CLK_TCK")


class Ws:
    """A minimal WebSocket JSON-RPC client."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += self.s.recv(4096)
        self.buf = buf.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0
        self.kept = []

    def send(self, obj):
        data = json.dumps(obj).encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _need(self, n, deadline):
        while len(self.buf) < n:
            if not select.select([self.s], [], [], max(0, deadline - time.time()))[0]:
                raise TimeoutError
            data = self.s.recv(1 << 16)
            if not data:
                raise EOFError
            self.buf += data

    def recv(self, timeout=600):
        deadline = time.time() + timeout
        while True:
            opcode, payload = self._frame(deadline)
            if opcode == 8:
                raise EOFError
            if opcode in (1, 2):
                return json.loads(payload)

    def _frame(self, deadline):
        self._need(2, deadline)
        n = self.buf[1] & 0x7F
        off = 2
        if n == 126:
            self._need(4, deadline)
            n = struct.unpack(">H", self.buf[2:4])[0]
            off = 4
        elif n == 127:
            self._need(10, deadline)
            n = struct.unpack(">Q", self.buf[2:10])[0]
            off = 10
        self._need(off + n, deadline)
        payload = self.buf[off:off + n]
        opcode = self.buf[0] & 0x0F
        self.buf = self.buf[off + n:]
        return opcode, payload

    def call(self, method, params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            msg = self.recv()
            if msg.get("id") == self.next_id and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg["result"]
            self.kept.append(msg)

    def output(self, pid, until_closed=True, timeout=600):
        """The process's output, once it closed (or up to a line, when not until_closed)."""
        out = b""
        deadline = time.time() + timeout
        while time.time() < deadline:
            msg = self.kept.pop(0) if self.kept else self.recv(deadline - time.time())
            params = msg.get("params", {})
            if params.get("processId") != pid:
                continue
            if msg.get("method") == "process/output":
                out += base64.b64decode(params["chunk"])
                if not until_closed and b"\n" in out:
                    return out.decode()
            elif msg.get("method") == "process/closed":
                return out.decode()
        raise TimeoutError


PROXY = {"enabled": True, "enableSocks5": False, "enableSocks5Udp": False,
         "allowUpstreamProxy": False, "dangerouslyAllowAllUnixSockets": False,
         "allowLocalBinding": False, "mode": "full", "domains": {"127.0.0.1": "allow"}}


SANDBOX = {"permissions": {"type": "managed",
                           "file_system": {"type": "restricted", "entries": [
                               {"path": {"type": "special", "value": {"kind": "root"}},
                                "access": "read"}]},
                           "network": "restricted"},
           "windowsSandboxLevel": "disabled"}


class Server:
    sandbox = False
    path = os.environ.get("PATH", "/usr/bin:/bin")

    def __init__(self, name, argv, env):
        self.name = name
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.port = int(argv[-1].rsplit(":", 1)[1])
        for _ in range(200):
            try:
                self.ws = Ws(self.port)
                break
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        else:
            self.proc.kill()
            sys.exit(f"{name}: nothing listens on port {self.port} after 10 s")
        if self.proc.poll() is not None:
            sys.exit(f"{name} exited with {self.proc.returncode} before it listened")
        self.ws.call("initialize", {"clientName": "bench-network-proxy"})
        self.ws.send({"method": "initialized", "params": {}})
        self.count = 0

    def cpu(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def pss_kb(self):
        with open(f"/proc/{self.proc.pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
        return 0

    def start(self, argv, env=None, proxy=None):
        self.count += 1
        pid = f"b{self.count}"
        params = {"processId": pid, "argv": argv, "cwd": "file:///tmp",
                  "env": env or {"PATH": self.path},
                  "tty": False, "networkProxy": {"proxy": dict(PROXY, **(proxy or {}))}}
        if self.sandbox:
            params["sandbox"] = SANDBOX
            params["enforceManagedNetwork"] = True
        self.ws.call("process/start", params)
        return pid

    def run(self, script):
        return self.ws.output(self.start(["/bin/sh", "-c", script]))

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


class Target(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_target(path, size, tls=None):
    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            if tls is not None:
                try:
                    self.request = tls.wrap_socket(self.request, server_side=True)
                except (OSError, ssl.SSLError):
                    return
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = self.request.recv(4096)
                if not chunk:
                    return
                data += chunk
            target = data.split(b" ", 2)[1]
            big = target.endswith(b"/big")
            length = size if big else 2
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                                 b"Connection: close\r\n\r\n" % length)
            if big and tls is not None:
                with open(path, "rb") as f:
                    while chunk := f.read(1 << 18):
                        self.request.sendall(chunk)
            elif big:
                with open(path, "rb") as f:
                    self.request.sendfile(f)
            else:
                self.request.sendall(b"ok")
            # a held tunnel stays open until its client goes
            if target.endswith(b"/hold"):
                self.request.recv(1)

    server = Target(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def transfer(server, url, extra):
    cpu0 = server.cpu()
    out = server.run(f"curl -s {extra} -o /dev/null -w '%{{speed_download}} %{{size_download}}' "
                     f"{url}")
    cpu = server.cpu() - cpu0
    speed, size = out.split()
    mb = int(size) / 1e6
    return float(speed) / 1e6, cpu * 1000 / mb if mb else 0


LATENCY_CLIENT = r'''
import os, socket, statistics, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
proxy = os.environ["HTTP_PROXY"].rsplit(":", 1)
def once(addr, req):
    t = time.perf_counter()
    s = socket.create_connection(addr); s.sendall(req)
    data = b""
    # the body is "ok"; a keep-alive proxy would not close
    while not data.endswith(b"\r\n\r\nok"):
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    s.close(); return time.perf_counter() - t
via = [once(("127.0.0.1", int(proxy[1])),
            b"GET http://127.0.0.1:%d/s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (port, port))
       for _ in range(n)]
# in a sandbox nothing but the proxy is reachable: no direct figure
direct = [once(("127.0.0.1", port), b"GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
          for _ in range(n if len(sys.argv) < 4 else 0)]
print(statistics.median(via) * 1e6, statistics.median(direct) * 1e6 if direct else 0)
'''

HOLD_CLIENT = r'''
import os, socket, sys, time
port, m = int(sys.argv[1]), int(sys.argv[2])
proxy = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
held = []
for _ in range(m):
    s = socket.create_connection(("127.0.0.1", proxy))
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: x\r\n\r\n" % port)
    data = b""
    while b"\r\n\r\n" not in data: data += s.recv(4096)
    s.sendall(b"GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while not data.endswith(b"ok"): data += s.recv(4096)
    held.append(s)
print("ready", flush=True)
time.sleep(30)
'''


MASKED_CLIENT = r'''
import os, socket, ssl, statistics, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
proxy = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
context = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
req = (b"GET /s HTTP/1.1\r\nHost: localhost:%d\r\nAuthorization: Bearer %s\r\n\r\n"
       % (port, os.environ["BENCH_TOKEN"].encode()))
def once():
    t = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", proxy))
    s.sendall(b"CONNECT localhost:%d HTTP/1.1\r\nHost: localhost:%d\r\n\r\n" % (port, port))
    data = b""
    while b"\r\n\r\n" not in data: data += s.recv(4096)
    s = context.wrap_socket(s, server_hostname="localhost")
    s.sendall(req)
    data = b""
    while not data.endswith(b"\r\n\r\nok"):
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    s.close(); return time.perf_counter() - t
print(statistics.median([once() for _ in range(n)]) * 1e6)
'''


def serve_target(path, size, cert=None):
    """The target's own process: prints its ports (plain, then TLS with @cert), serves until
    stdin closes."""
    server = make_target(path, size)
    tls = None
    if cert is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert + ".pem", cert + ".key")
        tls = make_target(path, size, context)
    print(server.server_address[1], tls.server_address[1] if tls else 0, flush=True)
    sys.stdin.read()
    server.shutdown()


def start_target(path, size, cert):
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve-target",
                             path, str(size), cert], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    port, tls_port = map(int, proc.stdout.readline().split())
    return proc, port, tls_port


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--serve-target":
        return serve_target(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--size", type=int, default=500, help="MB per transfer")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--idle", type=int, default=20)
    ap.add_argument("--tunnels", type=int, default=50)
    ap.add_argument("--spawns", type=int, default=50)
    ap.add_argument("--only", default="tunnel,http,latency,idle,tunnels,masked")
    ap.add_argument("--sandbox", action="store_true",
                    help="run the commands in a restricted sandbox, enforceManagedNetwork")
    args = ap.parse_args()
    only = args.only.split(",")

    tmp = tempfile.mkdtemp(prefix="esd-bench-np-")
    try:
        run(args, only, tmp)
    finally:
        # the body file is SIZE MB: never left behind, whatever ended the run
        shutil.rmtree(tmp, ignore_errors=True)


def run(args, only, tmp):
    path = os.path.join(tmp, "big")
    with open(path, "wb") as f:
        block = os.urandom(1 << 20)
        for _ in range(args.size):
            f.write(block)
    size = args.size << 20
    # the TLS target's certificate, for localhost; both servers trust it (SSL_CERT_FILE)
    cert = os.path.join(tmp, "target")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", cert + ".key", "-out",
                    cert + ".pem", "-days", "1", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    target, tport, tls_port = start_target(path, size, cert)
    try:
        measure(args, only, tmp, path, tport, tls_port, cert + ".pem")
    finally:
        target.stdin.close()
        target.wait()


def measure(args, only, tmp, path, tport, tls_port, cert):
    home = os.path.join(tmp, "home")
    os.mkdir(home)
    if args.sandbox:
        # the reference runs its sandbox helper by this name from PATH
        helpers = os.path.join(tmp, "bin")
        os.mkdir(helpers)
        os.symlink(REF, os.path.join(helpers, "codex-linux-sandbox"))
        Server.sandbox = True
        Server.path = helpers + ":" + Server.path

    def servers():
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        env = dict(os.environ, CODEX_HOME=home, SSL_CERT_FILE=cert)
        yield Server("reference", [REF, "exec-server", "--listen", f"ws://127.0.0.1:{port}"], env)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        yield Server("execserverd", [os.path.join(args.build, "server", "execserverd"),
                                     "--listen", f"ws://127.0.0.1:{port}"],
                     dict(os.environ, SSL_CERT_FILE=cert))

    results = {}

    def add(server, key, value):
        print(f"  {server.name}: {key} {value:.1f}", file=sys.stderr, flush=True)
        results.setdefault(key, {}).setdefault(server.name, []).append(value)

    for _ in range(args.reps):
        for server in servers():
            try:
                if ("tunnel" in only or "http" in only) and not args.sandbox:
                    # the ceiling of this machine: curl and the target without a proxy
                    speed, _ = transfer(server, f"http://127.0.0.1:{tport}/big", "--noproxy '*'")
                    add(server, "direct MB/s (no proxy)", speed)
                if "tunnel" in only:
                    speed, cpu = transfer(server, f"http://127.0.0.1:{tport}/big", "-p")
                    add(server, "tunnel MB/s", speed)
                    add(server, "tunnel server CPU ms/MB", cpu)
                if "http" in only:
                    speed, cpu = transfer(server, f"http://127.0.0.1:{tport}/big", "")
                    add(server, "http MB/s", speed)
                    add(server, "http server CPU ms/MB", cpu)
                if "latency" in only:
                    cpu0 = server.cpu()
                    out = server.ws.output(server.start(
                        ["python3", "-c", LATENCY_CLIENT, str(tport), str(args.requests)]
                        + (["nodirect"] if args.sandbox else [])))
                    via, direct = map(float, out.split())
                    # the direct requests cost the server nothing
                    add(server, "server CPU us/request",
                        (server.cpu() - cpu0) * 1e6 / args.requests)
                    if args.sandbox:
                        add(server, "latency via proxy us/request", via)
                    else:
                        add(server, "added latency us/request", via - direct)
                if "masked" in only:
                    masking = {"credentialMasking": True, "domains": {"localhost": "allow"},
                               "credentialProviders": {"bench": {
                                   "env": ["BENCH_TOKEN"],
                                   "url_prefixes": [f"https://localhost:{tls_port}"]}}}
                    env = {"PATH": server.path, "BENCH_TOKEN": "bench_" + "x" * 32}
                    cpu0 = server.cpu()
                    out = server.ws.output(server.start(
                        ["sh", "-c", "curl -s -H \"Authorization: Bearer $BENCH_TOKEN\" -o "
                         "/dev/null -w '%{speed_download} %{size_download}' "
                         f"https://localhost:{tls_port}/big"], env, masking))
                    cpu = server.cpu() - cpu0
                    speed, got = out.split()
                    add(server, "masked HTTPS MB/s", float(speed) / 1e6)
                    add(server, "masked HTTPS CPU ms/MB", cpu * 1000 / (int(got) / 1e6))
                    out = server.ws.output(server.start(
                        ["python3", "-c", MASKED_CLIENT, str(tls_port), str(args.requests)],
                        env, masking))
                    add(server, "masked HTTPS us/request", float(out))
                if "spawn" in only:
                    times = []
                    for _ in range(args.spawns):
                        t = time.perf_counter()
                        server.ws.output(server.start(["true"]))
                        times.append((time.perf_counter() - t) * 1000)
                    add(server, "spawn ms/command", statistics.median(times))
                if "idle" in only:
                    before = server.pss_kb()
                    pids = [server.start(["sleep", "60"]) for _ in range(args.idle)]
                    time.sleep(0.5)
                    add(server, "kB per idle proxied process",
                        (server.pss_kb() - before) / args.idle)
                    for pid in pids:
                        server.ws.call("process/terminate", {"processId": pid})
                if "tunnels" in only:
                    time.sleep(0.5)
                    before = server.pss_kb()
                    pid = server.start(["python3", "-c", HOLD_CLIENT, str(tport),
                                        str(args.tunnels)])
                    line = server.ws.output(pid, until_closed=False, timeout=120)
                    assert line.startswith("ready"), line
                    time.sleep(0.3)
                    # the process itself is not the server's memory
                    add(server, "kB per open tunnel", (server.pss_kb() - before) / args.tunnels)
                    server.ws.call("process/terminate", {"processId": pid})
            finally:
                server.stop()

    print(f"{'workload':32} {'reference':>12} {'execserverd':>12} {'ratio':>8}")
    for key, by in results.items():
        ref = statistics.median(by.get("reference", [0]))
        ours = statistics.median(by.get("execserverd", [0]))
        ratio = ours / ref if ref else float("nan")
        # small figures (CPU per MB) with two decimals, so that their ratio means something
        digits = 2 if max(ref, ours) < 10 else 1
        print(f"{key:32} {ref:12.{digits}f} {ours:12.{digits}f} {ratio:8.2f}")


if __name__ == "__main__":
    main()
