"""Fixtures for the Python client tests: `wasq serve` started as a user would start it, on a free
port, and boto3 clients pointed at it."""

import itertools
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

REPO = Path(__file__).resolve().parents[3]
WASQ_BIN = Path(os.environ.get("WASQ_BIN") or REPO / "pkg" / "bin" / "wasq.mjs")
ACCESS_KEY = "AKIDWASQPYTEST"
SECRET_KEY = "wasq-python-secret"
REGION = "us-east-1"


class Wasq:
    """A running `wasq serve` child process."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            ["node", str(WASQ_BIN), "serve", "--port", "0", *args],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = None
        deadline = time.time() + 15
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                self.url = found.group(1)
                break
        if self.url is None:
            self.proc.kill()
            raise RuntimeError(f"wasq serve did not start: {self.proc.stderr.read()}")
        # Keep the pipe drained so a chatty server never blocks on a full pipe.
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                raise
        return self.proc.returncode


def make_client(url, access_key=ACCESS_KEY, secret_key=SECRET_KEY):
    return boto3.client(
        "sqs",
        endpoint_url=url,
        region_name=REGION,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=Config(retries={"max_attempts": 1}),
    )


@pytest.fixture(scope="session")
def wasq():
    server = Wasq("--memory")
    yield server
    assert server.stop() == 0


@pytest.fixture(scope="session")
def wasq_auth():
    server = Wasq("--memory", "--credentials", f"{ACCESS_KEY}:{SECRET_KEY}")
    yield server
    assert server.stop() == 0


@pytest.fixture
def sqs(wasq):
    return make_client(wasq.url)


_names = itertools.count()


@pytest.fixture
def unique():
    """A queue-name factory: names are unique within the session's server."""

    def name(prefix, fifo=False):
        return f"{prefix}-{os.getpid()}-{next(_names)}" + (".fifo" if fifo else "")

    return name

