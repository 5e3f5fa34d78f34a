#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Sandboxed /bin/true through execserverd against bare bwrap launched the same way.

  scripts/bench-sandbox-spawn.py [--daemon PATH] [--plugins-dir DIR] [-n N]

Starts the daemon on stdio, runs N sandboxed `/bin/true` (process/start to
process/closed, one at a time) and N bare `bwrap ... /bin/true` with the
same namespaces, mounts and seccomp filter size class, started with
posix_spawn from this script, and prints the medians and their ratio. A
measurement, never a test: machines are noisy.
"""
import argparse, base64, json, os, statistics, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument('--daemon', default='build/server/execserverd')
ap.add_argument('--plugins-dir', default='build/plugins')
ap.add_argument('-n', type=int, default=200)
opt = ap.parse_args()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from esd_devenv import devenv  # noqa: E402
os.environ.update(devenv(opt.daemon))

SANDBOX = {"permissions": {"type": "managed", "file_system": {"type": "restricted", "entries": [
    {"path": {"type": "special", "value": {"kind": "root"}}, "access": "read"},
    {"path": {"type": "path", "path": "file:///tmp"}, "access": "write"}]},
    "network": "restricted"}, "windowsSandboxLevel": "disabled"}

# what the daemon gives bwrap for this policy (as strace shows), without the seccomp program
MASKS = ['/tmp/.agents', '/tmp/.aws', '/tmp/.codex', '/tmp/.git']
BARE = ['bwrap', '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
        '--die-with-parent', '--cap-drop', 'ALL', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev',
        '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys', '--bind', '/tmp', '/tmp']
for m in MASKS:
    BARE += ['--perms', '0555', '--tmpfs', m, '--remount-ro', m]
BARE += ['--chdir', '/tmp', '--clearenv', '--setenv', 'PATH', '/usr/bin:/bin', '--', '/bin/true']

d = subprocess.Popen([opt.daemon, '--listen', 'stdio', '--plugins-dir', opt.plugins_dir],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

def send(o):
    d.stdin.write((json.dumps(o) + '\n').encode()); d.stdin.flush()

def recv():
    return json.loads(d.stdout.readline())

send({"id": 0, "method": "initialize", "params": {"clientName": "bench"}}); recv()
send({"method": "initialized"})

def boxed(i):
    t0 = time.perf_counter()
    send({"id": i + 1, "method": "process/start", "params": {
        "processId": "p%d" % i, "argv": ["/bin/true"], "cwd": "file:///tmp",
        "env": {"PATH": "/usr/bin:/bin"}, "tty": False, "sandbox": SANDBOX}})
    while True:
        m = recv()
        if 'error' in m:
            sys.exit('process/start failed: %s' % m)
        if m.get('method') == 'process/closed':
            return time.perf_counter() - t0

def bare():
    t0 = time.perf_counter()
    pid = os.posix_spawnp('bwrap', BARE, {})
    os.waitpid(pid, 0)
    t = time.perf_counter() - t0
    for m in MASKS:  # bwrap's mount points on the host; the daemon removes its own
        try:
            os.rmdir(m)
        except OSError:
            pass
    return t

for _ in range(10):  # warm both paths
    boxed(10**6 + _); bare()
a, b = [], []
for i in range(opt.n):
    a.append(boxed(i)); b.append(bare())
ma, mb = statistics.median(a) * 1e3, statistics.median(b) * 1e3
print(f"sandboxed /bin/true via execserverd: p50 {ma:.3f} ms")
print(f"bare bwrap /bin/true:                p50 {mb:.3f} ms")
print(f"ratio: {ma / mb:.2f}x")
d.stdin.close(); d.wait()
