//! Dead-letter queues, redrive policies and message-move tasks (§11, §4.16, §4.17).
mod common;

use common::*;
use serde_json::{json, Value};

fn redrive(dlq: &str, max: u32) -> String {
    json!({"deadLetterTargetArn": Sqs::arn(dlq), "maxReceiveCount": max}).to_string()
}

/// A source with a DLQ and a short visibility timeout.
fn pair(max: u32) -> (Sqs, String, String) {
    let mut h = Sqs::new();
    let dlq = h.create("dlq", json!({}));
    let src = h.create(
        "src",
        json!({"VisibilityTimeout": "1", "RedrivePolicy": redrive("dlq", max)}),
    );
    (h, src, dlq)
}

#[test]
fn redrive_policy_validation() {
    let mut h = Sqs::new();
    h.create("dlq", json!({}));
    h.create_fifo("dlq.fifo", json!({}));
    let src = h.create("src", json!({}));
    let fsrc = h.create_fifo("src.fifo", json!({}));
    let arn = Sqs::arn("dlq");
    let bad: Vec<(&str, String)> = vec![
        (
            "max 0",
            json!({"deadLetterTargetArn": arn, "maxReceiveCount": 0}).to_string(),
        ),
        (
            "max 1001",
            json!({"deadLetterTargetArn": arn, "maxReceiveCount": 1001}).to_string(),
        ),
        (
            "max not integer",
            json!({"deadLetterTargetArn": arn, "maxReceiveCount": "abc"}).to_string(),
        ),
        ("no max", json!({"deadLetterTargetArn": arn}).to_string()),
        ("no target", json!({"maxReceiveCount": 3}).to_string()),
        ("not json", "{nope".to_string()),
    ];
    for (why, policy) in bad {
        let e = h.err_unchanged(
            &src,
            "SetQueueAttributes",
            json!({"QueueUrl": src, "Attributes": {"RedrivePolicy": policy}}),
        );
        assert_eq!(e.shape(), "InvalidParameterValueException", "{why}");
        assert!(!h.attrs(&src).contains_key("RedrivePolicy"));
    }
    // Texts below are not AWS-recorded (§11.1): refused, nothing changed.
    let missing =
        json!({"deadLetterTargetArn": Sqs::arn("nowhere"), "maxReceiveCount": 3}).to_string();
    h.err_unchanged(
        &src,
        "SetQueueAttributes",
        json!({"QueueUrl": src, "Attributes": {"RedrivePolicy": missing}}),
    );
    let fifo_dlq =
        json!({"deadLetterTargetArn": Sqs::arn("dlq.fifo"), "maxReceiveCount": 3}).to_string();
    h.err_unchanged(
        &src,
        "SetQueueAttributes",
        json!({"QueueUrl": src, "Attributes": {"RedrivePolicy": fifo_dlq}}),
    );
    let std_dlq = json!({"deadLetterTargetArn": Sqs::arn("dlq"), "maxReceiveCount": 3}).to_string();
    h.err_unchanged(
        &fsrc,
        "SetQueueAttributes",
        json!({"QueueUrl": fsrc, "Attributes": {"RedrivePolicy": std_dlq}}),
    );
    assert!(!h.attrs(&src).contains_key("RedrivePolicy"));
    assert!(!h.attrs(&fsrc).contains_key("RedrivePolicy"));
}

#[test]
fn redrive_policy_is_echoed_with_numeric_count_and_removable() {
    let mut h = Sqs::new();
    h.create("dlq", json!({}));
    let src = h.create("src", json!({}));
    let policy =
        json!({"deadLetterTargetArn": Sqs::arn("dlq"), "maxReceiveCount": "5"}).to_string();
    h.set_attrs(&src, json!({"RedrivePolicy": policy}));
    let got: Value = serde_json::from_str(&h.attr(&src, "RedrivePolicy").unwrap()).unwrap();
    assert_eq!(
        got,
        json!({"deadLetterTargetArn": Sqs::arn("dlq"), "maxReceiveCount": 5})
    );
    h.set_attrs(&src, json!({"RedrivePolicy": ""}));
    assert!(!h.attrs(&src).contains_key("RedrivePolicy"));
}

