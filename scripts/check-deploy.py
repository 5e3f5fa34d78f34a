#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
"""Checks the Kubernetes example of data/deploy/ against the daemon.

Every manifest must parse; each Deployment runs one execserverd whose
arguments are all options of `execserverd --help-all`; its --listen port is
a containerPort, probed by a readinessProbe on /readyz (HTTPS for wss://)
and served by a Service; every file option (--ws-token-file, the TLS pair)
names a key of a Secret mounted at that path; environments.toml has one
entry per Service with its scheme and port (and execrpc reads it); the
Containerfile's CMD is the same command line. Then each Deployment's command
line is run for real on 127.0.0.1 (files replaced by temporary ones): the
probe must answer 200, a WebSocket upgrade without the token 401 and with
it 101.

usage: check-deploy.py EXECSERVERD [DEPLOY-DIR] [EXECRPC]
(with EXECRPC, environments.toml is also read by `execrpc --config FILE envs`)
"""
import base64
import glob
import http.client
import json
import os
import re
import secrets
import ssl
import subprocess
import sys
import tempfile
import tomllib
import urllib.parse

import yaml

FILE_OPTIONS = ("--ws-token-file", "--ws-shared-secret-file", "--tls-certificate",
                "--tls-key", "--config")

errors = []


def error(where, message):
    errors.append(f"{where}: {message}")


