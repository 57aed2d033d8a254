//! Durability and determinism: every `take_changes()` batch applied to a key/value store rebuilds,
//! through `Service::restore`, a service that answers exactly like the original, at any point of a
//! workload; and the same seed with the same calls gives byte-identical responses.
mod common;

use common::*;
use serde_json::{json, Value};
use wasq::{EngineConfig, Service};

const QUEUES: [&str; 4] = ["dlq", "s", "f.fifo", "dest"];

fn out(r: Result<Value, wasq::SqsError>) -> Value {
    match r {
        Ok(v) => v,
        Err(e) => json!({"error": e.shape(), "message": e.message()}),
    }
}

fn first_in_flight(h: &mut Sqs, name: &str) -> String {
    let url = Sqs::url(name);
    h.peek_state(&url, "in-flight")
        .first()
        .and_then(|m| m["receiptHandle"].as_str().map(str::to_string))
        .unwrap_or_else(|| "none-in-flight".to_string())
}

fn recv(h: &mut Sqs, name: &str, extra: Value) -> Value {
    let mut p = json!({"QueueUrl": Sqs::url(name), "MaxNumberOfMessages": 10,
        "MessageSystemAttributeNames": ["All"], "MessageAttributeNames": ["All"]});
    merge(&mut p, extra);
    out(h.call("ReceiveMessage", p))
}

pub const STEPS: usize = 24;

