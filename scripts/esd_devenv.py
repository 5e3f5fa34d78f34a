# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""The environment a daemon of a build tree needs to find that tree's plugins,
esd-supervise and esd-fs-helper (`meson devenv`; the binaries hold no path of
the tree they were built in). Imported by the bench scripts."""
import os, shlex, subprocess


def devenv(daemon):
    """os.environ plus the ESD_*/EXECRPC_* variables of the build tree that
    holds @daemon (BUILD/server/execserverd); os.environ alone elsewhere."""
    env = dict(os.environ)
    build = os.path.dirname(os.path.dirname(os.path.abspath(daemon)))
    if not os.path.isdir(os.path.join(build, 'meson-private')):
        return env
    dump = subprocess.run(['meson', 'devenv', '-C', build, '--dump'], check=True,
                          capture_output=True, text=True).stdout
    for line in dump.splitlines():
        name, sep, value = line.partition('=')
        if sep and (name.startswith('ESD_') or name.startswith('EXECRPC_')):
            env[name] = shlex.split(value)[0]
    return env
