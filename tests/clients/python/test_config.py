"""`wasq serve --config FILE`: queues declared up front, checked through boto3; idempotent over a
restart with the same --data; bad files refused at start with the file, queue and problem named."""

import json
import subprocess

import pytest

from conftest import REPO, WASQ_BIN, Wasq, make_client

ACCOUNT = "000000000000"


def config(tmp_path, doc, name="wasq.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


STACK = {
    "queues": [
        # Declared before its dead-letter queue: the file's order is not the order of creation.
        {
            "name": "orders",
            "attributes": {"VisibilityTimeout": 45, "ReceiveMessageWaitTimeSeconds": "5"},
            "deadLetterQueue": {"name": "orders-dlq", "maxReceiveCount": 3},
            "tags": {"team": "shop", "env": "dev"},
        },
        {
            "name": "orders-dlq",
            "attributes": {
                "MessageRetentionPeriod": 1209600,
                "RedriveAllowPolicy": {"redrivePermission": "byQueue", "sourceQueueArns": ["orders"]},
            },
        },
        {
            "name": "events.fifo",
            "attributes": {"ContentBasedDeduplication": True, "DeduplicationScope": "messageGroup"},
            "tags": {"team": "data"},
        },
        {
            "name": "events-dlq.fifo",
        },
        {
            "name": "audit.fifo",
            "attributes": {
                "RedrivePolicy": json.dumps({"deadLetterTargetArn": "events-dlq.fifo", "maxReceiveCount": "5"})
            },
        },
    ]
}


def run_serve(*args, timeout=30):
    """`wasq serve` that is expected to refuse to start: (exit code, stdout, stderr)."""
    proc = subprocess.run(
        ["node", str(WASQ_BIN), "serve", "--port", "0", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout, proc.stderr


def all_attributes(sqs, name):
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]


def tags(sqs, name):
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return sqs.list_queue_tags(QueueUrl=url).get("Tags", {})


def arn(name):
    return f"arn:aws:sqs:us-east-1:{ACCOUNT}:{name}"


def test_declared_queues_exist_with_their_attributes_tags_and_redrive(tmp_path):
    data = tmp_path / "data"
    server = Wasq("--data", str(data), "--config", str(config(tmp_path, STACK)))
    try:
        sqs = make_client(server.url)
        names = sorted(u.rsplit("/", 1)[1] for u in sqs.list_queues()["QueueUrls"])
        assert names == ["audit.fifo", "events-dlq.fifo", "events.fifo", "orders", "orders-dlq"]

        orders = all_attributes(sqs, "orders")
        assert orders["VisibilityTimeout"] == "45"
        assert orders["ReceiveMessageWaitTimeSeconds"] == "5"
        assert json.loads(orders["RedrivePolicy"]) == {"deadLetterTargetArn": arn("orders-dlq"), "maxReceiveCount": 3}
        assert tags(sqs, "orders") == {"team": "shop", "env": "dev"}

        dlq = all_attributes(sqs, "orders-dlq")
        assert dlq["MessageRetentionPeriod"] == "1209600"
        assert json.loads(dlq["RedriveAllowPolicy"]) == {"redrivePermission": "byQueue", "sourceQueueArns": [arn("orders")]}
        dlq_url = sqs.get_queue_url(QueueName="orders-dlq")["QueueUrl"]
        assert sqs.list_dead_letter_source_queues(QueueUrl=dlq_url)["queueUrls"] == [sqs.get_queue_url(QueueName="orders")["QueueUrl"]]

        events = all_attributes(sqs, "events.fifo")
        assert events["FifoQueue"] == "true"
        assert events["ContentBasedDeduplication"] == "true"
        assert events["DeduplicationScope"] == "messageGroup"
        assert tags(sqs, "events.fifo") == {"team": "data"}

        audit = all_attributes(sqs, "audit.fifo")
        assert json.loads(audit["RedrivePolicy"])["deadLetterTargetArn"] == arn("events-dlq.fifo")
    finally:
        assert server.stop() == 0


def test_a_second_start_changes_nothing_and_a_changed_file_updates_without_deleting(tmp_path):
    data = tmp_path / "data"
    file = config(tmp_path, STACK)
    server = Wasq("--data", str(data), "--config", str(file))
    try:
        sqs = make_client(server.url)
        # What clients did at run time: an attribute and a tag the file does not declare.
        url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "7"})
        sqs.tag_queue(QueueUrl=url, Tags={"owner": "ops"})
        sqs.send_message(QueueUrl=url, MessageBody="kept")
        before = {q: all_attributes(sqs, q) for q in ["orders", "orders-dlq", "events.fifo", "audit.fifo"]}
        before_tags = tags(sqs, "orders")
    finally:
        assert server.stop() == 0
    log = sorted(p.stat().st_size for p in data.rglob("*") if p.is_file())

    server = Wasq("--data", str(data), "--config", str(file))
    try:
        sqs = make_client(server.url)
        after = {q: all_attributes(sqs, q) for q in before}
        assert after == before
        assert tags(sqs, "orders") == before_tags
    finally:
        assert server.stop() == 0
    assert sorted(p.stat().st_size for p in data.rglob("*") if p.is_file()) == log, "the second start wrote nothing"

    changed = json.loads(json.dumps(STACK))
    changed["queues"][0]["attributes"]["VisibilityTimeout"] = 60
    changed["queues"][0]["tags"]["env"] = "staging"
    changed["queues"][0]["deadLetterQueue"]["maxReceiveCount"] = 5
    del changed["queues"][2]  # events.fifo: no longer declared, still kept
    server = Wasq("--data", str(data), "--config", str(config(tmp_path, changed, "changed.json")))
    try:
        sqs = make_client(server.url)
        orders = all_attributes(sqs, "orders")
        assert orders["VisibilityTimeout"] == "60"
        assert json.loads(orders["RedrivePolicy"])["maxReceiveCount"] == 5
        assert orders["DelaySeconds"] == "7", "an attribute the file does not declare is left alone"
        assert int(orders["ApproximateNumberOfMessages"]) + int(orders["ApproximateNumberOfMessagesDelayed"]) == 1, "messages are kept"
        assert tags(sqs, "orders") == {"team": "shop", "env": "staging", "owner": "ops"}
        assert all_attributes(sqs, "events.fifo")["ContentBasedDeduplication"] == "true"
        assert all_attributes(sqs, "orders-dlq") == before["orders-dlq"]
    finally:
        assert server.stop() == 0


