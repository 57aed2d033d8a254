//! FIFO queues (§8) and fair queues on standard queues (§9).
mod common;

use common::*;
use serde_json::{json, Value};

fn fifo(extra: Value) -> (Sqs, String) {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", extra);
    (h, url)
}

fn seq(v: &Value) -> u128 {
    v.as_str()
        .expect("SequenceNumber is a string")
        .parse()
        .expect("SequenceNumber is decimal")
}

#[test]
fn fifo_send_validation() {
    let (mut h, url) = fifo(json!({}));
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "MessageDeduplicationId": "d"}),
    );
    assert_err(
        &e,
        "MissingRequiredParameterException",
        "The request must contain the parameter MessageGroupId.",
    );
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "MessageGroupId": "g"}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
    );
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "d", "DelaySeconds": 2}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value 2 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.",
    );
    for (param, bad) in [
        ("MessageGroupId", ""),
        ("MessageGroupId", "a b"),
        ("MessageDeduplicationId", ""),
        ("MessageDeduplicationId", &"d".repeat(129)),
    ] {
        let mut p = json!({"QueueUrl": url, "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "d"});
        p[param] = json!(bad);
        let e = h.err_unchanged(&url, "SendMessage", p);
        assert_err(
            &e,
            "InvalidParameterValueException",
            &format!("Value {bad} for parameter {param} is invalid. Reason: {param} can only include alphanumeric and punctuation characters. 1 to 128 in length."),
        );
    }
    // DelaySeconds 0 is accepted.
    h.send_with(
        &url,
        "x",
        json!({"MessageGroupId": "g", "MessageDeduplicationId": "d", "DelaySeconds": 0}),
    );
    assert_eq!(h.counts(&url), (1, 0, 0));
}

#[test]
fn fifo_batch_missing_group_or_dedup_fails_the_whole_request() {
    let (mut h, url) = fifo(json!({}));
    let e = h.err_unchanged(
        &url,
        "SendMessageBatch",
        json!({"QueueUrl": url, "Entries": [
            {"Id": "a", "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "1"},
            {"Id": "b", "MessageBody": "y", "MessageDeduplicationId": "2"}]}),
    );
    // Note: InvalidParameterValue here, not MissingParameter (§4.9).
    assert_err(
        &e,
        "InvalidParameterValueException",
        "The request must contain the parameter MessageGroupId.",
    );
    let e = h.err_unchanged(
        &url,
        "SendMessageBatch",
        json!({"QueueUrl": url, "Entries": [
            {"Id": "a", "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "1"},
            {"Id": "b", "MessageBody": "y", "MessageGroupId": "g"}]}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
    );
    assert_eq!(h.counts(&url), (0, 0, 0));
}

#[test]
fn sequence_numbers_are_strictly_increasing_decimal_strings() {
    let (mut h, url) = fifo(json!({}));
    let mut last = 0u128;
    let mut by_id = std::collections::BTreeMap::new();
    for i in 0..5 {
        let r = h.send_fifo(
            &url,
            if i % 2 == 0 { "a" } else { "b" },
            &format!("d{i}"),
            &format!("m{i}"),
        );
        let s = seq(&r["SequenceNumber"]);
        assert!(s > last, "{s} after {last}");
        last = s;
        by_id.insert(
            r["MessageId"].as_str().unwrap().to_string(),
            r["SequenceNumber"].clone(),
        );
    }
    let r = h.ok(
        "SendMessageBatch",
        json!({"QueueUrl": url, "Entries": [
            {"Id": "x", "MessageBody": "bx", "MessageGroupId": "a", "MessageDeduplicationId": "bx"},
            {"Id": "y", "MessageBody": "by", "MessageGroupId": "a", "MessageDeduplicationId": "by"}]}),
    );
    let ok = r["Successful"].as_array().unwrap();
    let (sx, sy) = (seq(&ok[0]["SequenceNumber"]), seq(&ok[1]["SequenceNumber"]));
    assert!(
        last < sx && sx < sy,
        "batch entries enqueued in request order"
    );
    // Received messages carry the same number, also on a second receive.
    let got = h.receive_with(
        &url,
        json!({"MaxNumberOfMessages": 10, "VisibilityTimeout": 0}),
    );
    for m in &got {
        if let Some(s) = by_id.get(m["MessageId"].as_str().unwrap()) {
            assert_eq!(&m["Attributes"]["SequenceNumber"], s);
        }
    }
    let again = h.receive_with(&url, json!({"MaxNumberOfMessages": 10}));
    assert_eq!(got.len(), again.len());
    for (a, b) in got.iter().zip(&again) {
        assert_eq!(
            a["Attributes"]["SequenceNumber"],
            b["Attributes"]["SequenceNumber"]
        );
        assert_eq!(receive_count(b), 2);
        assert_ne!(handle(a), handle(b));
    }
}

#[test]
fn fifo_receive_attributes() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "group-1", "dedup-1", "x");
    let m = h.receive(&url, 1).remove(0);
    let a = m["Attributes"].as_object().unwrap();
    let mut keys: Vec<&str> = a.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        vec![
            "ApproximateFirstReceiveTimestamp",
            "ApproximateReceiveCount",
            "MessageDeduplicationId",
            "MessageGroupId",
            "SenderId",
            "SentTimestamp",
            "SequenceNumber"
        ]
    );
    assert_eq!(a["MessageDeduplicationId"], "dedup-1");
    assert_eq!(a["MessageGroupId"], "group-1");
}

#[test]
fn a_receive_takes_as_much_of_one_group_as_possible() {
    let (mut h, url) = fifo(json!({}));
    for (i, (g, b)) in [
        ("g1", "g1-m1"),
        ("g2", "g2-m1"),
        ("g1", "g1-m2"),
        ("g1", "g1-m3"),
    ]
    .iter()
    .enumerate()
    {
        h.send_fifo(&url, g, &format!("d{i}"), b);
    }
    assert_eq!(
        bodies(&h.receive(&url, 10)),
        vec!["g1-m1", "g1-m2", "g1-m3", "g2-m1"]
    );
}

#[test]
fn a_receive_of_ten_fills_from_several_groups() {
    let (mut h, url) = fifo(json!({}));
    for i in 0..7 {
        h.send_fifo(&url, "A", &format!("a{i}"), &format!("A{i}"));
    }
    for i in 0..3 {
        h.send_fifo(&url, "B", &format!("b{i}"), &format!("B{i}"));
    }
    let got = bodies(&h.receive(&url, 10));
    assert_eq!(got.len(), 10);
    let a: Vec<&String> = got.iter().filter(|b| b.starts_with('A')).collect();
    let b: Vec<&String> = got.iter().filter(|b| b.starts_with('B')).collect();
    assert_eq!(a, vec!["A0", "A1", "A2", "A3", "A4", "A5", "A6"]);
    assert_eq!(b, vec!["B0", "B1", "B2"]);
}

#[test]
fn a_group_is_locked_while_any_of_its_messages_is_in_flight() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g1", "1", "g1-m1");
    h.send_fifo(&url, "g1", "2", "g1-m2");
    h.send_fifo(&url, "g1", "3", "g1-m3");
    h.send_fifo(&url, "g2", "4", "g2-m1");
    let first = h.receive(&url, 2);
    assert_eq!(bodies(&first), vec!["g1-m1", "g1-m2"]);
    assert_eq!(bodies(&h.receive(&url, 1)), vec!["g2-m1"]);
    // Nothing else: g1 locked, g2 locked.
    assert!(h.receive(&url, 10).is_empty());
    // A new message in the locked group does not unlock it.
    h.send_fifo(&url, "g1", "5", "g1-m4");
    assert!(h.receive(&url, 10).is_empty());
    let p = h.peek(&url);
    let g1 = p["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["groupId"] == "g1")
        .unwrap()
        .clone();
    assert_eq!(g1["locked"], true);
    // Deleting one of two in-flight messages keeps it locked; deleting both unlocks at once.
    h.delete(&url, &handle(&first[0]));
    assert!(h.receive(&url, 10).is_empty());
    h.delete(&url, &handle(&first[1]));
    assert!(h.receivable(&url));
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["g1-m3", "g1-m4"]);
}

