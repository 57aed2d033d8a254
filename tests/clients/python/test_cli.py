"""The AWS CLI (from PyPI), typed as a user would: `aws --endpoint-url http://127.0.0.1:PORT sqs …`."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ACCESS_KEY, REGION, SECRET_KEY

AWS = shutil.which("aws", path=str(Path(sys.executable).parent)) or shutil.which("aws")


def aws(url, *args, check=True):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_PAGER": "",
        # Nothing from the user's own AWS setup may leak into the test.
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    done = subprocess.run(
        [AWS, "--endpoint-url", url, "--output", "json", "sqs", *args], capture_output=True, text=True, env=env, timeout=60
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_cli_commands(wasq):
    assert AWS, "the AWS CLI is missing: scripts/test-clients.sh installs it into .venv (pip install awscli)"
    created = json.loads(aws(wasq.url, "create-queue", "--queue-name", "cli-jobs").stdout)
    url = created["QueueUrl"]
    assert url == f"{wasq.url}/queue/us-east-1/000000000000/cli-jobs"

    sent = json.loads(aws(wasq.url, "send-message", "--queue-url", url, "--message-body", "from the cli").stdout)
    assert len(sent["MessageId"]) == 36

    listed = json.loads(aws(wasq.url, "list-queues", "--queue-name-prefix", "cli-").stdout)
    assert listed["QueueUrls"] == [url]

    received = json.loads(
        aws(wasq.url, "receive-message", "--queue-url", url, "--attribute-names", "All", "--wait-time-seconds", "1").stdout
    )
    [message] = received["Messages"]
    assert message["Body"] == "from the cli"
    assert message["MessageId"] == sent["MessageId"]

    aws(wasq.url, "delete-message", "--queue-url", url, "--receipt-handle", message["ReceiptHandle"])
    attrs = json.loads(aws(wasq.url, "get-queue-attributes", "--queue-url", url, "--attribute-names", "All").stdout)
    assert attrs["Attributes"]["ApproximateNumberOfMessages"] == "0"

    aws(wasq.url, "delete-queue", "--queue-url", url)
    missing = aws(wasq.url, "get-queue-url", "--queue-name", "cli-jobs", check=False)
    assert missing.returncode != 0
    assert "AWS.SimpleQueueService.NonExistentQueue" in missing.stderr
    assert "The specified queue does not exist." in missing.stderr
