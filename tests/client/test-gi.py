#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Drives a process of the real daemon from Python through PyGObject and the
Execrpc typelib: connect over stdio, start a command, write its stdin, read
its output in seq order, its exit code, and a server error as GLib.Error.

usage: test-gi.py LIBEXECRPC.so TYPELIB-DIR (the daemon is $ESD_TEST_DAEMON)
"""
import ctypes
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

print("1..1")
loop = GLib.MainLoop()
timeout = GLib.timeout_add_seconds(20, lambda: sys.exit("timed out"))
state = {"events": [], "out": b""}


def wait(start):
    result = []
    start(lambda source, res: (result.append(res), loop.quit()))
    loop.run()
    return result[0]


client = Execrpc.Client.new_for_command([os.environ["ESD_TEST_DAEMON"], "--listen", "stdio"])
res = wait(lambda cb: client.connect_async(None, cb))
assert client.connect_finish(res)
assert client.get_state() == Execrpc.ClientState.READY
assert len(client.get_session_id()) == 36

info = client.get_info_finish(wait(lambda cb: client.get_info_async(None, cb)))
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
assert process.start_finish(wait(lambda cb: process.start_async(None, cb)))
status = process.write_finish(wait(lambda cb: process.write_async(GLib.Bytes.new(b"hi\n"), None, cb)))
assert status == "accepted", status
if not process.is_closed():
    loop.run()
assert state["out"] == b"got hi\n", state
assert state["events"][-2:] == ["x3", "c"], state
assert process.get_exit_code() == 3

try:
    client.fs_read_file_finish(wait(lambda cb: client.fs_read_file_async("/nonexistent", None, cb)))
    raise AssertionError("no error")
except GLib.Error as error:
    assert error.matches(GLib.quark_from_string("erpc-error-quark"), Execrpc.Error.NOT_FOUND), error

client.close()
assert client.get_state() == Execrpc.ClientState.DISCONNECTED
GLib.source_remove(timeout)
print("ok 1 /execserverd/client/gi/python")