def daemon_options(daemon):
    """{option: takes_value} from --help-all"""
    out = subprocess.run([daemon, "--help-all"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    options = {}
    for m in re.finditer(r"^\s+(?:-\w, )?(--[\w-]+)(=\S+)?\s", out, re.M):
        options[m.group(1)] = m.group(2) is not None
    if "--listen" not in options or "--ws-token-file" not in options:
        sys.exit(f"check-deploy: {daemon} --help-all lists no --listen or --ws-token-file")
    return options


def parse_args(where, args, options):
    """the arguments as {option: value}, every one known to the daemon"""
    parsed = {}
    i = 0
    while i < len(args):
        arg = str(args[i])
        name, eq, value = arg.partition("=")
        if not name.startswith("--") or name not in options:
            error(where, f"argument {arg!r} is not an option of execserverd --help-all")
            i += 1
            continue
        if options[name] and not eq:
            if i + 1 >= len(args):
                error(where, f"{name} needs a value")
                break
            value = str(args[i + 1])
            i += 1
        elif not options[name] and eq:
            error(where, f"{name} takes no value")
        parsed[name] = value if options[name] else True
        i += 1
    return parsed


def resolve_port(container, port):
    """a probe's or Service's port (number or name) as a containerPort number"""
    for p in container.get("ports", []):
        if port == p.get("name") or port == p.get("containerPort"):
            return p.get("containerPort")
    return None


def check_deployment(dep, secrets_by_name, services, options):
    name = dep["metadata"]["name"]
    ns = dep["metadata"].get("namespace", "default")
    where = f"Deployment {name}"
    spec = dep["spec"]
    if spec.get("replicas") != 1:
        error(where, "replicas must be 1: a client's sessions live in one daemon")
    if spec.get("strategy", {}).get("type") != "Recreate":
        error(where, "strategy must be Recreate: two daemons at once split sessions")
    template = spec["template"]
    labels = template["metadata"].get("labels", {})
    if any(labels.get(k) != v for k, v in spec["selector"]["matchLabels"].items()):
        error(where, "selector does not match the pod template's labels")
    pod = template["spec"]
    containers = [c for c in pod["containers"] if c["name"] == "execserverd"]
    if len(containers) != 1:
        error(where, "no container named execserverd")
        return None
    container = containers[0]
    args = parse_args(where, container.get("args", []), options)

    listen = urllib.parse.urlsplit(str(args.get("--listen", "")))
    if listen.scheme not in ("ws", "wss") or listen.port is None:
        error(where, f"--listen {args.get('--listen')!r} is not ws://IP:PORT or wss://IP:PORT")
        return None
    if listen.hostname in ("127.0.0.1", "::1", "localhost"):
        error(where, "--listen on loopback is unreachable from the Service")
    if resolve_port(container, listen.port) is None:
        error(where, f"--listen port {listen.port} is not a containerPort")
    if "--ws-auth" not in args:
        error(where, "no --ws-auth: anyone reaching the Service could run commands")
    if args.get("--ws-auth") == "capability-token" and "--ws-token-file" not in args:
        error(where, "--ws-auth capability-token without --ws-token-file")
    if listen.scheme == "wss" and not ("--tls-certificate" in args and "--tls-key" in args):
        error(where, "wss:// without --tls-certificate and --tls-key")

    probe = container.get("readinessProbe", {}).get("httpGet")
    if probe is None:
        error(where, "no readinessProbe.httpGet")
    else:
        if probe.get("path") != "/readyz":
            error(where, f"readinessProbe path {probe.get('path')!r} is not /readyz")
        if resolve_port(container, probe.get("port")) != listen.port:
            error(where, "readinessProbe port is not the --listen port")
        want = "HTTPS" if listen.scheme == "wss" else "HTTP"
        if probe.get("scheme", "HTTP") != want:
            error(where, f"readinessProbe scheme must be {want} for {listen.scheme}://")

    # every file option: a key of a Secret mounted at its directory
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    files = {}
    for option in FILE_OPTIONS:
        if option not in args:
            continue
        path = args[option]
        mount = next((m for m in container.get("volumeMounts", [])
                      if path.startswith(m["mountPath"].rstrip("/") + "/")), None)
        if mount is None:
            error(where, f"{option} {path} is under no volumeMount")
            continue
        key = path[len(mount["mountPath"].rstrip("/")) + 1:]
        secret = volumes.get(mount["name"], {}).get("secret")
        if secret is None:
            error(where, f"{option} {path}: volume {mount['name']} is not a Secret")
            continue
        items = secret.get("items")
        if items is not None:
            key = next((i["key"] for i in items if i["path"] == key), None)
        known = secrets_by_name.get((ns, secret["secretName"]))
        if known is None:
            error(where, f"{option}: Secret {secret['secretName']} is not in the example")
        elif key not in known:
            error(where, f"{option} {path}: Secret {secret['secretName']} has no key {key!r}")
        files[option] = key

    matching = [s for s in services
                if s["metadata"].get("namespace", "default") == ns
                and s["spec"].get("selector")
                and all(labels.get(k) == v for k, v in s["spec"]["selector"].items())]
    if len(matching) != 1:
        error(where, f"{len(matching)} Services select its pods, not 1")
        return None
    service = matching[0]
    ports = [p for p in service["spec"]["ports"]
             if resolve_port(container, p.get("targetPort", p.get("port"))) == listen.port]
    if not ports:
        error(f"Service {service['metadata']['name']}", "no port targets the --listen port")
        return None
    return {"name": name, "args": container.get("args", []), "scheme": listen.scheme,
            "host": f"{service['metadata']['name']}.{ns}.svc", "port": ports[0]["port"],
            "files": files, "parsed": args}


def check_environments(path, deployments):
    with open(path, "rb") as f:
        config = tomllib.load(f)
    envs = config.get("environments", [])
    ids = [e.get("id") for e in envs]
    if len(set(ids)) != len(ids):
        error(path, "environment ids are not unique")
    if config.get("default") not in ids:
        error(path, f"default {config.get('default')!r} is no environment")
    for dep in deployments:
        url = f"{dep['scheme']}://{dep['host']}"
        entry = next((e for e in envs if str(e.get("url", "")).startswith(url)), None)
        if entry is None:
            error(path, f"no environment for {url} (Deployment {dep['name']})")
            continue
        port = urllib.parse.urlsplit(entry["url"]).port
        if port != dep["port"]:
            error(path, f"{entry['url']}: the Service port is {dep['port']}")


def check_with_execrpc(execrpc, path, deployments):
    """the file as the client library reads it (Codex's schema, strictly)"""
    result = subprocess.run([execrpc, "--config", path, "envs"], capture_output=True,
                            text=True, timeout=30)
    if result.returncode != 0:
        error(path, f"execrpc envs refuses it: {result.stderr.strip()}")
        return
    for dep in deployments:
        url = f"{dep['scheme']}://{dep['host']}:{dep['port']}"
        if url not in result.stdout:
            error(path, f"execrpc envs does not list {url}")


def check_containerfile(path, options, deployments):
    """the image's default command line: the Deployments' own"""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(r"^CMD\s+(\[.*\])\s*$", text, re.M)
    if m is None or not re.search(r"^ENTRYPOINT\s+\[\"/usr/bin/execserverd\"\]", text, re.M):
        error(path, "no ENTRYPOINT [\"/usr/bin/execserverd\"] and CMD [...]")
        return
    cmd = json.loads(m.group(1))
    parse_args(f"{path} CMD", cmd, options)
    for dep in deployments:
        if [str(a) for a in dep["args"]] != cmd:
            error(path, f"CMD is not the args of Deployment {dep['name']}")


def upgrade(scheme, port, token):
    """the status of a WebSocket upgrade of / on 127.0.0.1:port"""
    if scheme == "wss":
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10,
                                           context=ssl._create_unverified_context())
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode()}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    conn.request("GET", "/", headers=headers)
    status = conn.getresponse().status
    conn.close()
    return status


