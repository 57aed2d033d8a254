//! Visibility timeouts, receipt handles and in-flight limits (§7, §10 for the long-poll case).
mod common;

use common::*;
use serde_json::json;
use wasq::EngineConfig;

fn setup(attrs: serde_json::Value) -> (Sqs, String) {
    let mut h = Sqs::new();
    let url = h.create("vis", attrs);
    (h, url)
}

#[test]
fn default_visibility_timeout_is_30_seconds() {
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    assert_eq!(h.receive(&url, 1).len(), 1);
    assert!(!h.receivable(&url));
    h.advance(29_999);
    assert!(h.receive(&url, 1).is_empty());
    h.advance(1);
    assert!(h.receivable(&url));
    let again = h.receive(&url, 1);
    assert_eq!(receive_count(&again[0]), 2);
}

#[test]
fn per_receive_timeout_applies_only_to_that_receive() {
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    assert_eq!(
        h.receive_with(&url, json!({"VisibilityTimeout": 5})).len(),
        1
    );
    h.advance_secs(5);
    assert_eq!(h.receive(&url, 1).len(), 1, "queue default applies again");
    h.advance_secs(29);
    assert!(h.receive(&url, 1).is_empty());
    h.advance_secs(1);
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn zero_visibility_on_receive_leaves_the_message_visible() {
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    let a = h.receive_with(&url, json!({"VisibilityTimeout": 0}));
    let b = h.receive_with(&url, json!({"VisibilityTimeout": 0}));
    assert_eq!((a.len(), b.len()), (1, 1));
    assert_eq!(receive_count(&b[0]), 2);
    assert_eq!(h.counts(&url), (1, 0, 0));
}

#[test]
fn change_visibility_counts_from_the_call() {
    // §7.2 example: queue default 60 s, 15 s elapsed, set 10 → visible 25 s after the receive.
    let (mut h, url) = setup(json!({"VisibilityTimeout": "60"}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    h.advance_secs(15);
    h.change_visibility(&url, &handle(&m), 10).unwrap();
    h.advance(9_999);
    assert!(h.receive(&url, 1).is_empty());
    h.advance(1);
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn change_visibility_zero_makes_visible_at_once() {
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    h.change_visibility(&url, &handle(&m), 0).unwrap();
    assert_eq!(h.counts(&url), (1, 0, 0));
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn repeated_extension_beyond_the_original_window() {
    // AWS-recorded (§7.2): queue VisibilityTimeout 2; every second, set it to 2 again: after 4 s
    // (twice the original window) the message is still hidden, and comes back once left alone.
    let (mut h, url) = setup(json!({"VisibilityTimeout": "2"}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    for _ in 0..4 {
        h.advance_secs(1);
        h.change_visibility(&url, &handle(&m), 2).unwrap();
        assert!(h.receive(&url, 1).is_empty());
    }
    h.advance(1_999);
    assert!(h.receive(&url, 1).is_empty());
    h.advance(1);
    assert_eq!(bodies(&h.receive(&url, 1)), vec!["x"]);
}

#[test]
fn twelve_hour_cap_is_counted_from_the_receive() {
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    h.advance_secs(1);
    let rh = handle(&m);
    let before = h.peek(&url);
    let e = h.change_visibility(&url, &rh, 43_200).unwrap_err();
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds].",
    );
    assert_eq!(h.peek(&url), before, "failed change changed nothing");
    h.change_visibility(&url, &rh, 43_195).unwrap();
    // Extending does not reset the cap: 10 h later, another 3 h is too much, 7,000 s is fine.
    h.advance_secs(36_000);
    let e = h.change_visibility(&url, &rh, 3 * 3600).unwrap_err();
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value 10800 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds].",
    );
    h.change_visibility(&url, &rh, 7_000).unwrap();
}

#[test]
fn twelve_hour_cap_refuses_reaching_exactly_twelve_hours() {
    // With no time elapsed, 43,200 s would end the window exactly twelve hours after the
    // receive, which AWS refuses (awsdocs/amazon-sqs-developer-guide#40, aws/aws-sdk-net#794);
    // one second less is inside the limit.
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    let rh = handle(&h.receive(&url, 1)[0]);
    let e = h.change_visibility(&url, &rh, 43_200).unwrap_err();
    assert_eq!(e.shape(), "InvalidParameterValueException");
    h.change_visibility(&url, &rh, 43_199).unwrap();
    h.advance_secs(43_198);
    assert!(h.receive(&url, 1).is_empty(), "43,199 s applied");
    h.advance_secs(1);
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn receive_with_twelve_hours_then_change_counts_from_that_receive() {
    // A receive may ask for the whole 43,200 s; a change one second later then has 43,199 s
    // of the twelve hours left, so it may ask for 43,198 s at most.
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    let got = h.receive_with(&url, json!({"VisibilityTimeout": 43_200}));
    let rh = handle(&got[0]);
    h.advance_secs(1);
    let e = h.change_visibility(&url, &rh, 43_199).unwrap_err();
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value 43199 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds].",
    );
    h.change_visibility(&url, &rh, 43_198).unwrap();
}

#[test]
fn visibility_timeout_out_of_range_on_receive_and_change() {
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    // Range 0–43,200 (§4.10, §4.13); the range message was not recorded, only the code.
    let e = h.err_unchanged(
        &url,
        "ReceiveMessage",
        json!({"QueueUrl": url, "VisibilityTimeout": 43_201}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    let e = h.err_unchanged(
        &url,
        "ReceiveMessage",
        json!({"QueueUrl": url, "VisibilityTimeout": -1}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    let m = h.receive(&url, 1).remove(0);
    let e = h.err_unchanged(
        &url,
        "ChangeMessageVisibility",
        json!({"QueueUrl": url, "ReceiptHandle": handle(&m), "VisibilityTimeout": 43_201}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
}

#[test]
fn every_receive_mints_a_new_short_receipt_handle() {
    let (mut h, url) = setup(json!({"VisibilityTimeout": "0"}));
    h.send(&url, "x");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..5 {
        let m = h.receive(&url, 1).remove(0);
        let rh = handle(&m);
        assert!(rh.len() <= 1024);
        assert!(seen.insert(rh), "handle reused");
    }
}

#[test]
fn garbage_handles_are_rejected_on_both_queue_types() {
    let mut h = Sqs::new();
    let std_url = h.create("s", json!({}));
    let fifo_url = h.create_fifo("f.fifo", json!({}));
    for url in [std_url, fifo_url] {
        for garbage in ["garbage", "INVALID"] {
            let e = h.err_unchanged(
                &url,
                "DeleteMessage",
                json!({"QueueUrl": url, "ReceiptHandle": garbage}),
            );
            let msg =
                format!("The input receipt handle \"{garbage}\" is not a valid receipt handle.");
            assert_err(&e, "ReceiptHandleIsInvalid", &msg);
            let e = h.err_unchanged(
                &url,
                "ChangeMessageVisibility",
                json!({"QueueUrl": url, "ReceiptHandle": garbage, "VisibilityTimeout": 5}),
            );
            assert_err(&e, "ReceiptHandleIsInvalid", &msg);
        }
    }
}

#[test]
fn standard_delete_with_expired_handle_succeeds() {
    let (mut h, url) = setup(json!({"VisibilityTimeout": "1"}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    h.advance_secs(2);
    h.delete(&url, &handle(&m));
    assert_eq!(h.counts(&url), (0, 0, 0));
    assert!(h.receive(&url, 1).is_empty());
    // Deleting again with the same handle: still fine, any number of times.
    h.delete(&url, &handle(&m));
    h.delete(&url, &handle(&m));
}

#[test]
fn fifo_delete_with_expired_handle_fails() {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", json!({"VisibilityTimeout": "1"}));
    h.send_fifo(&url, "g", "d", "x");
    let m = h.receive(&url, 1).remove(0);
    h.advance_secs(2);
    let rh = handle(&m);
    let e = h.err_unchanged(
        &url,
        "DeleteMessage",
        json!({"QueueUrl": url, "ReceiptHandle": rh}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        &format!("Value {rh} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."),
    );
    assert_eq!(h.counts(&url), (1, 0, 0));
}

#[test]
fn delete_after_extension_succeeds_on_both_types() {
    let mut h = Sqs::new();
    let s = h.create("s", json!({"VisibilityTimeout": "2"}));
    let f = h.create_fifo("f.fifo", json!({"VisibilityTimeout": "2"}));
    h.send(&s, "x");
    h.send_fifo(&f, "g", "d", "x");
    let ms = h.receive(&s, 1).remove(0);
    let mf = h.receive(&f, 1).remove(0);
    h.change_visibility(&s, &handle(&ms), 10).unwrap();
    h.change_visibility(&f, &handle(&mf), 10).unwrap();
    h.advance_secs(5);
    h.delete(&s, &handle(&ms));
    h.delete(&f, &handle(&mf));
    assert_eq!(h.counts(&s), (0, 0, 0));
    assert_eq!(h.counts(&f), (0, 0, 0));
}

#[test]
fn older_handle_still_changes_visibility_on_standard() {
    let (mut h, url) = setup(json!({"VisibilityTimeout": "1"}));
    h.send(&url, "x");
    let first = h.receive(&url, 1).remove(0);
    h.advance_secs(1);
    let second = h.receive_with(&url, json!({"VisibilityTimeout": 100}));
    assert_eq!(second.len(), 1);
    assert_eq!(h.counts(&url), (0, 1, 0));
    h.change_visibility(&url, &handle(&first), 0).unwrap();
    assert_eq!(h.counts(&url), (1, 0, 0), "older handle made it visible");
}

#[test]
fn change_visibility_on_deleted_message_is_invalid_parameter() {
    let (mut h, url) = setup(json!({}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    let rh = handle(&m);
    h.delete(&url, &rh);
    let e = h.change_visibility(&url, &rh, 5).unwrap_err();
    assert_err(
        &e,
        "InvalidParameterValueException",
        &format!("Value {rh} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change."),
    );
}

#[test]
fn change_visibility_after_expiry_returns_ok() {
    let (mut h, url) = setup(json!({"VisibilityTimeout": "1"}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    h.advance_secs(5);
    // AWS answers 200 (§7.3, §7.4: no MessageNotInflight).
    h.change_visibility(&url, &handle(&m), 0).unwrap();
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn delete_of_message_expired_by_retention_while_in_flight_succeeds() {
    let (mut h, url) = setup(json!({"MessageRetentionPeriod": "60", "VisibilityTimeout": "120"}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    h.advance_secs(61);
    assert_eq!(h.counts(&url), (0, 0, 0), "expired while in flight");
    h.delete(&url, &handle(&m));
}

#[test]
fn standard_inflight_limit_overlimit_on_short_poll_empty_on_long_poll() {
    let mut h = Sqs::with_config(EngineConfig {
        seed: 1,
        standard_inflight_limit: 2,
        ..EngineConfig::default()
    });
    let url = h.create("lim", json!({}));
    for i in 0..5 {
        h.send(&url, &format!("m{i}"));
    }
    let got = h.receive(&url, 10);
    assert!(
        !got.is_empty() && got.len() <= 2,
        "never beyond the limit: {}",
        got.len()
    );
    if got.len() < 2 {
        assert_eq!(h.receive(&url, 10).len(), 1);
    }
    let e = h.err_unchanged(
        &url,
        "ReceiveMessage",
        json!({"QueueUrl": url, "WaitTimeSeconds": 0}),
    );
    assert_eq!(e.shape(), "OverLimit");
    assert_eq!(e.http_status(), 403);
    // Long polling (explicit or from the queue default) is silent: the engine answers empty.
    let r = h.ok(
        "ReceiveMessage",
        json!({"QueueUrl": url, "WaitTimeSeconds": 5}),
    );
    assert!(r.get("Messages").is_none(), "{r}");
    h.set_attrs(&url, json!({"ReceiveMessageWaitTimeSeconds": "3"}));
    let r = h.ok("ReceiveMessage", json!({"QueueUrl": url}));
    assert!(r.get("Messages").is_none(), "{r}");
    // An explicit WaitTimeSeconds=0 forces a short poll over the queue default (§10).
    let e = h.err_unchanged(
        &url,
        "ReceiveMessage",
        json!({"QueueUrl": url, "WaitTimeSeconds": 0}),
    );
    assert_eq!(e.shape(), "OverLimit");
    assert_eq!(h.counts(&url), (3, 2, 0));
    // Freeing a slot lets receives through again.
    h.advance_secs(30);
    assert_eq!(h.receive(&url, 1).len(), 1);
}

#[test]
fn fifo_inflight_limit_returns_nothing_without_error() {
    let mut h = Sqs::with_config(EngineConfig {
        seed: 1,
        fifo_inflight_limit: 2,
        ..EngineConfig::default()
    });
    let url = h.create_fifo("lim.fifo", json!({}));
    for i in 0..4 {
        h.send_fifo(&url, &format!("g{i}"), &format!("d{i}"), &format!("m{i}"));
    }
    let got = h.receive(&url, 10);
    assert_eq!(got.len(), 2);
    let r = h.ok(
        "ReceiveMessage",
        json!({"QueueUrl": url, "WaitTimeSeconds": 0}),
    );
    assert!(r.get("Messages").is_none(), "{r}");
}

#[test]
fn receivable_reports_whether_a_receive_would_return_something() {
    let (mut h, url) = setup(json!({}));
    assert!(!h.receivable(&url));
    h.send_with(&url, "x", json!({"DelaySeconds": 2}));
    assert!(!h.receivable(&url));
    h.advance_secs(2);
    assert!(h.receivable(&url));
    let m = h.receive(&url, 1).remove(0);
    assert!(!h.receivable(&url));
    h.delete(&url, &handle(&m));
    assert!(!h.receivable(&url));
    let e = h
        .svc
        .receivable(h.now, &wasq::CallContext::default(), &Sqs::url("nope"))
        .unwrap_err();
    assert_eq!(e.shape(), "QueueDoesNotExist");
}

#[test]
fn a_message_received_three_times_goes_to_the_back_of_a_standard_queue() {
    // §7.2 ([DOC] sqs-available-cloudwatch-metrics): a message received three times or more
    // without being deleted is moved to the back of the queue, so a poison message stops being
    // the first one every receive returns.
    let (mut h, url) = setup(json!({"VisibilityTimeout": "0"}));
    h.send(&url, "poison");
    h.advance(1);
    h.send(&url, "a");
    h.advance(1);
    h.send(&url, "b");
    for count in 1..=3 {
        let m = h.receive(&url, 1).remove(0);
        assert_eq!(m["Body"], "poison");
        assert_eq!(receive_count(&m), count);
    }
    // Received three times: now behind the messages received fewer times, sent after it or not.
    assert_eq!(bodies(&h.receive(&url, 1)), vec!["a"]);
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["a", "b", "poison"]);
    // The order survives a restore (it is derived from the receive counts).
    let mut r = h.restored();
    assert_eq!(bodies(&r.receive(&url, 10)), vec!["a", "b", "poison"]);
}