#[test]
fn message_moves_on_the_receive_after_the_count_is_exhausted() {
    let (mut h, src, dlq) = pair(1);
    let sent = h.send_with(
        &src,
        "payload",
        json!({"MessageAttributes": {"MyAttribute": {"DataType": "String", "StringValue": "foobar"}},
               "MessageSystemAttributes": {"AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1-x"}}}),
    );
    let first = h.receive(&src, 1);
    assert_eq!(first.len(), 1);
    h.advance_secs(1);
    h.events();
    // Expiry alone does not move it.
    assert_eq!(h.counts(&src), (1, 0, 0));
    assert_eq!(h.counts(&dlq), (0, 0, 0));
    // The next receive moves it and returns nothing.
    assert!(h.receive(&src, 1).is_empty());
    let ev = h.events();
    assert!(
        ev.iter().any(|e| e["type"] == "moved-to-dead-letter-queue"
            && e["messageId"] == sent["MessageId"]
            && e["deadLetterQueue"] == "dlq"),
        "{ev:?}"
    );
    assert_eq!(h.counts(&src), (0, 0, 0));
    assert_eq!(h.counts(&dlq), (1, 0, 0));
    assert_eq!(h.peek_state(&src, "dead-lettered").len(), 1);
    let m = h.receive(&dlq, 1).remove(0);
    assert_eq!(m["MessageId"], sent["MessageId"]);
    assert_eq!(m["Body"], "payload");
    assert_eq!(
        m["MD5OfMessageAttributes"],
        "adb59cd4678ea5a855436b949cd07ab6"
    );
    assert_eq!(sys_attr(&m, "ApproximateReceiveCount").unwrap(), "2");
    assert_eq!(sys_attr(&m, "SentTimestamp").unwrap(), T0.to_string());
    assert_eq!(sys_attr(&m, "AWSTraceHeader").unwrap(), "Root=1-x");
    assert_eq!(
        sys_attr(&m, "DeadLetterQueueSourceArn").unwrap(),
        Sqs::arn("src")
    );
    assert_eq!(sys_attr(&first[0], "DeadLetterQueueSourceArn"), None);
    // Peek's removed tails name it by the id it kept: in the source (where it was derived from
    // its sequence) and in the dead-letter queue once deleted there (where it carries the
    // source's id under a sequence of its own).
    assert_eq!(
        h.peek_state(&src, "dead-lettered")[0]["messageId"],
        sent["MessageId"]
    );
    h.delete(&dlq, &handle(&m));
    let gone = h.peek_state(&dlq, "deleted");
    assert_eq!(gone.len(), 1);
    assert_eq!(gone[0]["messageId"], sent["MessageId"]);
}

#[test]
fn max_receive_count_three_allows_three_deliveries() {
    let (mut h, src, dlq) = pair(3);
    h.send(&src, "x");
    for n in 1..=3 {
        let got = h.receive(&src, 1);
        assert_eq!(got.len(), 1, "delivery {n}");
        assert_eq!(receive_count(&got[0]), n);
        h.advance_secs(1);
    }
    assert!(h.receive(&src, 1).is_empty());
    assert_eq!(receive_count(&h.receive(&dlq, 1)[0]), 4);
}

