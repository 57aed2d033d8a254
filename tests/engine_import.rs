//! The internal transfer operations (`Service::internal`: ExportMessages, ImportMessages,
//! RemoveMessages): a dead-lettered message carried from one engine to another keeps its
//! identity, imports are idempotent by MessageId, bad input is refused without changes, the
//! result survives a restore, and no SQS entry point reaches the operations.
mod common;

use common::*;
use serde_json::{json, Value};
use wasq::protocol::{handle as http_handle, HttpRequest, ProtocolOptions};
use wasq::SqsError;

fn internal(h: &mut Sqs, op: &str, params: Value) -> Result<Value, SqsError> {
    h.internal(op, params)
}

/// A FIFO source whose message `body` (group `g`) is dead-lettered into `dlq.fifo` after two
/// receives; answers the source's and the DLQ's URLs.
fn dead_letter_fifo(h: &mut Sqs, bodies: &[&str]) -> (String, String) {
    let dlq = h.create_fifo("dlq.fifo", json!({}));
    let src = h.create_fifo(
        "src.fifo",
        json!({"VisibilityTimeout": "1", "RedrivePolicy":
            json!({"deadLetterTargetArn": Sqs::arn("dlq.fifo"), "maxReceiveCount": 1}).to_string()}),
    );
    for (i, body) in bodies.iter().enumerate() {
        h.send_with(
            &src,
            body,
            json!({"MessageGroupId": "g", "MessageDeduplicationId": format!("d{i}"),
                "MessageAttributes": {"k": {"DataType": "String", "StringValue": "v"}}}),
        );
    }
    for _ in bodies {
        assert_eq!(h.receive(&src, 1).len(), 1);
        h.advance_secs(2);
    }
    // The next receive finds every message exhausted and moves them.
    assert!(h.receive(&src, 10).is_empty());
    (src, dlq)
}

fn fifo_dlq_only(h: &mut Sqs) -> String {
    h.create_fifo("dlq.fifo", json!({}))
}

#[test]
fn a_message_moves_between_engines_with_its_identity() {
    let mut a = Sqs::new();
    let (_, dlq) = dead_letter_fifo(&mut a, &["one", "two"]);
    // What a receive in the source engine's DLQ would have shown, before anything moved.
    let mut probe = a.restored();
    let expected = probe.receive(&dlq, 10);
    assert_eq!(bodies(&expected), ["one", "two"]);
    let exported = internal(
        &mut a,
        "ExportMessages",
        json!({"QueueUrl": dlq, "MaxNumberOfMessages": 10}),
    )
    .unwrap();
    let list = exported["Messages"].as_array().unwrap().clone();
    assert_eq!(list.len(), 2);

    let mut b = Sqs::with_config(wasq::EngineConfig {
        seed: 7,
        ..Default::default()
    });
    b.now = a.now + 5_000;
    fifo_dlq_only(&mut b);
    let r = internal(
        &mut b,
        "ImportMessages",
        json!({"QueueUrl": dlq, "Messages": list}),
    )
    .unwrap();
    assert_eq!(r["Imported"], 2);
    let removed = internal(
        &mut a,
        "RemoveMessages",
        json!({"QueueUrl": dlq, "Messages": removals(&Value::Array(list.clone()))}),
    )
    .unwrap();
    assert_eq!(removed["Removed"], 2);
    assert_eq!(a.counts(&dlq), (0, 0, 0));

    let got = b.receive(&dlq, 1);
    assert_eq!(bodies(&got), ["one"], "send order kept");
    assert!(
        b.receive(&dlq, 10).is_empty(),
        "the group is locked while one is in flight"
    );
    let (m, e) = (&got[0], &expected[0]);
    assert_eq!(m["MessageId"], e["MessageId"]);
    assert_eq!(m["MD5OfBody"], e["MD5OfBody"]);
    assert_eq!(m["MessageAttributes"], e["MessageAttributes"]);
    assert_eq!(m["MD5OfMessageAttributes"], e["MD5OfMessageAttributes"]);
    for name in [
        "SentTimestamp",
        "ApproximateFirstReceiveTimestamp",
        "ApproximateReceiveCount",
        "MessageGroupId",
        "MessageDeduplicationId",
        "DeadLetterQueueSourceArn",
        "SenderId",
    ] {
        assert_eq!(sys_attr(m, name), sys_attr(e, name), "{name}");
    }
    assert_eq!(sys_attr(m, "ApproximateReceiveCount").as_deref(), Some("2"));
    assert_eq!(
        sys_attr(m, "DeadLetterQueueSourceArn"),
        Some(Sqs::arn("src.fifo"))
    );

    // Durable: a restore of the destination holds the same message, same id.
    let mut back = b.restored();
    back.advance_secs(40);
    let again = back.receive(&dlq, 10);
    assert_eq!(again[0]["MessageId"], e["MessageId"]);
    assert_eq!(
        sys_attr(&again[0], "ApproximateReceiveCount").as_deref(),
        Some("3")
    );
}

