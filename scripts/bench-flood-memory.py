#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The daemon's memory before, during and after a flood of malformed input.

  scripts/bench-flood-memory.py [--daemon PATH] [-c CONNECTIONS] [-n FRAMES]
                                [--idle SECONDS] [--pid PID --url URL] [-- DAEMON-ARGS]

Starts execserverd on ws://127.0.0.1:0 (or uses the one given with --pid and
--url, e.g. under valgrind), opens CONNECTIONS WebSocket connections, sends
initialize and initialized on each, then FRAMES malformed messages in total
over all of them: JSON that does not parse, envelopes that are not requests,
binary frames that are not UTF-8, fragmented messages, some of them tens or
hundreds of KiB long. Every reply is read as it comes, so that the daemon's
output queues stay short. A tenth of the connections end with a protocol
violation (reserved bits set), the others are closed by the client.

It prints Private_Dirty, Pss and Rss (from /proc/PID/smaps_rollup) and the
open descriptors of the daemon: just started, idle after a first session
(one connection, one malformed message of every kind: what a daemon that
has served anything holds for good, the classes of its objects and such),
once the connections are initialized, after the flood, and after closing
them and idling. Closed sessions stay resumable for --session-grace
seconds (80 by default); large messages leave one spare buffer for 30 to
60 s. A measurement, never a test: the figures vary with the machine.
"""
import argparse, base64, json, os, selectors, socket, struct, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument('--daemon', default='build/server/execserverd')
ap.add_argument('-c', '--connections', type=int, default=200)
ap.add_argument('-n', '--frames', type=int, default=200000)
ap.add_argument('--idle', type=float, default=5.0, help='seconds to wait after closing')
ap.add_argument('--no-warmup', action='store_true', help='no first session before the baseline')
ap.add_argument('--pid', type=int, help='measure this running daemon instead of starting one')
ap.add_argument('--url', help='ws://HOST:PORT of the daemon given with --pid')
ap.add_argument('daemon_args', nargs='*')
opt = ap.parse_args()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from esd_devenv import devenv  # noqa: E402
os.environ.update(devenv(opt.daemon))


def memory(pid):
    fields = {}
    with open('/proc/%d/smaps_rollup' % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(':') and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    return fields


def report(pid, label):
    m = memory(pid)
    fds = len(os.listdir('/proc/%d/fd' % pid))
    print('%-28s Private_Dirty %7.1f MiB  Pss %7.1f MiB  Rss %7.1f MiB  fds %d' %
          (label, m.get('Private_Dirty', 0) / 1024, m.get('Pss', 0) / 1024,
           m.get('Rss', 0) / 1024, fds), flush=True)
    return m


def frame(opcode, payload, fin=True, rsv=0):
    mask = os.urandom(4)
    n = len(payload)
    b0 = (0x80 if fin else 0) | rsv | opcode
    if n < 126:
        head = struct.pack('!BB', b0, 0x80 | n)
    elif n < 65536:
        head = struct.pack('!BBH', b0, 0x80 | 126, n)
    else:
        head = struct.pack('!BBQ', b0, 0x80 | 127, n)
    key = (mask * (n // 4 + 1))[:n]
    return head + mask + (int.from_bytes(payload, 'big') ^ int.from_bytes(key, 'big')).to_bytes(n, 'big')


def malformed(i):
    """the i-th malformed message, as frames; mostly small, some large"""
    kind = i % 10
    if kind == 0:
        return frame(1, b'{"id":%d,"method":' % i)
    if kind == 1:
        return frame(1, b'{"id":{"x":%d},"method":42,"params":[]}' % i)
    if kind == 2:
        return frame(2, b'{"id":%d,"method":"environment/status","params":{"a":"\xff\xfe"}}' % i)
    if kind == 3:
        return frame(1, b'[1,2,3', fin=False) + frame(0, b'%d,' % i * 50)
    if kind == 4:
        return frame(1, b'{"id":%d,"method":"x","params":%s}' % (i, b'[' * 100 + b']' * 100))
    if kind == 5:
        return frame(1, b'{"id":%d,"method":"x","params":"%s' % (i, b'a' * (4096 + i % 8192)))
    if kind == 6 and i % 100 == 6:
        return frame(1, b'{"id":%d,"method":"x","params":"%s' % (i, b'b' * (70000 + i % 200000)))
    if kind == 7:
        return frame(1, b'\x00nul%d' % i)
    if kind == 8:
        return frame(1, b'{"method":"process/start","params":{"argv":["true"]},"id":%d}{}' % i)
    return frame(1, b'not json %d' % i)


class Conn:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(('GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n'
                           'Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n'
                           'Sec-WebSocket-Version: 13\r\n\r\n' % (host, port, key)).encode())
        buf = b''
        while b'\r\n\r\n' not in buf:
            data = self.sock.recv(4096)
            if not data:
                raise RuntimeError('upgrade refused')
            buf += data
        head, self.inbuf = buf.split(b'\r\n\r\n', 1)
        if b' 101 ' not in head.split(b'\r\n')[0]:
            raise RuntimeError('upgrade refused: %r' % head.split(b'\r\n')[0])
        self.out = b''
        self.replies = 0
        self.closed = False

    def send_json(self, obj):
        self.out += frame(1, json.dumps(obj).encode())

    def messages(self):
        """complete server messages in inbuf"""
        while True:
            b = self.inbuf
            if len(b) < 2:
                return
            n = b[1] & 0x7f
            off = 2
            if n == 126:
                if len(b) < 4:
                    return
                n = struct.unpack('!H', b[2:4])[0]
                off = 4
            elif n == 127:
                if len(b) < 10:
                    return
                n = struct.unpack('!Q', b[2:10])[0]
                off = 10
            if len(b) < off + n:
                return
            opcode = b[0] & 0x0f
            payload = b[off:off + n]
            self.inbuf = b[off + n:]
            if opcode == 9:
                self.out += frame(10, payload)
                continue
            yield opcode, payload


def main():
    proc = None
    if opt.pid:
        pid, url = opt.pid, opt.url
    else:
        proc = subprocess.Popen([opt.daemon, '--listen', 'ws://127.0.0.1:0'] + opt.daemon_args,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        url = proc.stdout.readline().decode().strip()
        pid = proc.pid
    host, port = url[len('ws://'):].rsplit(':', 1)
    port = int(port)
    time.sleep(0.5)
    before = report(pid, 'idle, just started')
    if not opt.no_warmup:
        c = Conn(host, port)
        c.send_json({'id': 1, 'method': 'initialize', 'params': {'clientName': 'warm-up'}})
        c.send_json({'method': 'initialized', 'params': {}})
        pump([c], lambda c: c.replies >= 1)
        for i in range(10):
            c.out += malformed(i)
        pump([c], lambda c: c.replies >= 11)
        c.sock.close()
        time.sleep(max(2.0, opt.idle))
        before = report(pid, 'idle, after a first session')

    conns = []
    for i in range(opt.connections):
        c = Conn(host, port)
        c.send_json({'id': 1, 'method': 'initialize', 'params': {'clientName': 'flood-%d' % i}})
        c.send_json({'method': 'initialized', 'params': {}})
        conns.append(c)
    pump(conns, lambda c: c.replies >= 1)
    report(pid, '%d connections initialized' % len(conns))

    per = [opt.frames // len(conns) + (1 if i < opt.frames % len(conns) else 0)
           for i in range(len(conns))]
    sent = [0] * len(conns)
    t0 = time.monotonic()
    # a few frames at a time per connection, so that all of them are busy together
    while True:
        busy = False
        for i, c in enumerate(conns):
            while sent[i] < per[i] and len(c.out) < 65536:
                c.out += malformed(i * 1000003 + sent[i])
                sent[i] += 1
            busy = busy or sent[i] < per[i]
        if not busy:
            break
        pump(conns, lambda c: len(c.out) < 65536, once=True)
    for i, c in enumerate(conns):
        c.expected = 1 + per[i]
    pump(conns, lambda c: c.replies >= c.expected)
    elapsed = time.monotonic() - t0
    total = sum(c.replies - 1 for c in conns)
    print('%d malformed messages answered in %.1f s' % (total, elapsed))
    report(pid, 'after the flood')

    for i, c in enumerate(conns):
        if i % 10 == 0:
            c.sock.sendall(frame(1, b'{}', rsv=0x40))
        c.sock.close()
    time.sleep(opt.idle)
    after = report(pid, 'closed, idle %.0f s' % opt.idle)
    print('idle Private_Dirty after/before: %.2f' %
          (after.get('Private_Dirty', 0) / max(1, before.get('Private_Dirty', 1))))
    if proc is not None:
        proc.terminate()
        proc.wait()


def pump(conns, done, once=False):
    """sends what is queued and reads replies until done(c) holds for every connection"""
    sel = selectors.DefaultSelector()
    for c in conns:
        c.sock.setblocking(False)
        sel.register(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
    deadline = time.monotonic() + 120
    try:
        while not all(done(c) for c in conns):
            if time.monotonic() > deadline:
                raise RuntimeError('no progress for 120 s')
            for c in conns:
                sel.modify(c.sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if c.out else 0), c)
            for key, events in sel.select(1.0):
                c = key.data
                if events & selectors.EVENT_WRITE and c.out:
                    try:
                        n = c.sock.send(c.out)
                        c.out = c.out[n:]
                    except BlockingIOError:
                        pass
                if events & selectors.EVENT_READ:
                    try:
                        data = c.sock.recv(1 << 20)
                    except BlockingIOError:
                        data = None
                    if data == b'':
                        raise RuntimeError('the daemon closed a connection')
                    if data:
                        c.inbuf += data
                        for opcode, payload in c.messages():
                            if opcode == 1:
                                c.replies += 1
            if once:
                break
    finally:
        sel.close()
        for c in conns:
            c.sock.setblocking(True)


main()