fn partial_visibility_case(extended: usize) -> Vec<String> {
    let (mut h, url) = fifo(json!({"VisibilityTimeout": "5"}));
    for (i, b) in ["foo", "bar", "baz"].iter().enumerate() {
        h.send_fifo(&url, "g", &format!("d{i}"), b);
    }
    let got = h.receive(&url, 10);
    assert_eq!(bodies(&got), vec!["foo", "bar", "baz"]);
    h.change_visibility(&url, &handle(&got[extended]), 100)
        .unwrap();
    h.advance_secs(5);
    bodies(&h.receive(&url, 10))
}

#[test]
fn partial_visibility_serves_the_group_up_to_the_first_invisible_message() {
    assert_eq!(partial_visibility_case(0), Vec::<String>::new());
    assert_eq!(partial_visibility_case(1), vec!["foo"]);
    assert_eq!(partial_visibility_case(2), vec!["foo", "bar"]);
}

#[test]
fn terminating_visibility_of_the_head_serves_it_again() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    h.send_fifo(&url, "g", "2", "m2");
    let got = h.receive(&url, 10);
    h.change_visibility(&url, &handle(&got[0]), 0).unwrap();
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["m1"]);
}

#[test]
fn messages_come_back_in_order_after_timeout() {
    let (mut h, url) = fifo(json!({"VisibilityTimeout": "2"}));
    for i in 0..4 {
        h.send_fifo(&url, "g1", &format!("d{i}"), &format!("g1-m{i}"));
    }
    assert_eq!(h.receive(&url, 10).len(), 4);
    h.advance_secs(2);
    assert_eq!(
        bodies(&h.receive(&url, 10)),
        vec!["g1-m0", "g1-m1", "g1-m2", "g1-m3"]
    );
}

