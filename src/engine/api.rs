//! The typed entry points of the message actions, and `dispatch_json` on top of them.
//!
//! Each typed call does what `dispatch` does around an action (apply what fell due, realism
//! throttling) and answers the typed response; `dispatch` and `dispatch_json` are layers over
//! the same actions, so all three answer alike.
//!
//! Each borrows its request: an action only reads it (a body is copied into the store from
//! whatever holds it), and a caller can then keep one request and refill it between calls
//! rather than build and drop one per call.

use super::json_in::{self, Request};
use super::requests::{
    ReceiptBatchRequest, ReceiptRequest, ReceiveMessageRequest, SendMessageBatchRequest,
    SendMessageRequest,
};
use super::responses::{
    ChangeMessageVisibilityBatchResponse, DeleteMessageBatchResponse, EmptyResponse, JsonResponse,
    ReceiveMessageResponse, SendMessageBatchResponse, SendMessageResponse,
};
use super::surrogates;
use super::Engine;
use crate::context::CallContext;
use crate::error::SqsError;
use serde_json::Value;

/// The message actions: the ones realism throttling counts, and the ones `dispatch_json` reads
/// from their JSON text without a `Value` (the rest go through `dispatch`).
pub const MESSAGE_ACTIONS: &[&str] = &[
    "SendMessage",
    "SendMessageBatch",
    "ReceiveMessage",
    "DeleteMessage",
    "DeleteMessageBatch",
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch",
];

/// How `dispatch_json` reads JSON text it does not take on its fast path (see
/// [`Engine::dispatch_json_with`]).
pub fn read_json_params(text: &str) -> Result<Value, SqsError> {
    serde_json::from_str(text).map_err(|e| SqsError::Serialization(e.to_string()))
}

impl Engine {
    /// Apply what fell due and count the call against realism throttling.
    fn admit(
        &mut self,
        now: u64,
        action: &'static str,
        url: Option<&str>,
        group: Option<&str>,
    ) -> Result<u64, SqsError> {
        let now = self.advance(now);
        self.throttle(now, action, url, group)?;
        Ok(now)
    }

    /// SendMessage.
    pub fn send_message(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &SendMessageRequest<'_>,
    ) -> Result<SendMessageResponse, SqsError> {
        let group = req.message_group_id.as_deref();
        let now = self.admit(now, "SendMessage", req.queue_url.as_deref(), group)?;
        self.run_send_message(now, ctx, req)
    }

    /// SendMessageBatch.
    pub fn send_message_batch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &SendMessageBatchRequest<'_>,
    ) -> Result<SendMessageBatchResponse, SqsError> {
        let group = req
            .entries
            .as_ref()
            .and_then(|e| e.first())
            .and_then(|e| e.message_group_id.as_deref());
        let now = self.admit(now, "SendMessageBatch", req.queue_url.as_deref(), group)?;
        self.run_send_message_batch(now, ctx, req)
    }

    /// ReceiveMessage (one attempt: long polling is the host's, see `receivable`).
    pub fn receive_message(
        &mut self,
        now: u64,
        req: &ReceiveMessageRequest,
    ) -> Result<ReceiveMessageResponse, SqsError> {
        let now = self.admit(now, "ReceiveMessage", req.queue_url.as_deref(), None)?;
        self.run_receive_message(now, req)
    }

    /// DeleteMessage (`QueueUrl`, `ReceiptHandle`).
    pub fn delete_message(
        &mut self,
        now: u64,
        req: &ReceiptRequest<'_>,
    ) -> Result<EmptyResponse, SqsError> {
        let now = self.admit(now, "DeleteMessage", req.queue_url.as_deref(), None)?;
        self.run_delete_message(now, req)
    }

    /// DeleteMessageBatch.
    pub fn delete_message_batch(
        &mut self,
        now: u64,
        req: &ReceiptBatchRequest<'_>,
    ) -> Result<DeleteMessageBatchResponse, SqsError> {
        let now = self.admit(now, "DeleteMessageBatch", req.queue_url.as_deref(), None)?;
        self.run_delete_message_batch(now, req)
    }

    /// ChangeMessageVisibility (`QueueUrl`, `ReceiptHandle`, `VisibilityTimeout`).
    pub fn change_message_visibility(
        &mut self,
        now: u64,
        req: &ReceiptRequest<'_>,
    ) -> Result<EmptyResponse, SqsError> {
        let now = self.admit(
            now,
            "ChangeMessageVisibility",
            req.queue_url.as_deref(),
            None,
        )?;
        self.run_change_message_visibility(now, req)
    }

    /// ChangeMessageVisibilityBatch.
    pub fn change_message_visibility_batch(
        &mut self,
        now: u64,
        req: &ReceiptBatchRequest<'_>,
    ) -> Result<ChangeMessageVisibilityBatchResponse, SqsError> {
        let now = self.admit(
            now,
            "ChangeMessageVisibilityBatch",
            req.queue_url.as_deref(),
            None,
        )?;
        self.run_change_message_visibility_batch(now, req)
    }

    /// `dispatch` with JSON text in and out: the same answer, byte for byte, as
    /// `dispatch(now, ctx, action, read_json_params(params_json)?)` then `to_string()`.
    pub fn dispatch_json(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params_json: &str,
    ) -> Result<String, SqsError> {
        self.dispatch_json_with(now, ctx, action, params_json, read_json_params)
    }

    /// `dispatch_json` with the host's own reading of JSON text into parameters (its errors for
    /// malformed text, an empty body as `{}`, …). `read` runs only for text the fast path does
    /// not take: anything but a well-formed object of a message action's members; what `read`
    /// returns for such an object must be that object.
    pub fn dispatch_json_with(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params_json: &str,
        read: impl Fn(&str) -> Result<Value, SqsError>,
    ) -> Result<String, SqsError> {
        if let Some(req) = json_in::read(action, params_json) {
            return match req {
                Request::Send(r) => self.send_message(now, ctx, &r).map(|r| r.to_json()),
                Request::SendBatch(r) => self.send_message_batch(now, ctx, &r).map(|r| r.to_json()),
                Request::Receive(r) => self.receive_message(now, &r).map(|r| r.to_json()),
                Request::Delete(r) => self.delete_message(now, &r).map(|r| r.to_json()),
                Request::DeleteBatch(r) => self.delete_message_batch(now, &r).map(|r| r.to_json()),
                Request::ChangeVisibility(r) => {
                    self.change_message_visibility(now, &r).map(|r| r.to_json())
                }
                Request::ChangeVisibilityBatch(r) => self
                    .change_message_visibility_batch(now, &r)
                    .map(|r| r.to_json()),
            };
        }
        let params = match read(params_json) {
            Ok(params) => params,
            Err(e) => {
                // Lone surrogates, if they were the text's only defect (see surrogates.rs).
                let Some((unit, text)) = surrogates::lone_surrogates(params_json) else {
                    return Err(e);
                };
                let params = read(&text).map_err(|_| e)?;
                return match self.dispatch_text(now, ctx, action, params) {
                    Ok(out) => Ok(surrogates::name_surrogate(params_json, unit, out)),
                    Err(e) => Err(surrogates::name_surrogate_in(params_json, unit, e)),
                };
            }
        };
        self.dispatch_text(now, ctx, action, params)
    }
}
