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

/// Queue URLs name their region: `http://HOST/queue/<region>/<account>/<name>` (issue #33 item
/// 5: two queues of one name in two regions have two URLs, and a URL reaches its queue whatever
/// region the client signed for).
fn in_region(region: &str) -> wasq::CallContext {
    wasq::CallContext {
        region: Some(region.into()),
        ..Default::default()
    }
}

#[test]
fn queue_urls_name_their_region_and_reach_it_from_any_signing_region() {
    let mut h = Sqs::new();
    let east = h.create("jobs", json!({}));
    assert_eq!(
        east,
        "http://localhost:9324/queue/us-east-1/000000000000/jobs"
    );
    let west_ctx = in_region("eu-west-1");
    let west = h
        .svc
        .dispatch(
            h.now,
            &west_ctx,
            "CreateQueue",
            json!({"QueueName": "jobs"}),
        )
        .unwrap()["QueueUrl"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        west,
        "http://localhost:9324/queue/eu-west-1/000000000000/jobs"
    );
    // GetQueueUrl, ListQueues and the ARN agree with CreateQueue.
    let got = h
        .svc
        .dispatch(
            h.now,
            &west_ctx,
            "GetQueueUrl",
            json!({"QueueName": "jobs"}),
        )
        .unwrap();
    assert_eq!(got["QueueUrl"], west.as_str());
    let listed = h
        .svc
        .dispatch(h.now, &west_ctx, "ListQueues", json!({}))
        .unwrap();
    assert_eq!(listed["QueueUrls"], json!([west]));
    let arn = h
        .svc
        .dispatch(
            h.now,
            &west_ctx,
            "GetQueueAttributes",
            json!({"QueueUrl": west, "AttributeNames": ["QueueArn"]}),
        )
        .unwrap();
    assert_eq!(
        arn["Attributes"]["QueueArn"],
        "arn:aws:sqs:eu-west-1:000000000000:jobs"
    );
    // A client signing for us-east-1 sends to the eu-west-1 queue by its URL, and the reverse.
    h.send(&west, "to the west");
    h.svc
        .dispatch(
            h.now,
            &west_ctx,
            "SendMessage",
            json!({"QueueUrl": east, "MessageBody": "to the east"}),
        )
        .unwrap();
    let west_got = h.receive(&west, 10);
    assert_eq!(bodies(&west_got), ["to the west"]);
    let east_got = h
        .svc
        .dispatch(
            h.now,
            &west_ctx,
            "ReceiveMessage",
            json!({"QueueUrl": east, "MaxNumberOfMessages": 10}),
        )
        .unwrap();
    assert_eq!(east_got["Messages"][0]["Body"], "to the east");
    // Through the typed JSON path too, and the receipt handle deletes in the URL's region.
    let text = h
        .svc
        .dispatch_json(
            h.now,
            &Default::default(),
            "DeleteMessage",
            &json!({"QueueUrl": west, "ReceiptHandle": handle(&west_got[0])}).to_string(),
        )
        .unwrap();
    assert_eq!(text, "{}");
    assert_eq!(h.counts(&west), (0, 0, 0));
}

#[test]
fn the_url_form_without_a_region_still_resolves_in_the_signing_region() {
    let mut h = Sqs::new();
    let url = h.create("old", json!({}));
    let legacy = "http://localhost:9324/000000000000/old";
    h.send(legacy, "kept");
    assert_eq!(bodies(&h.receive(&url, 1)), ["kept"]);
    // In another signing region the form without one names that region's queue: none here.
    let e = h
        .svc
        .dispatch(
            h.now,
            &in_region("eu-west-1"),
            "GetQueueAttributes",
            json!({"QueueUrl": legacy}),
        )
        .unwrap_err();
    assert_eq!(e.shape(), "QueueDoesNotExist");
}

#[test]
fn a_url_naming_a_region_with_no_queues_is_queue_does_not_exist() {
    let mut h = Sqs::new();
    h.create("jobs", json!({}));
    for url in [
        "http://localhost:9324/queue/ap-south-1/000000000000/jobs",
        "http://localhost:9324/queue/us-east-1/111111111111/jobs",
    ] {
        let e = h.err("SendMessage", json!({"QueueUrl": url, "MessageBody": "x"}));
        assert_eq!(e.shape(), "QueueDoesNotExist", "{url}");
    }
}

#[test]
fn a_client_of_another_region_reaches_a_queue_by_url_before_that_region_has_any() {
    // The case users hit in-process: `new SQSClient({ region: "eu-west-1" })` against an engine
    // whose queues are all in us-east-1 (issue #33 item 5).
    let mut h = Sqs::new();
    let url = h.create("jobs", json!({}));
    let west = in_region("eu-west-1");
    let sent = h.svc.dispatch_json(
        h.now,
        &west,
        "SendMessage",
        &json!({"QueueUrl": url, "MessageBody": "from the west"}).to_string(),
    );
    assert!(sent.is_ok(), "{sent:?}");
    let got = h
        .svc
        .dispatch(h.now, &west, "ReceiveMessage", json!({"QueueUrl": url}))
        .unwrap();
    assert_eq!(got["Messages"][0]["Body"], "from the west");
}
