//! Permissions, tags and encryption settings beyond the basics in scenarios_queues.rs
//! (§3.1, §4.15, §4.18).
mod common;

use common::*;
use serde_json::{json, Value};

fn policy(h: &mut Sqs, url: &str) -> Value {
    serde_json::from_str(&h.attr(url, "Policy").expect("Policy set")).expect("Policy is JSON")
}

#[test]
fn wildcard_action_and_batch_variants() {
    let mut h = Sqs::new();
    let url = h.create("p", json!({}));
    h.ok(
        "AddPermission",
        json!({"QueueUrl": url, "Label": "all", "AWSAccountIds": ["111111111111"], "Actions": ["*"]}),
    );
    assert_eq!(policy(&mut h, &url)["Statement"][0]["Action"], "SQS:*");
}

#[test]
fn add_permission_rejects_owner_only_actions_and_bad_labels() {
    let mut h = Sqs::new();
    let url = h.create("p", json!({}));
    // Sources disagree on the text for an ungrantable action (§4.18, §14.3): the code is agreed.
    for bad in ["CreateQueue", "NotAnAction"] {
        let e = h.err_unchanged(
            &url,
            "AddPermission",
            json!({"QueueUrl": url, "Label": "x", "AWSAccountIds": ["111111111111"], "Actions": [bad]}),
        );
        assert_eq!(e.shape(), "InvalidParameterValueException", "{bad}");
    }
    for bad in ["has space", "bad:label", &"l".repeat(81)] {
        let e = h.err_unchanged(
            &url,
            "AddPermission",
            json!({"QueueUrl": url, "Label": bad, "AWSAccountIds": ["111111111111"], "Actions": ["SendMessage"]}),
        );
        assert_eq!(e.shape(), "InvalidParameterValueException", "{bad}");
    }
    assert!(!h.attrs(&url).contains_key("Policy"));
}

#[test]
fn tag_limits() {
    let mut h = Sqs::new();
    let url = h.create("t", json!({}));
    // Key 1–128 chars, value ≤256, no `aws:` prefix ([DOC] quotas); exact texts are moto's only.
    let long_key = "k".repeat(129);
    let long_value = "v".repeat(257);
    for tags in [
        json!({ long_key.as_str(): "v" }),
        json!({ "k": long_value.as_str() }),
        json!({ "aws:reserved": "v" }),
    ] {
        let e = h.err_unchanged(&url, "TagQueue", json!({"QueueUrl": url, "Tags": tags}));
        assert_eq!(e.shape(), "InvalidParameterValueException", "{tags}");
    }
    let ok_key = "k".repeat(128);
    let ok_value = "v".repeat(256);
    h.ok(
        "TagQueue",
        json!({"QueueUrl": url, "Tags": { ok_key.as_str(): ok_value.as_str(), "a b_.:/=+-@": "x" }}),
    );
    let r = h.ok("ListQueueTags", json!({"QueueUrl": url}));
    assert_eq!(r["Tags"].as_object().unwrap().len(), 2);
}

#[test]
fn sse_sqs_can_be_turned_off_and_on() {
    let mut h = Sqs::new();
    let url = h.create("e", json!({"SqsManagedSseEnabled": "false"}));
    assert_eq!(h.attr(&url, "SqsManagedSseEnabled").unwrap(), "false");
    h.set_attrs(&url, json!({"SqsManagedSseEnabled": "true"}));
    assert_eq!(h.attr(&url, "SqsManagedSseEnabled").unwrap(), "true");
    let e = h.err_unchanged(
        &url,
        "SetQueueAttributes",
        json!({"QueueUrl": url, "Attributes": {"SqsManagedSseEnabled": "maybe"}}),
    );
    assert_err(
        &e,
        "InvalidAttributeValue",
        "Invalid value for the parameter SqsManagedSseEnabled.",
    );
}

#[test]
fn fifo_all_attributes_key_set() {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", json!({}));
    let mut keys: Vec<String> = h.attrs(&url).keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        vec![
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesDelayed",
            "ApproximateNumberOfMessagesNotVisible",
            "ContentBasedDeduplication",
            "CreatedTimestamp",
            "DeduplicationScope",
            "DelaySeconds",
            "FifoQueue",
            "FifoThroughputLimit",
            "LastModifiedTimestamp",
            "MaximumMessageSize",
            "MessageRetentionPeriod",
            "QueueArn",
            "ReceiveMessageWaitTimeSeconds",
            "SqsManagedSseEnabled",
            "VisibilityTimeout",
        ]
    );
}

#[test]
fn string_attribute_values_with_invalid_characters_are_invalid_parameter_value() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    // §5.1: the body character set applies, but the error is InvalidParameterValue.
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x",
               "MessageAttributes": {"a": {"DataType": "String", "StringValue": "bad\u{1}"}}}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
}

#[test]
fn add_permission_keeps_a_single_object_statement() {
    // IAM lets `Statement` be one object rather than a list; AddPermission must keep it.
    let mut h = Sqs::new();
    let url = h.create("one", json!({}));
    let own = json!({"Version": "2012-10-17", "Statement": {"Sid": "Own", "Effect": "Allow", "Principal": "*", "Action": "SQS:SendMessage", "Resource": Sqs::arn("one")}});
    h.set_attrs(&url, json!({"Policy": own.to_string()}));
    h.ok(
        "AddPermission",
        json!({"QueueUrl": url, "Label": "L", "AWSAccountIds": ["111111111111"], "Actions": ["ReceiveMessage"]}),
    );
    let sids: Vec<String> = policy(&mut h, &url)["Statement"]
        .as_array()
        .expect("statements")
        .iter()
        .map(|s| s["Sid"].as_str().unwrap_or("?").to_string())
        .collect();
    assert_eq!(sids, vec!["Own", "L"]);
    h.ok("RemovePermission", json!({"QueueUrl": url, "Label": "Own"}));
    assert_eq!(
        policy(&mut h, &url)["Statement"].as_array().unwrap().len(),
        1
    );
}