def queue(name, **rest):
    return {"name": name, **rest}


BAD = [
    ("not json", '{"queues": [', "not valid JSON"),
    ("no queues", {"queue": []}, 'unknown member "queue"'),
    ("twice", {"queues": [queue("a"), queue("a")]}, 'queue "a": declared twice'),
    ("unknown attribute", {"queues": [queue("a", attributes={"VisibilityTimout": 5})]}, 'queue "a": unknown attribute "VisibilityTimout"'),
    (
        "engine range",
        {"queues": [queue("ok"), queue("slow", attributes={"VisibilityTimeout": 99999})]},
        'queue "slow": InvalidAttributeValue: Invalid value for the parameter VisibilityTimeout.',
    ),
    (
        "fifo attribute on a standard queue",
        {"queues": [queue("plain", attributes={"ContentBasedDeduplication": True})]},
        'queue "plain": InvalidAttributeName',
    ),
    ("bad name", {"queues": [queue("has space")]}, 'queue "has space": InvalidParameterValue'),
    (
        "undeclared dead-letter queue",
        {"queues": [queue("a", deadLetterQueue={"name": "nowhere", "maxReceiveCount": 3})]},
        'queue "a": its dead-letter queue "nowhere" is not declared in the file',
    ),
    (
        "cycle",
        {
            "queues": [
                queue("a", deadLetterQueue={"name": "b", "maxReceiveCount": 3}),
                queue("b", deadLetterQueue={"name": "a", "maxReceiveCount": 3}),
            ]
        },
        "redrive links form a cycle: a → b → a",
    ),
    (
        "maxReceiveCount out of range",
        {"queues": [queue("d"), queue("s", deadLetterQueue={"name": "d", "maxReceiveCount": 0})]},
        'queue "s": InvalidParameterValue',
    ),
    (
        "both redrive forms",
        {
            "queues": [
                queue("d"),
                queue("s", deadLetterQueue={"name": "d", "maxReceiveCount": 2}, attributes={"RedrivePolicy": {"deadLetterTargetArn": "d", "maxReceiveCount": 2}}),
            ]
        },
        'queue "s": give either "deadLetterQueue" or attributes.RedrivePolicy, not both',
    ),
    ("tag not a string", {"queues": [queue("a", tags={"n": 1})]}, 'queue "a": tag "n" must have a string value'),
]


@pytest.mark.parametrize("case,doc,problem", BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_refused_at_start_naming_file_queue_and_problem(tmp_path, case, doc, problem):
    data = tmp_path / "data"
    file = config(tmp_path, doc)
    code, out, err = run_serve("--data", str(data), "--config", str(file))
    assert code != 0
    assert "listening" not in out, "nothing is served"
    assert str(file) in err
    assert problem in err, err
    # Nothing of the file was applied, not even the queues before the bad one.
    server = Wasq("--data", str(data))
    try:
        assert make_client(server.url).list_queues().get("QueueUrls", []) == []
    finally:
        assert server.stop() == 0


def test_a_missing_file_is_refused(tmp_path):
    code, out, err = run_serve("--memory", "--config", str(tmp_path / "absent.json"))
    assert code != 0 and "listening" not in out
    assert f"{tmp_path / 'absent.json'}: cannot read it" in err


def test_the_shipped_example_starts(tmp_path):
    example = REPO / "examples" / "dev-stack" / "wasq.config.json"
    server = Wasq("--memory", "--config", str(example))
    try:
        sqs = make_client(server.url)
        declared = json.loads(example.read_text())["queues"]
        urls = sqs.list_queues()["QueueUrls"]
        assert sorted(u.rsplit("/", 1)[1] for u in urls) == sorted(q["name"] for q in declared)
    finally:
        assert server.stop() == 0


def test_the_shipped_schema_accepts_the_example_and_the_stack_and_catches_typos():
    import jsonschema

    schema = json.loads((WASQ_BIN.parent / "config.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    example = json.loads((REPO / "examples" / "dev-stack" / "wasq.config.json").read_text())
    assert list(validator.iter_errors(example)) == []
    assert list(validator.iter_errors(STACK)) == []
    # What an editor flags as it is typed (the server refuses the same files, above).
    for doc, where in [
        ({"queues": [queue("a", attributes={"VisibilityTimout": 5})]}, "VisibilityTimout"),
        ({"queues": [queue("a", deadLetterQueue={"name": "b"})]}, "maxReceiveCount"),
        ({"queues": [queue("a", tags={"n": 1})]}, "1"),
        ({"queues": [queue("has space")]}, "has space"),
        ({"queue": []}, "queue"),
    ]:
        errors = list(validator.iter_errors(doc))
        assert errors, doc
        assert any(where in e.message for e in errors), [e.message for e in errors]
