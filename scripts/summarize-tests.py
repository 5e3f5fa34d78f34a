#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Counts the TAP subtests of meson test logs and prints 'N passed, N failed'."""
import json
import sys

passed = failed = skipped = 0
args = sys.argv[1:]
extras = []
while args and args[0] == "--extra":
    extras.append(args[1].split("=", 1)[1])
    args = args[2:]
for result in extras:
    passed += result == "passed"
    failed += result == "failed"
    skipped += result == "skipped"
for path in args:
    with open(path) as log:
        for line in log:
            test = json.loads(line)
            ok = test["result"] in ("OK", "EXPECTEDFAIL")
            subtests = [l for l in test.get("stdout", "").splitlines()
                        if l.startswith("ok ") or l.startswith("not ok ")]
            if test["result"] == "SKIP":
                skipped += 1
            elif not subtests:
                passed += ok
                failed += not ok
            else:
                for l in subtests:
                    if l.startswith("not ok"):
                        failed += 1
                    elif "# SKIP" in l:
                        skipped += 1
                    else:
                        passed += 1
                # a crash after some subtests passed still counts as a failure
                if not ok and not any(l.startswith("not ok") for l in subtests):
                    failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
