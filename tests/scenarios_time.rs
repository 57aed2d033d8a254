//! Time-driven behaviour without timers: delays, retention, `next_deadline`, `tick`, and the event
//! feed that records every transition (§3.1, §7, §11.2; lib.rs state diagram).
mod common;

use common::*;
use serde_json::json;

#[test]
fn no_deadline_without_pending_work() {
    let mut h = Sqs::new();
    assert_eq!(h.svc.next_deadline(), None);
    let url = h.create("q", json!({"MessageRetentionPeriod": "1209600"}));
    assert_eq!(h.svc.next_deadline(), None);
    h.send(&url, "x");
    // A stored message still has its retention deadline.
    assert_eq!(h.svc.next_deadline(), Some(T0 + 1_209_600_000));
}

#[test]
fn next_deadline_is_the_earliest_of_delay_visibility_and_retention() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"MessageRetentionPeriod": "600"}));
    h.send(&url, "stored");
    assert_eq!(h.svc.next_deadline(), Some(T0 + 600_000));
    h.send_with(&url, "delayed", json!({"DelaySeconds": 100}));
    assert_eq!(h.svc.next_deadline(), Some(T0 + 100_000));
    let got = h.receive_with(&url, json!({"VisibilityTimeout": 20}));
    assert_eq!(bodies(&got), vec!["stored"]);
    assert_eq!(h.svc.next_deadline(), Some(T0 + 20_000));
    h.events();
    // tick exactly at the deadline applies it; the next deadline moves on.
    h.now = T0 + 20_000;
    h.svc.tick(h.now);
    let ev = h.events();
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["type"], "visibility-expired");
    assert_eq!(ev[0]["at"], T0 + 20_000);
    assert_eq!(h.svc.next_deadline(), Some(T0 + 100_000));
    h.now = T0 + 100_000;
    h.svc.tick(h.now);
    let ev = h.events();
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["type"], "delay-ended");
    assert_eq!(h.svc.next_deadline(), Some(T0 + 600_000));
    h.now = T0 + 600_000;
    h.svc.tick(h.now);
    let ev = h.events();
    assert_eq!(
        ev.iter().filter(|e| e["type"] == "expired").count(),
        2,
        "{ev:?}"
    );
    assert_eq!(h.counts(&url), (0, 0, 0));
}

#[test]
fn tick_applies_everything_due_in_one_go_and_in_time_order() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let d5 = h.send_with(&url, "d5", json!({"DelaySeconds": 5}));
    let d2 = h.send_with(&url, "d2", json!({"DelaySeconds": 2}));
    let d9 = h.send_with(&url, "d9", json!({"DelaySeconds": 9}));
    h.events();
    h.now += 10_000;
    h.svc.tick(h.now);
    let ev = h.events();
    assert!(ev.iter().all(|e| e["type"] == "delay-ended"), "{ev:?}");
    // Applied in the order they fell due, not the order they were sent.
    let ids: Vec<&serde_json::Value> = ev.iter().map(|e| &e["messageId"]).collect();
    assert_eq!(
        ids,
        vec![&d2["MessageId"], &d5["MessageId"], &d9["MessageId"]]
    );
    assert!(ev.iter().all(|e| e["at"].as_u64().unwrap() <= h.now));
    assert_eq!(h.counts(&url), (3, 0, 0));
    assert_eq!(h.svc.next_deadline(), Some(T0 + 345_600_000));
}

#[test]
fn calls_apply_due_work_without_an_explicit_tick() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.send_with(&url, "x", json!({"DelaySeconds": 3}));
    h.now += 3_000; // no tick
    assert_eq!(bodies(&h.receive(&url, 1)), vec!["x"]);
}

#[test]
fn per_message_delay_overrides_the_queue_delay_on_standard_queues() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"DelaySeconds": "10"}));
    h.send(&url, "queue-delay");
    h.send_with(&url, "zero", json!({"DelaySeconds": 0}));
    h.send_with(&url, "three", json!({"DelaySeconds": 3}));
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["zero"]);
    h.advance_secs(3);
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["three"]);
    h.advance(6_999);
    assert!(h.receive(&url, 10).is_empty());
    h.advance(1);
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["queue-delay"]);
}