#[test]
fn imports_are_idempotent_by_message_id() {
    let mut a = Sqs::new();
    let (_, dlq) = dead_letter_fifo(&mut a, &["one"]);
    let list =
        internal(&mut a, "ExportMessages", json!({"QueueUrl": dlq})).unwrap()["Messages"].clone();
    let mut b = Sqs::with_config(wasq::EngineConfig {
        seed: 9,
        ..Default::default()
    });
    b.now = a.now;
    fifo_dlq_only(&mut b);
    let first = internal(
        &mut b,
        "ImportMessages",
        json!({"QueueUrl": dlq, "Messages": list}),
    )
    .unwrap();
    assert_eq!(first["Imported"], 1);
    // A retry while the copy is held is skipped.
    let retry = internal(
        &mut b,
        "ImportMessages",
        json!({"QueueUrl": dlq, "Messages": list}),
    )
    .unwrap();
    assert_eq!(retry["Imported"], 0);
    assert_eq!(retry["Skipped"][0], list[0]["MessageId"]);
    assert_eq!(b.counts(&dlq), (1, 0, 0));
    // Also once it was received and deleted there (FIFO: within the deduplication window),
    // and after a restart.
    let got = b.receive(&dlq, 10);
    b.delete(&dlq, &handle(&got[0]));
    let mut b = b.restored();
    b.advance_secs(60);
    let late = internal(
        &mut b,
        "ImportMessages",
        json!({"QueueUrl": dlq, "Messages": list}),
    )
    .unwrap();
    assert_eq!(late["Imported"], 0);
    assert_eq!(b.counts(&dlq), (0, 0, 0));
}

#[test]
fn standard_imports_skip_a_held_copy_and_keep_the_id() {
    let mut a = Sqs::new();
    let dlq = a.create("dlq", json!({}));
    a.create(
        "src",
        json!({"VisibilityTimeout": "1", "RedrivePolicy":
            json!({"deadLetterTargetArn": Sqs::arn("dlq"), "maxReceiveCount": 1}).to_string()}),
    );
    let sent = a.send(&Sqs::url("src"), "s");
    a.receive(&Sqs::url("src"), 1);
    a.advance_secs(2);
    assert!(a.receive(&Sqs::url("src"), 1).is_empty());
    let list =
        internal(&mut a, "ExportMessages", json!({"QueueUrl": dlq})).unwrap()["Messages"].clone();
    assert_eq!(list[0]["MessageId"], sent["MessageId"]);
    let mut b = Sqs::with_config(wasq::EngineConfig {
        seed: 11,
        ..Default::default()
    });
    b.now = a.now;
    b.create("dlq", json!({}));
    for _ in 0..2 {
        internal(
            &mut b,
            "ImportMessages",
            json!({"QueueUrl": dlq, "Messages": list}),
        )
        .unwrap();
    }
    let got = b.receive(&dlq, 10);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["MessageId"], sent["MessageId"]);
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let mut a = Sqs::new();
    let (_, dlq) = dead_letter_fifo(&mut a, &["one"]);
    let good = internal(&mut a, "ExportMessages", json!({"QueueUrl": dlq})).unwrap()["Messages"][0]
        .clone();
    let with = |k: &str, v: Value| {
        let mut m = good.clone();
        m[k] = v;
        m
    };
    let mut no_group = good.clone();
    no_group["Extra"]
        .as_object_mut()
        .unwrap()
        .remove("group_id");
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"Messages": [good]}),
            "MissingRequiredParameterException",
        ),
        (
            json!({"QueueUrl": dlq}),
            "MissingRequiredParameterException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": []}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": Sqs::url("nope.fifo"), "Messages": [good]}),
            "QueueDoesNotExist",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [with("MessageId", json!("x"))]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [with("SentTimestamp", json!(u64::MAX))]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [with("ReceiveCount", json!(-1))]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [with("Body", json!(5))]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [with("Sequence", json!("1"))]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [with("Sequence", json!(-1))]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [with("Surprise", json!(1))]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": [good, no_group]}),
            "InvalidParameterValueException",
        ),
        (
            json!({"QueueUrl": dlq, "Messages": vec![good.clone(); 101]}),
            "InvalidParameterValueException",
        ),
        (json!([1]), "InvalidParameterValueException"),
    ];
    let before = a.peek(&dlq);
    for (params, shape) in cases {
        a.sync();
        let r = a
            .svc
            .internal(a.now, &a.ctx, "ImportMessages", &params.to_string());
        let e = r.expect_err(&format!("{params} was accepted"));
        assert_eq!(e.shape(), shape, "{params}: {}", e.message());
        assert!(
            a.svc.take_changes().is_empty(),
            "{params} persisted changes"
        );
    }
    for (op, params) in [
        (
            "RemoveMessages",
            json!({"QueueUrl": dlq, "Messages": [{"MessageId": "nope", "Sequence": 1}]}),
        ),
        (
            "RemoveMessages",
            json!({"QueueUrl": dlq, "Messages": [{"MessageId": good["MessageId"]}]}),
        ),
        (
            "RemoveMessages",
            json!({"QueueUrl": dlq, "Messages": [{"MessageId": good["MessageId"],
                "Sequence": good["Sequence"], "Body": "x"}]}),
        ),
        (
            "RemoveMessages",
            json!({"QueueUrl": dlq, "MessageIds": [good["MessageId"]]}),
        ),
        (
            "ExportMessages",
            json!({"QueueUrl": dlq, "MaxNumberOfMessages": 0}),
        ),
        ("Nope", json!({})),
    ] {
        let r = a.svc.internal(a.now, &a.ctx, op, &params.to_string());
        assert!(r.is_err(), "{op} {params}");
        assert!(a.svc.take_changes().is_empty());
    }
    let raw = a.svc.internal(a.now, &a.ctx, "ImportMessages", "{not json");
    assert!(raw.is_err());
    assert_eq!(a.peek(&dlq), before);
}

