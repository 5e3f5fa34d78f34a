#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""http/request of execserverd against the reference exec-server, side by side.

Workloads, against a loopback HTTP server (a separate process, C,
keep-alive), with a fresh exec-server per trial:
  small   1,000 GETs of a 64-byte body, one after another: latency per
          request (p50, p90) as a C client sees it, server CPU per request;
  stream  one GET of 200 MB with streamResponse: MB/s of decoded body,
          server CPU per MB, the exec-server's peak RSS (VmHWM).
The servers alternate trial by trial; medians over the trials are printed
with the ratio execserverd / reference. For small, a floor line gives the
same GETs sent straight to the loopback server by the C client (no
exec-server, no transport) in the same run: an exec-server's p50 is that
plus its transport's round trip and its own work. A second floor line makes
them with a bare SoupSession (bench-http-soup.c, when libsoup's development
files are installed): the least an exec-server built on libsoup can take. Both are driven by a small C
client (bench-http-client.c, built into the build directory) that, for the
stream, counts the decoded bytes from the base64 lengths, so that the
client is not the bottleneck; it gives stdio 1 MiB pipes. Not a test: nothing here passes or fails.

  scripts/bench-http.py [-n 5] [--build build] [--transport stdio|ws|both]
                        [--only small|stream] [--no-ref] [--stream-mb 200]
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
import time

REF = ("/work/ref/node_modules/@openai/codex-linux-x64/vendor/"
       "x86_64-unknown-linux-musl/bin/codex")
SMALL_BODY = b"x" * 64  # what the C server answers


# the loopback HTTP server: the C client's `serve` mode, in a child process

def start_http_server(client):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    proc = subprocess.Popen([client, "serve", str(sock.fileno())], pass_fds=[sock.fileno()])
    sock.close()
    return proc, port


# talking to an exec-server

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stdio:
    def __init__(self, proc):
        self.proc = proc
        self.fd = proc.stdout.fileno()
        self.buf = bytearray()
        self.scanned = 0  # no newline before this offset of buf
        # a 1 MiB pipe, for both servers: 64 KiB would make the pipe the bottleneck
        try:
            import fcntl
            fcntl.fcntl(self.fd, 1031, 1 << 20)  # F_SETPIPE_SZ
        except OSError:
            pass

    def send(self, text):
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def recv(self, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            end = self.buf.find(b"\n", self.scanned)
            if end >= 0:
                break
            self.scanned = len(self.buf)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError("no line from the server")
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise EOFError("the server closed its output")
            self.buf += chunk
        line = bytes(self.buf[:end])
        del self.buf[:end + 1]
        self.scanned = 0
        return line

    def close(self):
        self.proc.stdin.close()


class Ws:
    def __init__(self, port):
        deadline = time.monotonic() + 20
        while True:
            try:
                self.s = socket.create_connection(("127.0.0.1", port))
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.005)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = self.s.recv(4096)
            if not chunk:
                raise EOFError("upgrade refused")
            buf += chunk
        head, rest = buf.split(b"\r\n\r\n", 1)
        self.buf = bytearray(rest)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(head.split(b"\r\n", 1)[0].decode())

    def send(self, text):
        data = text.encode()
        n = len(data)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        # a zero mask: the payload goes as it is
        self.s.sendall(head + b"\0\0\0\0" + data)

    def need(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise EOFError("the server closed the connection")
            self.buf += chunk

    def recv(self, timeout=60):
        self.s.settimeout(timeout)
        self.need(2)
        n = self.buf[1] & 0x7F
        off = 2
        if n == 126:
            self.need(4)
            n = struct.unpack("!H", self.buf[2:4])[0]
            off = 4
        elif n == 127:
            self.need(10)
            n = struct.unpack("!Q", self.buf[2:10])[0]
            off = 10
        self.need(off + n)
        payload = bytes(self.buf[off:off + n])
        del self.buf[:off + n]
        return payload

    def close(self):
        self.s.close()


def proc_cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def start_server(kind, build, transport, tmp):
    env = dict(os.environ, CODEX_HOME=tmp)
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy",
                "ALL_PROXY"):
        env.pop(var, None)
    if kind == "ref":
        argv = [REF, "exec-server"]
    else:
        argv = [os.path.join(build, "server", "execserverd")]
    port = None
    if transport == "ws":
        port = free_port()
        argv += ["--listen", f"ws://127.0.0.1:{port}"]
    else:
        argv += ["--listen", "stdio"]
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=tmp)
    conn = Ws(port) if transport == "ws" else Stdio(proc)
    conn.send(json.dumps({"id": 0, "method": "initialize",
                          "params": {"clientName": "bench-http"}}))
    while json.loads(conn.recv()).get("id") != 0:
        pass
    conn.send('{"method":"initialized","params":{}}')
    return proc, conn


