//! AWS JSON 1.0, the engine side of it: an action's JSON parameters read into the engine's typed
//! requests, the action run, its typed response written back as JSON text. The HTTP envelope
//! (content type, error bodies) is `protocol/json.rs`; Query requests reach [`dispatch`] once
//! `shapes.rs` has turned their flattened form into the same parameters.
//!
//! Two readings of the parameters, one answer:
//! - [`dispatch_json`] reads the message actions' requests straight from the text
//!   (`fast_path.rs`), without a `serde_json::Value`: the path every SDK call and JS host takes.
//! - Anything the fast path does not take, and every other action, goes through a `Value`
//!   ([`dispatch_text`]), read member by member (`params.rs`, `requests.rs`).
//!
//! Either way the typed response is written by `responses.rs`.
//!
//! Every answer is written as text only, and [`dispatch`] reads that text back into a `Value`,
//! so the entry points give the same bytes by construction.

mod fast_path;
mod params;
mod requests;
pub mod responses;
#[doc(hidden)]
pub mod surrogates;

use crate::context::CallContext;
use crate::engine::Engine;
use crate::error::SqsError;
use fast_path::Request;
use params::parse;
use responses::JsonResponse;
use serde_json::{Map, Value};

/// How [`dispatch_json`] reads JSON text it does not take on its fast path (see
/// [`dispatch_json_with`]).
pub fn read_json_params(text: &str) -> Result<Value, SqsError> {
    serde_json::from_str(text).map_err(|e| SqsError::Serialization(e.to_string()))
}

/// Run one SQS action with its AWS JSON 1.0 parameters; the AWS JSON 1.0 response.
///
/// [`dispatch_text`]'s answer read back into a `Value`.
pub fn dispatch(
    engine: &mut Engine,
    now: u64,
    ctx: &CallContext,
    action: &str,
    params: Value,
) -> Result<Value, SqsError> {
    dispatch_text(engine, now, ctx, action, params)
        .map(|text| serde_json::from_str(&text).unwrap_or_default())
}

/// [`dispatch`] answering JSON text: compact, members in byte order of their names, exactly
/// what the `Value` that `dispatch` answers prints as. Every action writes its answer through
/// the crate's JSON writer (`json_text`); none builds a `Value`.
pub fn dispatch_text(
    engine: &mut Engine,
    now: u64,
    ctx: &CallContext,
    action: &str,
    params: Value,
) -> Result<String, SqsError> {
    let params = match params {
        Value::Null => Default::default(),
        Value::Object(map) => map,
        _ => {
            return Err(SqsError::Serialization(
                "Start of structure or map expected.".into(),
            ))
        }
    };
    let (url, group) = throttle_keys(&params);
    let now = engine.begin(now, action, url, group)?;
    run(engine, now, ctx, action, &params)
}

/// What realism throttling counts a call by, read before the members are checked: the queue,
/// and the message group (a send's, or its first entry's).
fn throttle_keys(params: &Map<String, Value>) -> (Option<&str>, Option<&str>) {
    let url = params.get("QueueUrl").and_then(Value::as_str);
    let group = params
        .get("MessageGroupId")
        .or_else(|| {
            params
                .get("Entries")
                .and_then(|e| e.get(0))
                .and_then(|e| e.get("MessageGroupId"))
        })
        .and_then(Value::as_str);
    (url, group)
}

/// A typed response's JSON text.
fn text<R: JsonResponse>(r: Result<R, SqsError>) -> Result<String, SqsError> {
    r.map(|r| responses::to_json(&r))
}

