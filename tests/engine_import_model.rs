//! ImportMessages' idempotence against a model, over random histories: whatever has happened
//! to a queue (imports with and without their exporter's `Sequence`, its own messages exported
//! and imported back, receives that leave realism duplicates, deletes, removals, restores), an
//! import skips exactly the messages whose MessageId the queue holds (as peek lists them) and
//! those named earlier in the same list, and imports the rest. The queue finds held ids through
//! an index of kept ids and through sequences (`Queue::holds_id`) rather than by deriving every
//! held message's id; a count in that index left behind by any path would skip, and so lose, an
//! acknowledged transfer.
mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};
use std::collections::HashSet;

#[derive(Debug, Clone)]
enum Step {
    /// Import these messages of the foreign pool (repeats allowed), with or without `Sequence`.
    ImportForeign(Vec<usize>, bool),
    /// Export up to n of the queue's visible messages (no lock) and import them back into it.
    ReimportOwn(usize),
    /// Receive up to n (every delivery leaving a duplicate when `duplicates`), delete some.
    ReceiveDelete(usize, bool),
    /// Export up to n visible messages and remove them.
    ExportRemove(usize),
    Send,
    Advance(u64),
    Restore,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (prop::collection::vec(0..POOL, 1..6), any::<bool>())
            .prop_map(|(p, s)| Step::ImportForeign(p, s)),
        1 => (1..4usize).prop_map(Step::ReimportOwn),
        2 => (1..4usize, any::<bool>()).prop_map(|(n, d)| Step::ReceiveDelete(n, d)),
        1 => (1..4usize).prop_map(Step::ExportRemove),
        1 => Just(Step::Send),
        1 => (1..40u64).prop_map(Step::Advance),
        1 => Just(Step::Restore),
    ]
}

const POOL: usize = 5;

/// The MessageIds the queue holds, as peek lists them.
fn held(h: &mut Sqs, url: &str) -> HashSet<String> {
    h.peek(url)["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| ["delayed", "stored", "in-flight"].contains(&m["state"].as_str().unwrap_or("")))
        .map(|m| m["messageId"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn export(h: &mut Sqs, url: &str, max: usize) -> Vec<Value> {
    let out = h
        .internal(
            "ExportMessages",
            json!({"QueueUrl": url, "MaxNumberOfMessages": max, "VisibilityTimeout": 0}),
        )
        .expect("export");
    out["Messages"].as_array().cloned().unwrap_or_default()
}

/// Import `list` and check the answer against the model: skipped are the ids held before the
/// call or named earlier in the list, in list order.
fn import_checked(h: &mut Sqs, url: &str, list: Vec<Value>) -> Result<(), TestCaseError> {
    if list.is_empty() {
        // Nothing exported (everything in flight or gone): an empty list is refused.
        return Ok(());
    }
    let mut holds = held(h, url);
    let mut expect_skipped = Vec::new();
    let mut expect_imported = 0u64;
    for m in &list {
        let id = m["MessageId"].as_str().unwrap_or_default().to_string();
        if holds.insert(id.clone()) {
            expect_imported += 1;
        } else {
            expect_skipped.push(json!(id));
        }
    }
    let r = h
        .internal("ImportMessages", json!({"QueueUrl": url, "Messages": list}))
        .expect("import");
    prop_assert_eq!(&r["Imported"], &json!(expect_imported), "{}", r);
    prop_assert_eq!(&r["Skipped"], &json!(expect_skipped), "{}", r);
    prop_assert_eq!(
        held(h, url),
        holds,
        "after the import, the queue holds the model's ids"
    );
    Ok(())
}

fn run(steps: &[Step], pool: &[Value]) -> Result<(), TestCaseError> {
    let (mut h, url) = {
        let mut h = Sqs::with_config(wasq::EngineConfig {
            seed: 29,
            ..Default::default()
        });
        let url = h.create("dest", json!({}));
        h.send(&url, "own 0");
        (h, url)
    };
    for (i, s) in steps.iter().enumerate() {
        match s {
            Step::ImportForeign(picks, with_sequence) => {
                let list = picks
                    .iter()
                    .map(|&p| {
                        let mut m = pool[p].clone();
                        if !with_sequence {
                            m.as_object_mut().map(|o| o.remove("Sequence"));
                        }
                        m
                    })
                    .collect();
                import_checked(&mut h, &url, list)?;
            }
            Step::ReimportOwn(n) => {
                let list = export(&mut h, &url, *n);
                import_checked(&mut h, &url, list)?;
            }
            Step::ReceiveDelete(n, duplicates) => {
                let realism = wasq::Realism {
                    duplicate_delivery: if *duplicates { 1.0 } else { 0.0 },
                    ..Default::default()
                };
                h.svc.set_realism(None, None, Some(realism));
                let got = h.receive(&url, *n as u32);
                h.svc
                    .set_realism(None, None, Some(wasq::Realism::default()));
                for m in got.iter().step_by(2) {
                    h.delete(&url, &handle(m));
                }
            }
            Step::ExportRemove(n) => {
                let list = export(&mut h, &url, *n);
                if list.is_empty() {
                    continue;
                }
                let before = held(&mut h, &url);
                let pairs: Vec<Value> = list
                    .iter()
                    .map(|m| json!({"MessageId": m["MessageId"], "Sequence": m["Sequence"]}))
                    .collect();
                let r = h
                    .internal(
                        "RemoveMessages",
                        json!({"QueueUrl": url, "Messages": pairs}),
                    )
                    .expect("remove");
                prop_assert_eq!(&r["Removed"], &json!(list.len()), "step {}", i);
                // A removed message's id may still be held by its realism duplicate.
                let after = held(&mut h, &url);
                prop_assert!(after.is_subset(&before), "step {}: removal added ids", i);
            }
            Step::Send => {
                h.send(&url, &format!("own {i}"));
            }
            Step::Advance(secs) => h.advance_secs(*secs),
            Step::Restore => h = h.restored(),
        }
    }
    Ok(())
}

#[test]
fn imports_skip_exactly_the_ids_the_queue_holds_over_any_history() {
    // The foreign pool: exported from another engine, whose sequences overlap the destination's
    // own (both start at the same point), so `Sequence` leads to a message with another id.
    let mut a = Sqs::with_config(wasq::EngineConfig {
        seed: 3,
        ..Default::default()
    });
    let src = a.create("src", json!({}));
    for i in 0..POOL {
        a.send(&src, &format!("foreign {i}"));
    }
    let pool = export(&mut a, &src, POOL);
    assert_eq!(pool.len(), POOL);
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&prop::collection::vec(step(), 1..40), |steps| {
            run(&steps, &pool)
        })
        .unwrap();
}