#[test]
fn no_sqs_entry_point_reaches_the_internal_operations() {
    let mut a = Sqs::new();
    let (_, dlq) = dead_letter_fifo(&mut a, &["one"]);
    // Without a lock, so that the counts at the end show nothing changed.
    let list = exported_unlocked(&mut a, &dlq);
    let ids = json!([list[0]["MessageId"]]);
    for op in ["ImportMessages", "RemoveMessages", "ExportMessages"] {
        let e = a.err(
            op,
            json!({"QueueUrl": dlq, "Messages": list, "MessageIds": ids}),
        );
        assert_eq!(e.shape(), "UnknownOperationException", "dispatch {op}");
        let body = json!({"QueueUrl": dlq, "MessageIds": ids}).to_string();
        let req = HttpRequest {
            method: "POST".into(),
            path: "/".into(),
            query: String::new(),
            headers: vec![
                ("x-amz-target".into(), format!("AmazonSQS.{op}")),
                ("Content-Type".into(), "application/x-amz-json-1.0".into()),
                ("Host".into(), "localhost:9324".into()),
            ],
            body: body.into_bytes(),
        };
        let r = http_handle(&mut a.svc, a.now, &req, &ProtocolOptions::default(), "r");
        assert_eq!(r.status, 400, "json {op}");
        assert_eq!(r.header("x-amzn-query-error"), Some("InvalidAction;Sender"));
        let form = HttpRequest {
            method: "POST".into(),
            path: "/".into(),
            query: String::new(),
            headers: vec![
                (
                    "Content-Type".into(),
                    "application/x-www-form-urlencoded".into(),
                ),
                ("Host".into(), "localhost:9324".into()),
            ],
            body: format!("Action={op}&QueueUrl={dlq}&MessageIds.member.1=x").into_bytes(),
        };
        let r = http_handle(&mut a.svc, a.now, &form, &ProtocolOptions::default(), "r");
        assert_eq!(r.status, 400, "query {op}");
        assert!(String::from_utf8_lossy(&r.body).contains("<Code>InvalidAction</Code>"));
        assert!(a.svc.take_changes().is_empty());
    }
    assert_eq!(a.counts(&dlq), (1, 0, 0));
}