/// One step of a workload touching every kind of durable state. Returns everything it answered.
fn step(h: &mut Sqs, i: usize) -> Value {
    let s = Sqs::url("s");
    let f = Sqs::url("f.fifo");
    match i {
        0 => out(h.call("CreateQueue", json!({"QueueName": "dlq"}))),
        1 => out(h.call(
            "CreateQueue",
            json!({"QueueName": "s", "tags": {"t": "1"}, "Attributes": {"VisibilityTimeout": "5", "MessageRetentionPeriod": "600",
                "RedrivePolicy": json!({"deadLetterTargetArn": Sqs::arn("dlq"), "maxReceiveCount": 2}).to_string()}}),
        )),
        2 => out(h.call(
            "CreateQueue",
            json!({"QueueName": "f.fifo", "Attributes": {"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "8"}}),
        )),
        3 => out(h.call(
            "SendMessage",
            json!({"QueueUrl": s, "MessageBody": "a", "MessageAttributes": {"k": {"DataType": "String", "StringValue": "v"}}}),
        )),
        4 => out(h.call("SendMessage", json!({"QueueUrl": s, "MessageBody": "b", "DelaySeconds": 10}))),
        5 => out(h.call(
            "SendMessageBatch",
            json!({"QueueUrl": f, "Entries": [
                {"Id": "1", "MessageBody": "g1-a", "MessageGroupId": "g1"},
                {"Id": "2", "MessageBody": "g1-b", "MessageGroupId": "g1"},
                {"Id": "3", "MessageBody": "g2-a", "MessageGroupId": "g2"}]}),
        )),
        6 => recv(h, "s", json!({})),
        7 => {
            h.advance_secs(3);
            recv(h, "f.fifo", json!({"MaxNumberOfMessages": 2, "ReceiveRequestAttemptId": "att"}))
        }
        8 => {
            let rh = first_in_flight(h, "s");
            out(h.call("ChangeMessageVisibility", json!({"QueueUrl": s, "ReceiptHandle": rh, "VisibilityTimeout": 20})))
        }
        9 => {
            h.advance_secs(1);
            recv(h, "f.fifo", json!({"MaxNumberOfMessages": 2, "ReceiveRequestAttemptId": "att"}))
        }
        10 => {
            h.advance_secs(6);
            recv(h, "f.fifo", json!({}))
        }
        11 => {
            let rh = first_in_flight(h, "f.fifo");
            out(h.call("DeleteMessage", json!({"QueueUrl": f, "ReceiptHandle": rh})))
        }
        12 => out(h.call("SendMessage", json!({"QueueUrl": f, "MessageBody": "g1-a", "MessageGroupId": "g9"}))),
        13 => {
            h.advance_secs(20);
            recv(h, "s", json!({}))
        }
        14 => {
            h.advance_secs(6);
            recv(h, "s", json!({}))
        }
        15 => json!([
            out(h.call("CreateQueue", json!({"QueueName": "dest"}))),
            out(h.call("StartMessageMoveTask", json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest"), "MaxNumberOfMessagesPerSecond": 1}))),
        ]),
        16 => {
            h.advance(1_500);
            json!([
                out(h.call("ListMessageMoveTasks", json!({"SourceArn": Sqs::arn("dlq")}))),
                recv(h, "dest", json!({"VisibilityTimeout": 0})),
            ])
        }
        17 => json!([
            out(h.call("TagQueue", json!({"QueueUrl": s, "Tags": {"u": "2"}}))),
            out(h.call("SetQueueAttributes", json!({"QueueUrl": s, "Attributes": {"DelaySeconds": "1"}}))),
            out(h.call("AddPermission", json!({"QueueUrl": s, "Label": "l", "AWSAccountIds": ["111111111111"], "Actions": ["SendMessage"]}))),
        ]),
        18 => out(h.call("PurgeQueue", json!({"QueueUrl": f}))),
        19 => json!([
            out(h.call("PurgeQueue", json!({"QueueUrl": f}))),
            out(h.call("SendMessage", json!({"QueueUrl": f, "MessageBody": "g1-a", "MessageGroupId": "g1"}))),
        ]),
        20 => out(h.call("DeleteQueue", json!({"QueueUrl": s}))),
        21 => {
            h.advance_secs(30);
            out(h.call("CreateQueue", json!({"QueueName": "s"})))
        }
        22 => {
            h.advance_secs(31);
            json!([
                out(h.call("CreateQueue", json!({"QueueName": "s"}))),
                out(h.call("ListQueues", json!({}))),
                recv(h, "f.fifo", json!({})),
                recv(h, "dest", json!({})),
            ])
        }
        23 => {
            h.advance_secs(600);
            json!([recv(h, "dlq", json!({})), recv(h, "f.fifo", json!({}))])
        }
        _ => unreachable!(),
    }
}

/// Everything a client can observe about the state, without changing it.
fn observe(h: &mut Sqs) -> Value {
    let ctx = h.ctx.clone();
    let mut o = serde_json::Map::new();
    for q in QUEUES {
        let url = Sqs::url(q);
        let mut peek = out(h.svc.peek(h.now, &ctx, &url));
        // The tail of recently removed messages is a viewer aid, not durable state.
        if let Some(msgs) = peek.get_mut("messages").and_then(|m| m.as_array_mut()) {
            msgs.retain(|m| {
                ["delayed", "stored", "in-flight"].contains(&m["state"].as_str().unwrap_or(""))
            });
        }
        let attrs = out(h.svc.dispatch(
            h.now,
            &ctx,
            "GetQueueAttributes",
            json!({"QueueUrl": url, "AttributeNames": ["All"]}),
        ));
        let tags = out(h
            .svc
            .dispatch(h.now, &ctx, "ListQueueTags", json!({"QueueUrl": url})));
        o.insert(
            q.to_string(),
            json!({"peek": peek, "attrs": attrs, "tags": tags}),
        );
    }
    o.insert(
        "list".into(),
        out(h.svc.dispatch(h.now, &ctx, "ListQueues", json!({}))),
    );
    o.insert(
        "tasks".into(),
        out(h.svc.dispatch(
            h.now,
            &ctx,
            "ListMessageMoveTasks",
            json!({"SourceArn": Sqs::arn("dlq"), "MaxResults": 10}),
        )),
    );
    o.insert("deadline".into(), json!(h.svc.next_deadline()));
    Value::Object(o)
}

#[test]
fn restored_service_answers_identically_at_every_point() {
    // Reference run, with the state observed after each step.
    let mut reference = Sqs::new();
    let mut answers = Vec::new();
    for i in 0..STEPS {
        answers.push(step(&mut reference, i));
    }
    for cut in 0..STEPS {
        let mut h = Sqs::new();
        for (i, answer) in answers.iter().enumerate().take(cut + 1) {
            assert_eq!(&step(&mut h, i), answer, "deterministic replay, step {i}");
        }
        let mut r = h.restored();
        assert_eq!(
            observe(&mut r),
            observe(&mut h),
            "state after restore at step {cut}"
        );
        r.sync();
        h.sync();
        for i in cut + 1..STEPS {
            let a = step(&mut h, i);
            let b = step(&mut r, i);
            assert_eq!(b, a, "restored after step {cut} diverges at step {i}");
        }
        assert_eq!(
            observe(&mut r),
            observe(&mut h),
            "final state, restored at {cut}"
        );
    }
}

#[test]
fn same_seed_same_calls_byte_identical_responses() {
    let mut a = Sqs::new();
    let mut b = Sqs::new();
    for i in 0..STEPS {
        let x = serde_json::to_string(&step(&mut a, i)).unwrap();
        let y = serde_json::to_string(&step(&mut b, i)).unwrap();
        assert_eq!(x, y, "step {i}");
    }
    assert_eq!(a.store, b.store, "identical stores");
}

#[test]
fn different_seeds_give_different_ids() {
    let mut a = Sqs::new();
    let mut b = Sqs::with_config(EngineConfig {
        seed: 43,
        ..EngineConfig::default()
    });
    let ua = a.create("q", json!({}));
    let ub = b.create("q", json!({}));
    assert_ne!(a.send(&ua, "x")["MessageId"], b.send(&ub, "x")["MessageId"]);
}

#[test]
fn receipt_handles_and_deadlines_survive_restore() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"VisibilityTimeout": "30"}));
    h.send(&url, "one");
    h.send(&url, "two");
    let got = h.receive(&url, 2);
    assert_eq!(got.len(), 2);
    h.advance_secs(10);
    let mut r = h.restored();
    // Still in flight until 30 s after the receive.
    assert!(r.receive(&url, 10).is_empty());
    r.delete(&url, &handle(&got[0]));
    r.advance_secs(19);
    assert!(r.receive(&url, 10).is_empty());
    assert_eq!(r.svc.next_deadline(), Some(T0 + 30_000));
    r.advance_secs(1);
    let again = r.receive(&url, 10);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["MessageId"], got[1]["MessageId"]);
    assert_eq!(receive_count(&again[0]), 2);
}