#[test]
fn fifo_to_fifo_dead_letter_keeps_the_group_going() {
    let mut h = Sqs::new();
    let dlq = h.create_fifo("d.fifo", json!({}));
    let src = h.create_fifo(
        "s.fifo",
        json!({"ContentBasedDeduplication": "true", "VisibilityTimeout": "1",
               "RedrivePolicy": json!({"deadLetterTargetArn": Sqs::arn("d.fifo"), "maxReceiveCount": 2}).to_string()}),
    );
    let first = h.send_with(&src, "m1", json!({"MessageGroupId": "g"}));
    h.send_with(&src, "m2", json!({"MessageGroupId": "g"}));
    for _ in 0..2 {
        assert_eq!(bodies(&h.receive(&src, 1)), vec!["m1"]);
        h.advance_secs(1);
    }
    // Third receive moves m1 and the group continues with m2.
    let third = h.receive(&src, 1);
    assert!(
        third.is_empty() || bodies(&third) == vec!["m2"],
        "{third:?}"
    );
    if third.is_empty() {
        assert_eq!(bodies(&h.receive(&src, 1)), vec!["m2"]);
    }
    let d = h.receive(&dlq, 1).remove(0);
    assert_eq!(d["MessageId"], first["MessageId"]);
    assert_eq!(sys_attr(&d, "MessageGroupId").unwrap(), "g");
    // The dedup id is replaced by the message id in the DLQ (§11.2).
    assert_eq!(
        sys_attr(&d, "MessageDeduplicationId").unwrap(),
        first["MessageId"].as_str().unwrap()
    );
}

#[test]
fn retention_in_the_dlq_counts_from_the_original_enqueue_time() {
    let mut h = Sqs::new();
    let dlq = h.create("dlq", json!({"MessageRetentionPeriod": "60"}));
    let src = h.create(
        "src",
        json!({"VisibilityTimeout": "40", "RedrivePolicy": redrive("dlq", 1)}),
    );
    h.send(&src, "x");
    h.receive(&src, 1);
    h.advance_secs(40);
    assert!(h.receive(&src, 1).is_empty());
    assert_eq!(h.counts(&dlq), (1, 0, 0));
    h.advance_secs(19);
    assert_eq!(h.counts(&dlq), (1, 0, 0));
    h.advance_secs(1);
    assert_eq!(
        h.counts(&dlq),
        (0, 0, 0),
        "expired 60 s after the original send"
    );
}

#[test]
fn redrive_allow_policy() {
    let mut h = Sqs::new();
    let deny = h.create(
        "deny",
        json!({"RedriveAllowPolicy": json!({"redrivePermission": "denyAll"}).to_string()}),
    );
    let by = h.create(
        "by",
        json!({"RedriveAllowPolicy": json!({"redrivePermission": "byQueue", "sourceQueueArns": [Sqs::arn("allowed")]}).to_string()}),
    );
    let allowed = h.create("allowed", json!({}));
    let other = h.create("other", json!({}));
    let _ = (deny, by);
    h.err_unchanged(
        &other,
        "SetQueueAttributes",
        json!({"QueueUrl": other, "Attributes": {"RedrivePolicy": redrive("deny", 2)}}),
    );
    h.err_unchanged(
        &other,
        "SetQueueAttributes",
        json!({"QueueUrl": other, "Attributes": {"RedrivePolicy": redrive("by", 2)}}),
    );
    h.set_attrs(&allowed, json!({"RedrivePolicy": redrive("by", 2)}));
    // Shape rules: sourceQueueArns only with byQueue, at most 10.
    let eleven: Vec<String> = (0..11).map(|i| Sqs::arn(&format!("s{i}"))).collect();
    for bad in [
        json!({"redrivePermission": "byQueue", "sourceQueueArns": eleven}),
        json!({"redrivePermission": "allowAll", "sourceQueueArns": [Sqs::arn("allowed")]}),
        json!({"redrivePermission": "sometimes"}),
    ] {
        let e = h.err_unchanged(
            &other,
            "SetQueueAttributes",
            json!({"QueueUrl": other, "Attributes": {"RedriveAllowPolicy": bad.to_string()}}),
        );
        assert_eq!(e.shape(), "InvalidParameterValueException", "{bad}");
    }
}

