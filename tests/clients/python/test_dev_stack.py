"""examples/dev-stack/docker-compose.yml's `sqs` service, run the way its container runs it but
on this machine (no Docker daemon is needed): its `command` as written, in an empty directory with
an empty HOME and Node on PATH, its volumes mapped to the files they mount (the packed package as
the file beside the compose file that the comments tell a user to make), and a free port for 9324.
Then the service's healthcheck URL, and the `app` service's credentials against the queues of
wasq.config.json. The command was `npx --yes wasq serve`, which fetches `wasq` from the npm
registry, where there is no such package: the stack never started."""

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import boto3
import pytest
import yaml

from conftest import REPO

STACK = REPO / "examples" / "dev-stack"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((STACK / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def service(compose, tmp_path_factory):
    if not (REPO / "pkg" / "package.json").exists():
        pytest.fail("no built package: run `make pkg` first")
    sqs = compose["services"]["sqs"]
    work = tmp_path_factory.mktemp("dev-stack")
    # The compose file's own directory, as its comments make it: the packed package as wasq.tgz.
    host_dir = work / "dev-stack"
    host_dir.mkdir()
    shutil.copy(STACK / "wasq.config.json", host_dir / "wasq.config.json")
    packed = json.loads(
        subprocess.run(
            ["npm", "pack", str(REPO / "pkg"), "--pack-destination", str(host_dir), "--json"],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    (host_dir / packed[0]["filename"]).rename(host_dir / "wasq.tgz")

    # Each mount: a bind mount is the file beside the compose file, a named volume a new directory.
    mounts = {}
    for volume in sqs["volumes"]:
        source, target = volume.split(":")[:2]
        if source.startswith("./"):
            path = host_dir / source[2:]
            assert path.exists(), f"{source}, mounted at {target}, is not beside the compose file"
        else:
            path = work / source
            path.mkdir()
        mounts[target] = str(path)

    port = free_port()
    args = []
    for arg in shlex.split(sqs["command"]):
        for target, path in mounts.items():
            if arg == target or arg.startswith(target + "/"):
                arg = path + arg[len(target):]
        args.append(arg)
    assert args[args.index("--port") + 1] == "9324"
    args[args.index("--port") + 1] = str(port)

    # A container's starting point: nothing installed, nothing configured, Node on PATH.
    cwd = work / "container"
    cwd.mkdir()
    home = work / "home"
    home.mkdir()
    node_dir = os.path.dirname(shutil.which("node"))
    env = {"PATH": f"{node_dir}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    started = None
    deadline = time.time() + 120  # npx unpacks the tarball first: a bound, not a measurement
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if re.search(r"listening on http://", line):
            started = line
            break
    if started is None:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"the compose service's command did not start: {proc.stderr.read()}")
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    yield {"port": port, "service": sqs}
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=20)


def test_the_healthcheck_url_answers(service):
    check = service["service"]["healthcheck"]["test"]
    url = next(a for a in check if a.startswith("http://")).replace(":9324", f":{service['port']}")
    with urllib.request.urlopen(url, timeout=10) as res:
        assert res.status == 200


def test_the_app_service_reaches_the_declared_queues_with_its_credentials(service, compose):
    env = compose["services"]["app"]["environment"]
    sqs = boto3.client(
        "sqs",
        endpoint_url=f"http://127.0.0.1:{service['port']}",
        region_name=env["AWS_REGION"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
    )
    declared = {q["name"] for q in json.loads((STACK / "wasq.config.json").read_text())["queues"]}
    urls = sqs.list_queues()["QueueUrls"]
    assert {u.rsplit("/", 1)[1] for u in urls} == declared
    orders = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
    sqs.send_message(QueueUrl=orders, MessageBody="from the app")
    got = sqs.receive_message(QueueUrl=orders, WaitTimeSeconds=1)["Messages"]
    assert got[0]["Body"] == "from the app"