#[test]
fn zero_visibility_receive_leaves_the_group_unlocked() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    h.send_fifo(&url, "g", "2", "m2");
    assert_eq!(
        bodies(&h.receive_with(&url, json!({"VisibilityTimeout": 0}))),
        vec!["m1"]
    );
    assert_eq!(
        bodies(&h.receive_with(&url, json!({"MaxNumberOfMessages": 2}))),
        vec!["m1", "m2"]
    );
}

#[test]
fn a_zero_visibility_fifo_handle_is_expired_at_once() {
    // The receive leaves the message visible at once (spec §7.2 ✔), so its window has already
    // ended: on a FIFO queue the handle is refused even in the same millisecond, as a handle
    // whose timeout ran out is (§7.3), and the message is not deleted.
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    let got = h.receive_with(&url, json!({"VisibilityTimeout": 0}));
    let expired = format!(
        "Value {} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.",
        handle(&got[0])
    );
    let e = h.err_unchanged(
        &url,
        "DeleteMessage",
        json!({"QueueUrl": url, "ReceiptHandle": handle(&got[0])}),
    );
    assert_err(&e, "InvalidParameterValueException", &expired);
    let e = h.err_unchanged(
        &url,
        "ChangeMessageVisibility",
        json!({"QueueUrl": url, "ReceiptHandle": handle(&got[0]), "VisibilityTimeout": 10}),
    );
    assert_err(&e, "InvalidParameterValueException", &expired);
    assert_eq!(bodies(&h.receive(&url, 1)), vec!["m1"]);
}