def stop_server(proc, conn):
    try:
        conn.close()
    except OSError:
        pass
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def request(conn, rid, url, stream=False):
    params = {"method": "GET", "url": url, "requestId": str(rid)}
    if stream:
        params["streamResponse"] = True
    conn.send(json.dumps({"id": rid, "method": "http/request", "params": params}))


def wait_reply(conn, rid):
    while True:
        msg = json.loads(conn.recv())
        if msg.get("id") == rid:
            if "error" in msg:
                raise RuntimeError(msg["error"]["message"])
            return msg


def trial_small(kind, build, transport, port, n, client):
    tmp = tempfile.mkdtemp(prefix="bench-http-")
    proc, conn = start_server(kind, build, transport, tmp)
    try:
        url = f"http://127.0.0.1:{port}/small"
        for i in range(20):  # warm: libsoup opened, connection made
            request(conn, i + 10, url)
            msg = wait_reply(conn, i + 10)
        if base64.b64decode(msg["result"]["bodyBase64"]) != SMALL_BODY:
            raise RuntimeError("wrong body")
        req = json.dumps({"id": 1, "method": "http/request",
                          "params": {"method": "GET", "url": url, "requestId": "s"}})
        cpu0 = proc_cpu_s(proc.pid)
        out = run_client(client, transport, proc, conn, [req, str(n)])
        cpu = proc_cpu_s(proc.pid) - cpu0
    finally:
        stop_server(proc, conn)
        shutil.rmtree(tmp, ignore_errors=True)
    return {"p50_us": float(out[0]), "p90_us": float(out[1]), "cpu_us_per_req": cpu * 1e6 / n}


def run_client(client, transport, proc, conn, args, watch=None):
    """runs the C client on the connection; its stderr words, @watch() polled meanwhile"""
    if transport == "ws":
        conn.s.setblocking(True)
        fds = {"stdin": conn.s.fileno(), "stdout": conn.s.fileno()}
    else:
        fds = {"stdin": proc.stdout.fileno(), "stdout": proc.stdin.fileno()}
    reader = subprocess.Popen([client, transport] + args, stderr=subprocess.PIPE, **fds)
    while reader.poll() is None:
        if watch is not None:
            watch()
        time.sleep(0.01)
    out = reader.stderr.read().decode().split()
    if reader.returncode != 0:
        raise RuntimeError(f"the client failed: {' '.join(out)}")
    return out


def build_client(build):
    """the C reading end of the stream workload (bench-http-client.c), built once"""
    out = os.path.join(build, "bench-http-client")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-http-client.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", out, src], check=True)
    return out


def build_soup(build):
    """the libsoup floor of the small workload (bench-http-soup.c), or None without libsoup"""
    out = os.path.join(build, "bench-http-soup")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-http-soup.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsoup-3.0"],
                               capture_output=True, text=True)
        if flags.returncode != 0:
            return None
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", out, src]
                       + flags.stdout.split(), check=True)
    return out