/// What RemoveMessages takes for exported messages: each one's MessageId and Sequence.
fn removals(list: &Value) -> Vec<Value> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| json!({"MessageId": m["MessageId"], "Sequence": m["Sequence"]}))
        .collect()
}

fn ids_of(list: &Value) -> Vec<Value> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| m["MessageId"].clone())
        .collect()
}

#[test]
fn an_export_hides_its_messages_until_the_deadline_as_a_receive_does() {
    let mut a = Sqs::new();
    let dlq = a.create("dlq", json!({}));
    for body in ["one", "two", "three"] {
        a.send(&dlq, body);
    }
    let list = internal(
        &mut a,
        "ExportMessages",
        json!({"QueueUrl": dlq, "MaxNumberOfMessages": 2, "VisibilityTimeout": 20}),
    )
    .unwrap()["Messages"]
        .clone();
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert_eq!(
        a.counts(&dlq),
        (1, 2, 0),
        "exported messages count as not visible"
    );
    // A concurrent receive gets only what was not exported; a second export neither.
    assert_eq!(bodies(&a.receive(&dlq, 10)), ["three"]);
    let again = internal(&mut a, "ExportMessages", json!({"QueueUrl": dlq})).unwrap();
    assert!(again["Messages"].as_array().unwrap().is_empty());
    // The lock is durable: a restore holds them in flight too.
    let mut back = a.restored();
    assert!(back.receive(&dlq, 10).is_empty());
    // The import never completed: at the deadline they are visible again, not counted as
    // received, and the next export takes them again.
    a.advance_secs(21);
    assert_eq!(a.counts(&dlq), (2, 1, 0));
    let retry =
        internal(&mut a, "ExportMessages", json!({"QueueUrl": dlq})).unwrap()["Messages"].clone();
    assert_eq!(ids_of(&retry), ids_of(&list));
    for m in retry.as_array().unwrap() {
        assert_eq!(m["ReceiveCount"], 0, "an export is not a receive");
    }
    // Once the import is acknowledged, the removal takes them while they are exported.
    let removed = internal(
        &mut a,
        "RemoveMessages",
        json!({"QueueUrl": dlq, "Messages": removals(&retry)}),
    )
    .unwrap();
    assert_eq!(removed["Removed"], 2);
    assert_eq!(a.counts(&dlq), (0, 1, 0));
    a.advance_secs(60);
    assert_eq!(bodies(&a.receive(&dlq, 10)), ["three"]);
    // Restored, the removals hold: only the received message is left.
    let mut back = a.restored();
    assert_eq!(back.counts(&dlq), (0, 1, 0));
    back.advance_secs(60);
    assert_eq!(back.counts(&dlq), (1, 0, 0));
}