#[test]
fn empty_groups_do_not_block_the_queue() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g1", "1", "a");
    let m = h.receive(&url, 1).remove(0);
    h.delete(&url, &handle(&m));
    h.send_fifo(&url, "g2", "2", "b");
    h.send_fifo(&url, "g1", "3", "c");
    let mut got = bodies(&h.receive(&url, 10));
    got.sort();
    assert_eq!(got, vec!["b", "c"]);
}

#[test]
fn dedup_by_id_within_five_minutes_then_accepted_again() {
    let (mut h, url) = fifo(json!({}));
    let first = h.send_fifo(&url, "g", "same", "one");
    h.advance_secs(299);
    let dup = h.send_fifo(&url, "g", "same", "two");
    // Not recorded on AWS; peers answer with the original id (§8.1, §16).
    assert_eq!(dup["MessageId"], first["MessageId"]);
    assert_eq!(dup["MD5OfMessageBody"], md5_hex(b"two"));
    assert_eq!(h.counts(&url), (1, 0, 0));
    h.advance_secs(2);
    h.send_fifo(&url, "g", "same", "three");
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["one", "three"]);
}

#[test]
fn dedup_is_kept_after_delete() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "d", "one");
    let m = h.receive(&url, 1).remove(0);
    h.delete(&url, &handle(&m));
    h.send_fifo(&url, "g", "d", "again");
    assert!(h.receive(&url, 10).is_empty());
}

#[test]
fn content_based_dedup_uses_sha256_of_the_body_only() {
    let (mut h, url) = fifo(json!({"ContentBasedDeduplication": "true"}));
    h.send_with(&url, "body", json!({"MessageGroupId": "g"}));
    // Same body, different attributes: duplicate.
    h.send_with(&url, "body", json!({"MessageGroupId": "g", "MessageAttributes": {"a": {"DataType": "String", "StringValue": "v"}}}));
    // Explicit id overrides the content hash.
    h.send_with(
        &url,
        "body",
        json!({"MessageGroupId": "g", "MessageDeduplicationId": "explicit"}),
    );
    // A content hash equal to an earlier explicit id is a duplicate.
    let other = "other-body";
    h.send_with(
        &url,
        "x",
        json!({"MessageGroupId": "g", "MessageDeduplicationId": sha256_hex(other.as_bytes())}),
    );
    h.send_with(&url, other, json!({"MessageGroupId": "g"}));
    let got = h.receive(&url, 10);
    assert_eq!(bodies(&got), vec!["body", "body", "x"]);
    assert_eq!(
        sys_attr(&got[0], "MessageDeduplicationId").unwrap(),
        sha256_hex(b"body")
    );
    assert_eq!(
        sys_attr(&got[1], "MessageDeduplicationId").unwrap(),
        "explicit"
    );
}

#[test]
fn queue_scope_dedups_across_groups_message_group_scope_does_not() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g1", "d", "a");
    h.send_fifo(&url, "g2", "d", "b");
    assert_eq!(h.counts(&url), (1, 0, 0));

    let url2 = h.create_fifo("mg.fifo", json!({"DeduplicationScope": "messageGroup"}));
    h.send_fifo(&url2, "g1", "d", "a");
    h.send_fifo(&url2, "g2", "d", "b");
    h.send_fifo(&url2, "g1", "d", "c");
    assert_eq!(h.counts(&url2), (2, 0, 0));
}

