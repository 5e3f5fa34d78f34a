#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Drives a process of the real daemon from Python through PyGObject and the
Execrpc typelib: connect over stdio, start a command, write its stdin, read
its output in seq order, its exit code, and a server error as GLib.Error.
Every async call is finished on the callback's source object, as bindings
do; a process whose handle the script dropped still gets its events.

usage: test-gi.py LIBEXECRPC.so TYPELIB-DIR (the daemon is $ESD_TEST_DAEMON)
"""
import ctypes
import gc
import os
import sys

# the typelib names libexecrpc by soname: load the build tree's first
ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
os.environ["GI_TYPELIB_PATH"] = sys.argv[2]

import gi  # noqa: E402

gi.require_version("Execrpc", "1")
gi.require_version("Json", "1.0")
from gi.repository import Execrpc, GLib  # noqa: E402

# the typelib is libexecrpc-1 alone: the plugin API is libexecrpc-plugin-1's
for plugin_type in ("Call", "Listener", "Plugin", "Registry"):
    assert not hasattr(Execrpc, plugin_type), plugin_type

print("1..2")
loop = GLib.MainLoop()
timeout = GLib.timeout_add_seconds(20, lambda: sys.exit("timed out"))
state = {"events": [], "out": b""}


def wait(start):
    result = []
    start(lambda source, res: (result.append((source, res)), loop.quit()))
    # a signal handler may stop the loop first
    while not result:
        loop.run()
    return result[0]


def finish(name, start):
    """starts an async call and finishes it on its source object"""
    source, res = wait(start)
    return getattr(source, name)(res)


client = Execrpc.Client.new_for_command([os.environ["ESD_TEST_DAEMON"], "--listen", "stdio"])
assert finish("connect_finish", lambda cb: client.connect_async(None, cb))
assert client.get_state() == Execrpc.ClientState.READY
assert len(client.get_session_id()) == 36

info = finish("get_info_finish", lambda cb: client.get_info_async(None, cb))
assert info.get_string_member("executorVersion") == "0.171.0"

process = Execrpc.ClientProcess.new(client, "py", ["sh", "-c", "read x; echo got $x; exit 3"])
process.set_env(["PATH=/usr/bin:/bin"])
process.set_pipe_stdin(True)


def on_output(proc, stream, data):
    state["events"].append("o")
    state["out"] += data.get_data()


def on_exited(proc, code):
    state["events"].append("x%d" % code)


def on_closed(proc):
    state["events"].append("c")
    loop.quit()


process.connect("output", on_output)
process.connect("exited", on_exited)
process.connect("closed", on_closed)
assert finish("start_finish", lambda cb: process.start_async(None, cb))
status = finish("write_finish", lambda cb: process.write_async(GLib.Bytes.new(b"hi\n"), None, cb))
assert status == "accepted", status
if not process.is_closed():
    loop.run()
assert state["out"] == b"got hi\n", state
assert state["events"][-2:] == ["x3", "c"], state
assert process.get_exit_code() == 3

read = finish("read_finish", lambda cb: process.read_async(0, 0, 0, None, cb))
assert read.get_boolean_member("closed"), read.get_boolean_member("closed")
print("ok 1 /execserverd/client/gi/python")

# a handle nothing references any more still gets the events of its command
dropped = {"events": []}
process = Execrpc.ClientProcess.new(client, "py-dropped", ["sh", "-c", "sleep 0.3; echo late"])
process.set_env(["PATH=/usr/bin:/bin"])
process.connect("output", lambda proc, stream, data: dropped["events"].append(data.get_data()))
process.connect("closed", lambda proc: (dropped["events"].append("c"), loop.quit()))
process.start_async(None, None)
del process
gc.collect()
loop.run()
assert dropped["events"] == [b"late\n", "c"], dropped

try:
    finish("fs_read_file_finish", lambda cb: client.fs_read_file_async("/nonexistent", None, cb))
    raise AssertionError("no error")
except GLib.Error as error:
    assert error.matches(GLib.quark_from_string("erpc-error-quark"), Execrpc.Error.NOT_FOUND), error

client.close()
assert client.get_state() == Execrpc.ClientState.DISCONNECTED
GLib.source_remove(timeout)
print("ok 2 /execserverd/client/gi/python-dropped-handle")
