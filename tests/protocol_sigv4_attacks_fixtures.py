"""Regenerate tests/protocol_sigv4_attacks_fixtures.json: requests signed by botocore's own SigV4
signer, the raw material of tests/protocol_sigv4_attacks.rs (captured requests an attacker replays
with a changed body or header, requests signed over too few headers, presigned URLs of several
lifetimes).

    scripts/ensure-venv.sh
    .venv/bin/python tests/protocol_sigv4_attacks_fixtures.py > tests/protocol_sigv4_attacks_fixtures.json

Requests signed over fewer headers than botocore signs are made by narrowing its
`headers_to_sign` for that one signature: what a hand-rolled or careless client would send.
"""
import contextlib
import datetime
import hashlib
import json
from unittest import mock
from urllib.parse import urlsplit

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

KEY, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
NOW = datetime.datetime(2025, 1, 1, 12, 0, 0)
JSON = {"Content-Type": "application/x-amz-json-1.0"}
FORM = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
QUEUE = "http://localhost:9324/000000000000/mine"


def sign(name, method, url, headers, body, *, presign=None, only=None, unsigned_payload=False):
    req = AWSRequest(method=method, url=url, headers=headers, data=body)
    if unsigned_payload:
        req.context["payload_signing_enabled"] = False
    creds = Credentials(KEY, SECRET)
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(botocore.auth, "get_current_datetime", return_value=NOW))
        if only is not None:
            original = botocore.auth.SigV4Auth.headers_to_sign

            def narrowed(self, request):
                all_headers = original(self, request)
                kept = botocore.auth.HTTPHeaders()
                for k in only:
                    kept[k] = all_headers[k]
                return kept

            stack.enter_context(mock.patch.object(botocore.auth.SigV4Auth, "headers_to_sign", narrowed))
        if presign is not None:
            botocore.auth.SigV4QueryAuth(creds, "sqs", "us-east-1", expires=presign).add_auth(req)
        else:
            botocore.auth.SigV4Auth(creds, "sqs", "us-east-1").add_auth(req)
    prepared = req.prepare()
    parts = urlsplit(prepared.url)
    hdrs = [[k, v] for k, v in prepared.headers.items()]
    if not any(k.lower() == "host" for k, _ in hdrs):
        hdrs.append(["Host", parts.netloc])
    data = prepared.body or b""
    if isinstance(data, str):
        data = data.encode()
    return {
        "name": name,
        "method": method,
        "path": parts.path or "/",
        "query": parts.query,
        "headers": hdrs,
        "body": data.decode("utf-8"),
    }


def target(action):
    return {**JSON, "X-Amz-Target": f"AmazonSQS.{action}"}


fixtures = [
    sign("query-list-queues", "POST", "http://localhost:9324/", FORM,
         b"Action=ListQueues&Version=2012-11-05"),
    sign("json-receive-message", "POST", "http://localhost:9324/", target("ReceiveMessage"),
         json.dumps({"QueueUrl": QUEUE, "MaxNumberOfMessages": 1}).encode()),
    sign("json-with-its-payload-hash", "POST", "http://localhost:9324/",
         {**target("ListQueues"),
          "X-Amz-Content-Sha256": hashlib.sha256(b"{}").hexdigest()},
         b"{}"),
    sign("json-unsigned-payload", "POST", "https://localhost:9324/", target("ListQueues"), b"{}",
         unsigned_payload=True),
    sign("json-signed-over-date-only", "POST", "http://localhost:9324/", target("GetQueueAttributes"),
         json.dumps({"QueueUrl": QUEUE, "AttributeNames": ["All"]}).encode(), only=["x-amz-date"]),
    sign("json-target-unsigned", "POST", "http://localhost:9324/", target("GetQueueAttributes"),
         json.dumps({"QueueUrl": QUEUE, "AttributeNames": ["All"]}).encode(),
         only=["content-type", "host", "x-amz-date"]),
    sign("query-date-unsigned", "POST", "http://localhost:9324/", FORM,
         b"Action=ListQueues&Version=2012-11-05", only=["content-type", "host"]),
    sign("presigned-1s", "GET", "http://localhost:9324/?Action=ListQueues&Version=2012-11-05", {}, b"",
         presign=1),
    sign("presigned-1h", "GET", "http://localhost:9324/?Action=ListQueues&Version=2012-11-05", {}, b"",
         presign=3600),
    sign("presigned-7d", "GET", "http://localhost:9324/?Action=ListQueues&Version=2012-11-05", {}, b"",
         presign=604800),
]
print(json.dumps({"access_key": KEY, "secret": SECRET,
                  "now_ms": int(NOW.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000),
                  "requests": fixtures}, indent=1, ensure_ascii=False))
