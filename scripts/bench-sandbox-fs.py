#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Sandboxed fs/readFile and fs/writeFile of a small file: execserverd against the reference.

  scripts/bench-sandbox-fs.py [--daemon PATH] [--plugins-dir DIR] [--reference PATH]
                              [-n N] [--rounds R]

Starts execserverd and the reference (`codex exec-server`, with CODEX_HOME an
empty directory) on stdio, and runs, R rounds alternating between the two,
N requests of each kind one at a time with the `sandbox` Codex sends in its
default mode (root read, the workspace written, restricted network):
fs/readFile and fs/writeFile of a 64-byte file in the workspace, a read with
a deny entry elsewhere in the workspace, and a read under a policy with a
deny glob (which execserverd hands to its sandboxed helper: a new one per
request while the workspace gets masks for missing protected names, a
warm one for a read-only policy). Prints the
median wall time per request, the server's CPU per request (its own and its
reaped children's, from /proc/PID/stat) and the ratios. A measurement,
never a test: machines are noisy.
"""
import argparse, base64, json, os, shutil, statistics, subprocess, sys, tempfile, time

REF = '/work/ref/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex'
ap = argparse.ArgumentParser()
ap.add_argument('--daemon', default='build/server/execserverd')
ap.add_argument('--plugins-dir', default='build/plugins')
ap.add_argument('--reference', default=REF)
ap.add_argument('-n', type=int, default=200)
ap.add_argument('--rounds', type=int, default=3)
opt = ap.parse_args()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from esd_devenv import devenv  # noqa: E402
os.environ.update(devenv(opt.daemon))
opt.daemon = os.path.abspath(opt.daemon)
opt.plugins_dir = os.path.abspath(opt.plugins_dir)

work = tempfile.mkdtemp(prefix='bench-sandbox-fs-')
ws = os.path.join(work, 'ws')
os.makedirs(os.path.join(ws, 'secret'))
with open(os.path.join(ws, 'f.txt'), 'wb') as f:
    f.write(b'x' * 64)
codex_home = os.path.join(work, 'codex-home')
os.mkdir(codex_home)


def uri(path):
    return 'file://' + path


def sandbox(*extra):
    entries = [{"path": {"type": "special", "value": {"kind": "root"}}, "access": "read"},
               {"path": {"type": "path", "path": uri(ws)}, "access": "write"}] + list(extra)
    return {"permissions": {"type": "managed",
                            "file_system": {"type": "restricted", "entries": entries},
                            "network": "restricted"},
            "windowsSandboxLevel": "disabled"}


PLAIN = sandbox()
DENY = sandbox({"path": {"type": "path", "path": uri(os.path.join(ws, 'secret'))}, "access": "deny"})
GLOB = sandbox({"path": {"type": "glob_pattern", "pattern": os.path.join(ws, '**/*.env')},
                "access": "deny"})
# no writable root, so no masks on the host: execserverd keeps one warm helper for it
RO_GLOB = {"permissions": {"type": "managed", "file_system": {"type": "restricted", "entries": [
    {"path": {"type": "special", "value": {"kind": "root"}}, "access": "read"},
    {"path": {"type": "glob_pattern", "pattern": os.path.join(ws, '**/*.env')}, "access": "deny"}]},
    "network": "restricted"}, "windowsSandboxLevel": "disabled"}
DATA = base64.b64encode(b'y' * 64).decode()
CASES = [
    ('readFile', 'fs/readFile', {"path": uri(os.path.join(ws, 'f.txt')), "sandbox": PLAIN}),
    ('writeFile', 'fs/writeFile', {"path": uri(os.path.join(ws, 'w.txt')), "dataBase64": DATA,
                                   "sandbox": PLAIN}),
    ('readFile, deny entry', 'fs/readFile', {"path": uri(os.path.join(ws, 'f.txt')), "sandbox": DENY}),
    ('readFile, deny glob', 'fs/readFile', {"path": uri(os.path.join(ws, 'f.txt')), "sandbox": GLOB}),
    ('readFile, ro deny glob', 'fs/readFile', {"path": uri(os.path.join(ws, 'f.txt')), "sandbox": RO_GLOB}),
]


class Server:
    def __init__(self, name, argv, env):
        self.name = name
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, cwd=work)
        self.next_id = 1
        r = self.call('initialize', {"clientName": "bench"})
        if 'error' in r:
            sys.exit('%s: initialize failed: %s' % (name, r))
        self.send({"method": "initialized"})

    def send(self, o):
        self.p.stdin.write((json.dumps(o) + '\n').encode())
        self.p.stdin.flush()

    def call(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"id": i, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit('%s exited' % self.name)
            m = json.loads(line)
            if m.get('id') == i:
                return m

    def cpu(self):
        with open('/proc/%d/stat' % self.p.pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        # utime stime cutime cstime, in clock ticks
        return sum(int(x) for x in fields[11:15]) / os.sysconf('SC_CLK_TCK')

    def run(self, method, params, n):
        r = self.call(method, params)
        if 'error' in r:
            sys.exit('%s %s failed: %s' % (self.name, method, r))
        times = []
        c0 = self.cpu()
        for _ in range(n):
            t0 = time.perf_counter()
            self.call(method, params)
            times.append(time.perf_counter() - t0)
        return times, (self.cpu() - c0) / n

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


# the reference runs its sandbox helper as `codex-linux-sandbox` from PATH (its arg0 dispatch)
bindir = os.path.join(work, 'bin')
os.mkdir(bindir)
os.symlink(opt.reference, os.path.join(bindir, 'codex-linux-sandbox'))
env = dict(os.environ, CODEX_HOME=codex_home)
ref_env = dict(env, PATH=bindir + ':' + os.environ.get('PATH', '/usr/bin:/bin'))
servers = [Server('execserverd', [opt.daemon, '--listen', 'stdio', '--plugins-dir', opt.plugins_dir], env),
           Server('reference', [opt.reference, 'exec-server', '--listen', 'stdio'], ref_env)]
wall = {(s.name, c[0]): [] for s in servers for c in CASES}
cpu = {(s.name, c[0]): [] for s in servers for c in CASES}
for r in range(opt.rounds):
    for s in (servers if r % 2 == 0 else servers[::-1]):
        for label, method, params in CASES:
            t, c = s.run(method, params, opt.n)
            wall[(s.name, label)].extend(t)
            cpu[(s.name, label)].append(c)
for s in servers:
    s.close()
shutil.rmtree(work, ignore_errors=True)

print('%-24s %14s %14s %8s   %14s %14s %8s' % ('median per request', 'execserverd', 'reference',
                                               'ratio', 'esd CPU', 'ref CPU', 'ratio'))
for label, _, _ in CASES:
    a = statistics.median(wall[('execserverd', label)]) * 1e3
    b = statistics.median(wall[('reference', label)]) * 1e3
    ca = statistics.median(cpu[('execserverd', label)]) * 1e3
    cb = statistics.median(cpu[('reference', label)]) * 1e3
    print('%-24s %11.3f ms %11.3f ms %7.2fx   %11.3f ms %11.3f ms %7.2fx' %
          (label, a, b, a / b, ca, cb, ca / cb if cb > 0 else float('inf')))
