#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The daemon's CPU time on the results and notifications it writes most.

  scripts/bench-json-writer.py [--daemon PATH] [--plugins-dir DIR] [-n N]

Starts the daemon on stdio and, for each case, sends the request N times
and reads the answers without parsing them:
  - fs/readDirectory of a directory of 10000 entries,
  - fs/readFile of a 16 MiB file (one big base64 string),
  - process/start of `head -c 64M /dev/zero` (process/output notifications
    until process/closed),
  - fs/walk of a tree of 10000 entries.
It prints, per case, the daemon's median wall time and its user+system CPU
time over all N rounds (from /proc/PID/stat). A measurement, never a test:
machines are noisy, compare runs made one after the other.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument('--daemon', default='build/server/execserverd')
ap.add_argument('--plugins-dir', default='build/plugins')
ap.add_argument('-n', type=int, default=20)
opt = ap.parse_args()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from esd_devenv import devenv  # noqa: E402
os.environ.update(devenv(opt.daemon))

tmp = tempfile.TemporaryDirectory(prefix='bench-json-')
flat = os.path.join(tmp.name, 'flat')
os.mkdir(flat)
for i in range(10000):
    open(os.path.join(flat, 'entry-%05d.txt' % i), 'w').close()
tree = os.path.join(tmp.name, 'tree')
for i in range(100):
    sub = os.path.join(tree, 'dir-%03d' % i)
    os.makedirs(sub)
    for j in range(99):
        open(os.path.join(sub, 'file-%02d' % j), 'w').close()
big = os.path.join(tmp.name, 'big.bin')
with open(big, 'wb') as f:
    f.write(os.urandom(16 * 1024 * 1024))

d = subprocess.Popen([opt.daemon, '--listen', 'stdio', '--plugins-dir', opt.plugins_dir],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None if os.environ.get("BENCH_VERBOSE") else subprocess.DEVNULL)
next_id = 0


def send(method, params=None):
    global next_id
    next_id += 1
    msg = {"id": next_id, "method": method}
    if params is not None:
        msg["params"] = params
    d.stdin.write((json.dumps(msg) + '\n').encode())
    d.stdin.flush()
    return next_id


def read_until(marker):
    size = 0
    while True:
        line = d.stdout.readline()
        if not line:
            sys.exit('the daemon went away')
        size += len(line)
        if b'"error"' in line[:200]:
            sys.exit('request failed: %s' % line[:300])
        if marker in line[:200]:
            return size


def cpu():
    fields = open('/proc/%d/stat' % d.pid).read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


send('initialize', {"clientName": "bench"})
read_until(b'"result"')
d.stdin.write(b'{"method":"initialized"}\n')
d.stdin.flush()


def result(method, params):
    def run(i):
        rid = send(method, params)
        return read_until(b'{"id":%d,"result"' % rid)
    return run


def output(i):
    send('process/start', {"processId": "p%d" % i, "argv": ["head", "-c", "64M", "/dev/zero"],
                           "cwd": "file://" + tmp.name, "env": {"PATH": "/usr/bin:/bin"},
                           "tty": False})
    return read_until(b'"process/closed"')


uri = 'file://'
cases = [
    ('fs/readDirectory 10k', result('fs/readDirectory', {"path": uri + flat})),
    ('fs/readFile 16 MiB', result('fs/readFile', {"path": uri + big})),
    ('process/output 64 MiB', output),
    ('fs/walk 10k', result('fs/walk', {"path": uri + tree, "options": {"maxDepth": 4, "maxDirectories": 10000, "maxEntries": 50000, "followDirectorySymlinks": False}})),
]
for name, run in cases:
    run(-1)  # warm the caches
    walls = []
    c0 = cpu()
    for i in range(opt.n):
        t0 = time.perf_counter()
        size = run(i)
        walls.append(time.perf_counter() - t0)
    c1 = cpu()
    print('%-24s %9d bytes  wall median %8.2f ms  daemon cpu %7.1f ms/round' %
          (name, size, statistics.median(walls) * 1e3, (c1 - c0) * 1e3 / opt.n))
d.stdin.close()
d.wait(timeout=30)
