//! `Service::metrics_json`: per-queue gauges that agree with GetQueueAttributes, and counters of
//! what a scripted workload did (sends, receives, deletes, dead-letter moves, throttled calls).
mod common;

use common::*;
use serde_json::{json, Value};
use wasq::{Realism, Throttling};

/// The rows as objects, named as `engine.metrics()` names them (the wrapper's one mapping).
fn metrics(h: &mut Sqs) -> Vec<Value> {
    let text = h.svc.metrics_json(h.now);
    let rows = serde_json::from_str::<Vec<Vec<Value>>>(&text).expect("metrics are rows");
    let names = [
        "queue",
        "region",
        "fifo",
        "visible",
        "inflight",
        "delayed",
        "oldestMessageAgeMs",
        "sent",
        "received",
        "deleted",
        "movedToDeadLetterQueue",
        "throttled",
    ];
    rows.into_iter()
        .map(|row| {
            assert_eq!(row.len(), names.len(), "{row:?}");
            let mut o: serde_json::Map<String, Value> =
                names.iter().map(|n| n.to_string()).zip(row).collect();
            o["fifo"] = Value::Bool(o["fifo"] == 1);
            Value::Object(o)
        })
        .collect()
}

fn of<'a>(all: &'a [Value], queue: &str) -> &'a Value {
    all.iter()
        .find(|m| m["queue"] == queue)
        .unwrap_or_else(|| panic!("no metrics for {queue}: {all:?}"))
}

#[test]
fn gauges_match_get_queue_attributes_and_counters_count_the_workload() {
    let mut h = Sqs::new();
    let dlq = h.create("work-dlq", json!({}));
    let redrive = json!({"deadLetterTargetArn": Sqs::arn("work-dlq"), "maxReceiveCount": 1});
    let src = h.create(
        "work",
        json!({"VisibilityTimeout": "5", "RedrivePolicy": redrive.to_string()}),
    );
    // 5 sent, one of them delayed; a batch of 2 more through SendMessageBatch.
    for i in 0..4 {
        h.send(&src, &format!("m{i}"));
    }
    h.send_with(&src, "late", json!({"DelaySeconds": 60}));
    h.ok(
        "SendMessageBatch",
        json!({"QueueUrl": src, "Entries": [
            {"Id": "a", "MessageBody": "b0"},
            {"Id": "b", "MessageBody": "b1"},
        ]}),
    );
    h.advance_secs(10);
    // Receive 3, delete one singly and one in a batch (plus a batch entry that fails).
    let got = h.receive(&src, 3);
    assert_eq!(got.len(), 3);
    h.delete(&src, &handle(&got[0]));
    let batch = h.ok(
        "DeleteMessageBatch",
        json!({"QueueUrl": src, "Entries": [
            {"Id": "x", "ReceiptHandle": handle(&got[1])},
            {"Id": "y", "ReceiptHandle": "not-a-handle"},
        ]}),
    );
    assert_eq!(batch["Failed"].as_array().map(Vec::len), Some(1));
    // got[2] is still in flight; once its timeout runs out, the next receive finds it exhausted
    // (maxReceiveCount 1) and moves it to the dead-letter queue.
    h.advance_secs(6);
    let again = h.receive(&src, 10);
    assert_eq!(again.len(), 3, "the three never received; got[2] moved");

    let all = metrics(&mut h);
    assert_eq!(all.len(), 2);
    assert_eq!(
        all.iter().map(|m| m["queue"].clone()).collect::<Vec<_>>(),
        ["work", "work-dlq"],
        "in name order"
    );
    for (url, name) in [(&src, "work"), (&dlq, "work-dlq")] {
        let (visible, inflight, delayed) = h.counts(url);
        let m = of(&all, name);
        assert_eq!(m["visible"], visible, "{name}");
        assert_eq!(m["inflight"], inflight, "{name}");
        assert_eq!(m["delayed"], delayed, "{name}");
        assert_eq!(m["region"], "us-east-1");
        assert_eq!(m["fifo"], false);
    }
    let w = of(&all, "work");
    assert_eq!(
        (
            w["visible"].as_u64(),
            w["inflight"].as_u64(),
            w["delayed"].as_u64()
        ),
        (Some(0), Some(3), Some(1))
    );
    assert_eq!(w["sent"], 7);
    assert_eq!(w["received"], 6);
    assert_eq!(w["deleted"], 2);
    assert_eq!(w["movedToDeadLetterQueue"], 1);
    assert_eq!(w["throttled"], 0);
    // The oldest message was sent 16 s ago.
    assert_eq!(w["oldestMessageAgeMs"], 16_000);
    let d = of(&all, "work-dlq");
    assert_eq!(d["visible"], 1);
    assert_eq!(
        d["sent"], 0,
        "a dead-lettered message was not sent to the DLQ"
    );
    assert_eq!(d["movedToDeadLetterQueue"], 0);
    // It keeps its original send time.
    assert_eq!(d["oldestMessageAgeMs"], 16_000);
}

#[test]
fn a_fifo_duplicate_is_not_counted_as_sent_and_an_empty_queue_has_no_age() {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", json!({}));
    h.send_fifo(&url, "g", "d1", "one");
    h.send_fifo(&url, "g", "d1", "one again");
    h.send_fifo(&url, "g", "d2", "two");
    let all = metrics(&mut h);
    assert_eq!(of(&all, "f.fifo")["sent"], 2);
    assert_eq!(of(&all, "f.fifo")["fifo"], true);
    let empty = h.create("empty", json!({}));
    let _ = empty;
    let all = metrics(&mut h);
    assert_eq!(of(&all, "empty")["oldestMessageAgeMs"], 0);
}

#[test]
fn throttled_calls_are_counted_on_their_queue() {
    let mut h = Sqs::new();
    h.svc.set_realism(
        None,
        None,
        Some(Realism {
            throttling: Some(Throttling {
                fifo_per_action: 2,
                ..Throttling::default()
            }),
            ..Default::default()
        }),
    );
    let url = h.create_fifo("t.fifo", json!({}));
    let mut refused = 0;
    for i in 0..5 {
        let r = h.call(
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": format!("d{i}")}),
        );
        if let Err(e) = r {
            assert_eq!(e.shape(), "RequestThrottled");
            refused += 1;
        }
    }
    assert_eq!(refused, 3);
    let all = metrics(&mut h);
    assert_eq!(of(&all, "t.fifo")["throttled"], 3);
    assert_eq!(of(&all, "t.fifo")["sent"], 2);
}

#[test]
fn a_deleted_queue_leaves_the_metrics_and_a_new_one_of_its_name_starts_from_zero() {
    let mut h = Sqs::new();
    let url = h.create("gone", json!({}));
    h.send(&url, "x");
    h.ok("DeleteQueue", json!({"QueueUrl": url}));
    assert!(metrics(&mut h).is_empty());
    h.advance_secs(61);
    let url = h.create("gone", json!({}));
    let _ = url;
    assert_eq!(of(&metrics(&mut h), "gone")["sent"], 0);
}

#[test]
fn every_region_is_listed_with_its_own_label() {
    let mut h = Sqs::new();
    h.create("a", json!({}));
    h.ctx.region = Some("eu-west-1".into());
    h.create("b", json!({}));
    let all = metrics(&mut h);
    let regions: Vec<(String, String)> = all
        .iter()
        .map(|m| {
            (
                m["queue"].as_str().unwrap().to_string(),
                m["region"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        regions.contains(&("a".into(), "us-east-1".into())),
        "{regions:?}"
    );
    assert!(
        regions.contains(&("b".into(), "eu-west-1".into())),
        "{regions:?}"
    );
}
