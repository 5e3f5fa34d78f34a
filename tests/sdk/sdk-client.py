#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Drives `execserverd --listen stdio ARGS...` with the plugins built against
the installed SDK (tests/sdk/run.sh) through the protocol: the handshake,
then the example plugin's method, its launch hook (a process/start whose
command prints $HELLO) and the README plugin's method.

    sdk-client.py WORD EXECSERVERD ARGS...

WORD is the greeting the example's options make it answer with. Prints one
TAP line per check and exits 1 if one failed."""
import base64
import json
import select
import subprocess
import sys
import time

TIMEOUT = 20


class Daemon:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=sys.stderr)
        self.next_id = 1
        self.buffer = b""

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def read(self):
        deadline = time.monotonic() + TIMEOUT
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise TimeoutError("no answer from the daemon")
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                raise EOFError("the daemon closed its stdout")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, method, params=None):
        request_id = self.next_id
        self.next_id += 1
        message = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            answer = self.read()
            # notifications of other work are not answers
            if answer.get("id") == request_id:
                return answer

    def run(self, process_id, argv):
        """Starts argv with process/start and reads it to its end: (start
        answer, stdout, exit code), or (start answer, None, None) when
        process/start failed."""
        start = self.request("process/start", {
            "processId": process_id, "argv": argv, "cwd": "file:///tmp",
            "env": {"PATH": "/usr/bin:/bin"}, "tty": False})
        if "result" not in start:
            return start, None, None
        stdout = b""
        after = 0
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            read = self.request("process/read", {
                "processId": process_id, "afterSeq": after, "waitMs": 1000})
            result = read.get("result")
            if result is None:
                return read, None, None
            for chunk in result["chunks"]:
                if chunk["stream"] == "stdout":
                    stdout += base64.b64decode(chunk["chunk"])
            after = result["nextSeq"] - 1
            if result["closed"]:
                return start, stdout.decode(errors="replace"), result["exitCode"]
        raise TimeoutError(f"{process_id} did not close")

    def close(self):
        self.proc.stdin.close()
        try:
            return self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def main():
    word = sys.argv[1]
    daemon = Daemon(sys.argv[2:])
    checks = []

    def check(name, ok, got):
        checks.append(ok)
        print(f"{'ok' if ok else 'not ok'} {len(checks)} - {name}")
        if not ok:
            print(f"# got {json.dumps(got)}")

    try:
        init = daemon.request("initialize", {"clientName": "sdk-test"})
        capabilities = init.get("result", {}).get("environmentInfo", {}).get("capabilities", {})
        check("the example's capability is advertised", capabilities.get("hello") is True, init)
        daemon.send({"method": "initialized", "params": {}})

        answer = daemon.request("hello/greet", {"name": "SDK"})
        check(f"hello/greet answers with {word}",
              answer.get("result") == {"greeting": f"{word}, SDK!"}, answer)
        answer = daemon.request("hello/greet", {})
        error = answer.get("error", {})
        check("hello/greet without a name is -32602",
              error.get("code") == -32602 and "`name`" in error.get("message", ""), answer)
        answer = daemon.request("hello/greet", None)
        check("hello/greet without params is -32602",
              answer.get("error", {}).get("code") == -32602, answer)

        # the example's launch hook sets HELLO to the word in every launch
        start, stdout, code = daemon.run("hello-env", ["/bin/sh", "-c", "echo $HELLO"])
        check(f"the launch hook sets HELLO={word} for process/start",
              stdout == f"{word}\n" and code == 0,
              {"start": start, "stdout": stdout, "exitCode": code})

        answer = daemon.request("my/hello", {"name": "README"})
        check("the README plugin's my/hello answers {}", answer.get("result") == {}, answer)
    except (TimeoutError, EOFError, json.JSONDecodeError) as e:
        check(f"the daemon answers ({e})", False, None)
    status = daemon.close()
    check("the daemon exits cleanly at the end of its stdin", status == 0, status)
    print(f"1..{len(checks)}")
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