#[test]
fn add_permission_over_the_policy_quotas_is_over_limit() {
    // Quotas ([DOC] quotas-policies.html): 20 statements, 50 principals per policy; AddPermission
    // answers OverLimit (403) when the queue's permissions are at the maximum ([MODEL]).
    let mut h = Sqs::new();
    let url = h.create("quota", json!({}));
    for i in 0..20 {
        h.ok(
            "AddPermission",
            json!({"QueueUrl": url, "Label": format!("L{i}"), "AWSAccountIds": ["111111111111"], "Actions": ["SendMessage"]}),
        );
    }
    let e = h.err_unchanged(
        &url,
        "AddPermission",
        json!({"QueueUrl": url, "Label": "L20", "AWSAccountIds": ["111111111111"], "Actions": ["SendMessage"]}),
    );
    assert_eq!(e.shape(), "OverLimit");
    assert_eq!(e.http_status(), 403);
    assert_eq!(
        policy(&mut h, &url)["Statement"].as_array().unwrap().len(),
        20
    );

    let url = h.create("principals", json!({}));
    let accounts = |n: u64, from: u64| -> Vec<String> {
        (from..from + n)
            .map(|i| format!("{:012}", 100_000_000_000 + i))
            .collect()
    };
    let e = h.err_unchanged(
        &url,
        "AddPermission",
        json!({"QueueUrl": url, "Label": "many", "AWSAccountIds": accounts(51, 0), "Actions": ["SendMessage"]}),
    );
    assert_eq!(e.shape(), "OverLimit");
    assert!(!h.attrs(&url).contains_key("Policy"));
    h.ok(
        "AddPermission",
        json!({"QueueUrl": url, "Label": "fifty", "AWSAccountIds": accounts(50, 0), "Actions": ["SendMessage"]}),
    );
    let e = h.err_unchanged(
        &url,
        "AddPermission",
        json!({"QueueUrl": url, "Label": "one-more", "AWSAccountIds": accounts(1, 50), "Actions": ["SendMessage"]}),
    );
    assert_eq!(e.shape(), "OverLimit");
}

/// A policy document of exactly `bytes` bytes, padded in its `Id` with two-byte characters so
/// that the quota is seen to count bytes, not characters.
fn policy_of(bytes: usize) -> String {
    let frame = r#"{"Version":"2012-10-17","Id":"","Statement":[]}"#;
    let room = bytes - frame.len();
    let pad = format!("{}{}", "é".repeat(room / 2), "a".repeat(room % 2));
    let p = frame.replace(r#""Id":"""#, &format!(r#""Id":"{pad}""#));
    assert_eq!(p.len(), bytes);
    p
}

#[test]
fn a_policy_over_8192_bytes_is_over_limit() {
    let mut h = Sqs::new();
    let url = h.create("big", json!({}));
    let at_limit = policy_of(8_192);
    h.set_attrs(&url, json!({"Policy": at_limit}));
    assert_eq!(h.attr(&url, "Policy").unwrap(), at_limit);
    for over in [policy_of(8_193), policy_of(8_194)] {
        let e = h.err_unchanged(
            &url,
            "SetQueueAttributes",
            json!({"QueueUrl": url, "Attributes": {"Policy": over}}),
        );
        assert_err(
            &e,
            "OverLimit",
            "Submitted policy is over max allowed size.",
        );
        assert_eq!(e.http_status(), 403);
        let e = h.err(
            "CreateQueue",
            json!({"QueueName": "fresh", "Attributes": {"Policy": over}}),
        );
        assert_err(
            &e,
            "OverLimit",
            "Submitted policy is over max allowed size.",
        );
    }
    assert_eq!(
        h.err("GetQueueUrl", json!({"QueueName": "fresh"})).shape(),
        "QueueDoesNotExist"
    );
}

#[test]
fn add_permission_that_grows_the_policy_past_8192_bytes_is_over_limit() {
    // Within the statement and principal quotas, 80-character labels and seven actions per
    // statement make the policy outgrow its byte quota first.
    let mut h = Sqs::new();
    let url = h.create("grow", json!({}));
    let actions = &GRANTABLE_ACTIONS[..7];
    let request = |i: usize| {
        json!({"QueueUrl": url, "Label": format!("{i:0>80}"), "Actions": actions,
               "AWSAccountIds": ["111111111111", "222222222222"]})
    };
    let mut added = 0;
    while h.call("AddPermission", request(added)).is_ok() {
        added += 1;
        assert!(h.attr(&url, "Policy").unwrap().len() <= 8_192);
    }
    assert!(
        added < 20,
        "the byte quota, not the statement quota, refused"
    );
    let before = h.attr(&url, "Policy");
    let e = h.err_unchanged(&url, "AddPermission", request(added));
    assert_err(
        &e,
        "OverLimit",
        "Submitted policy is over max allowed size.",
    );
    assert_eq!(e.http_status(), 403);
    assert_eq!(h.attr(&url, "Policy"), before);
}
