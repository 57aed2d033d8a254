"""`GET /metrics` of `wasq serve`, read with the Prometheus client library's own text-format
parser, against what boto3 sees after a scripted workload; refused unsigned with --credentials
unless --metrics-public."""

import json
import urllib.error
import urllib.request

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from prometheus_client.parser import text_string_to_metric_families

from conftest import ACCESS_KEY, REGION, SECRET_KEY, Wasq, make_client


def scrape(url, sign=False, secret=SECRET_KEY):
    """GET /metrics: (status, content type, text)."""
    headers = {}
    if sign:
        request = AWSRequest(method="GET", url=url + "/metrics")
        SigV4Auth(Credentials(ACCESS_KEY, secret), "sqs", REGION).add_auth(request)
        headers = dict(request.prepare().headers)
    raw = urllib.request.Request(url + "/metrics", headers=headers, method="GET")
    try:
        with urllib.request.urlopen(raw, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read().decode()


def samples(text):
    """{(sample name, frozenset(labels)): value}, through prometheus_client's parser."""
    out = {}
    families = {}
    for family in text_string_to_metric_families(text):
        families[family.name] = family.type
        for s in family.samples:
            key = (s.name, frozenset(s.labels.items()))
            assert key not in out, f"sample {key} twice"
            out[key] = s.value
    return families, out


def value(all_samples, name, **labels):
    return all_samples[(name, frozenset(labels.items()))]


def test_metrics_match_get_queue_attributes_after_a_workload():
    server = Wasq("--memory")
    try:
        sqs = make_client(server.url)
        dlq = sqs.create_queue(QueueName="m-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        src = sqs.create_queue(
            QueueName="m-src",
            Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})},
        )["QueueUrl"]
        fifo = sqs.create_queue(QueueName="m.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
        # A label value that needs escaping cannot come from a queue name (SQS names are
        # [A-Za-z0-9_-]); the parser still checks the whole exposition's syntax.

        for i in range(6):
            sqs.send_message(QueueUrl=src, MessageBody=f"m{i}")
        sqs.send_message(QueueUrl=src, MessageBody="later", DelaySeconds=600)
        sqs.send_message_batch(QueueUrl=src, Entries=[{"Id": "a", "MessageBody": "b0"}, {"Id": "b", "MessageBody": "b1"}])
        sqs.send_message(QueueUrl=fifo, MessageBody="one", MessageGroupId="g")
        sqs.send_message(QueueUrl=fifo, MessageBody="one", MessageGroupId="g")  # deduplicated

        got = sqs.receive_message(QueueUrl=src, MaxNumberOfMessages=4, VisibilityTimeout=300)["Messages"]
        assert len(got) == 4
        sqs.delete_message(QueueUrl=src, ReceiptHandle=got[0]["ReceiptHandle"])
        sqs.delete_message_batch(QueueUrl=src, Entries=[{"Id": "x", "ReceiptHandle": got[1]["ReceiptHandle"]}])
        # got[2] back to visible at once; received again it has passed maxReceiveCount 1 and moves.
        sqs.change_message_visibility(QueueUrl=src, ReceiptHandle=got[2]["ReceiptHandle"], VisibilityTimeout=0)
        again = sqs.receive_message(QueueUrl=src, MaxNumberOfMessages=10, VisibilityTimeout=300)["Messages"]
        assert got[2]["MessageId"] not in [m["MessageId"] for m in again]
        errors = 0
        for _ in range(2):
            try:
                sqs.get_queue_url(QueueName="m-missing")
            except ClientError:
                errors += 1
        assert errors == 2

        status, content_type, text = scrape(server.url)
        assert status == 200
        assert content_type.startswith("text/plain; version=0.0.4")
        families, all_samples = samples(text)
        assert families["wasq_queue_messages"] == "gauge"
        assert families["wasq_queue_messages_sent"] == "counter"  # the parser drops _total
        assert families["wasq_requests"] == "counter"
        assert families["wasq_request_duration_seconds"] == "histogram"
        for line in text.splitlines():
            if line.startswith("# TYPE") and line.endswith(" counter"):
                assert line.split()[2].endswith("_total"), line

        for url, name in [(src, "m-src"), (dlq, "m-dlq"), (fifo, "m.fifo")]:
            attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
            for state, attribute in [
                ("visible", "ApproximateNumberOfMessages"),
                ("inflight", "ApproximateNumberOfMessagesNotVisible"),
                ("delayed", "ApproximateNumberOfMessagesDelayed"),
            ]:
                assert value(all_samples, "wasq_queue_messages", queue=name, state=state) == int(attrs[attribute]), (name, state, attrs)

        assert value(all_samples, "wasq_queue_messages", queue="m-src", state="inflight") == 1 + len(again)  # got[3] and the rest
        assert value(all_samples, "wasq_queue_messages", queue="m-src", state="delayed") == 1
        assert value(all_samples, "wasq_queue_messages", queue="m-dlq", state="visible") == 1
        assert value(all_samples, "wasq_queue_messages_sent_total", queue="m-src") == 9
        assert value(all_samples, "wasq_queue_messages_sent_total", queue="m.fifo") == 1
        assert value(all_samples, "wasq_queue_messages_received_total", queue="m-src") == 4 + len(again)
        assert value(all_samples, "wasq_queue_messages_deleted_total", queue="m-src") == 2
        assert value(all_samples, "wasq_queue_messages_moved_to_dead_letter_queue_total", queue="m-src") == 1
        assert value(all_samples, "wasq_queue_messages_moved_to_dead_letter_queue_total", queue="m-dlq") == 0
        assert value(all_samples, "wasq_queue_throttled_requests_total", queue="m-src") == 0
        assert value(all_samples, "wasq_queue_oldest_message_age_seconds", queue="m-src") >= 0

        assert value(all_samples, "wasq_requests_total", action="SendMessage", outcome="success") == 9
        assert value(all_samples, "wasq_requests_total", action="SendMessageBatch", outcome="success") == 1
        assert value(all_samples, "wasq_requests_total", action="ReceiveMessage", outcome="success") == 2
        assert value(all_samples, "wasq_requests_total", action="GetQueueUrl", outcome="AWS.SimpleQueueService.NonExistentQueue") == 2
        assert value(all_samples, "wasq_request_duration_seconds_count", action="SendMessage") == 9
        assert value(all_samples, "wasq_request_duration_seconds_bucket", action="SendMessage", le="+Inf") == 9
        buckets = sorted(
            (float(dict(labels)["le"]), v)
            for (name, labels), v in all_samples.items()
            if name == "wasq_request_duration_seconds_bucket" and dict(labels)["action"] == "SendMessage"
        )
        counts = [v for _, v in buckets]
        assert counts == sorted(counts), "buckets are cumulative"
        assert ("wasq_queue_messages", frozenset({("queue", "m-src"), ("state", "visible"), ("region", "us-east-1")})) not in all_samples, (
            "one region: no region label"
        )
    finally:
        assert server.stop() == 0


def test_queues_of_several_regions_are_told_apart_by_a_region_label():
    server = Wasq("--memory")
    try:
        make_client(server.url).create_queue(QueueName="same")
        other = boto3.client(
            "sqs",
            endpoint_url=server.url,
            region_name="eu-west-1",
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
        )
        url = other.create_queue(QueueName="same")["QueueUrl"]
        other.send_message(QueueUrl=url, MessageBody="x")
        status, _, text = scrape(server.url)
        assert status == 200
        _, all_samples = samples(text)
        assert value(all_samples, "wasq_queue_messages", queue="same", region="us-east-1", state="visible") == 0
        assert value(all_samples, "wasq_queue_messages", queue="same", region="eu-west-1", state="visible") == 1
        assert value(all_samples, "wasq_queue_messages_sent_total", queue="same", region="eu-west-1") == 1
    finally:
        assert server.stop() == 0


def test_a_scrape_is_refused_unsigned_with_credentials_unless_metrics_public():
    server = Wasq("--memory", "--credentials", f"{ACCESS_KEY}:{SECRET_KEY}")
    try:
        make_client(server.url).create_queue(QueueName="guarded")
        status, _, text = scrape(server.url)
        assert status == 403, text
        assert "MissingAuthenticationToken" in text or "AccessDenied" in text or "IncompleteSignature" in text, text
        assert "guarded" not in text
        status, _, text = scrape(server.url, sign=True, secret="wrong-secret")
        assert status == 403 and "guarded" not in text, text
        status, _, text = scrape(server.url, sign=True)
        assert status == 200, text
        _, all_samples = samples(text)
        assert value(all_samples, "wasq_queue_messages", queue="guarded", state="visible") == 0
    finally:
        assert server.stop() == 0

    server = Wasq("--memory", "--credentials", f"{ACCESS_KEY}:{SECRET_KEY}", "--metrics-public")
    try:
        make_client(server.url).create_queue(QueueName="open")
        status, _, text = scrape(server.url)
        assert status == 200, text
        _, all_samples = samples(text)
        assert value(all_samples, "wasq_queue_messages", queue="open", state="visible") == 0
        # Only the scrape is public: SQS requests still need a signature.
        bad = make_client(server.url, secret_key="wrong-secret")
        try:
            bad.list_queues()
            raise AssertionError("an unsigned-by-the-key request was served")
        except ClientError as err:
            assert err.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    finally:
        assert server.stop() == 0