#[test]
fn peek_shows_states_and_deadlines() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let d = h.send_with(&url, "delayed", json!({"DelaySeconds": 7}));
    let s = h.send(&url, "stored");
    let f = h.send(&url, "flying");
    // Receive "stored" and "flying" (order between them is not part of the contract).
    let got = h.receive_with(
        &url,
        json!({"MaxNumberOfMessages": 2, "VisibilityTimeout": 12}),
    );
    assert_eq!(got.len(), 2);
    let flying = got
        .iter()
        .find(|m| m["MessageId"] == f["MessageId"])
        .unwrap()
        .clone();
    let other = got
        .iter()
        .find(|m| m["MessageId"] == s["MessageId"])
        .unwrap()
        .clone();
    h.change_visibility(&url, &handle(&other), 0).unwrap();
    let p = h.peek(&url);
    assert_eq!(p["queue"]["name"], "q");
    assert_eq!(p["queue"]["url"], url.as_str());
    assert_eq!(p["queue"]["arn"], Sqs::arn("q").as_str());
    assert_eq!(p["queue"]["fifo"], false);
    assert_eq!(p["queue"]["attributes"]["VisibilityTimeout"], "30");
    assert_eq!(p["now"], h.now);
    assert!(p.get("groups").is_none() || p["groups"].as_array().is_some_and(|g| g.is_empty()));
    let msgs = p["messages"].as_array().unwrap();
    let by = |id: &serde_json::Value| msgs.iter().find(|m| &m["messageId"] == id).unwrap().clone();
    let md = by(&d["MessageId"]);
    assert_eq!(md["state"], "delayed");
    assert_eq!(md["delayedUntil"], T0 + 7_000);
    assert_eq!(md["body"], "delayed");
    assert_eq!(md["sentTimestamp"], T0);
    assert_eq!(md["receiveCount"], 0);
    let ms = by(&s["MessageId"]);
    assert_eq!(ms["state"], "stored");
    assert_eq!(ms["receiveCount"], 1);
    let mf = by(&f["MessageId"]);
    assert_eq!(mf["state"], "in-flight");
    assert_eq!(mf["visibleAt"], T0 + 12_000);
    assert_eq!(mf["receiptHandle"], flying["ReceiptHandle"]);
    // Removed messages stay visible for a short tail.
    h.delete(&url, &handle(&flying));
    let gone = h.peek_state(&url, "deleted");
    assert_eq!(gone.len(), 1);
    // The tail keeps what the message was (the engine moves the body there on delete).
    assert_eq!(gone[0]["messageId"], f["MessageId"]);
    assert_eq!(gone[0]["body"], "flying");
    assert_eq!(gone[0]["receiveCount"], 1);
}

#[test]
fn peek_fifo_groups() {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", json!({}));
    let a = h.send_fifo(&url, "a", "1", "a1");
    let b = h.send_fifo(&url, "b", "2", "b1");
    h.send_fifo(&url, "a", "3", "a2");
    h.receive(&url, 1);
    let p = h.peek(&url);
    assert_eq!(p["queue"]["fifo"], true);
    let groups = p["groups"].as_array().unwrap();
    let ga = groups.iter().find(|g| g["groupId"] == "a").unwrap();
    let gb = groups.iter().find(|g| g["groupId"] == "b").unwrap();
    assert_eq!(ga["locked"], true);
    assert_eq!(gb["locked"], false);
    assert_eq!(ga["messageIds"].as_array().unwrap().len(), 2);
    assert_eq!(ga["messageIds"][0], a["MessageId"]);
    assert_eq!(gb["messageIds"], json!([b["MessageId"]]));
    let m = p["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["messageId"] == a["MessageId"])
        .unwrap()
        .clone();
    assert_eq!(m["groupId"], "a");
    assert_eq!(m["deduplicationId"], "1");
    assert_eq!(m["sequenceNumber"], a["SequenceNumber"]);
}

#[test]
fn retention_counts_from_the_original_send() {
    let mut h = Sqs::new();
    let url = h.create(
        "q",
        json!({"MessageRetentionPeriod": "60", "VisibilityTimeout": "10"}),
    );
    h.send(&url, "x");
    for _ in 0..5 {
        assert_eq!(h.receive(&url, 1).len(), 1);
        h.advance_secs(10);
    }
    assert_eq!(h.receive(&url, 1).len(), 1);
    h.advance_secs(9);
    assert_eq!(h.counts(&url), (0, 1, 0));
    h.advance_secs(1);
    assert_eq!(h.counts(&url), (0, 0, 0));
    assert_eq!(h.peek_state(&url, "expired").len(), 1);
}

#[test]
fn reducing_retention_expires_existing_messages() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.send(&url, "old");
    h.advance_secs(120);
    h.send(&url, "new");
    h.set_attrs(&url, json!({"MessageRetentionPeriod": "60"}));
    h.advance(1);
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["new"]);
}

