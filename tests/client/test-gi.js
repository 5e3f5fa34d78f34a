// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The execserverd authors
// Drives the real daemon from GJS through the Execrpc typelib: connect over
// stdio, the whole process API (start, write, read, interrupt, terminate),
// output in seq order, exit code, a server error as GLib.Error. Every async
// call is finished on its callback's source object; a process whose handle
// the script dropped still gets its events.
//
// usage: gjs test-gi.js TYPELIB-AND-LIBRARY-DIR (the daemon is $ESD_TEST_DAEMON)

// the build tree's typelib, and its library by soname
imports.gi.GIRepository.Repository.prepend_search_path(ARGV[0]);
imports.gi.GIRepository.Repository.prepend_library_path(ARGV[0]);
imports.gi.versions.Execrpc = '1';
imports.gi.versions.Json = '1.0';
const {Execrpc, GLib} = imports.gi;
const System = imports.system;

const loop = new GLib.MainLoop(null, false);
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 20, () => {
    print('Bail out! timed out');
    System.exit(1);
});

function check(cond, what) {
    if (!cond) {
        print(`Bail out! ${what}`);
        System.exit(1);
    }
}

// starts an async call, runs the loop until it answered and finishes it on
// the callback's source object
function finish(name, start) {
    let source = null, res = null;
    start((s, r) => {
        source = s;
        res = r;
        loop.quit();
    });
    // a signal handler may stop the loop first
    while (res === null)
        loop.run();
    check(typeof source[name] === 'function', `${name} is not a method of the source object`);
    return source[name](res);
}

function spawn(client, id, argv) {
    const proc = Execrpc.ClientProcess.new(client, id, argv);
    proc.set_env(['PATH=/usr/bin:/bin']);
    return proc;
}

print('1..3');
const client = Execrpc.Client.new_for_command([GLib.getenv('ESD_TEST_DAEMON'), '--listen', 'stdio']);
check(finish('connect_finish', cb => client.connect_async(null, cb)), 'connect');
const info = finish('get_info_finish', cb => client.get_info_async(null, cb));
check(info.get_string_member('executorVersion') === '0.171.0', 'executorVersion');

// start, write, exit code, events in order, read
let events = [];
let out = '';
let proc = spawn(client, 'gjs', ['sh', '-c', 'read x; echo got $x; exit 3']);
proc.set_pipe_stdin(true);
proc.connect('output', (p, stream, data) => {
    events.push('o');
    out += new TextDecoder().decode(data.get_data());
});
proc.connect('exited', (p, code) => events.push(`x${code}`));
proc.connect('closed', () => {
    events.push('c');
    loop.quit();
});
check(finish('start_finish', cb => proc.start_async(null, cb)), 'start');
const status = finish('write_finish', cb => proc.write_async(new GLib.Bytes(new TextEncoder().encode('hi\n')), null, cb));
check(status === 'accepted', `write status ${status}`);
if (!proc.is_closed())
    loop.run();
check(out === 'got hi\n', `output ${JSON.stringify(out)}`);
check(events.slice(-2).join() === 'x3,c', `events ${events}`);
check(proc.get_exit_code() === 3, 'exit code');
const read = finish('read_finish', cb => proc.read_async(0, 0, 0, null, cb));
check(read.get_boolean_member('closed'), 'process/read closed');
print('ok 1 /execserverd/client/gi/gjs');

// interrupt and terminate
proc = spawn(client, 'gjs-signals', ['sh', '-c', 'trap "echo int" INT; echo ready; while :; do sleep 0.05; done']);
let ready = false;
let text = '';
proc.connect('output', (p, stream, data) => {
    text += new TextDecoder().decode(data.get_data());
    ready = text.includes('ready');
    loop.quit();
});
proc.connect('closed', () => loop.quit());
check(finish('start_finish', cb => proc.start_async(null, cb)), 'start');
while (!ready)
    loop.run();
check(finish('interrupt_finish', cb => proc.interrupt_async(null, cb)), 'interrupt');
while (!text.includes('int'))
    loop.run();
check(finish('terminate_finish', cb => proc.terminate_async(null, cb)), 'terminate');
if (!proc.is_closed())
    loop.run();
check(proc.is_closed(), 'closed after terminate');
print('ok 2 /execserverd/client/gi/gjs-signals');

// a handle nothing references any more still gets the events of its command
const dropped = [];
proc = spawn(client, 'gjs-dropped', ['sh', '-c', 'sleep 0.3; echo late']);
proc.connect('output', (p, stream, data) => dropped.push(new TextDecoder().decode(data.get_data())));
proc.connect('closed', () => {
    dropped.push('c');
    loop.quit();
});
proc.start_async(null, null);
proc = null;
System.gc();
loop.run();
check(dropped.join() === 'late\n,c', `dropped handle events ${JSON.stringify(dropped)}`);

try {
    finish('fs_read_file_finish', cb => client.fs_read_file_async('/nonexistent', null, cb));
    check(false, 'no error');
} catch (e) {
    check(e.matches(GLib.quark_from_string('erpc-error-quark'), Execrpc.Error.NOT_FOUND), `${e}`);
}
client.close();
check(client.get_state() === Execrpc.ClientState.DISCONNECTED, 'disconnected');
print('ok 3 /execserverd/client/gi/gjs-dropped-handle');