#[test]
fn list_dead_letter_source_queues() {
    let mut h = Sqs::new();
    let dlq = h.create("dlq", json!({}));
    let r = h.ok("ListDeadLetterSourceQueues", json!({"QueueUrl": dlq}));
    assert_eq!(
        r["queueUrls"],
        json!([]),
        "required member, lower-case: {r}"
    );
    for n in ["s3", "s1", "s2"] {
        h.create(n, json!({"RedrivePolicy": redrive("dlq", 3)}));
    }
    h.create("unrelated", json!({}));
    let r = h.ok("ListDeadLetterSourceQueues", json!({"QueueUrl": dlq}));
    assert_eq!(
        r["queueUrls"],
        json!([Sqs::url("s1"), Sqs::url("s2"), Sqs::url("s3")])
    );
    assert!(r.get("NextToken").is_none());
    let r = h.ok(
        "ListDeadLetterSourceQueues",
        json!({"QueueUrl": dlq, "MaxResults": 2}),
    );
    assert_eq!(r["queueUrls"].as_array().unwrap().len(), 2);
    let tok = r["NextToken"].as_str().expect("more remain").to_string();
    let r = h.ok(
        "ListDeadLetterSourceQueues",
        json!({"QueueUrl": dlq, "MaxResults": 2, "NextToken": tok}),
    );
    assert_eq!(r["queueUrls"].as_array().unwrap().len(), 1);
    assert!(r.get("NextToken").is_none());
}

/// A DLQ holding `n` dead-lettered messages from `src`.
fn filled_dlq(n: usize) -> (Sqs, String, String) {
    let (mut h, src, dlq) = pair(1);
    for i in 0..n {
        h.send(&src, &format!("m{i}"));
    }
    while h.receive(&src, 10).len() == 10 {}
    h.advance_secs(1);
    while !h.receive(&src, 10).is_empty() {}
    h.advance_secs(1);
    while !h.receive(&src, 10).is_empty() {}
    assert_eq!(h.counts(&dlq), (n as u64, 0, 0));
    h.events();
    (h, src, dlq)
}

fn tasks(h: &mut Sqs, source: &str, max: Option<u32>) -> Vec<Value> {
    let mut p = json!({"SourceArn": source});
    if let Some(m) = max {
        p["MaxResults"] = json!(m);
    }
    h.ok("ListMessageMoveTasks", p)["Results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn move_task_errors() {
    let (mut h, src, _dlq) = filled_dlq(2);
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("src")}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Source queue must be configured as a Dead Letter Queue.",
    );
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("ghost")}),
    );
    assert_err(
        &e,
        "ResourceNotFoundException",
        "The resource that you specified for the SourceArn parameter doesn't exist.",
    );
    assert_eq!(e.http_status(), 404);
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("ghost")}),
    );
    assert_err(
        &e,
        "ResourceNotFoundException",
        "The resource that you specified for the DestinationArn parameter doesn't exist.",
    );
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "MaxNumberOfMessagesPerSecond": 501}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "MaxNumberOfMessagesPerSecond": 1}),
    );
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq")}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
    );
    let e = h.err(
        "CancelMessageMoveTask",
        json!({"TaskHandle": "not a handle"}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value for parameter TaskHandle is invalid.",
    );
    let _ = src;
}

