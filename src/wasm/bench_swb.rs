//! Bench-only (cargo feature `bench-swb`, never in the shipped package): the same calls as
//! `dispatch`, `peek` and `takeEvents`, with values crossing through `serde-wasm-bindgen`
//! instead of JSON text, so that `bench/swb-boundary.mjs` can time both side by side.
//!
//! Actions are read with `from_value` into typed mirrors of the wire shapes and answered with
//! `to_value` of mirrors that borrow from the engine's typed responses, so the engine does the
//! same work in both variants. `peek` exists only as JSON text, and this variant takes
//! GetQueueAttributes as the wire's JSON text (its typed response has no mirror here); their
//! answers are read into a `Value` first, and the `*RustOnly` methods time that extra step alone
//! so the bench can take it out.

use super::convert;
use super::core::WasqCore;
use super::error::sqs_error;
use crate::engine::requests::{ReceiveMessageRequest, SendMessageRequest};
use crate::events::{Event, EventKind};
use crate::maps::SortedMap;
use crate::model::{MessageAttributeValue, MessageAttributes};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

thread_local! {
    /// A batch of events for `stagedEvents*`: the same events serialized over and over.
    static STAGED: RefCell<Vec<Event>> = const { RefCell::new(Vec::new()) };
}

fn out<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    // Plain objects (not `Map`s) for maps, as JSON.parse gives.
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(JsValue::from)
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct SendIn {
    queue_url: Option<String>,
    message_body: Option<String>,
    delay_seconds: Option<i64>,
    message_attributes: Option<BTreeMap<String, MessageAttributeValue>>,
    message_deduplication_id: Option<String>,
    message_group_id: Option<String>,
}

#[derive(Serialize)]
struct SendOut<'a> {
    #[serde(
        rename = "MD5OfMessageAttributes",
        skip_serializing_if = "Option::is_none"
    )]
    md5_of_message_attributes: Option<&'a str>,
    #[serde(rename = "MD5OfMessageBody")]
    md5_of_message_body: &'a str,
    #[serde(rename = "MessageId")]
    message_id: &'a str,
    #[serde(rename = "SequenceNumber", skip_serializing_if = "Option::is_none")]
    sequence_number: Option<&'a str>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ReceiveIn {
    queue_url: Option<String>,
    attribute_names: Option<Vec<String>>,
    message_system_attribute_names: Option<Vec<String>>,
    message_attribute_names: Option<Vec<String>>,
    max_number_of_messages: Option<i64>,
    visibility_timeout: Option<i64>,
    wait_time_seconds: Option<i64>,
    receive_request_attempt_id: Option<String>,
}

#[derive(Serialize)]
struct ReceiveOut<'a> {
    #[serde(rename = "Messages", skip_serializing_if = "Vec::is_empty")]
    messages: Vec<MessageOut<'a>>,
}

#[derive(Serialize)]
struct MessageOut<'a> {
    #[serde(rename = "Attributes", skip_serializing_if = "Option::is_none")]
    attributes: Option<&'a SortedMap<String, String>>,
    #[serde(rename = "Body")]
    body: &'a str,
    #[serde(rename = "MD5OfBody")]
    md5_of_body: String,
    #[serde(
        rename = "MD5OfMessageAttributes",
        skip_serializing_if = "Option::is_none"
    )]
    md5_of_message_attributes: Option<&'a str>,
    #[serde(rename = "MessageAttributes", skip_serializing_if = "Option::is_none")]
    message_attributes: Option<&'a MessageAttributes>,
    #[serde(rename = "MessageId")]
    message_id: String,
    #[serde(rename = "ReceiptHandle")]
    receipt_handle: &'a str,
}

#[wasm_bindgen]
impl WasqCore {
    /// SendMessage with its parameters and answer as JS objects.
    #[wasm_bindgen(js_name = swbSend)]
    pub fn swb_send(&mut self, now: f64, params: JsValue) -> Result<JsValue, JsValue> {
        let now = convert::now(now)?;
        let p: SendIn = serde_wasm_bindgen::from_value(params)?;
        let req = SendMessageRequest {
            queue_url: p.queue_url.map(Cow::Owned),
            message_body: p.message_body.map(Cow::Owned),
            delay_seconds: p.delay_seconds,
            message_attributes: p.message_attributes.map(|m| m.into_iter().collect()),
            message_deduplication_id: p.message_deduplication_id.map(Cow::Owned),
            message_group_id: p.message_group_id.map(Cow::Owned),
            ..SendMessageRequest::default()
        };
        let r = self
            .service
            .send_message(now, &Default::default(), &req)
            .map_err(|e| sqs_error(&e))?;
        let (md5, id) = (r.md5_of_message_body.text(), r.message_id.text());
        out(&SendOut {
            md5_of_message_attributes: r.md5_of_message_attributes.as_deref(),
            md5_of_message_body: &md5,
            message_id: &id,
            sequence_number: r.sequence_number.as_deref(),
        })
    }

