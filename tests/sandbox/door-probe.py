#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Tries the ways out of a sandbox that the sandbox tests expect to be closed.

Each argument is ACTION=TARGET; one line per argument is printed:
"ACTION TARGET: ok" or "ACTION TARGET: <errno name>".
  unix=PATH        connect to a path-named stream socket
  abstract=NAME    connect to an abstract stream socket
  tcp=PORT         connect to 127.0.0.1:PORT
  udp=PORT         send a datagram to 127.0.0.1:PORT
  dgram=PATH       send a Unix datagram to PATH without connecting
  read=PATH        read a file
  drive=PATH:OUT   speak the exec-server protocol on the socket PATH and ask
                   for an unsandboxed `id > OUT`; ok once it was started
"""
import errno
import json
import os
import socket
import sys


def name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__


def drive(path, out):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    f = s.makefile("rwb")

    def send(msg):
        f.write(json.dumps(msg).encode() + b"\n")
        f.flush()

    def reply(i):
        while True:
            msg = json.loads(f.readline())
            if msg.get("id") == i:
                return msg

    send({"id": 1, "method": "initialize", "params": {"clientName": "probe"}})
    reply(1)
    send({"method": "initialized", "params": {}})
    send({"id": 2, "method": "process/start",
          "params": {"processId": "escape", "argv": ["/bin/sh", "-c", "id > '%s'" % out],
                     "cwd": "file:///", "env": {"PATH": "/usr/bin:/bin"}, "tty": False}})
    msg = reply(2)
    if "error" in msg:
        raise RuntimeError(msg["error"]["message"])
    # the command runs on: wait until it is done
    while True:
        msg = json.loads(f.readline())
        if msg.get("method") == "process/closed":
            return


def attempt(action, target):
    if action == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(target)
    elif action == "abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect("\0" + target)
    elif action == "tcp":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.connect(("127.0.0.1", int(target)))
    elif action == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"x", ("127.0.0.1", int(target)))
    elif action == "dgram":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.sendto(b"x", target)
    elif action == "read":
        with open(target, "rb") as f:
            if not f.read():
                raise OSError(0, "empty")
    elif action == "drive":
        path, out = target.split(":", 1)
        drive(path, out)
    else:
        raise SystemExit("unknown action " + action)


for arg in sys.argv[1:]:
    action, target = arg.split("=", 1)
    try:
        attempt(action, target)
        result = "ok"
    except OSError as e:
        result = name(e) if e.errno else "empty"
    except Exception as e:  # a protocol answer or a closed connection
        print("%s: %s" % (arg, e), file=sys.stderr)
        result = type(e).__name__
    print("%s %s: %s" % (action, target, result), flush=True)