#[test]
fn at_most_100_move_tasks_run_at_once_in_an_account() {
    let mut h = Sqs::new();
    let start = |h: &mut Sqs, i: usize| {
        h.call(
            "StartMessageMoveTask",
            json!({"SourceArn": Sqs::arn(&format!("dlq{i}")), "DestinationArn": Sqs::arn(&format!("src{i}")),
                   "MaxNumberOfMessagesPerSecond": 1}),
        )
    };
    for i in 0..=100 {
        let dlq = h.create(&format!("dlq{i}"), json!({}));
        h.create(
            &format!("src{i}"),
            json!({"RedrivePolicy": redrive(&format!("dlq{i}"), 1)}),
        );
        // Two messages at one a second: the task moves one at once and is still running.
        h.send(&dlq, "a");
        h.send(&dlq, "b");
    }
    for i in 0..100 {
        start(&mut h, i).expect("within the quota");
    }
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq100"), "DestinationArn": Sqs::arn("src100")}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "There are already 100 tasks running. Only 100 active tasks are allowed for an account at a given time.",
    );
    assert!(tasks(&mut h, &Sqs::arn("dlq100"), None).is_empty());
    // A task that ends frees its place.
    let handle = tasks(&mut h, &Sqs::arn("dlq0"), None)[0]["TaskHandle"]
        .as_str()
        .unwrap()
        .to_string();
    h.ok("CancelMessageMoveTask", json!({"TaskHandle": handle}));
    start(&mut h, 100).expect("a place was freed");
}

#[test]
fn move_task_moves_at_the_given_rate_driven_by_the_clock() {
    let (mut h, src, dlq) = filled_dlq(6);
    let dest = h.create("dest", json!({}));
    let r = h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest"), "MaxNumberOfMessagesPerSecond": 2}),
    );
    let handle_str = r["TaskHandle"].as_str().expect("TaskHandle").to_string();
    let started = h.now;
    let t = tasks(&mut h, &Sqs::arn("dlq"), None);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["Status"], "RUNNING");
    assert_eq!(t[0]["TaskHandle"], handle_str.as_str());
    assert_eq!(t[0]["SourceArn"], Sqs::arn("dlq").as_str());
    assert_eq!(t[0]["DestinationArn"], Sqs::arn("dest").as_str());
    assert_eq!(t[0]["MaxNumberOfMessagesPerSecond"], 2);
    assert_eq!(t[0]["ApproximateNumberOfMessagesToMove"], 6);
    assert_eq!(t[0]["StartedTimestamp"], started);
    let deadline = h.svc.next_deadline().expect("a move step is due");
    assert!(
        deadline <= started + 1000,
        "next step within a second at 2/s: {deadline}"
    );
    // Nothing moves without the clock advancing past a step... and the rate holds.
    h.advance_secs(1);
    let moved_1s = h.counts(&dest).0;
    assert!(
        (1..=4).contains(&moved_1s),
        "~2 after 1 s at 2/s, got {moved_1s}"
    );
    for _ in 0..10 {
        h.advance(500);
    }
    assert_eq!(h.counts(&dest), (6, 0, 0));
    assert_eq!(h.counts(&dlq), (0, 0, 0));
    let t = tasks(&mut h, &Sqs::arn("dlq"), None);
    assert_eq!(t[0]["Status"], "COMPLETED");
    assert!(
        t[0].get("TaskHandle").is_none(),
        "handle only while running"
    );
    assert_eq!(t[0]["ApproximateNumberOfMessagesMoved"], 6);
    assert_eq!(t[0]["ApproximateNumberOfMessagesToMove"], 6);
    let ev = h.events();
    assert_eq!(
        ev.iter().filter(|e| e["type"] == "moved-by-task").count(),
        6,
        "{ev:?}"
    );
    // Redriven messages are new: new id, count restarts, new SentTimestamp.
    let m = h.receive(&dest, 1).remove(0);
    assert_eq!(receive_count(&m), 1);
    assert!(sys_attr(&m, "DeadLetterQueueSourceArn").is_none());
    assert_ne!(sys_attr(&m, "SentTimestamp").unwrap(), T0.to_string());
    let _ = src;
}

