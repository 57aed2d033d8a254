//! The typed entry points of the message actions.
//!
//! Each typed call does what the protocol's dispatch does around an action (apply what fell
//! due, realism throttling) and answers the typed response; `protocol::aws_json` reads requests
//! into these same types and runs the same actions, so every entry point answers alike.
//!
//! Each borrows its request: an action only reads it (a body is copied into the store from
//! whatever holds it), and a caller can then keep one request and refill it between calls
//! rather than build and drop one per call.

use super::requests::{
    ReceiptBatchRequest, ReceiptRequest, ReceiveMessageRequest, SendMessageBatchRequest,
    SendMessageRequest,
};
use super::responses::{
    ChangeMessageVisibilityBatchResponse, DeleteMessageBatchResponse, EmptyResponse,
    ReceiveMessageResponse, SendMessageBatchResponse, SendMessageResponse,
};
use super::Engine;
use crate::context::CallContext;
use crate::error::SqsError;

/// The message actions: the ones realism throttling counts, and the ones the AWS JSON layer
/// reads from their JSON text without a `Value` (`protocol::aws_json`).
pub const MESSAGE_ACTIONS: &[&str] = &[
    "SendMessage",
    "SendMessageBatch",
    "ReceiveMessage",
    "DeleteMessage",
    "DeleteMessageBatch",
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch",
];

impl Engine {
    /// Apply what fell due and count the call against realism throttling.
    pub(crate) fn admit(
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
}