#[test]
fn fifo_dedup_and_group_locks_survive_restore() {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", json!({}));
    let first = h.send_fifo(&url, "g", "d", "one");
    h.send_fifo(&url, "g", "d2", "two");
    h.receive(&url, 1);
    let mut r = h.restored();
    let dup = r.send_fifo(&url, "g", "d", "dup");
    assert_eq!(dup["MessageId"], first["MessageId"]);
    assert!(r.receive(&url, 10).is_empty(), "group g still locked");
    let s1 = r.send_fifo(&url, "h", "d3", "three");
    let s0: u128 = first["SequenceNumber"].as_str().unwrap().parse().unwrap();
    let s3: u128 = s1["SequenceNumber"].as_str().unwrap().parse().unwrap();
    assert!(s3 > s0, "sequence numbers keep increasing after restore");
}

#[test]
fn timers_of_deleted_names_and_purges_survive_restore() {
    let mut h = Sqs::new();
    let a = h.create("a", json!({}));
    let b = h.create("b", json!({}));
    h.ok("DeleteQueue", json!({"QueueUrl": a}));
    h.ok("PurgeQueue", json!({"QueueUrl": b}));
    h.advance_secs(30);
    let mut r = h.restored();
    let e = r.err("CreateQueue", json!({"QueueName": "a"}));
    assert_eq!(e.shape(), "QueueDeletedRecently");
    let e = r.err("PurgeQueue", json!({"QueueUrl": b}));
    assert_eq!(e.shape(), "PurgeQueueInProgress");
    r.advance_secs(30);
    r.create("a", json!({}));
    r.ok("PurgeQueue", json!({"QueueUrl": b}));
}

