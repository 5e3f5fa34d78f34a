#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Puts the REUSE header (SPDX-FileCopyrightText next to
SPDX-License-Identifier) into every tracked file that can carry a comment,
and lists the ones that cannot, which .reuse/dep5 covers. Idempotent.

usage: scripts/reuse-headers.py [--check]
  --check: change nothing, exit 1 when a file lacks its header
"""
import subprocess
import sys

# split, so that REUSE tools do not read these strings as this file's own tags
TAG_LICENSE = "SPDX-" "License-Identifier"
COPYRIGHT = "SPDX-" "FileCopyrightText: 2026 The execserverd authors"
LICENSE = TAG_LICENSE + ": LGPL-2.1-or-later"

# how a file of each kind writes a one-line comment: (start, end)
STYLES = {
    ".c": ("/* ", " */"), ".h": ("/* ", " */"), ".cpp": ("// ", ""), ".hpp": ("// ", ""), ".cc": ("// ", ""),
    ".in": None,  # by the name without .in
    ".py": ("# ", ""), ".sh": ("# ", ""), ".build": ("# ", ""), ".txt": ("# ", ""),
    ".toml": ("# ", ""), ".yaml": ("# ", ""), ".yml": ("# ", ""), ".supp": ("# ", ""),
    ".service": ("# ", ""), ".socket": ("# ", ""), ".conf": ("# ", ""), ".spec": ("# ", ""),
    ".js": ("// ", ""), ".md": ("<!-- ", " -->"), ".xml": ("<!-- ", " -->"),
    ".map": ("/* ", " */"), ".po": ("# ", ""), ".pot": ("# ", ""), ".dict": ("# ", ""),
    ".manifest": None, ".json": None, ".bin": None,
    # debhelper and lintian files, desktop-entry style .test files
    ".install": ("# ", ""), ".links": ("# ", ""), ".lintian-overrides": ("# ", ""),
    ".test": ("# ", ""), ".dockerignore": ("# ", ""),
}
NAMES = {
    ".clang-format": ("# ", ""), ".gitignore": ("# ", ""), "LINGUAS": ("# ", ""),
    "POTFILES.in": ("# ", ""), "Containerfile": ("# ", ""), "run": ("# ", ""),
    "meson_options.txt": ("# ", ""), "control": ("# ", ""), "rules": ("# ", ""),
    ".dockerignore": ("# ", ""), "installed-tests": ("# ", ""),
}
# covered by .reuse/dep5 instead: data without comments
SKIP_PREFIXES = ("tests/fuzz/corpus/", "LICENSES/", "tests/data/corpus")
SKIP_NAMES = ("COPYING", "changelog", "compat", "format")


def style(path):
    name = path.rsplit("/", 1)[-1]
    if name in NAMES:
        return NAMES[name]
    if name.endswith(".in"):
        name = name[:-3]
    dot = name.rfind(".")
    if dot <= 0:
        return None
    return STYLES.get(name[dot:])


def main():
    check = "--check" in sys.argv[1:]
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    missing = []
    for path in filter(None, files):
        name = path.rsplit("/", 1)[-1]
        if path.startswith(SKIP_PREFIXES) or name in SKIP_NAMES:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        head = text[:600]
        if COPYRIGHT in head and TAG_LICENSE in head:
            continue
        st = style(path)
        if st is None:
            continue
        missing.append(path)
        if check:
            continue
        lines = text.split("\n")
        start, end = st
        for i, line in enumerate(lines[:5]):
            if TAG_LICENSE in line:
                # next to the licence line, in its own comment style
                prefix = line[:line.index(TAG_LICENSE)]
                suffix = " */" if prefix.strip() == "/*" else (" -->" if prefix.strip() == "<!--" else "")
                lines.insert(i + 1, prefix + COPYRIGHT + suffix)
                break
        else:
            # after a #! line or an XML declaration, which must come first
            at = 1 if lines and (lines[0].startswith("#!") or lines[0].startswith("<?xml")) else 0
            lines[at:at] = [start + LICENSE + end, start + COPYRIGHT + end]
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    if check and missing:
        print("reuse-headers: no REUSE header in:\n  " + "\n  ".join(missing), file=sys.stderr)
        return 1
    if not check:
        print(f"reuse-headers: {len(missing)} files given a header")
    return 0


if __name__ == "__main__":
    sys.exit(main())