def probe(scheme, port, path):
    if scheme == "wss":
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10,
                                           context=ssl._create_unverified_context())
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    status = conn.getresponse().status
    conn.close()
    return status


def run_deployment(daemon, dep):
    """the Deployment's command line on loopback, with temporary files"""
    where = f"Deployment {dep['name']} (run)"
    with tempfile.TemporaryDirectory() as tmp:
        token = secrets.token_urlsafe(32)
        replaced = {}
        for option, value in dep["parsed"].items():
            if option not in FILE_OPTIONS:
                continue
            path = os.path.join(tmp, option.lstrip("-"))
            replaced[value] = path
            if option == "--ws-token-file":
                with open(path, "w") as f:
                    f.write(token + "\n")
        if "--tls-certificate" in dep["parsed"]:
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                            "-subj", "/CN=localhost",
                            "-keyout", replaced[dep["parsed"]["--tls-key"]],
                            "-out", replaced[dep["parsed"]["--tls-certificate"]]],
                           check=True, capture_output=True, timeout=30)
        args = []
        for arg in map(str, dep["args"]):
            if arg == dep["parsed"]["--listen"]:
                arg = f"{dep['scheme']}://127.0.0.1:0"
            args.append(replaced.get(arg, arg))
        proc = subprocess.Popen([daemon] + args, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=tmp)
        try:
            line = proc.stdout.readline().strip()
            m = re.fullmatch(r"wss?://127\.0\.0\.1:(\d+)", line)
            if m is None:
                proc.kill()
                error(where, f"printed no URL: {line!r} {proc.stderr.read()[:500]!r}")
                return
            port = int(m.group(1))
            if probe(dep["scheme"], port, "/readyz") != 200:
                error(where, "GET /readyz is not 200")
            if upgrade(dep["scheme"], port, None) != 401:
                error(where, "an upgrade without the token is not refused with 401")
            if upgrade(dep["scheme"], port, token) != 101:
                error(where, "an upgrade with the token file's content is not 101")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    daemon = os.path.abspath(sys.argv[1]) if os.sep in sys.argv[1] else sys.argv[1]
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    deploy_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(top, "data", "deploy")
    execrpc = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
    options = daemon_options(daemon)

    docs = []
    for path in sorted(glob.glob(os.path.join(deploy_dir, "*.yaml"))):
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if doc is None:
                    continue
                for field in ("apiVersion", "kind", "metadata"):
                    if field not in doc:
                        error(path, f"a document without {field}")
                docs.append(doc)
    secrets_by_name = {}
    for doc in docs:
        if doc.get("kind") == "Secret":
            keys = set(doc.get("stringData", {})) | set(doc.get("data", {}))
            secrets_by_name[(doc["metadata"].get("namespace", "default"),
                             doc["metadata"]["name"])] = keys
    services = [d for d in docs if d.get("kind") == "Service"]
    deployments = [d for d in docs if d.get("kind") == "Deployment"]
    if len(deployments) < 2:
        error(deploy_dir, "the example shows one Deployment per environment: fewer than 2")
    checked = []
    for dep in deployments:
        result = check_deployment(dep, secrets_by_name, services, options)
        if result is not None:
            checked.append(result)
    check_environments(os.path.join(deploy_dir, "environments.toml"), checked)
    if execrpc is not None:
        check_with_execrpc(execrpc, os.path.join(deploy_dir, "environments.toml"), checked)
    check_containerfile(os.path.join(top, "Containerfile"), options, checked)
    for dep in checked:
        run_deployment(daemon, dep)

    for e in errors:
        print(f"check-deploy: {e}", file=sys.stderr)
    print(f"check-deploy: {len(deployments)} Deployments, {len(services)} Services, "
          f"{len(errors)} problems", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