#[test]
fn dedup_scope_behaviour_is_fixed_at_creation() {
    let mut h = Sqs::new();
    let q = h.create_fifo("q.fifo", json!({}));
    h.set_attrs(
        &q,
        json!({"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"}),
    );
    assert_eq!(h.attr(&q, "DeduplicationScope").unwrap(), "messageGroup");
    h.send_fifo(&q, "g1", "d", "a");
    h.send_fifo(&q, "g2", "d", "b");
    assert_eq!(h.counts(&q), (1, 0, 0), "still queue-scoped");

    let m = h.create_fifo(
        "m.fifo",
        json!({"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"}),
    );
    h.set_attrs(
        &m,
        json!({"FifoThroughputLimit": "perQueue", "DeduplicationScope": "queue"}),
    );
    assert_eq!(h.attr(&m, "DeduplicationScope").unwrap(), "queue");
    h.send_fifo(&m, "g1", "d", "a");
    h.send_fifo(&m, "g2", "d", "b");
    assert_eq!(h.counts(&m), (2, 0, 0), "still group-scoped");
}

#[test]
fn throughput_and_scope_validation() {
    let mut h = Sqs::new();
    for (name, bad) in [
        ("DeduplicationScope", "bogus"),
        ("FifoThroughputLimit", "perGroup"),
        ("ContentBasedDeduplication", "yes"),
    ] {
        let e = h.err(
            "CreateQueue",
            json!({"QueueName": "v.fifo", "Attributes": {"FifoQueue": "true", name: bad}}),
        );
        assert_err(
            &e,
            "InvalidAttributeValue",
            &format!("Invalid value for the parameter {name}."),
        );
    }
    // perMessageGroupId needs DeduplicationScope=messageGroup (§3.1, [MODEL]); the AWS text is not
    // recorded, so only "refused and nothing created" is asserted.
    let r = h.call(
        "CreateQueue",
        json!({"QueueName": "v.fifo", "Attributes": {"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId"}}),
    );
    assert!(r.is_err(), "{r:?}");
    let r = h.ok("ListQueues", json!({}));
    assert!(r.get("QueueUrls").is_none(), "{r}");
    h.create_fifo(
        "v.fifo",
        json!({"FifoThroughputLimit": "perMessageGroupId", "DeduplicationScope": "messageGroup"}),
    );
}

#[test]
fn fifo_queue_delay_applies_and_is_retroactive() {
    let (mut h, url) = fifo(json!({"DelaySeconds": "2"}));
    // Explicit DelaySeconds=0 still gets the queue delay.
    h.send_with(
        &url,
        "x",
        json!({"MessageGroupId": "g", "MessageDeduplicationId": "1", "DelaySeconds": 0}),
    );
    assert_eq!(h.counts(&url), (0, 0, 1));
    h.advance(1_999);
    assert!(h.receive(&url, 1).is_empty());
    h.advance(1);
    assert_eq!(h.receive(&url, 1).len(), 1);

    let (mut h, url) = fifo(json!({"DelaySeconds": "60"}));
    h.send_fifo(&url, "g", "1", "x");
    h.advance_secs(5);
    h.set_attrs(&url, json!({"DelaySeconds": "0"}));
    assert_eq!(
        h.receive(&url, 1).len(),
        1,
        "shortened delay applies to queued messages"
    );

    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "x");
    h.set_attrs(&url, json!({"DelaySeconds": "30"}));
    assert!(
        h.receive(&url, 1).is_empty(),
        "lengthened delay applies to queued messages"
    );
    h.advance_secs(30);
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn standard_queue_delay_change_is_not_retroactive() {
    let mut h = Sqs::new();
    let url = h.create("s", json!({"DelaySeconds": "10"}));
    h.send(&url, "x");
    h.set_attrs(&url, json!({"DelaySeconds": "0"}));
    assert!(h.receive(&url, 1).is_empty());
    h.advance_secs(10);
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn receive_request_attempt_id_returns_the_same_messages_and_handles() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    h.send_fifo(&url, "g", "2", "m2");
    h.send_fifo(&url, "h", "3", "n1");
    let a = h.receive_with(
        &url,
        json!({"MaxNumberOfMessages": 2, "ReceiveRequestAttemptId": "try-1"}),
    );
    assert_eq!(bodies(&a), vec!["m1", "m2"]);
    h.advance_secs(20);
    let b = h.receive_with(
        &url,
        json!({"MaxNumberOfMessages": 2, "ReceiveRequestAttemptId": "try-1"}),
    );
    assert_eq!(bodies(&b), bodies(&a));
    assert_eq!(
        b.iter().map(handle).collect::<Vec<_>>(),
        a.iter().map(handle).collect::<Vec<_>>()
    );
    // The retry reset the visibility timeout (30 s from the retry).
    h.advance_secs(29);
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["n1"]);
    h.advance_secs(1);
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["m1", "m2"]);
}