def trial_stream(kind, build, transport, port, mb, client):
    tmp = tempfile.mkdtemp(prefix="bench-http-")
    proc, conn = start_server(kind, build, transport, tmp)
    size = mb * 1024 * 1024
    try:
        request(conn, 1, f"http://127.0.0.1:{port}/small")
        wait_reply(conn, 1)
        rss0 = proc_kb(proc.pid, "VmRSS")
        cpu0 = proc_cpu_s(proc.pid)
        req = json.dumps({"id": 2, "method": "http/request",
                          "params": {"method": "GET", "url": f"http://127.0.0.1:{port}/big/{size}",
                                     "requestId": "big", "streamResponse": True}})
        peak = [0]

        def watch():
            peak[0] = max(peak[0], proc_kb(proc.pid, "VmRSS"))

        t0 = time.perf_counter()
        out = run_client(client, transport, proc, conn, [req], watch)
        wall = time.perf_counter() - t0
        cpu = proc_cpu_s(proc.pid) - cpu0
        hwm = proc_kb(proc.pid, "VmHWM")
        peak = peak[0]
        got, deltas = int(out[0]), int(out[1])
    finally:
        stop_server(proc, conn)
        shutil.rmtree(tmp, ignore_errors=True)
    if got != size:
        raise RuntimeError(f"got {got} of {size} bytes")
    return {"mb_s": mb / wall, "cpu_ms_per_mb": cpu * 1e3 / mb, "rss_peak_mb": peak / 1024,
            "rss_growth_mb": (peak - rss0) / 1024, "vm_hwm_mb": hwm / 1024,
            "deltas": deltas}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=5, help="trials per server (default 5)")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--transport", choices=["stdio", "ws", "both"], default="both")
    ap.add_argument("--only", choices=["small", "stream"])
    ap.add_argument("--no-ref", action="store_true")
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--stream-mb", type=int, default=200)
    args = ap.parse_args()
    kinds = ["esd"] + ([] if args.no_ref else ["ref"])
    transports = ["stdio", "ws"] if args.transport == "both" else [args.transport]
    workloads = [args.only] if args.only else ["small", "stream"]
    client = build_client(args.build)
    soup = build_soup(args.build)
    server, port = start_http_server(client)
    time.sleep(0.3)
    try:
        for transport in transports:
            for workload in workloads:
                results = {k: [] for k in kinds}
                for t in range(args.n):
                    for kind in (kinds if t % 2 == 0 else kinds[::-1]):
                        if workload == "small":
                            r = trial_small(kind, args.build, transport, port, args.requests,
                                        client)
                        else:
                            r = trial_stream(kind, args.build, transport, port, args.stream_mb,
                                         client)
                        results[kind].append(r)
                        print(f"# {transport} {workload} {kind} trial {t + 1}: "
                              + " ".join(f"{k}={v:.1f}" for k, v in r.items()),
                              file=sys.stderr, flush=True)
                print(f"{transport} {workload} (median of {args.n}):")
                if workload == "small":
                    floor = []
                    for _ in range(args.n):
                        out = subprocess.run([client, "direct", str(port), str(args.requests)],
                                             capture_output=True, text=True, check=True)
                        floor.append(float(out.stderr.split()[0]))
                    print(f"  {'floor_p50_us':16s} direct GET {statistics.median(floor):11.1f}",
                          flush=True)
                    if soup is not None:
                        alone = []
                        for _ in range(args.n):
                            out = subprocess.run([soup, str(port), str(args.requests)],
                                                 capture_output=True, text=True, check=True)
                            alone.append([float(v) for v in out.stderr.split()])
                        print(f"  {'floor_p50_us':16s} libsoup    "
                              f"{statistics.median(a[0] for a in alone):11.1f}"
                              f"   cpu_us_per_req {statistics.median(a[2] for a in alone):.1f}",
                              flush=True)
                for key in results["esd"][0]:
                    med = {k: statistics.median(r[key] for r in results[k]) for k in kinds}
                    line = f"  {key:16s} execserverd {med['esd']:10.1f}"
                    if "ref" in med:
                        ratio = med["esd"] / med["ref"] if med["ref"] else float("nan")
                        line += f"   reference {med['ref']:10.1f}   ratio {ratio:.2f}"
                    print(line, flush=True)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
