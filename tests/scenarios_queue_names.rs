//! How a request names its queue: a bare queue name where a QueueUrl is expected is resolved in
//! the request's account and region (recorded against AWS, issue #33 item 2: SendMessage and
//! Get/SetQueueAttributes with `QueueUrl="my-queue"`, and by the same routing every action that
//! takes a QueueUrl).
mod common;

use common::*;
use serde_json::json;

#[test]
fn a_bare_queue_name_works_as_a_queue_url_for_every_action() {
    let mut h = Sqs::new();
    let url = h.create("my-queue", json!({}));
    let dlq = h.create("my-dlq", json!({}));
    let q = "my-queue";
    h.ok("SendMessage", json!({"QueueUrl": q, "MessageBody": "one"}));
    h.ok(
        "SendMessageBatch",
        json!({"QueueUrl": q, "Entries": [{"Id": "a", "MessageBody": "two"}]}),
    );
    let got = h.receive_with(q, json!({"MaxNumberOfMessages": 10}));
    assert_eq!(got.len(), 2);
    h.ok(
        "ChangeMessageVisibility",
        json!({"QueueUrl": q, "ReceiptHandle": handle(&got[0]), "VisibilityTimeout": 5}),
    );
    h.ok(
        "ChangeMessageVisibilityBatch",
        json!({"QueueUrl": q, "Entries": [{"Id": "a", "ReceiptHandle": handle(&got[1]), "VisibilityTimeout": 5}]}),
    );
    h.ok(
        "DeleteMessage",
        json!({"QueueUrl": q, "ReceiptHandle": handle(&got[0])}),
    );
    h.ok(
        "DeleteMessageBatch",
        json!({"QueueUrl": q, "Entries": [{"Id": "a", "ReceiptHandle": handle(&got[1])}]}),
    );
    assert_eq!(h.counts(&url), (0, 0, 0));
    h.ok(
        "SetQueueAttributes",
        json!({"QueueUrl": q, "Attributes": {"DelaySeconds": "3"}}),
    );
    let attrs = h.ok(
        "GetQueueAttributes",
        json!({"QueueUrl": q, "AttributeNames": ["DelaySeconds"]}),
    );
    assert_eq!(attrs["Attributes"]["DelaySeconds"], "3");
    h.ok("TagQueue", json!({"QueueUrl": q, "Tags": {"team": "a"}}));
    assert_eq!(
        h.ok("ListQueueTags", json!({"QueueUrl": q}))["Tags"]["team"],
        "a"
    );
    h.ok("UntagQueue", json!({"QueueUrl": q, "TagKeys": ["team"]}));
    h.ok(
        "AddPermission",
        json!({"QueueUrl": q, "Label": "l", "AWSAccountIds": ["111122223333"], "Actions": ["SendMessage"]}),
    );
    h.ok("RemovePermission", json!({"QueueUrl": q, "Label": "l"}));
    h.ok("PurgeQueue", json!({"QueueUrl": q}));
    let policy =
        json!({"deadLetterTargetArn": Sqs::arn("my-dlq"), "maxReceiveCount": 1}).to_string();
    h.set_attrs(&url, json!({ "RedrivePolicy": policy }));
    let sources = h.ok("ListDeadLetterSourceQueues", json!({"QueueUrl": "my-dlq"}));
    assert_eq!(sources["queueUrls"][0], url);
    h.ok("DeleteQueue", json!({"QueueUrl": q}));
    let e = h.err("GetQueueAttributes", json!({"QueueUrl": q}));
    assert_eq!(e.shape(), "QueueDoesNotExist");
    let _ = dlq;
}

#[test]
fn a_bare_name_naming_no_queue_is_queue_does_not_exist() {
    let mut h = Sqs::new();
    h.create("my-queue", json!({}));
    for bad in ["other", ""] {
        let e = h.err("SendMessage", json!({"QueueUrl": bad, "MessageBody": "x"}));
        assert_eq!(e.shape(), "QueueDoesNotExist", "{bad:?}");
    }
}
