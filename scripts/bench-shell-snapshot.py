#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""`bash -lc true` with and without a shell snapshot, side by side with the reference.

  scripts/bench-shell-snapshot.py [--daemon PATH] [--plugins-dir DIR] [--reference PATH]
                                  [-n N] [--rounds R] [--profile-ms MS]

Makes a HOME whose .profile takes --profile-ms (default 300) to run (a
sleep) and exports, defines a function and an alias, then starts each
server on stdio (execserverd, then `codex exec-server` with an empty
CODEX_HOME, alternating for --rounds rounds) and times, from the
process/start request to process/closed, N runs of
  - plain:    ["/bin/bash", "-lc", "true"] without shellSnapshot (the
              login files run every time),
  - snapshot: the same with shellSnapshot {scopeId, shell bash}, after
              one first run that captures the snapshot (timed apart),
  - bare:     ["/bin/bash", "-c", "true"], what a shell costs at all.
It prints the medians, snapshot/plain, and the server's own CPU time per
snapshotted command (the schedstat run time of its threads, children
not included; threads that ended are missed). The bar: snapshot <= plain / 10. A measurement, never a test:
the machine is shared and noisy, read the medians.
"""
import argparse, base64, json, os, shutil, statistics, subprocess, sys, tempfile, time

REF = '/work/ref/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex'
ap = argparse.ArgumentParser()
ap.add_argument('--daemon', default='build/server/execserverd')
ap.add_argument('--plugins-dir', default='build/plugins')
ap.add_argument('--reference', default=REF, help='the codex binary, or "" to skip it')
ap.add_argument('-n', type=int, default=15)
ap.add_argument('--rounds', type=int, default=2)
ap.add_argument('--profile-ms', type=int, default=300)
opt = ap.parse_args()
opt.daemon = os.path.abspath(opt.daemon)
opt.plugins_dir = os.path.abspath(opt.plugins_dir)

tmp = tempfile.mkdtemp(prefix='bench-snapshot-')
home = os.path.join(tmp, 'home')
work = os.path.join(tmp, 'work')
codex_home = os.path.join(tmp, 'codex-home')
for d in (home, work, codex_home):
    os.mkdir(d)
with open(os.path.join(home, '.profile'), 'w') as f:
    f.write('sleep %.3f\n' % (opt.profile_ms / 1000.0))
    f.write('export BENCH_VAR=from-profile PATH="$HOME/bin:$PATH"\n')
    f.write('bench_fn() { echo fn; }\nalias ll="ls -l"\nshopt -s extglob\n')
    f.write('echo profile-out\n')


class Server:
    def __init__(self, name, argv, env):
        self.name = name
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, cwd=work)
        self.next_id = 0
        self.pending = []
        self.request('initialize', {'clientName': 'bench-shell-snapshot'})
        self.send({'method': 'initialized'})

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + '\n').encode())
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError('%s closed its stdout' % self.name)
        return json.loads(line)

    def request(self, method, params):
        self.next_id += 1
        self.send({'id': self.next_id, 'method': method, 'params': params})
        while True:
            msg = self.read()
            if msg.get('id') == self.next_id:
                if 'error' in msg:
                    raise RuntimeError('%s: %s' % (method, msg['error']))
                return msg['result']
            self.pending.append(msg)

    def run(self, pid, argv, snapshot):
        """seconds from process/start to process/closed, and stdout"""
        params = {'processId': pid, 'argv': argv, 'cwd': 'file://' + work,
                  'env': {'HOME': home, 'PATH': '/usr/bin:/bin'}, 'tty': False}
        if snapshot:
            params['shellSnapshot'] = {'scopeId': 'bench:remote',
                                       'shell': {'name': 'bash', 'path': '/bin/bash'}}
        start = time.monotonic()
        self.request('process/start', params)
        out = b''
        msgs, self.pending = self.pending, []
        while True:
            for msg in msgs:
                p = msg.get('params') or {}
                if p.get('processId') != pid:
                    continue
                if msg.get('method') == 'process/output' and p.get('stream') == 'stdout':
                    out += base64.b64decode(p['chunk'])
                if msg.get('method') == 'process/closed':
                    return time.monotonic() - start, out.decode()
            msgs = [self.read()]

    def cpu(self):
        """seconds on a CPU over the server's threads (schedstat, ns)"""
        total = 0
        task_dir = '/proc/%d/task' % self.p.pid
        for tid in os.listdir(task_dir):
            try:
                with open('%s/%s/schedstat' % (task_dir, tid)) as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass
        return total / 1e9

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def servers():
    ours = ([opt.daemon, '--listen', 'stdio', '--plugins-dir', opt.plugins_dir], dict(os.environ))
    yield 'execserverd', ours
    if opt.reference:
        yield 'reference', ([opt.reference, 'exec-server', '--listen', 'stdio'],
                            dict(os.environ, CODEX_HOME=codex_home))


results = {}
try:
    for r in range(opt.rounds):
        for name, (argv, env) in servers():
            s = Server(name, argv, env)
            res = results.setdefault(name, {'plain': [], 'snapshot': [], 'bare': [],
                                            'capture': [], 'cpu': []})
            seq = 0

            def run(argv, snapshot):
                global seq
                seq += 1
                return s.run('r%d-%d' % (r, seq), argv, snapshot)
            for _ in range(opt.n):
                res['plain'].append(run(['/bin/bash', '-lc', 'true'], False)[0])
            t, _ = run(['/bin/bash', '-lc', 'true'], True)
            res['capture'].append(t)
            t0 = s.cpu()
            for _ in range(opt.n):
                t, _ = run(['/bin/bash', '-lc', 'true'], True)
                res['snapshot'].append(t)
            res['cpu'].append((s.cpu() - t0) / opt.n)
            _, out = run(['/bin/bash', '-lc', 'echo "$BENCH_VAR $(bench_fn)"'], True)
            if out != 'from-profile fn\n':
                print('%s: the snapshot did not apply: %r' % (name, out), file=sys.stderr)
            for _ in range(opt.n):
                res['bare'].append(run(['/bin/bash', '-c', 'true'], False)[0])
            s.close()
            print('round %d %-11s plain %6.1f ms  snapshot %5.1f ms' %
                  (r + 1, name, statistics.median(res['plain'][-opt.n:]) * 1e3,
                   statistics.median(res['snapshot'][-opt.n:]) * 1e3), file=sys.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print('profile %d ms, %d runs x %d rounds, medians' % (opt.profile_ms, opt.n, opt.rounds))
print('%-12s %9s %9s %9s %9s %9s %12s' %
      ('server', 'plain', 'snapshot', 'ratio', 'bare', 'capture', 'cpu/snapshot'))
for name, res in results.items():
    plain = statistics.median(res['plain'])
    snap = statistics.median(res['snapshot'])
    print('%-12s %7.1fms %7.1fms %9.3f %7.1fms %7.1fms %10.2fms' %
          (name, plain * 1e3, snap * 1e3, snap / plain, statistics.median(res['bare']) * 1e3,
           statistics.median(res['capture']) * 1e3, statistics.median(res['cpu']) * 1e3))
    print('%-12s bar snapshot <= plain/10: %s' % ('', 'met' if snap <= plain / 10 else 'NOT met'))
