//! Hostile input: every action given wrong types, huge numbers, empty and odd values must answer
//! with an error or a result, never panic, and a refused call must persist nothing (ground rules;
//! §1.2 for the error shapes).
mod common;

use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

const ACTIONS: [&str; 23] = [
    "CreateQueue",
    "DeleteQueue",
    "GetQueueUrl",
    "ListQueues",
    "GetQueueAttributes",
    "SetQueueAttributes",
    "PurgeQueue",
    "SendMessage",
    "SendMessageBatch",
    "ReceiveMessage",
    "DeleteMessage",
    "DeleteMessageBatch",
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch",
    "TagQueue",
    "UntagQueue",
    "ListQueueTags",
    "AddPermission",
    "RemovePermission",
    "ListDeadLetterSourceQueues",
    "StartMessageMoveTask",
    "ListMessageMoveTasks",
    "CancelMessageMoveTask",
];

fn odd_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e300),
        json!(0.5),
        json!(""),
        json!("x".repeat(2000)),
        json!("\u{0}"),
        json!([]),
        json!([1, "a", null]),
        json!({}),
        json!({"a": {"b": []}}),
    ]
}

const FIELDS: [&str; 22] = [
    "QueueName",
    "QueueUrl",
    "Attributes",
    "AttributeNames",
    "MessageBody",
    "DelaySeconds",
    "MessageAttributes",
    "MessageSystemAttributes",
    "MessageGroupId",
    "MessageDeduplicationId",
    "Entries",
    "MaxNumberOfMessages",
    "VisibilityTimeout",
    "WaitTimeSeconds",
    "ReceiptHandle",
    "Tags",
    "TagKeys",
    "MaxResults",
    "NextToken",
    "SourceArn",
    "TaskHandle",
    "MaxNumberOfMessagesPerSecond",
];

#[test]
fn wrong_types_in_every_field_of_every_action_never_panic() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.create_fifo("f.fifo", json!({}));
    h.send(&url, "keep");
    for action in ACTIONS {
        for field in FIELDS {
            for v in odd_values() {
                let mut p = json!({"QueueUrl": url, "QueueName": "q"});
                p[field] = v.clone();
                h.sync();
                let r = h.svc.dispatch(h.now, &h.ctx.clone(), action, p);
                let ch = h.svc.take_changes();
                if r.is_err() {
                    assert!(ch.is_empty(), "{action} {field}={v} failed but persisted");
                }
                for (k, val) in ch.put {
                    h.store.insert(k, val);
                }
                for k in ch.del {
                    h.store.remove(&k);
                }
            }
        }
        // Non-object parameters.
        for v in [Value::Null, json!([]), json!("s"), json!(1)] {
            let _ = h.svc.dispatch(h.now, &h.ctx.clone(), action, v);
        }
    }
    // The service is still consistent with its store.
    let mut r = h.restored();
    assert_eq!(r.ok("ListQueues", json!({})), h.ok("ListQueues", json!({})));
    for name in ["q", "f.fifo"] {
        let u = Sqs::url(name);
        if h.call("GetQueueUrl", json!({"QueueName": name})).is_ok() {
            assert_eq!(r.counts(&u), h.counts(&u), "{name}");
        }
    }
}

#[test]
fn unknown_action_is_an_error() {
    let mut h = Sqs::new();
    let e = h.err("NotAnAction", json!({}));
    // §1.2: protocol-level errors are the generic AWS ones.
    assert_eq!(e.shape(), "UnknownOperationException");
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        ".{0,40}".prop_map(Value::from),
        "[A-Za-z0-9_.-]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            prop::collection::btree_map("[A-Za-z]{1,12}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_parameters_never_panic(
        action in prop::sample::select(ACTIONS.to_vec()),
        field in prop::sample::select(FIELDS.to_vec()),
        value in arb_json(),
        extra in arb_json(),
    ) {
        let mut h = Sqs::new();
        let url = h.create("q", json!({}));
        h.send(&url, "x");
        let mut p = json!({"QueueUrl": url, "QueueName": "q", "Entries": [extra]});
        p[field] = value;
        h.sync();
        let r = h.svc.dispatch(h.now, &h.ctx.clone(), action, p);
        if r.is_err() {
            prop_assert!(h.svc.take_changes().is_empty());
        }
    }
}