#[test]
fn every_transition_emits_one_event() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"VisibilityTimeout": "5"}));
    let ev = h.events();
    assert_eq!(
        ev,
        vec![json!({"at": T0, "queue": "q", "type": "queue-created", "fifo": false})]
    );

    let sent = h.send_with(&url, "x", json!({"DelaySeconds": 2}));
    let id = sent["MessageId"].clone();
    let ev = h.events();
    assert_eq!(
        ev,
        vec![
            json!({"at": T0, "queue": "q", "type": "sent", "messageId": id, "delayedUntil": T0 + 2_000})
        ]
    );

    h.advance_secs(2);
    assert_eq!(
        h.events(),
        vec![json!({"at": T0 + 2_000, "queue": "q", "type": "delay-ended", "messageId": id})]
    );

    let m = h.receive(&url, 1).remove(0);
    assert_eq!(
        h.events(),
        vec![
            json!({"at": T0 + 2_000, "queue": "q", "type": "received", "messageId": id,
                    "receiptHandle": handle(&m), "receiveCount": 1, "visibleAt": T0 + 7_000})
        ]
    );
    h.change_visibility(&url, &handle(&m), 1).unwrap();
    assert_eq!(
        h.events(),
        vec![
            json!({"at": T0 + 2_000, "queue": "q", "type": "visibility-changed", "messageId": id, "visibleAt": T0 + 3_000})
        ]
    );
    h.advance_secs(1);
    assert_eq!(
        h.events(),
        vec![
            json!({"at": T0 + 3_000, "queue": "q", "type": "visibility-expired", "messageId": id})
        ]
    );
    let m = h.receive(&url, 1).remove(0);
    h.events();
    h.delete(&url, &handle(&m));
    assert_eq!(
        h.events(),
        vec![json!({"at": T0 + 3_000, "queue": "q", "type": "deleted", "messageId": id})]
    );
    // Deleting again: no transition, no event.
    h.delete(&url, &handle(&m));
    assert!(h.events().is_empty());

    let p = h.send(&url, "p");
    h.events();
    h.ok("PurgeQueue", json!({"QueueUrl": url}));
    assert_eq!(
        h.events(),
        vec![
            json!({"at": T0 + 3_000, "queue": "q", "type": "purged", "messageId": p["MessageId"]})
        ]
    );
    h.ok("DeleteQueue", json!({"QueueUrl": url}));
    assert_eq!(
        h.events(),
        vec![json!({"at": T0 + 3_000, "queue": "q", "type": "queue-deleted"})]
    );
}

#[test]
fn fifo_events_carry_group_sequence_and_dedup() {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", json!({}));
    h.events();
    let r = h.send_fifo(&url, "g", "d", "x");
    assert_eq!(
        h.events(),
        vec![
            json!({"at": T0, "queue": "f.fifo", "type": "sent", "messageId": r["MessageId"],
                    "groupId": "g", "sequenceNumber": r["SequenceNumber"]})
        ]
    );
    h.send_fifo(&url, "g", "d", "again");
    assert_eq!(
        h.events(),
        vec![
            json!({"at": T0, "queue": "f.fifo", "type": "deduplicated", "messageId": r["MessageId"], "deduplicationId": "d"})
        ]
    );
}

#[test]
fn failed_calls_emit_no_events() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.events();
    h.err("SendMessage", json!({"QueueUrl": url, "MessageBody": ""}));
    h.err(
        "DeleteMessage",
        json!({"QueueUrl": url, "ReceiptHandle": "garbage"}),
    );
    h.err("CreateQueue", json!({"QueueName": "bad name"}));
    assert!(h.events().is_empty());
}
