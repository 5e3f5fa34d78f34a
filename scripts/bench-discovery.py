#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Capability discovery: execserverd against the reference, back to back.

  scripts/bench-discovery.py [--daemon PATH] [--plugins-dir DIR] [--reference PATH]
                             [-n N] [--rounds R] [--cold N]

Builds two workloads in a scratch directory:

  discoverV1  200 capability roots holding 2,000 skills (10 per root, every
              other one with agents/openai.yaml, every fourth root a plugin
              with a manifest and .mcp.json), asked for in one call of 128
              roots and one of 72 (the protocol's limit is 128 per call);
  discoverV2  a Codex home with 1,000 skills in $CODEX_HOME/skills.

Starts execserverd (as it runs by default, answers kept until inotify sees
a change, and with --discovery-cache-entries=0, every call read afresh)
and the reference (`codex exec-server`, CODEX_HOME and HOME in the scratch
directory) on stdio and runs, R rounds alternating between them, N of each
workload one at a time. Prints the median wall time per workload (from the
request to the answer's arrival, before the client parses it), the
server's CPU per workload (its own and its reaped children's, from
/proc/PID/stat), the ratios to the reference, and the servers' resident
memory (VmRSS after the runs, VmHWM the peak). The reference caches its
discoverV2 answer for a while, so discoverV2 is also timed cold: the first
call of a freshly started server, --cold times each. Both answers are
compared once, so that the servers are timed doing the same work. A
measurement, never a test: machines are noisy.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

REF = '/work/ref/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex'
ap = argparse.ArgumentParser()
ap.add_argument('--daemon', default='build/server/execserverd')
ap.add_argument('--plugins-dir', default='build/plugins')
ap.add_argument('--reference', default=REF)
ap.add_argument('-n', type=int, default=10)
ap.add_argument('--rounds', type=int, default=3)
ap.add_argument('--cold', type=int, default=5)
opt = ap.parse_args()
opt.daemon = os.path.abspath(opt.daemon)
opt.plugins_dir = os.path.abspath(opt.plugins_dir)

work = tempfile.mkdtemp(prefix='bench-discovery-')
roots_dir = os.path.join(work, 'roots')
codex_home = os.path.join(work, 'codex-home')
home = os.path.join(work, 'home')
os.makedirs(home)


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def skill(name):
    return ('---\nname: %s\ndescription: skill %s, for the benchmark\nmetadata:\n'
            '  short-description: %s\n---\n\n# %s\n\n%s\n' % (name, name, name, name, 'body ' * 40))


for r in range(200):
    root = os.path.join(roots_dir, 'r%03d' % r)
    if r % 4 == 0:
        put(os.path.join(root, '.codex-plugin', 'plugin.json'),
            json.dumps({'name': 'p%d' % r, 'version': '1.0.0'}))
        put(os.path.join(root, '.mcp.json'), '{"mcpServers":{}}')
    for s in range(10):
        put(os.path.join(root, 'skills', 's%d' % s, 'SKILL.md'), skill('s%d' % s))
        if s % 2 == 0:
            put(os.path.join(root, 'skills', 's%d' % s, 'agents', 'openai.yaml'),
                'policy:\n  allow_implicit_invocation: true\n')
for s in range(1000):
    put(os.path.join(codex_home, 'skills', 'k%04d' % s, 'SKILL.md'), skill('k%04d' % s))

ROOTS = [{'id': 'r%03d' % r, 'path': 'file://' + os.path.join(roots_dir, 'r%03d' % r)}
         for r in range(200)]
V1 = [('capabilityRoots/discoverV1', {'roots': ROOTS[:128]}),
      ('capabilityRoots/discoverV1', {'roots': ROOTS[128:]})]
V2 = [('capabilities/discoverV2', {'cwd': 'file://' + work})]
CASES = [('discoverV1 200 roots', V1), ('discoverV2 1000 skills', V2)]


class Server:
    def __init__(self, name, argv, env):
        self.name = name
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, cwd=work)
        self.next_id = 1
        r = self.call('initialize', {'clientName': 'bench'})
        if 'error' in r:
            sys.exit('%s: initialize failed: %s' % (name, r))
        self.send({'method': 'initialized'})

    def send(self, o):
        self.p.stdin.write((json.dumps(o) + '\n').encode())
        self.p.stdin.flush()

    def call(self, method, params, received=None):
        i = self.next_id
        self.next_id += 1
        self.send({'id': i, 'method': method, 'params': params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit('%s exited' % self.name)
            # the server's time ends with its answer, before the client parses it
            if received is not None:
                received.append(time.perf_counter())
            m = json.loads(line)
            if m.get('id') == i:
                return m

    def cpu(self):
        with open('/proc/%d/stat' % self.p.pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf('SC_CLK_TCK')

    def memory(self):
        out = {}
        with open('/proc/%d/status' % self.p.pid) as f:
            for line in f:
                key, _, value = line.partition(':')
                if key in ('VmRSS', 'VmHWM'):
                    out[key] = int(value.split()[0]) / 1024
        return out

    def workload(self, calls, elapsed=None):
        answers = []
        for method, params in calls:
            received = []
            t0 = time.perf_counter()
            r = self.call(method, params, received)
            if elapsed is not None:
                elapsed.append(received[-1] - t0)
            if 'error' in r:
                sys.exit('%s %s failed: %s' % (self.name, method, r))
            answers.append(r['result'])
        return answers

    def run(self, calls, n):
        self.workload(calls)
        times = []
        c0 = self.cpu()
        for _ in range(n):
            elapsed = []
            self.workload(calls, elapsed)
            times.append(sum(elapsed))
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
env = dict(os.environ, CODEX_HOME=codex_home, HOME=home)
ref_env = dict(env, PATH=bindir + ':' + os.environ.get('PATH', '/usr/bin:/bin'))
ESD = [opt.daemon, '--listen', 'stdio', '--plugins-dir', opt.plugins_dir]
ARGV = {'execserverd': (ESD, env),
        'esd uncached': (ESD + ['--discovery-cache-entries=0'], env),
        'reference': ([opt.reference, 'exec-server', '--listen', 'stdio'], ref_env)}
NAMES = list(ARGV)


def start(name):
    argv, e = ARGV[name]
    return Server(name, argv, e)


servers = [start(name) for name in NAMES]
# the same work on both sides
for label, calls in CASES:
    answers = [s.workload(calls) for s in servers]
    if any(a != answers[0] for a in answers):
        print('warning: the answers of %s differ' % label)
wall = {(s.name, c[0]): [] for s in servers for c in CASES}
cpu = {(s.name, c[0]): [] for s in servers for c in CASES}
for r in range(opt.rounds):
    for s in (servers if r % 2 == 0 else servers[::-1]):
        for label, calls in CASES:
            t, c = s.run(calls, opt.n)
            wall[(s.name, label)].extend(t)
            cpu[(s.name, label)].append(c)
memory = {s.name: s.memory() for s in servers}
for s in servers:
    s.close()

cold = {name: [] for name in NAMES}
for i in range(opt.cold):
    for name in (NAMES if i % 2 == 0 else NAMES[::-1]):
        s = start(name)
        elapsed = []
        s.workload(V2, elapsed)
        cold[name].append(sum(elapsed))
        s.close()
shutil.rmtree(work, ignore_errors=True)

ref = 'reference'
print('%-24s %-13s %10s %10s %8s %10s %10s %8s' % ('median per workload', 'server', 'wall', 'ref wall',
                                                 'ratio', 'CPU', 'ref CPU', 'ratio'))
for label, _ in CASES:
    b = statistics.median(wall[(ref, label)]) * 1e3
    cb = statistics.median(cpu[(ref, label)]) * 1e3
    for name in NAMES[:-1]:
        a = statistics.median(wall[(name, label)]) * 1e3
        ca = statistics.median(cpu[(name, label)]) * 1e3
        print('%-24s %-13s %7.2f ms %7.2f ms %7.2fx %7.2f ms %7.2f ms %7.2fx' %
              (label, name, a, b, a / b, ca, cb, ca / cb if cb > 0 else float('inf')))
b = statistics.median(cold[ref]) * 1e3
for name in NAMES[:-1]:
    a = statistics.median(cold[name]) * 1e3
    print('%-24s %-13s %7.2f ms %7.2f ms %7.2fx' % ('discoverV2 cold', name, a, b, a / b))
print('resident memory after the runs: ' + ', '.join(
    '%s %.1f MiB (peak %.1f MiB)' % (name, m.get('VmRSS', 0), m.get('VmHWM', 0))
    for name, m in memory.items()))