/// Read the action's request from its parameters and run it (the engine has begun the call).
fn run(
    e: &mut Engine,
    now: u64,
    ctx: &CallContext,
    action: &str,
    params: &Map<String, Value>,
) -> Result<String, SqsError> {
    match action {
        "CreateQueue" => text(e.create_queue(now, ctx, parse(params)?)),
        "DeleteQueue" => text(e.delete_queue(now, parse(params)?)),
        "GetQueueUrl" => text(e.get_queue_url(ctx, parse(params)?)),
        "ListQueues" => text(e.list_queues(ctx, parse(params)?)),
        "GetQueueAttributes" => text(e.get_queue_attributes(now, parse(params)?)),
        "SetQueueAttributes" => text(e.set_queue_attributes(now, parse(params)?)),
        "TagQueue" => text(e.tag_queue(now, parse(params)?)),
        "UntagQueue" => text(e.untag_queue(now, parse(params)?)),
        "ListQueueTags" => text(e.list_queue_tags(parse(params)?)),
        "PurgeQueue" => text(e.purge_queue(now, parse(params)?)),
        "AddPermission" => text(e.add_permission(now, parse(params)?)),
        "RemovePermission" => text(e.remove_permission(now, parse(params)?)),
        "SendMessage" => text(e.run_send_message(now, ctx, &parse(params)?)),
        "SendMessageBatch" => text(e.run_send_message_batch(now, ctx, &parse(params)?)),
        "ReceiveMessage" => text(e.run_receive_message(now, &parse(params)?)),
        "DeleteMessage" => text(e.run_delete_message(now, &parse(params)?)),
        "DeleteMessageBatch" => text(e.run_delete_message_batch(now, &parse(params)?)),
        "ChangeMessageVisibility" => text(e.run_change_message_visibility(now, &parse(params)?)),
        "ChangeMessageVisibilityBatch" => {
            text(e.run_change_message_visibility_batch(now, &parse(params)?))
        }
        "ListDeadLetterSourceQueues" => text(e.list_dead_letter_source_queues(ctx, parse(params)?)),
        "StartMessageMoveTask" => text(e.start_message_move_task(now, parse(params)?)),
        "ListMessageMoveTasks" => text(e.list_message_move_tasks(parse(params)?)),
        "CancelMessageMoveTask" => text(e.cancel_message_move_task(now, parse(params)?)),
        _ => Err(SqsError::UnknownOperation(format!(
            "The action {action} is not valid for this endpoint."
        ))),
    }
}

/// [`dispatch`] with JSON text in and out: the same answer, byte for byte, as
/// `dispatch(engine, now, ctx, action, read_json_params(params_json)?)` then `to_string()`.
pub fn dispatch_json(
    engine: &mut Engine,
    now: u64,
    ctx: &CallContext,
    action: &str,
    params_json: &str,
) -> Result<String, SqsError> {
    dispatch_json_with(engine, now, ctx, action, params_json, read_json_params)
}

/// [`dispatch_json`] with the host's own reading of JSON text into parameters (its errors for
/// malformed text, an empty body as `{}`, …). `read` runs only for text the fast path does not
/// take: anything but a well-formed object of a message action's members; what `read` returns
/// for such an object must be that object.
pub fn dispatch_json_with(
    e: &mut Engine,
    now: u64,
    ctx: &CallContext,
    action: &str,
    params_json: &str,
    read: impl Fn(&str) -> Result<Value, SqsError>,
) -> Result<String, SqsError> {
    if let Some(req) = fast_path::read(action, params_json) {
        return match req {
            Request::Send(r) => text(e.send_message(now, ctx, &r)),
            Request::SendBatch(r) => text(e.send_message_batch(now, ctx, &r)),
            Request::Receive(r) => text(e.receive_message(now, &r)),
            Request::Delete(r) => text(e.delete_message(now, &r)),
            Request::DeleteBatch(r) => text(e.delete_message_batch(now, &r)),
            Request::ChangeVisibility(r) => text(e.change_message_visibility(now, &r)),
            Request::ChangeVisibilityBatch(r) => text(e.change_message_visibility_batch(now, &r)),
        };
    }
    let params = match read(params_json) {
        Ok(params) => params,
        Err(err) => {
            // Lone surrogates, if they were the text's only defect (see surrogates.rs).
            let Some((unit, text)) = surrogates::lone_surrogates(params_json) else {
                return Err(err);
            };
            let params = read(&text).map_err(|_| err)?;
            return match dispatch_text(e, now, ctx, action, params) {
                Ok(out) => Ok(surrogates::name_surrogate(params_json, unit, out)),
                Err(err) => Err(surrogates::name_surrogate_in(params_json, unit, err)),
            };
        }
    };
    dispatch_text(e, now, ctx, action, params)
}
