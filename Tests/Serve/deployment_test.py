#!/usr/bin/python3
"""The service's deployment samples, checked offline (no Kubernetes control plane or systemd
runs here): Samples/serve/imagepipe-serve.yaml read by PyYAML and Samples/serve/
imagepipe-serve.service read as an INI file; their fields agree with each other and with the
command, and each command is run on this machine (the volume's or the root's path standing for
a temporary folder, the listening port a free one) and answers /health and a signed picture,
then drains on SIGTERM and exits 0.

usage: deployment_test.py IMAGEPIPE REPOSITORY WORKDIR
"""
import configparser
import http.client
import os
import shlex
import signal
import subprocess
import sys
import time

import yaml
from PIL import Image

IMAGEPIPE, REPOSITORY, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
KEY, SALT = "00112233445566778899aabbccddeeff", "ffeeddccbbaa99887766554433221100"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, flush=True)


def option(command, name):
    return command[command.index(name) + 1] if name in command else None


def run_locally(command, root, environment):
    """Runs `command` (imagepipe serve …) with its root at `root` and a free port; asks /health
    and a signed picture; drains it with SIGTERM."""
    local = [IMAGEPIPE] + command[1:]
    local[local.index("--root") + 1] = root
    local[local.index("--listen") + 1] = "127.0.0.1:0"
    log = open(os.path.join(WORK, f"serve-{time.monotonic_ns()}.log"), "w+")
    process = subprocess.Popen(local, stderr=log, stdout=subprocess.DEVNULL, env={**os.environ, **environment})
    port = None
    for _ in range(600):
        log.seek(0)
        text = log.read()
        if "listening on http://127.0.0.1:" in text:
            port = int(text.split("listening on http://127.0.0.1:")[1].split("/")[0])
            break
        if process.poll() is not None:
            break
        time.sleep(0.05)
    check(port is not None, f"{local}: did not start: {text}")
    if port is None:
        return
    def get(path):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    check(get("/health")[0] == 200, "/health")
    address = subprocess.run([IMAGEPIPE, "url", "resize 64x", "a.jpg"], capture_output=True, text=True,
                             env={**os.environ, **environment}).stdout.strip()
    status, body = get(address)
    check(status == 200 and body[:2] == b"\xff\xd8", f"a signed picture: {status} {body[:60]!r}")
    process.send_signal(signal.SIGTERM)
    check(process.wait(timeout=30) == 0, "SIGTERM: drains and exits 0")


def main():
    root = os.path.join(WORK, "pictures")
    os.makedirs(root, exist_ok=True)
    Image.new("RGB", (320, 200), (40, 120, 200)).save(os.path.join(root, "a.jpg"))
    signing = {"IMAGEPIPE_KEY": KEY, "IMAGEPIPE_SALT": SALT}

    documents = list(yaml.safe_load_all(open(os.path.join(REPOSITORY, "Samples/serve/imagepipe-serve.yaml"))))
    kinds = {document["kind"]: document for document in documents}
    check(sorted(kinds) == ["Deployment", "HorizontalPodAutoscaler", "Service"], f"the manifest holds {sorted(kinds)}")
    deployment, service, autoscaler = kinds["Deployment"], kinds["Service"], kinds["HorizontalPodAutoscaler"]
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    command = container["command"]
    check(command[:2] == ["imagepipe", "serve"], "the command is imagepipe serve, as process 1 (no shell)")
    mount = container["volumeMounts"][0]
    check(option(command, "--root") == mount["mountPath"] and mount.get("readOnly") is True, "--root is the read-only volume")
    check(mount["name"] in [volume["name"] for volume in pod["volumes"]], "the volume is declared")
    port = int(option(command, "--listen").rsplit(":", 1)[1])
    check(container["ports"][0]["containerPort"] == port, "the container port is the listening port")
    for probe in ["readinessProbe", "livenessProbe"]:
        check(container[probe]["httpGet"] == {"path": "/health", "port": port}, f"{probe} asks /health")
    check(service["spec"]["ports"][0]["targetPort"] == port, "the Service sends to the listening port")
    check(service["spec"]["selector"] == deployment["spec"]["template"]["metadata"]["labels"], "the Service selects the pods")
    check(autoscaler["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"], "the autoscaler scales the Deployment")
    check(pod["terminationGracePeriodSeconds"] > float(option(command, "--timeout")), "the grace period outlasts a picture's time limit")
    variables = {variable["name"]: variable for variable in container["env"]}
    check(all("secretKeyRef" in variables[name]["valueFrom"] for name in signing), "the key and salt come from a Secret")
    check("--key" not in command and "--salt" not in command, "no secret on the command line")
    run_locally(command, root, signing)

    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str
    unit.read(os.path.join(REPOSITORY, "Samples/serve/imagepipe-serve.service"))
    service = unit["Service"]
    command = shlex.split(service["ExecStart"])
    check(os.path.basename(command[0]) == "imagepipe" and command[1] == "serve", "ExecStart runs imagepipe serve")
    check(service["KillSignal"] == "SIGTERM" and float(service["TimeoutStopSec"]) > float(option(command, "--timeout")),
          "systemd stops it with SIGTERM and waits longer than a picture's time limit")
    check("EnvironmentFile" in service and "--key" not in command, "the key and salt come from an environment file")
    check(option(command, "--root") in service["ReadOnlyPaths"], "the root is read-only")
    run_locally(["imagepipe"] + command[1:], root, signing)

    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


main()