#[test]
fn an_empty_answer_under_an_attempt_id_is_not_replayed() {
    let (mut h, url) = fifo(json!({}));
    let attempt = json!({"MaxNumberOfMessages": 10, "ReceiveRequestAttemptId": "try-1"});
    assert!(h.receive_with(&url, attempt.clone()).is_empty());
    h.send_fifo(&url, "g", "1", "m1");
    let a = h.receive_with(&url, attempt.clone());
    assert_eq!(bodies(&a), vec!["m1"]);
    // From here the attempt id names that answer and replays it.
    h.send_fifo(&url, "h", "2", "n1");
    let b = h.receive_with(&url, attempt);
    assert_eq!(bodies(&b), vec!["m1"]);
    assert_eq!(handle(&b[0]), handle(&a[0]));
}

#[test]
fn receive_request_attempt_id_is_not_retryable_after_a_delete() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    h.send_fifo(&url, "g", "2", "m2");
    let a = h.receive_with(
        &url,
        json!({"MaxNumberOfMessages": 2, "ReceiveRequestAttemptId": "try-1"}),
    );
    h.delete(&url, &handle(&a[0]));
    let e = h.err_unchanged(
        &url,
        "ReceiveMessage",
        json!({"QueueUrl": url, "MaxNumberOfMessages": 2, "ReceiveRequestAttemptId": "try-1"}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value try-1 for parameter ReceiveRequestAttemptId is invalid. Reason: The receiveRequestAttemptId is not valid anymore since the receive call is not retryable.",
    );
}

