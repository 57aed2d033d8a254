//! What the call context changes: region (queues are per account *and* region), the host and
//! scheme queue URLs are built from, and required parameters (§1.1, §2, §4).
mod common;

use common::*;
use serde_json::{json, Value};
use wasq::CallContext;

#[test]
fn the_same_name_in_two_regions_is_two_queues() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.send(&url, "east");
    let eu = CallContext {
        region: Some("eu-west-1".into()),
        ..CallContext::default()
    };
    let r = h
        .svc
        .dispatch(h.now, &eu, "CreateQueue", json!({"QueueName": "q"}))
        .unwrap();
    let eu_url = r["QueueUrl"].as_str().unwrap().to_string();
    let a = h
        .svc
        .dispatch(
            h.now,
            &eu,
            "GetQueueAttributes",
            json!({"QueueUrl": eu_url, "AttributeNames": ["All"]}),
        )
        .unwrap();
    assert_eq!(
        a["Attributes"]["QueueArn"],
        "arn:aws:sqs:eu-west-1:000000000000:q"
    );
    assert_eq!(a["Attributes"]["ApproximateNumberOfMessages"], "0");
    assert_eq!(h.counts(&url), (1, 0, 0));
    assert_eq!(h.attr(&url, "QueueArn").unwrap(), Sqs::arn("q"));
    // A region with no queues lists nothing.
    let west = CallContext {
        region: Some("us-west-2".into()),
        ..CallContext::default()
    };
    let r = h
        .svc
        .dispatch(h.now, &west, "ListQueues", json!({}))
        .unwrap();
    assert!(r.get("QueueUrls").is_none(), "{r}");
    // Both regions survive a restore.
    let mut restored = h.restored();
    assert_eq!(restored.counts(&url), (1, 0, 0));
    let a = restored
        .svc
        .dispatch(
            h.now,
            &eu,
            "GetQueueAttributes",
            json!({"QueueUrl": eu_url, "AttributeNames": ["QueueArn"]}),
        )
        .unwrap();
    assert_eq!(
        a["Attributes"]["QueueArn"],
        "arn:aws:sqs:eu-west-1:000000000000:q"
    );
}

#[test]
fn queue_urls_are_built_from_the_request_host() {
    let mut h = Sqs::new();
    h.ctx.host = Some("sqs.example.test:8443".into());
    h.ctx.scheme = Some("https".into());
    let r = h.ok("CreateQueue", json!({"QueueName": "hq"}));
    assert_eq!(
        r["QueueUrl"],
        "https://sqs.example.test:8443/queue/us-east-1/000000000000/hq"
    );
    h.ctx = CallContext::default();
    let r = h.ok("GetQueueUrl", json!({"QueueName": "hq"}));
    assert_eq!(r["QueueUrl"], Sqs::url("hq"));
    let r = h.ok("ListQueues", json!({}));
    assert_eq!(r["QueueUrls"], json!([Sqs::url("hq")]));
}

#[test]
fn missing_required_parameters() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let cases = [
        ("SendMessage", json!({"MessageBody": "x"}), "QueueUrl"),
        ("CreateQueue", json!({}), "QueueName"),
        ("GetQueueUrl", json!({}), "QueueName"),
        ("DeleteMessage", json!({"QueueUrl": url}), "ReceiptHandle"),
        ("ReceiveMessage", json!({}), "QueueUrl"),
    ];
    for (action, params, missing) in cases {
        let e = h.err(action, params);
        assert_err(
            &e,
            "MissingRequiredParameterException",
            &format!("The request must contain the parameter {missing}."),
        );
    }
}

#[test]
fn deleting_a_queue_invalidates_its_handles_and_messages() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    h.ok("DeleteQueue", json!({"QueueUrl": url}));
    let e = h.err(
        "DeleteMessage",
        json!({"QueueUrl": url, "ReceiptHandle": handle(&m)}),
    );
    assert_err(
        &e,
        "QueueDoesNotExist",
        "The specified queue does not exist.",
    );
    h.advance_secs(60);
    let url = h.create("q", json!({}));
    assert_eq!(h.counts(&url), (0, 0, 0));
    assert!(h.receive(&url, 10).is_empty());
}

#[test]
fn long_poll_with_messages_available_returns_at_once() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"ReceiveMessageWaitTimeSeconds": "20"}));
    h.send(&url, "a");
    h.send(&url, "b");
    let r = h.ok(
        "ReceiveMessage",
        json!({"QueueUrl": url, "MaxNumberOfMessages": 3}),
    );
    assert_eq!(messages(&r).len(), 2);
    h.send(&url, "c");
    let r = h.ok(
        "ReceiveMessage",
        json!({"QueueUrl": url, "WaitTimeSeconds": 5}),
    );
    assert_eq!(bodies(&messages(&r)), vec!["c"]);
}

#[test]
fn arns_carry_the_partition_of_the_region() {
    // §2: queue ARNs are `arn:<partition>:sqs:<region>:<account>:<name>`; a China region's
    // partition is `aws-cn`, not `aws`. The ARN a client builds for such a queue must name the
    // DLQ, list the source and start a move task; one with the wrong partition names nothing.
    let mut h = Sqs::new();
    h.ctx = CallContext {
        region: Some("cn-north-1".into()),
        ..CallContext::default()
    };
    let dlq = h.create("dlq", json!({}));
    let arn = "arn:aws-cn:sqs:cn-north-1:000000000000:dlq";
    assert_eq!(h.attr(&dlq, "QueueArn").unwrap(), arn);
    let wrong = json!({"deadLetterTargetArn": "arn:aws:sqs:cn-north-1:000000000000:dlq", "maxReceiveCount": 1});
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "bad", "Attributes": {"RedrivePolicy": wrong.to_string()}}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    let policy = json!({"deadLetterTargetArn": arn, "maxReceiveCount": 1}).to_string();
    let src = h.create(
        "src",
        json!({"VisibilityTimeout": "1", "RedrivePolicy": policy}),
    );
    let r = h.ok("ListDeadLetterSourceQueues", json!({"QueueUrl": dlq}));
    assert_eq!(r["queueUrls"], json!([src]));
    h.send(&src, "x");
    assert_eq!(h.receive(&src, 1).len(), 1);
    h.advance_secs(1);
    assert!(h.receive(&src, 1).is_empty());
    let m = h.receive(&dlq, 1).remove(0);
    assert_eq!(
        sys_attr(&m, "DeadLetterQueueSourceArn").unwrap(),
        "arn:aws-cn:sqs:cn-north-1:000000000000:src"
    );
    h.ok("StartMessageMoveTask", json!({"SourceArn": arn}));
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": "arn:aws:sqs:cn-north-1:000000000000:dlq"}),
    );
    assert_eq!(e.shape(), "ResourceNotFoundException");
    // AddPermission's principals are in the same partition.
    h.ok(
        "AddPermission",
        json!({"QueueUrl": dlq, "Label": "l", "AWSAccountIds": ["111111111111"], "Actions": ["SendMessage"]}),
    );
    let p: Value = serde_json::from_str(&h.attr(&dlq, "Policy").unwrap()).unwrap();
    assert_eq!(p["Id"], format!("{arn}/SQSDefaultPolicy").as_str());
    assert_eq!(
        p["Statement"][0]["Principal"]["AWS"],
        "arn:aws-cn:iam::111111111111:root"
    );
    assert_eq!(p["Statement"][0]["Resource"], arn);
}
