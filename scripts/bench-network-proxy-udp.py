#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""SOCKS5 UDP associate through the managed network proxy of execserverd.

Starts execserverd over WebSocket (the build tree's plugins: run it under
`meson devenv -C BUILD`), a UDP echo target of this script, and a command
with `networkProxy` (enableSocks5, enableSocks5Udp, 127.0.0.1 allowed): the
test executable's scripted SOCKS5 UDP client (`test-network-proxy
--udp-client`), which makes N round trips one after the other through the
relay. Printed: the median round trip through the relay, the median of
the same round trip made directly by this script (the machine's floor),
and the server's CPU (user + system, /proc/PID/stat) per datagram relayed
(each one a policy decision and a notification). Medians of --reps runs.
No reference column: the reference (0.171.0) does not return the target's
replies to the client (see plugins/network-proxy/README.md). Not a test.

With --sandbox the command runs in a restricted sandbox with
enforceManagedNetwork: it reaches the relays the sandbox made on its own
loopback (the managed network), not the host's.

  meson devenv -C build python3 ../scripts/bench-network-proxy-udp.py \
      [--build build] [--count 2000] [--reps 3] [--sandbox]
"""

import argparse
import importlib.util
import os
import socket
import statistics
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench_network_proxy", os.path.join(HERE, "bench-network-proxy.py"))
bnp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bnp)


def echo_target():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))

    def run():
        while True:
            data, addr = sock.recvfrom(65536)
            sock.sendto(data, addr)

    threading.Thread(target=run, daemon=True).start()
    return sock.getsockname()[1]


def direct(port, count):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(1)
    times = []
    for _ in range(count):
        start = time.monotonic()
        sock.sendto(b"rtt", ("127.0.0.1", port))
        sock.recv(100)
        times.append((time.monotonic() - start) * 1e6)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sandbox", action="store_true",
                        help="run the client in a restricted sandbox, enforceManagedNetwork")
    args = parser.parse_args()
    client = os.path.abspath(os.path.join(args.build, "tests", "network-proxy",
                                          "test-network-proxy"))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = bnp.Server("execserverd", [os.path.join(args.build, "server", "execserverd"),
                                        "--listen", f"ws://127.0.0.1:{port}"],
                        dict(os.environ))
    target = echo_target()
    proxy = dict(bnp.PROXY, enableSocks5=True, enableSocks5Udp=True)
    relayed, floor, cpu = [], [], []
    try:
        for rep in range(args.reps):
            pid = f"udp{rep}"
            before = server.cpu()
            params = {
                "processId": pid, "argv": [client, "--udp-client", "named",
                                           f"rtt=127.0.0.1,{target},{args.count}"],
                "cwd": "file:///", "env": {"PATH": server.path}, "tty": False,
                "networkProxy": {"proxy": proxy}}
            if args.sandbox:
                params["sandbox"] = bnp.SANDBOX
                params["enforceManagedNetwork"] = True
            server.ws.call("process/start", params)
            out = server.ws.output(pid)
            after = server.cpu()
            line = [l for l in out.splitlines() if l.startswith("rtt ")][0].split()
            ok, median = int(line[1]), int(line[2])
            if ok != args.count:
                raise SystemExit(f"{args.count - ok} datagrams lost: {out}")
            relayed.append(median)
            cpu.append((after - before) * 1e6 / args.count)
            floor.append(direct(target, args.count))
    finally:
        server.stop()
    print(f"{'round trip through the relay, µs':44} {statistics.median(relayed):8.0f}")
    print(f"{'round trip direct, µs':44} {statistics.median(floor):8.0f}")
    print(f"{'server CPU per datagram relayed, µs':44} {statistics.median(cpu):8.0f}")


if __name__ == "__main__":
    main()
