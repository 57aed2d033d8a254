//! Message-move task handles as AWS's are: base64 of `{"taskId": <UUID>, "sourceArn": …}`, and
//! CancelMessageMoveTask's three refusals of a handle. Recorded against AWS, issue #33 item 3.
mod common;

use base64::Engine as _;
use common::*;
use serde_json::{json, Value};

fn b64(v: &Value) -> String {
    base64::engine::general_purpose::STANDARD.encode(v.to_string())
}

fn decode(handle: &str) -> Value {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(handle)
        .expect("a handle is base64");
    serde_json::from_slice(&raw).expect("a handle is JSON")
}

fn is_uuid_v4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && s.chars()
            .all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c))
        && parts[2].starts_with('4')
}

/// A dead-letter queue with one message and a running task moving it back at one a second.
fn started() -> (Sqs, String) {
    let mut h = Sqs::new();
    let dlq = h.create("dlq", json!({}));
    let policy = json!({"deadLetterTargetArn": Sqs::arn("dlq"), "maxReceiveCount": 1}).to_string();
    h.create("src", json!({ "RedrivePolicy": policy }));
    h.send(&dlq, "a");
    h.send(&dlq, "b");
    let r = h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("src"), "MaxNumberOfMessagesPerSecond": 1}),
    );
    (h, r["TaskHandle"].as_str().unwrap().to_string())
}

#[test]
fn a_task_handle_is_base64_of_a_uuid_task_id_and_the_source_arn() {
    let (mut h, handle) = started();
    let raw = base64::engine::general_purpose::STANDARD
        .decode(&handle)
        .unwrap();
    let text = String::from_utf8(raw).unwrap();
    assert!(text.starts_with("{\"taskId\":"), "{text}");
    let v = decode(&handle);
    let id = v["taskId"].as_str().unwrap();
    assert!(is_uuid_v4(id), "taskId {id} is a UUID");
    assert_eq!(v["sourceArn"], Sqs::arn("dlq"));
    // The listed task shows the same handle, and it cancels the task.
    let listed = h.ok(
        "ListMessageMoveTasks",
        json!({"SourceArn": Sqs::arn("dlq")}),
    );
    assert_eq!(listed["Results"][0]["TaskHandle"], handle);
    h.ok("CancelMessageMoveTask", json!({ "TaskHandle": handle }));
}

#[test]
fn task_ids_come_from_the_seed() {
    // Same seed, same history: the same handle. A second task gets another id.
    let (mut h, first) = started();
    let (_, again) = started();
    assert_eq!(first, again);
    h.ok("CancelMessageMoveTask", json!({ "TaskHandle": first }));
    let second = h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("src"), "MaxNumberOfMessagesPerSecond": 1}),
    )["TaskHandle"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(decode(&first)["taskId"], decode(&second)["taskId"]);
}

#[test]
fn a_well_formed_handle_naming_no_task_is_404_task_does_not_exist() {
    let (mut h, _) = started();
    for task_id in ["3f2504e0-4f89-41d3-9a0c-0305e82c3301", "8"] {
        let handle = b64(&json!({"taskId": task_id, "sourceArn": Sqs::arn("dlq")}));
        let e = h.err("CancelMessageMoveTask", json!({ "TaskHandle": handle }));
        assert_err(&e, "ResourceNotFoundException", "Task does not exist.");
        assert_eq!(e.http_status(), 404);
    }
}

#[test]
fn a_handle_whose_source_names_no_queue_is_404_on_the_source_arn() {
    let (mut h, handle) = started();
    let task_id = decode(&handle)["taskId"].clone();
    let ghost = b64(&json!({"taskId": task_id, "sourceArn": Sqs::arn("ghost")}));
    let e = h.err("CancelMessageMoveTask", json!({ "TaskHandle": ghost }));
    assert_err(
        &e,
        "ResourceNotFoundException",
        "The resource that you specified for the SourceArn parameter doesn't exist.",
    );
    assert_eq!(e.http_status(), 404);
}

#[test]
fn a_handle_that_does_not_decode_is_400_invalid() {
    let (mut h, _) = started();
    for bad in ["not a handle", "e30=", "bm90IGpzb24="] {
        let e = h.err("CancelMessageMoveTask", json!({ "TaskHandle": bad }));
        assert_err(
            &e,
            "InvalidParameterValueException",
            "Value for parameter TaskHandle is invalid.",
        );
        assert_eq!(e.http_status(), 400);
    }
}