#[test]
fn receive_request_attempt_id_is_not_retryable_after_a_purge() {
    // A purge deletes the received messages, so the retry is refused like after a DeleteMessage
    // (§8.5: retryable only while none of them was deleted); it must not turn into a fresh
    // receive that hands out other messages under the old attempt id.
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    let a = h.receive_with(&url, json!({"ReceiveRequestAttemptId": "try-1"}));
    assert_eq!(bodies(&a), vec!["m1"]);
    h.ok("PurgeQueue", json!({"QueueUrl": url}));
    h.send_fifo(&url, "g", "2", "m2");
    let e = h.err_unchanged(
        &url,
        "ReceiveMessage",
        json!({"QueueUrl": url, "ReceiveRequestAttemptId": "try-1"}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value try-1 for parameter ReceiveRequestAttemptId is invalid. Reason: The receiveRequestAttemptId is not valid anymore since the receive call is not retryable.",
    );
    // The same holds for a restored service, and a new attempt id receives normally.
    let mut r = h.restored();
    let e = r.err(
        "ReceiveMessage",
        json!({"QueueUrl": url, "ReceiveRequestAttemptId": "try-1"}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    let b = h.receive_with(&url, json!({"ReceiveRequestAttemptId": "try-2"}));
    assert_eq!(bodies(&b), vec!["m2"]);
}

#[test]
fn receive_request_attempt_id_expires_after_five_minutes() {
    let (mut h, url) = fifo(json!({"VisibilityTimeout": "600"}));
    h.send_fifo(&url, "g", "1", "m1");
    h.send_fifo(&url, "h", "2", "n1");
    let a = h.receive_with(
        &url,
        json!({"MaxNumberOfMessages": 1, "ReceiveRequestAttemptId": "t"}),
    );
    assert_eq!(bodies(&a), vec!["m1"]);
    h.advance_secs(301);
    // A fresh receive: m1 is still in flight, so n1 comes back.
    let b = h.receive_with(
        &url,
        json!({"MaxNumberOfMessages": 1, "ReceiveRequestAttemptId": "t"}),
    );
    assert_eq!(bodies(&b), vec!["n1"]);
}

#[test]
fn receive_request_attempt_id_is_ignored_on_standard_queues() {
    let mut h = Sqs::new();
    let url = h.create("s", json!({}));
    h.send(&url, "a");
    h.send(&url, "b");
    let a = h.receive_with(&url, json!({"ReceiveRequestAttemptId": "t"}));
    let b = h.receive_with(&url, json!({"ReceiveRequestAttemptId": "t"}));
    assert_eq!(a.len(), 1);
    assert_eq!(b.len(), 1);
    assert_ne!(a[0]["MessageId"], b[0]["MessageId"]);
}

#[test]
fn fair_queue_group_ids_do_not_lock_or_dedup() {
    let mut h = Sqs::new();
    let url = h.create("fair", json!({}));
    for i in 0..5 {
        h.send_with(&url, "same", json!({"MessageGroupId": "t1"}));
        let _ = i;
    }
    let got = h.receive(&url, 10);
    assert_eq!(
        got.len(),
        5,
        "no dedup, no group locking on standard queues"
    );
}

#[test]
fn a_noisy_tenant_cannot_starve_the_others() {
    let mut h = Sqs::new();
    let url = h.create("fair2", json!({"VisibilityTimeout": "3600"}));
    for i in 0..100 {
        h.send_with(&url, &format!("A{i}"), json!({"MessageGroupId": "noisy"}));
    }
    for i in 0..5 {
        h.send_with(&url, &format!("B{i}"), json!({"MessageGroupId": "quiet"}));
    }
    // Consumers hold everything in flight. Once "noisy" has ≥30 in flight and >10 % of the queue's
    // in-flight messages (§9), quiet tenants' messages are preferred; so within 45 deliveries all of
    // B's 5 must have been served, although they were sent after 100 of A's.
    let mut delivered = Vec::new();
    while delivered.len() < 45 {
        let got = h.receive(&url, 5);
        assert!(!got.is_empty());
        delivered.extend(bodies(&got));
    }
    let quiet = delivered.iter().filter(|b| b.starts_with('B')).count();
    assert_eq!(quiet, 5, "delivered: {delivered:?}");
}

#[test]
fn receive_request_attempt_id_is_not_retryable_after_a_visibility_change() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    let a = h.receive_with(&url, json!({"ReceiveRequestAttemptId": "try-2"}));
    h.change_visibility(&url, &handle(&a[0]), 100).unwrap();
    let e = h.err_unchanged(
        &url,
        "ReceiveMessage",
        json!({"QueueUrl": url, "ReceiveRequestAttemptId": "try-2"}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value try-2 for parameter ReceiveRequestAttemptId is invalid. Reason: The receiveRequestAttemptId is not valid anymore since the receive call is not retryable.",
    );
}

#[test]
fn receive_request_attempt_id_format() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    // ≤128 chars of alphanumerics and punctuation (§8.5); the text was not recorded.
    let long = "a".repeat(129);
    for bad in ["has space", long.as_str()] {
        let e = h.err_unchanged(
            &url,
            "ReceiveMessage",
            json!({"QueueUrl": url, "ReceiveRequestAttemptId": bad}),
        );
        assert_eq!(e.shape(), "InvalidParameterValueException", "{bad}");
    }
}

#[test]
fn purge_unlocks_fifo_groups() {
    let (mut h, url) = fifo(json!({}));
    h.send_fifo(&url, "g", "1", "m1");
    h.receive(&url, 1);
    h.ok("PurgeQueue", json!({"QueueUrl": url}));
    h.send_fifo(&url, "g", "2", "m2");
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["m2"]);
}
