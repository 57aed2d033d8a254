"""The legacy Query protocol (form body in, XML out) through raw requests signed by botocore's
SigV4Auth, as older SDKs and hand-written clients send them."""

import hashlib
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from conftest import ACCESS_KEY, REGION, SECRET_KEY

NS = {"sqs": "http://queue.amazonaws.com/doc/2012-11-05/"}


def query(url, params, path="/", secret=SECRET_KEY, sign=True):
    """POST an Action=…&Version=2012-11-05 form, SigV4-signed; returns (status, headers, XML root)."""
    body = urllib.parse.urlencode({**params, "Version": "2012-11-05"})
    request = AWSRequest(
        method="POST",
        url=url + path,
        data=body,
        headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
    )
    if sign:
        SigV4Auth(Credentials(ACCESS_KEY, secret), "sqs", REGION).add_auth(request)
    prepared = request.prepare()
    raw = urllib.request.Request(prepared.url, data=body.encode(), headers=dict(prepared.headers), method="POST")
    try:
        with urllib.request.urlopen(raw, timeout=30) as response:
            return response.status, response.headers, ET.fromstring(response.read())
    except urllib.error.HTTPError as err:
        return err.code, err.headers, ET.fromstring(err.read())


def text(root, path):
    node = root.find(path, NS)
    assert node is not None, f"{path} missing in {ET.tostring(root).decode()}"
    return node.text


def test_query_round_trip(wasq):
    status, headers, root = query(wasq.url, {"Action": "CreateQueue", "QueueName": "query-q", "Attribute.1.Name": "VisibilityTimeout", "Attribute.1.Value": "40"})
    assert status == 200
    assert headers["Content-Type"] == "text/xml"
    url = text(root, "sqs:CreateQueueResult/sqs:QueueUrl")
    assert url == f"{wasq.url}/queue/us-east-1/000000000000/query-q"
    request_id = text(root, "sqs:ResponseMetadata/sqs:RequestId")
    assert headers["x-amzn-RequestId"] == request_id

    body = 'quote " and <tag> & ünïcode'
    status, _, root = query(
        wasq.url,
        {
            "Action": "SendMessage",
            "QueueUrl": url,
            "MessageBody": body,
            "MessageAttribute.1.Name": "color",
            "MessageAttribute.1.Value.DataType": "String",
            "MessageAttribute.1.Value.StringValue": "blue",
        },
    )
    assert status == 200
    assert text(root, "sqs:SendMessageResult/sqs:MD5OfMessageBody") == hashlib.md5(body.encode()).hexdigest()
    message_id = text(root, "sqs:SendMessageResult/sqs:MessageId")

    # Addressed by the queue URL's path instead of a QueueUrl parameter.
    status, _, root = query(
        wasq.url,
        {"Action": "ReceiveMessage", "AttributeName.1": "All", "MessageAttributeName.1": "All", "MaxNumberOfMessages": "10"},
        path="/000000000000/query-q",
    )
    assert status == 200
    message = root.find("sqs:ReceiveMessageResult/sqs:Message", NS)
    assert text(message, "sqs:MessageId") == message_id
    assert text(message, "sqs:Body") == body
    attributes = {text(a, "sqs:Name"): text(a, "sqs:Value") for a in message.findall("sqs:Attribute", NS)}
    assert attributes["ApproximateReceiveCount"] == "1"
    user = message.find("sqs:MessageAttribute", NS)
    assert text(user, "sqs:Name") == "color"
    assert text(user, "sqs:Value/sqs:StringValue") == "blue"

    status, _, root = query(wasq.url, {"Action": "DeleteMessage", "QueueUrl": url, "ReceiptHandle": text(message, "sqs:ReceiptHandle")})
    assert status == 200
    assert root.tag == "{http://queue.amazonaws.com/doc/2012-11-05/}DeleteMessageResponse"

    status, _, root = query(wasq.url, {"Action": "GetQueueAttributes", "QueueUrl": url, "AttributeName.1": "All"})
    attrs = {text(a, "sqs:Name"): text(a, "sqs:Value") for a in root.findall("sqs:GetQueueAttributesResult/sqs:Attribute", NS)}
    assert attrs["VisibilityTimeout"] == "40"
    assert attrs["ApproximateNumberOfMessages"] == "0"


def test_query_error_response(wasq):
    status, headers, root = query(wasq.url, {"Action": "GetQueueUrl", "QueueName": "no-such-queue"})
    assert status == 400
    assert root.tag == "{http://queue.amazonaws.com/doc/2012-11-05/}ErrorResponse"
    assert text(root, "sqs:Error/sqs:Type") == "Sender"
    assert text(root, "sqs:Error/sqs:Code") == "AWS.SimpleQueueService.NonExistentQueue"
    assert text(root, "sqs:Error/sqs:Message") == "The specified queue does not exist for this wsdl version."
    assert text(root, "sqs:RequestId") == headers["x-amzn-RequestId"]

    status, _, root = query(wasq.url, {"Action": "ReceiveMessage", "QueueUrl": wasq.url + "/000000000000/x", "MaxNumberOfMessages": "11"})
    assert status == 400


def test_query_signature_checked_with_credentials(wasq_auth):
    status, _, root = query(wasq_auth.url, {"Action": "ListQueues"})
    assert status == 200
    status, _, root = query(wasq_auth.url, {"Action": "ListQueues"}, secret="wrong")
    assert status == 403
    assert text(root, "sqs:Error/sqs:Code") == "SignatureDoesNotMatch"
    status, _, root = query(wasq_auth.url, {"Action": "ListQueues"}, sign=False)
    assert status == 403
    assert text(root, "sqs:Error/sqs:Code") == "MissingAuthenticationToken"
