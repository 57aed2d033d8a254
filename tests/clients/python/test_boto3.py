"""boto3 (AWS JSON 1.0, as current botocore speaks it) against `wasq serve` over HTTP."""

import hashlib
import threading
import time

import pytest
from botocore.exceptions import ClientError

from conftest import ACCESS_KEY, Wasq, make_client


def md5(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def test_send_receive_delete_with_attributes(sqs, unique, wasq):
    name = unique("py")
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    assert url == f"{wasq.url}/queue/us-east-1/000000000000/{name}"
    assert sqs.get_queue_url(QueueName=name)["QueueUrl"] == url
    assert url in sqs.list_queues(QueueNamePrefix=name)["QueueUrls"]

    body = "grüße ✓"
    sent = sqs.send_message(
        QueueUrl=url,
        MessageBody=body,
        MessageAttributes={
            "n": {"DataType": "Number", "StringValue": "7"},
            "b": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
        },
    )
    assert sent["MD5OfMessageBody"] == md5(body)
    got = sqs.receive_message(
        QueueUrl=url, MessageAttributeNames=["All"], MessageSystemAttributeNames=["All"], WaitTimeSeconds=1
    )
    [message] = got["Messages"]
    assert message["Body"] == body
    assert message["MD5OfBody"] == md5(body)
    assert message["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert message["MessageAttributes"]["b"]["BinaryValue"] == b"\x00\x01\xff"
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attrs["ApproximateNumberOfMessages"] == "0"
    assert attrs["ApproximateNumberOfMessagesNotVisible"] == "0"


def test_batches_and_visibility(sqs, unique):
    url = sqs.create_queue(QueueName=unique("pybatch"))["QueueUrl"]
    out = sqs.send_message_batch(
        QueueUrl=url, Entries=[{"Id": f"e{i}", "MessageBody": f"m{i}"} for i in range(10)]
    )
    assert len(out["Successful"]) == 10
    assert "Failed" not in out
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=60)["Messages"]
    while len(got) < 10:
        got += sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=60)["Messages"]
    changed = sqs.change_message_visibility_batch(
        QueueUrl=url, Entries=[{"Id": "v0", "ReceiptHandle": got[0]["ReceiptHandle"], "VisibilityTimeout": 0}]
    )
    assert [s["Id"] for s in changed["Successful"]] == ["v0"]
    again = sqs.receive_message(QueueUrl=url)["Messages"]
    assert again[0]["MessageId"] == got[0]["MessageId"]
    deleted = sqs.delete_message_batch(
        QueueUrl=url,
        Entries=[{"Id": f"d{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got[1:] + again)],
    )
    assert len(deleted["Successful"]) == 10


def test_fifo_order_and_dedup(sqs, unique):
    url = sqs.create_queue(
        QueueName=unique("pyfifo", fifo=True), Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    first = sqs.send_message(QueueUrl=url, MessageBody="a", MessageGroupId="g")
    sqs.send_message(QueueUrl=url, MessageBody="b", MessageGroupId="g")
    dup = sqs.send_message(QueueUrl=url, MessageBody="a", MessageGroupId="g")
    assert dup["MessageId"] == first["MessageId"]
    assert int(first["SequenceNumber"]) > 0
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in got] == ["a", "b"]


def test_errors_as_botocore_reports_them(sqs, unique, wasq):
    with pytest.raises(sqs.exceptions.QueueDoesNotExist) as caught:
        sqs.get_queue_url(QueueName=unique("missing"))
    error = caught.value.response["Error"]
    assert error["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert error["QueryErrorCode"] == "QueueDoesNotExist"
    assert error["Type"] == "Sender"
    assert error["Message"] == "The specified queue does not exist."
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400

    url = sqs.create_queue(QueueName=unique("pyerr"))["QueueUrl"]
    with pytest.raises(ClientError) as caught:
        sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "x"}, {"Id": "a", "MessageBody": "y"}])
    assert caught.value.response["Error"]["Code"] == "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"
    assert caught.value.response["Error"]["QueryErrorCode"] == "BatchEntryIdsNotDistinct"

    sqs.purge_queue(QueueUrl=url)
    with pytest.raises(sqs.exceptions.PurgeQueueInProgress) as caught:
        sqs.purge_queue(QueueUrl=url)
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_long_poll_returns_when_a_message_arrives(sqs, unique, wasq):
    url = sqs.create_queue(QueueName=unique("pypoll"))["QueueUrl"]
    other = make_client(wasq.url)

    def send_later():
        time.sleep(0.4)
        other.send_message(QueueUrl=url, MessageBody="late")

    thread = threading.Thread(target=send_later)
    started = time.monotonic()
    thread.start()
    got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10)
    elapsed = time.monotonic() - started
    thread.join()
    assert got["Messages"][0]["Body"] == "late"
    assert 0.3 < elapsed < 2.5


def test_sigv4_required_with_credentials(wasq_auth):
    good = make_client(wasq_auth.url)
    url = good.create_queue(QueueName="py-signed")["QueueUrl"]
    good.send_message(QueueUrl=url, MessageBody="signed")

    bad = make_client(wasq_auth.url, secret_key="wrong-secret")
    with pytest.raises(ClientError) as caught:
        bad.list_queues()
    assert caught.value.response["Error"]["Code"] == "SignatureDoesNotMatch"
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403

    stranger = make_client(wasq_auth.url, access_key=ACCESS_KEY + "X")
    with pytest.raises(ClientError) as caught:
        stranger.list_queues()
    assert caught.value.response["Error"]["Code"] == "InvalidClientTokenId"
    assert caught.value.response["Error"]["Message"] == "The security token included in the request is invalid."


def test_data_dir_restarts_right_after_a_crash(tmp_path):
    """A harness that crashes the server (Popen.kill(): SIGKILL) and starts a new one over the same
    --data before reaping the old process: the dead server is a zombie until wait(), and its lock
    must not keep the restart out. Acknowledged sends survive, deletes stay deleted."""
    data = str(tmp_path / "data")
    first = Wasq("--data", data)
    try:
        sqs = make_client(first.url)
        url = sqs.create_queue(QueueName="crash")["QueueUrl"]
        kept = sqs.send_message(QueueUrl=url, MessageBody="kept")["MessageId"]
        gone = sqs.send_message(QueueUrl=url, MessageBody="gone")["MessageId"]
        for _ in range(20):
            msgs = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0).get("Messages", [])
            handle = next((m["ReceiptHandle"] for m in msgs if m["MessageId"] == gone), None)
            if handle:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=handle)
                break
        else:
            pytest.fail("the message to delete was never received")
        first.proc.kill()  # no wait(): the process stays a zombie while the next one starts
        time.sleep(0.5)
        second = Wasq("--data", data)
    finally:
        first.proc.wait()
    try:
        sqs = make_client(second.url)
        url = sqs.get_queue_url(QueueName="crash")["QueueUrl"]
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        assert [m["MessageId"] for m in got] == [kept]
    finally:
        assert second.stop() == 0