#[test]
fn read_only_calls_persist_nothing() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.send(&url, "x");
    let ctx = h.ctx.clone();
    let reads = [
        (
            "GetQueueAttributes",
            json!({"QueueUrl": url, "AttributeNames": ["All"]}),
        ),
        ("GetQueueUrl", json!({"QueueName": "q"})),
        ("ListQueues", json!({})),
        ("ListQueueTags", json!({"QueueUrl": url})),
        ("ListDeadLetterSourceQueues", json!({"QueueUrl": url})),
    ];
    for (action, params) in reads {
        h.svc.dispatch(h.now, &ctx, action, params).unwrap();
        assert!(
            h.svc.take_changes().is_empty(),
            "{action} persisted changes"
        );
    }
    h.svc.peek(h.now, &ctx, &url).unwrap();
    h.svc.receivable(h.now, &ctx, &url).unwrap();
    assert!(
        h.svc.take_changes().is_empty(),
        "peek/receivable persisted changes"
    );
}

#[test]
fn mutating_calls_persist_something() {
    let mut h = Sqs::new();
    let n = h.batches;
    let url = h.create("q", json!({}));
    assert!(h.batches > n);
    let n = h.batches;
    h.send(&url, "x");
    assert!(h.batches > n, "send persisted");
    let n = h.batches;
    let m = h.receive(&url, 1).remove(0);
    assert!(h.batches > n, "receive persisted");
    let n = h.batches;
    h.delete(&url, &handle(&m));
    assert!(h.batches > n, "delete persisted");
}

#[test]
fn restore_rejects_a_record_without_a_region() {
    let r = Service::restore(
        EngineConfig::default(),
        vec![("no-region-key".to_string(), vec![1, 2, 3])],
    );
    assert!(r.is_err());
}

#[test]
fn empty_store_restores_an_empty_service() {
    let mut svc = Service::restore(EngineConfig::default(), Vec::new()).unwrap();
    let r = svc
        .dispatch(T0, &Default::default(), "ListQueues", json!({}))
        .unwrap();
    assert!(r.get("QueueUrls").is_none());
}

#[test]
fn a_running_move_task_continues_identically_after_restore() {
    let mut h = Sqs::new();
    let dlq = h.create("dlq", json!({}));
    let src = h.create(
        "src",
        json!({"VisibilityTimeout": "1",
               "RedrivePolicy": json!({"deadLetterTargetArn": Sqs::arn("dlq"), "maxReceiveCount": 1}).to_string()}),
    );
    let dest = h.create("dest", json!({}));
    for i in 0..6 {
        h.send(&src, &format!("m{i}"));
    }
    h.receive(&src, 10);
    h.advance_secs(1);
    h.receive(&src, 10);
    assert_eq!(h.counts(&dlq), (6, 0, 0));
    h.ok(
        "StartMessageMoveTask",
        json!({"SourceArn": Sqs::arn("dlq"), "DestinationArn": Sqs::arn("dest"), "MaxNumberOfMessagesPerSecond": 1}),
    );
    h.advance_secs(2);
    let mut r = h.restored();
    assert_eq!(r.svc.next_deadline(), h.svc.next_deadline());
    let list = json!({"SourceArn": Sqs::arn("dlq"), "MaxResults": 10});
    for _ in 0..8 {
        assert_eq!(
            r.ok("ListMessageMoveTasks", list.clone()),
            h.ok("ListMessageMoveTasks", list.clone())
        );
        assert_eq!(r.counts(&dest), h.counts(&dest));
        h.advance(700);
        r.advance(700);
    }
    let t = r.ok("ListMessageMoveTasks", list);
    assert_eq!(t["Results"][0]["Status"], "COMPLETED");
    assert_eq!(r.counts(&dest), (6, 0, 0));
}