#[test]
fn an_exported_fifo_group_is_blocked_and_its_order_kept() {
    let mut a = Sqs::new();
    let (_, dlq) = dead_letter_fifo(&mut a, &["one", "two"]);
    let list = internal(
        &mut a,
        "ExportMessages",
        json!({"QueueUrl": dlq, "MaxNumberOfMessages": 1}),
    )
    .unwrap()["Messages"]
        .clone();
    assert_eq!(list[0]["Body"], "one");
    assert!(
        a.receive(&dlq, 10).is_empty(),
        "the group is in flight while its head is exported"
    );
    a.advance_secs(31);
    let got = a.receive(&dlq, 1);
    assert_eq!(bodies(&got), ["one"]);
    a.advance_secs(31);
    // A consumer's handle from before the export cannot act on the exported message.
    internal(
        &mut a,
        "ExportMessages",
        json!({"QueueUrl": dlq, "MaxNumberOfMessages": 1}),
    )
    .unwrap();
    let e = a.err(
        "DeleteMessage",
        json!({"QueueUrl": dlq, "ReceiptHandle": handle(&got[0])}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    assert_eq!(a.counts(&dlq), (1, 1, 0));
}

/// Export takes what a receive could: the oldest visible messages of a standard queue (not
/// those in flight), and in a FIFO queue the visible head runs of the ready groups, the group
/// with the oldest head first, never a group with a message in flight.
#[test]
fn an_export_takes_the_oldest_visible_messages_and_ready_groups_oldest_first() {
    let mut a = Sqs::new();
    let std_q = a.create("plain", json!({}));
    for body in ["m0", "m1", "m2", "m3", "m4"] {
        a.send(&std_q, body);
    }
    assert_eq!(bodies(&a.receive(&std_q, 2)), ["m0", "m1"]);
    let export = |a: &mut Sqs, url: &str, max: u64| -> Vec<String> {
        let out = internal(
            a,
            "ExportMessages",
            json!({"QueueUrl": url, "MaxNumberOfMessages": max, "VisibilityTimeout": 0}),
        )
        .unwrap();
        out["Messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["Body"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(export(&mut a, &std_q, 2), ["m2", "m3"]);
    assert_eq!(export(&mut a, &std_q, 10), ["m2", "m3", "m4"]);

    let fifo = a.create_fifo("groups.fifo", json!({}));
    // Heads by age: c (oldest), then a, then b; a's second message was sent last.
    for (i, (group, body)) in [
        ("c", "c0"),
        ("a", "a0"),
        ("b", "b0"),
        ("c", "c1"),
        ("a", "a1"),
    ]
    .into_iter()
    .enumerate()
    {
        a.send_with(
            &fifo,
            body,
            json!({"MessageGroupId": group, "MessageDeduplicationId": format!("d{i}")}),
        );
    }
    assert_eq!(export(&mut a, &fifo, 10), ["c0", "c1", "a0", "a1", "b0"]);
    assert_eq!(export(&mut a, &fifo, 3), ["c0", "c1", "a0"]);
    // Group c in flight: it gives nothing, and the others keep their order.
    let got = a.receive(&fifo, 1);
    assert_eq!(bodies(&got), ["c0"]);
    assert_eq!(export(&mut a, &fifo, 10), ["a0", "a1", "b0"]);
    // c0 deleted: c's head is now c1, the newest head, so c comes last (groups are taken by
    // their heads' age, not in the order they were first seen).
    a.delete(&fifo, &handle(&got[0]));
    assert_eq!(export(&mut a, &fifo, 10), ["a0", "a1", "b0", "c1"]);
}

#[test]
fn a_bad_visibility_timeout_is_refused_and_changes_nothing() {
    let mut a = Sqs::new();
    let dlq = a.create("dlq", json!({}));
    a.send(&dlq, "one");
    a.sync();
    let before = a.batches;
    for bad in [json!(-1), json!(43_201), json!("30"), json!(1.5)] {
        let e = internal(
            &mut a,
            "ExportMessages",
            json!({"QueueUrl": dlq, "VisibilityTimeout": bad}),
        )
        .unwrap_err();
        assert!(
            matches!(e, SqsError::InvalidParameterValue(_)),
            "{bad}: {e:?}"
        );
        assert_eq!(a.batches, before, "{bad} persisted something");
    }
    let free = internal(
        &mut a,
        "ExportMessages",
        json!({"QueueUrl": dlq, "VisibilityTimeout": 0}),
    )
    .unwrap();
    assert_eq!(free["Messages"][0]["Body"], "one");
    assert_eq!(a.batches, before, "0 locks nothing");
    assert_eq!(a.counts(&dlq), (1, 0, 0));
}

/// A standard queue `dlq` in a fresh engine (seed `seed`) that already holds `plain` messages
/// of its own, beside whatever is imported: the imports must be told apart from those.
fn standard_destination(seed: u64, now: u64, plain: usize) -> (Sqs, String) {
    let mut b = Sqs::with_config(wasq::EngineConfig {
        seed,
        ..Default::default()
    });
    b.now = now;
    let dlq = b.create("dlq", json!({}));
    for i in 0..plain {
        b.send(&dlq, &format!("own {i}"));
    }
    (b, dlq)
}

fn import(h: &mut Sqs, url: &str, list: &Value) -> Value {
    internal(
        h,
        "ImportMessages",
        json!({"QueueUrl": url, "Messages": list}),
    )
    .unwrap()
}

#[test]
fn removal_takes_the_message_at_its_sequence_only_while_it_has_that_id() {
    let mut a = Sqs::new();
    let q = a.create("q", json!({}));
    a.send(&q, "one");
    a.send(&q, "two");
    let list = exported_unlocked(&mut a, &q);
    let (first, second) = (&list[0], &list[1]);
    assert_ne!(first["Sequence"], second["Sequence"]);
    // Each id paired with the other's sequence: nothing matches, nothing changes.
    let crossed = json!([
        {"MessageId": first["MessageId"], "Sequence": second["Sequence"]},
        {"MessageId": second["MessageId"], "Sequence": first["Sequence"]},
    ]);
    let before = a.peek(&q);
    a.sync();
    let r = internal(
        &mut a,
        "RemoveMessages",
        json!({"QueueUrl": q, "Messages": crossed}),
    )
    .unwrap();
    assert_eq!(r["Removed"], 0);
    assert_eq!(a.peek(&q), before);
    // Named twice, removed once.
    let twice = json!([removals(&list)[1].clone(), removals(&list)[1].clone()]);
    let r = internal(
        &mut a,
        "RemoveMessages",
        json!({"QueueUrl": q, "Messages": twice}),
    )
    .unwrap();
    assert_eq!(r["Removed"], 1);
    assert_eq!(bodies(&a.receive(&q, 10)), ["one"]);
}

/// Everything ExportMessages gives from `url` without holding it in flight (so that counts
/// afterwards show what changed).
fn exported_unlocked(h: &mut Sqs, url: &str) -> Value {
    internal(
        h,
        "ExportMessages",
        json!({"QueueUrl": url, "VisibilityTimeout": 0}),
    )
    .unwrap()["Messages"]
        .clone()
}

/// A standard queue's one message `body`, as ExportMessages gives it, and the engine it left.
fn one_exported(body: &str) -> (Sqs, Value) {
    let mut a = Sqs::new();
    let src = a.create("src", json!({}));
    a.send(&src, body);
    let list =
        internal(&mut a, "ExportMessages", json!({"QueueUrl": src})).unwrap()["Messages"].clone();
    (a, list)
}

#[test]
fn a_repeated_import_is_recognised_among_the_queues_own_messages_and_after_a_restore() {
    let (a, list) = one_exported("moved");
    let (mut b, dlq) = standard_destination(5, a.now, 5);
    assert_eq!(import(&mut b, &dlq, &list)["Imported"], 1);
    assert_eq!(import(&mut b, &dlq, &list)["Imported"], 0);
    // Without its Sequence, the copy is still found: it keeps an id its new sequence does not
    // derive.
    let mut bare = list.clone();
    bare[0].as_object_mut().unwrap().remove("Sequence");
    assert_eq!(import(&mut b, &dlq, &bare)["Imported"], 0);
    let mut b = b.restored();
    assert_eq!(
        import(&mut b, &dlq, &list)["Imported"],
        0,
        "after a restore"
    );
    assert_eq!(b.counts(&dlq), (6, 0, 0));
    // Once the copy is deleted, a standard queue takes the message again (it has no
    // deduplication history), and one list naming it twice adds it once.
    let copy = b
        .receive(&dlq, 10)
        .into_iter()
        .find(|m| m["MessageId"] == list[0]["MessageId"])
        .expect("all six are received, the copy among them");
    b.delete(&dlq, &handle(&copy));
    let twice = json!([list[0].clone(), list[0].clone()]);
    let r = import(&mut b, &dlq, &twice);
    assert_eq!(r["Imported"], 1);
    assert_eq!(r["Skipped"], json!([list[0]["MessageId"]]));
}

#[test]
fn a_message_imported_back_into_its_own_queue_is_recognised_by_its_sequence() {
    let mut a = Sqs::new();
    let q = a.create("q", json!({}));
    let sent = a.send(&q, "mine");
    let list = exported_unlocked(&mut a, &q);
    assert_eq!(list[0]["MessageId"], sent["MessageId"]);
    // Its id is the one this engine derives from that sequence: no index holds it.
    let r = import(&mut a, &q, &list);
    assert_eq!(r["Imported"], 0);
    assert_eq!(r["Skipped"], json!([sent["MessageId"]]));
    assert_eq!(a.counts(&q), (1, 0, 0));
}

#[test]
fn an_id_two_held_messages_keep_is_recognised_until_both_are_gone() {
    let (a, list) = one_exported("moved");
    let (mut b, dlq) = standard_destination(13, a.now, 0);
    import(&mut b, &dlq, &list);
    // Realism: every delivery leaves a second copy with the same MessageId.
    b.svc.set_realism(
        None,
        None,
        Some(wasq::Realism {
            duplicate_delivery: 1.0,
            ..Default::default()
        }),
    );
    let got = b.receive(&dlq, 1);
    assert_eq!(got[0]["MessageId"], list[0]["MessageId"]);
    b.svc
        .set_realism(None, None, Some(wasq::Realism::default()));
    assert_eq!(b.counts(&dlq), (1, 1, 0), "the copy is visible");
    b.delete(&dlq, &handle(&got[0]));
    // The copy still holds the id.
    assert_eq!(import(&mut b, &dlq, &list)["Imported"], 0);
    let copy = b.receive(&dlq, 1);
    assert_eq!(copy[0]["MessageId"], list[0]["MessageId"]);
    b.delete(&dlq, &handle(&copy[0]));
    assert_eq!(import(&mut b, &dlq, &list)["Imported"], 1);
}

/// The three operations' answers as text, byte for byte as recorded from the `Value`-building
/// answers they replaced (`tests/engine_import_answers.txt`; `WASQ_BLESS=1` rewrites it):
/// members in byte order of their names, messages with and without attributes and extra.
#[test]
fn the_answers_are_the_recorded_text() {
    use wasq::{CallContext, EngineConfig, Service};
    const NOW: u64 = 1_700_000_000_000;
    let ctx = CallContext::default();
    let config = EngineConfig {
        seed: 5,
        ..EngineConfig::default()
    };
    let mut a = Service::new(config.clone());
    let mut b = Service::new(config);
    let call = |svc: &mut Service, action: &str, text: String| {
        svc.dispatch_json(NOW, &ctx, action, &text)
            .unwrap_or_else(|e| panic!("{action}: {}", e.message()))
    };
    for svc in [&mut a, &mut b] {
        call(svc, "CreateQueue", r#"{"QueueName":"q"}"#.into());
        call(
            svc,
            "CreateQueue",
            r#"{"QueueName":"q.fifo","Attributes":{"FifoQueue":"true"}}"#.into(),
        );
    }
    let q = "http://localhost:9324/000000000000/q";
    let f = "http://localhost:9324/000000000000/q.fifo";
    call(
        &mut a,
        "SendMessage",
        format!(r#"{{"QueueUrl":"{q}","MessageBody":"plain"}}"#),
    );
    call(
        &mut a,
        "SendMessage",
        format!(
            r#"{{"QueueUrl":"{q}","MessageBody":"with \"attrs\"","MessageAttributes":{{"s":{{"DataType":"String","StringValue":"v"}},"b":{{"DataType":"Binary","BinaryValue":"AAEC"}},"n":{{"DataType":"Number.int","StringValue":"7"}}}},"MessageSystemAttributes":{{"AWSTraceHeader":{{"DataType":"String","StringValue":"Root=1-5759e988-bd862e3fe1be46a994272793"}}}}}}"#
        ),
    );
    call(
        &mut a,
        "SendMessage",
        format!(
            r#"{{"QueueUrl":"{f}","MessageBody":"fifo","MessageGroupId":"g","MessageDeduplicationId":"d"}}"#
        ),
    );
    call(
        &mut a,
        "ReceiveMessage",
        format!(r#"{{"QueueUrl":"{q}","VisibilityTimeout":0}}"#),
    );
    let mut got = String::new();
    let op = |svc: &mut Service, name: &str, params: String, got: &mut String| {
        let out = svc
            .internal(NOW + 10, &ctx, name, &params)
            .unwrap_or_else(|e| panic!("{name}: {}", e.message()));
        got.push_str(&format!("{name} {params}\n  {out}\n"));
        out
    };
    let mut exported = Vec::new();
    for url in [q, f] {
        let out = op(
            &mut a,
            "ExportMessages",
            format!(r#"{{"QueueUrl":"{url}","VisibilityTimeout":0}}"#),
            &mut got,
        );
        let v: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
        exported.push((url, v["Messages"].clone()));
    }
    for (url, list) in &exported {
        for _ in 0..2 {
            op(
                &mut b,
                "ImportMessages",
                format!(r#"{{"QueueUrl":"{url}","Messages":{list}}}"#),
                &mut got,
            );
        }
        let pairs: Vec<Value> = list
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| json!({"MessageId": m["MessageId"], "Sequence": m["Sequence"]}))
            .collect();
        let pairs = Value::Array(pairs);
        op(
            &mut a,
            "RemoveMessages",
            format!(r#"{{"QueueUrl":"{url}","Messages":{pairs}}}"#),
            &mut got,
        );
    }
    assert_transcript("engine_import_answers.txt", &got);
    for needle in [
        "\"Extra\":{",
        "\"MessageAttributes\":{",
        "\"Skipped\":[\"",
        "\"Removed\":1",
        "\"Imported\":2",
    ] {
        assert!(got.contains(needle), "no {needle}");
    }
}
