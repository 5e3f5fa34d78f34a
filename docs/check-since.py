#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Names every public symbol of a GIR that has no version (no `Since:` in
its doc comment); gi-docgen does not warn about those. With --fatal, exits 1
if there is one."""
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
GLIB = "{http://www.gtk.org/introspection/glib/1.0}"
# what a doc comment of its own documents; virtual methods are documented,
# with their version, by the class structure that holds them
SYMBOLS = {"class", "interface", "record", "union", "enumeration", "bitfield", "callback",
           "function", "function-macro", "method", "constructor", "constant", "alias",
           "property", "signal"}
CONTAINERS = {"class", "interface", "record", "union", "enumeration", "bitfield"}


def missing(element, prefix):
    for child in element:
        tag = child.tag[len(CORE):] if child.tag.startswith(CORE) else None
        name = child.get("name")
        if tag not in SYMBOLS or name is None:
            continue
        # class structures inherit the version of their class
        if child.get(GLIB + "is-gtype-struct-for") is None and child.get("version") is None:
            yield f"{tag} {prefix}{name}"
        if tag in CONTAINERS:
            yield from missing(child, f"{prefix}{name}.")


def main():
    fatal = sys.argv[1] == "--fatal"
    found = False
    for path in sys.argv[2:]:
        namespace = ET.parse(path).getroot().find(CORE + "namespace")
        for symbol in missing(namespace, namespace.get("name") + "."):
            print(f"{path}: {symbol} has no Since:", file=sys.stderr)
            found = True
    return 1 if fatal and found else 0


if __name__ == "__main__":
    sys.exit(main())
