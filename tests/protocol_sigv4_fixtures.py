"""Regenerate tests/protocol_sigv4_fixtures.json: requests signed by botocore's own SigV4 signer.

    python3 -m venv /tmp/sigv4venv && /tmp/sigv4venv/bin/pip install botocore
    /tmp/sigv4venv/bin/python tests/protocol_sigv4_fixtures.py > tests/protocol_sigv4_fixtures.json

URLs that already carry a query string are signed by botocore over the query exactly as written,
so they are written here in AWS canonical encoding (unreserved characters such as ~ unescaped),
which is what a server re-derives.
"""
import datetime
import json
from unittest import mock
from urllib.parse import urlsplit

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

KEY, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
NOW = datetime.datetime(2025, 1, 1, 12, 0, 0)


def sign(name, method, url, headers, body, region, presign=False):
    req = AWSRequest(method=method, url=url, headers=headers, data=body)
    creds = Credentials(KEY, SECRET)
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=NOW):
        if presign:
            botocore.auth.SigV4QueryAuth(creds, "sqs", region, expires=300).add_auth(req)
        else:
            botocore.auth.SigV4Auth(creds, "sqs", region).add_auth(req)
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
        "region": region,
    }


fixtures = [
    sign("json-send-message", "POST", "https://sqs.us-west-2.amazonaws.com/",
         {"X-Amz-Target": "AmazonSQS.SendMessage", "Content-Type": "application/x-amz-json-1.0",
          "x-amzn-query-mode": "true"},
         json.dumps({"QueueUrl": "https://sqs.us-west-2.amazonaws.com/123456789012/q",
                     "MessageBody": "héllo \"world\"\r\n"}).encode(), "us-west-2"),
    sign("json-empty-body", "POST", "http://localhost:9324/",
         {"X-Amz-Target": "AmazonSQS.ListQueues", "Content-Type": "application/x-amz-json-1.0"},
         b"", "eu-central-1"),
    sign("query-form-on-queue-path", "POST", "http://localhost:9324/123456789012/my-queue",
         {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
         b"Action=SendMessage&Version=2012-11-05&MessageBody=a+b%26c%7E", "us-east-1"),
    sign("query-get-with-odd-characters", "GET",
         "http://localhost:9324/?Action=ListQueues&Version=2012-11-05&QueueNamePrefix=a%20b%2A~%C3%A9&MaxResults=5",
         {}, b"", "ap-southeast-2"),
    sign("query-presigned-get", "GET",
         "http://localhost:9324/123456789012/q?Action=GetQueueAttributes&AttributeName.1=All&Version=2012-11-05",
         {}, b"", "us-east-1", presign=True),
]
print(json.dumps({"access_key": KEY, "secret": SECRET, "now_ms": int(NOW.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000),
                  "requests": fixtures}, indent=1, ensure_ascii=False))
