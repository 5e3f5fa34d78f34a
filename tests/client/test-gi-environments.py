#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The environment manager, the discovery cache and the lifecycle signals
from Python through PyGObject: a Codex environments.toml, a `program`
environment running the real daemon, its connection-attempt and ready
reports, a refresh, and a snapshot with an unreachable environment.

usage: test-gi-environments.py LIBEXECRPC.so TYPELIB-DIR ($ESD_TEST_DAEMON)
"""
import ctypes
import json
import os
import sys

ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
os.environ["GI_TYPELIB_PATH"] = sys.argv[2]

import gi  # noqa: E402

gi.require_version("Execrpc", "1")
gi.require_version("Json", "1.0")
from gi.repository import Execrpc, GLib, Json  # noqa: E402

print("1..1")
loop = GLib.MainLoop()
timeout = GLib.timeout_add_seconds(20, lambda: sys.exit("timed out"))


def wait(start):
    result = []
    start(lambda source, res: (result.append(res), loop.quit()))
    loop.run()
    return result[0]


config = """
default = "daemon"
include_local = false

[[environments]]
id = "daemon"
program = "%s"
args = ["--listen", "stdio"]
initialize_timeout_sec = 5
""" % os.environ["ESD_TEST_DAEMON"]
manager = Execrpc.EnvironmentManager.new()
assert manager.load_data(config, -1)
assert manager.get_default_id() == "daemon"
assert manager.list_ids() == ["daemon"]
try:
    manager.load_data("surprise = 1\n", -1)
    raise AssertionError("no error")
except GLib.Error as error:
    assert "unknown field `surprise`" in error.message, error.message

client = manager.get_environment(None)
assert client.get_initialize_timeout() == 5000
seen = []
client.connect("connection-attempt",
               lambda c, elapsed, outcome, error: seen.append(("attempt", outcome, error)))
client.connect("ready", lambda c, info: seen.append(("ready", info.get_string_member("executorVersion"))))
ready = manager.wait_until_ready_finish(wait(lambda cb: manager.wait_until_ready_async(None, None, cb)))
assert ready == client
assert seen == [("attempt", Execrpc.ClientAttemptOutcome.SUCCEEDED, None), ("ready", "0.171.0")], seen
info, when = manager.get_last_ready(None)
assert when == client.get_last_ready_time() and when > 0
assert info.get_string_member("executorVersion") == "0.171.0"

first = client.get_session_id()
assert client.refresh_finish(wait(lambda cb: client.refresh_async(None, cb)))
assert client.get_session_id() != first
assert [kind for kind, *_ in seen] == ["attempt", "ready", "ready"], seen

cache = Execrpc.DiscoveryCache.new(manager)
roots = Json.from_string(json.dumps([{"id": "r", "environmentId": "gone", "path": "/tmp"}])).get_array()
snapshot = cache.snapshot_finish(wait(lambda cb: cache.snapshot_async(roots, None, None, cb)))
result = snapshot.get_object_element(0)
assert "environment `gone` is unavailable" in result.get_string_member("error"), result
assert not cache.take_recovered()

sandbox = Json.from_string('{"permissions":{"type":"disabled"}}').get_object()
assert Execrpc.sandbox_context_reads_everything(sandbox)

client.close()
GLib.source_remove(timeout)
print("ok 1 /execserverd/client/gi/environments")
