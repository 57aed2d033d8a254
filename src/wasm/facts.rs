//! What callers of the engine would otherwise restate: the action list, the message actions, the
//! move-task actions, the settable attributes, the batch byte limit and the batch-shape rule. The
//! JS wrapper makes a method of each action, and the Worker splits and routes requests before any
//! engine runs them; both take these from here so that they cannot drift from the engine.

use crate::engine::{check_batch_shape, settable_attributes, MAX_BATCH_BYTES, MESSAGE_ACTIONS};
use crate::protocol::shapes::ACTIONS;
use serde_json::Value;

/// The message-move-task actions (DLQ redrive). A task moves messages across a whole queue, which
/// the Worker spreads over several engines, so its directory runs these itself (worker/move-tasks.js).
const MOVE_TASK_ACTIONS: &[&str] = &[
    "StartMessageMoveTask",
    "ListMessageMoveTasks",
    "CancelMessageMoveTask",
];

/// `{actions, messageActions, moveActions, settable, maxBatchBytes}` as JSON: every SQS action,
/// the ones on a queue's messages, the message-move-task ones, the attributes
/// CreateQueue/SetQueueAttributes accept, and the most payload one SendMessageBatch carries.
pub fn engine_facts() -> String {
    // Written by hand: the names are plain ASCII words, and serde's writer costs package bytes.
    let mut out = String::from("{");
    list(&mut out, "actions", ACTIONS.iter().map(|a| a.name));
    list(&mut out, "messageActions", MESSAGE_ACTIONS.iter().copied());
    list(&mut out, "moveActions", MOVE_TASK_ACTIONS.iter().copied());
    list(&mut out, "settable", settable_attributes());
    out.push_str(&format!("\"maxBatchBytes\":{MAX_BATCH_BYTES}}}"));
    out
}

/// Whether a batch's entry ids (a JSON array) pass the engine's shape check: one to ten entries,
/// each id well formed, none repeated. A batch that fails must reach one engine whole, so that
/// the client gets that engine's error for it.
pub fn batch_ids_valid(ids_json: &str) -> bool {
    let Ok(Value::Array(ids)) = serde_json::from_str(ids_json) else {
        return false;
    };
    check_batch_shape(ids.iter().map(Value::as_str), "").is_ok()
}

/// `"key":["a","b"],` into `out`.
fn list<'a>(out: &mut String, key: &str, names: impl Iterator<Item = &'a str>) {
    out.push_str(&format!("\"{key}\":["));
    for (i, name) in names.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("\"{name}\""));
    }
    out.push_str("],");
}