#[test]
fn move_task_without_destination_returns_messages_to_their_sources() {
    let mut h = Sqs::new();
    let dlq = h.create("dlq", json!({}));
    let a = h.create(
        "a",
        json!({"VisibilityTimeout": "1", "RedrivePolicy": redrive("dlq", 1)}),
    );
    let b = h.create(
        "b",
        json!({"VisibilityTimeout": "1", "RedrivePolicy": redrive("dlq", 1)}),
    );
    h.send(&a, "from-a");
    h.send(&b, "from-b");
    h.receive(&a, 1);
    h.receive(&b, 1);
    h.advance_secs(1);
    h.receive(&a, 1);
    h.receive(&b, 1);
    assert_eq!(h.counts(&dlq), (2, 0, 0));
    let r = h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq")}),
    );
    assert!(r["TaskHandle"].is_string());
    let t = tasks(&mut h, &Sqs::arn("dlq"), None);
    assert!(t[0].get("DestinationArn").is_none());
    assert!(t[0].get("MaxNumberOfMessagesPerSecond").is_none());
    for _ in 0..120 {
        h.advance_secs(1);
    }
    assert_eq!(bodies(&h.receive(&a, 10)), vec!["from-a"]);
    assert_eq!(bodies(&h.receive(&b, 10)), vec!["from-b"]);
    assert_eq!(
        tasks(&mut h, &Sqs::arn("dlq"), None)[0]["Status"],
        "COMPLETED"
    );
}

#[test]
fn list_move_tasks_newest_first_default_one_max_ten() {
    let (mut h, _src, _dlq) = filled_dlq(1);
    h.create("dest", json!({}));
    for i in 0..3 {
        h.ok(
            "StartMessageMoveTask",
            json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest")}),
        );
        for _ in 0..60 {
            h.advance_secs(1);
        }
        let t = tasks(&mut h, &Sqs::arn("dlq"), None);
        assert_eq!(t.len(), 1, "default MaxResults is 1");
        assert_eq!(t[0]["Status"], "COMPLETED", "task {i}");
    }
    let t = tasks(&mut h, &Sqs::arn("dlq"), Some(10));
    assert_eq!(t.len(), 3);
    let ts: Vec<u64> = t
        .iter()
        .map(|x| x["StartedTimestamp"].as_u64().unwrap())
        .collect();
    assert!(ts[0] > ts[1] && ts[1] > ts[2], "newest first: {ts:?}");
    let e = h.err(
        "ListMessageMoveTasks",
        json!({"SourceArn": Sqs::arn("dlq"), "MaxResults": 11}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
}

#[test]
fn cancel_move_task() {
    let (mut h, _src, dlq) = filled_dlq(10);
    let dest = h.create("dest", json!({}));
    let r = h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest"), "MaxNumberOfMessagesPerSecond": 1}),
    );
    let th = r["TaskHandle"].as_str().unwrap().to_string();
    h.advance_secs(3);
    let moved_before = h.counts(&dest).0;
    let r = h.ok("CancelMessageMoveTask", json!({"TaskHandle": th}));
    let at_cancel = r["ApproximateNumberOfMessagesMoved"].as_u64().unwrap();
    assert_eq!(at_cancel, moved_before);
    for _ in 0..30 {
        h.advance_secs(1);
    }
    let t = tasks(&mut h, &Sqs::arn("dlq"), None);
    assert_eq!(t[0]["Status"], "CANCELLED");
    let moved = h.counts(&dest).0;
    assert!(moved < 10, "cancelled before the end: {moved}");
    assert_eq!(h.counts(&dlq).0 + moved, 10, "no message lost");
    // Only running tasks can be cancelled; the handle still names a known task.
    let e = h.err("CancelMessageMoveTask", json!({"TaskHandle": th}));
    assert_ne!(e.shape(), "ResourceNotFoundException");
}

#[test]
fn cancel_with_handle_whose_source_is_gone_is_404() {
    let (mut h, _src, dlq) = filled_dlq(3);
    h.create("dest", json!({}));
    let r = h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest"), "MaxNumberOfMessagesPerSecond": 1}),
    );
    let th = r["TaskHandle"].as_str().unwrap().to_string();
    h.ok("DeleteQueue", json!({"QueueUrl": dlq}));
    let e = h.err("CancelMessageMoveTask", json!({"TaskHandle": th}));
    assert_err(
        &e,
        "ResourceNotFoundException",
        "The resource that you specified for the SourceArn parameter doesn't exist.",
    );
}