    /// ReceiveMessage with its parameters and answer as JS objects.
    #[wasm_bindgen(js_name = swbReceive)]
    pub fn swb_receive(&mut self, now: f64, params: JsValue) -> Result<JsValue, JsValue> {
        let now = convert::now(now)?;
        let p: ReceiveIn = serde_wasm_bindgen::from_value(params)?;
        let req = ReceiveMessageRequest {
            queue_url: p.queue_url,
            attribute_names: p.attribute_names,
            message_system_attribute_names: p.message_system_attribute_names,
            message_attribute_names: p.message_attribute_names,
            max_number_of_messages: p.max_number_of_messages,
            visibility_timeout: p.visibility_timeout,
            wait_time_seconds: p.wait_time_seconds,
            receive_request_attempt_id: p.receive_request_attempt_id,
        };
        let r = self
            .service
            .receive_message(now, &Default::default(), &req)
            .map_err(|e| sqs_error(&e))?;
        let messages = r
            .messages
            .iter()
            .map(|m| MessageOut {
                attributes: Some(m.attributes()).filter(|a| !a.is_empty()),
                body: &m.body,
                md5_of_body: m.md5_of_body.text().to_string(),
                md5_of_message_attributes: m.md5_of_message_attributes(),
                message_attributes: Some(m.message_attributes()).filter(|a| !a.is_empty()),
                message_id: m.message_id.text().to_string(),
                receipt_handle: &m.receipt_handle,
            })
            .collect();
        out(&ReceiveOut { messages })
    }

    /// Any action with its parameters read by `from_value` into a `Value` (the engine's
    /// general path) and its answer, JSON text inside the engine, read into a `Value` and
    /// handed over by `to_value`.
    #[wasm_bindgen(js_name = swbDispatch)]
    pub fn swb_dispatch(
        &mut self,
        now: f64,
        action: &str,
        params: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = self.swb_dispatch_text(now, action, params)?;
        let answer: Value = serde_json::from_str(&text).unwrap_or_default();
        out(&answer)
    }

    /// `swbDispatch` up to the answer's `Value`, which stays in the wasm: the extra step the
    /// engine's JSON-text answer costs that variant, timed alone.
    #[wasm_bindgen(js_name = swbDispatchRustOnly)]
    pub fn swb_dispatch_rust_only(
        &mut self,
        now: f64,
        action: &str,
        params: JsValue,
        parse: bool,
    ) -> Result<usize, JsValue> {
        let text = self.swb_dispatch_text(now, action, params)?;
        if parse {
            let answer: Value = serde_json::from_str(&text).unwrap_or_default();
            return Ok(answer.as_object().map_or(0, |o| o.len()));
        }
        Ok(text.len())
    }

    /// `peek` handed over by `to_value` of its `Value`.
    #[wasm_bindgen(js_name = swbPeek)]
    pub fn swb_peek(&mut self, now: f64, queue_url: &str) -> Result<JsValue, JsValue> {
        let text = self.peek_for_bench(now, queue_url)?;
        let view: Value = serde_json::from_str(&text).unwrap_or_default();
        out(&view)
    }

    /// `peek`'s text, read into a `Value` (`parse`) or not, kept in the wasm.
    #[wasm_bindgen(js_name = swbPeekRustOnly)]
    pub fn swb_peek_rust_only(
        &mut self,
        now: f64,
        queue_url: &str,
        parse: bool,
    ) -> Result<usize, JsValue> {
        let text = self.peek_for_bench(now, queue_url)?;
        if parse {
            let view: Value = serde_json::from_str(&text).unwrap_or_default();
            return Ok(view.as_object().map_or(0, |o| o.len()));
        }
        Ok(text.len())
    }

    /// Stage `n` events (a send, a receive and a delete per message, in turn) for
    /// `stagedEventsJson` / `stagedEventsValue`.
    #[wasm_bindgen(js_name = stageEvents)]
    pub fn stage_events(n: usize) {
        let events = (0..n)
            .map(|i| {
                let message_id = format!("4f9d2c1e-7a3b-4c5d-9e8f-{i:012}");
                let kind = match i % 3 {
                    0 => EventKind::Sent {
                        message_id,
                        group_id: None,
                        sequence_number: None,
                        delayed_until: None,
                    },
                    1 => EventKind::Received {
                        message_id,
                        receipt_handle: format!("AQEB{}", "x".repeat(160)),
                        receive_count: 1,
                        visible_at: 1_700_000_030_000 + i as u64,
                    },
                    _ => EventKind::Deleted { message_id },
                };
                Event {
                    at: 1_700_000_000_000 + i as u64,
                    queue: "orders".into(),
                    kind,
                }
            })
            .collect();
        STAGED.with(|s| *s.borrow_mut() = events);
    }

    /// The staged events as `takeEvents` writes them: JSON text.
    #[wasm_bindgen(js_name = stagedEventsJson)]
    pub fn staged_events_json() -> String {
        STAGED.with(|s| crate::events::to_json(&s.borrow()))
    }

    /// The staged events through `to_value` (the derives in `events.rs`).
    #[wasm_bindgen(js_name = stagedEventsValue)]
    pub fn staged_events_value() -> Result<JsValue, JsValue> {
        STAGED.with(|s| out(&*s.borrow()))
    }
}

impl WasqCore {
    fn swb_dispatch_text(
        &mut self,
        now: f64,
        action: &str,
        params: JsValue,
    ) -> Result<String, JsValue> {
        let now = convert::now(now)?;
        let params: Value = serde_wasm_bindgen::from_value(params)?;
        // The engine's general path takes a `Value`; `dispatch_json_with` hands it over when
        // the (empty) text is not one the typed fast path reads, which it never is.
        let params = Cell::new(Some(params));
        self.service
            .dispatch_json_with(now, &Default::default(), action, "", |_| {
                Ok(params.take().unwrap_or_default())
            })
            .map_err(|e| sqs_error(&e))
    }

    fn peek_for_bench(&mut self, now: f64, queue_url: &str) -> Result<String, JsValue> {
        let now = convert::now(now)?;
        self.service
            .peek_text(now, &Default::default(), queue_url)
            .map_err(|e| sqs_error(&e))
    }
}