#[test]
fn task_fails_when_the_destination_is_deleted() {
    let (mut h, _src, _dlq) = filled_dlq(5);
    let dest = h.create("dest", json!({}));
    h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest"), "MaxNumberOfMessagesPerSecond": 1}),
    );
    h.advance_secs(1);
    h.ok("DeleteQueue", json!({"QueueUrl": dest}));
    for _ in 0..10 {
        h.advance_secs(1);
    }
    let t = tasks(&mut h, &Sqs::arn("dlq"), None);
    assert_eq!(t[0]["Status"], "FAILED");
    assert_eq!(
        t[0]["FailureReason"],
        "AWS.SimpleQueueService.NonExistentQueue"
    );
}

#[test]
fn a_policy_set_after_the_receives_moves_on_the_next_receive() {
    let mut h = Sqs::new();
    let dlq = h.create("dlq", json!({}));
    let src = h.create("src", json!({"VisibilityTimeout": "1"}));
    h.send(&src, "x");
    for _ in 0..3 {
        assert_eq!(h.receive(&src, 1).len(), 1);
        h.advance_secs(1);
    }
    h.set_attrs(&src, json!({"RedrivePolicy": redrive("dlq", 2)}));
    assert!(h.receive(&src, 1).is_empty());
    assert_eq!(receive_count(&h.receive(&dlq, 1)[0]), 4);
}

#[test]
fn removing_the_policy_stops_moves() {
    let (mut h, src, dlq) = pair(1);
    h.send(&src, "x");
    h.receive(&src, 1);
    h.advance_secs(1);
    h.set_attrs(&src, json!({"RedrivePolicy": ""}));
    assert_eq!(h.receive(&src, 1).len(), 1);
    assert_eq!(h.counts(&dlq), (0, 0, 0));
}

#[test]
fn a_missing_dlq_at_move_time_loses_nothing() {
    let (mut h, src, dlq) = pair(1);
    h.send(&src, "x");
    h.receive(&src, 1);
    h.ok("DeleteQueue", json!({"QueueUrl": dlq}));
    h.advance_secs(1);
    let got = h.receive(&src, 1);
    // §11.2: delivered again or kept, but never dropped.
    let (v, nv, _) = h.counts(&src);
    assert!(got.len() <= 1);
    assert_eq!(v + nv, 1, "message still in the source queue");
}

#[test]
fn move_task_destination_must_be_of_the_dlq_type() {
    // [DOC] DLQ redrive: a custom destination must be the same queue type as the DLQ. Refused
    // up front: moved on, a standard message would sit in a FIFO queue without a group id.
    let (mut h, _src, dlq) = filled_dlq(1);
    h.create_fifo("dest.fifo", json!({}));
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest.fifo")}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    assert!(tasks(&mut h, &Sqs::arn("dlq"), None).is_empty());
    // And the other way round: a FIFO DLQ into a standard queue.
    h.create_fifo("fdlq.fifo", json!({}));
    h.create_fifo(
        "fsrc.fifo",
        json!({"RedrivePolicy": json!({"deadLetterTargetArn": Sqs::arn("fdlq.fifo"), "maxReceiveCount": 1}).to_string()}),
    );
    h.create("dest", json!({}));
    let e = h.err(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("fdlq.fifo"), "DestinationArn": Sqs::arn("dest")}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    // A destination of the same type is fine.
    let dest2 = h.create("dest2", json!({}));
    h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest2")}),
    );
    h.advance_secs(1);
    assert_eq!(h.counts(&dlq).0, 0);
    assert_eq!(h.counts(&dest2).0, 1);
}
