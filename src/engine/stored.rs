//! A bound on what an engine holds.
//!
//! The wasm's memory ends at 4 GiB, and a send that needs more traps; so does every call after
//! it. Long before that, sends are refused with RequestThrottled (a throttling error, which the
//! SDKs retry with backoff), while receives, deletes, purges and queue deletion go on working and
//! make room again. What counts is each stored message's body and attributes, the bytes a client
//! sent, plus a fixed share for what the engine keeps beside them (ids, state, indexes), so that
//! a flood of tiny messages is bounded too. Restoring from storage is never refused: what was
//! acknowledged is kept, and sends wait until there is room.

use super::message::Message;
use super::requests::SendMessageRequest;
use super::Engine;
use crate::error::SqsError;
use crate::validate;

/// The default bound: a quarter of the wasm's 4 GiB, which leaves room for the engine's own
/// structures, the calls' transient copies and the heap's growth steps.
pub const DEFAULT_MAX_STORED_BYTES: u64 = 1 << 30;

/// Counted per message on top of its body and attributes: roughly what the engine keeps for
/// one (`tests/memory_per_message.rs` measures the real figure).
const PER_MESSAGE: u64 = 256;

/// What a stored message counts for.
pub(crate) fn held_by(msg: &Message) -> u64 {
    let attributes = msg
        .attributes
        .as_deref()
        .map_or(0, validate::message_attributes_size);
    (msg.body.len() + attributes) as u64 + PER_MESSAGE
}

/// What a message sent with `req` will count for once stored.
fn incoming(req: &SendMessageRequest) -> u64 {
    let body = req.message_body.as_deref().map_or(0, str::len);
    let attributes = req
        .message_attributes
        .as_ref()
        .map_or(0, validate::message_attributes_size);
    (body + attributes) as u64 + PER_MESSAGE
}

impl Engine {
    /// What this region's messages hold, as counted here.
    pub fn stored_bytes(&self) -> u64 {
        self.queues.values().map(|q| q.messages.bytes()).sum()
    }

    /// Tell this engine what the other regions of its service hold: the bound is the service's.
    pub fn set_stored_elsewhere(&mut self, bytes: u64) {
        self.stored_elsewhere = bytes;
    }

    /// RequestThrottled when the messages of `sends` would take what is stored past the bound.
    pub(super) fn check_room<'r, 's: 'r>(
        &self,
        sends: impl IntoIterator<Item = &'r SendMessageRequest<'s>>,
    ) -> Result<(), SqsError> {
        let coming: u64 = sends.into_iter().map(incoming).sum();
        let held = self.stored_bytes().saturating_add(self.stored_elsewhere);
        let max = self.config.max_stored_bytes;
        if held.saturating_add(coming) <= max {
            return Ok(());
        }
        Err(SqsError::RequestThrottled(format!(
            "Request is throttled: the queues hold {held} of the {max} stored bytes allowed (maxStoredBytes), \
             and this send needs {coming}. Receive and delete messages, or purge a queue, to make room."
        )))
    }
}

#[cfg(test)]
mod tests {
    use crate::context::CallContext;
    use crate::engine::EngineConfig;
    use crate::error::SqsError;
    use crate::service::Service;
    use serde_json::json;

    fn send(s: &mut Service, region: &str, body: &str) -> Result<(), SqsError> {
        let ctx = CallContext {
            region: Some(region.into()),
            ..CallContext::default()
        };
        let url = s
            .dispatch(0, &ctx, "CreateQueue", json!({ "QueueName": "q" }))?
            .get("QueueUrl")
            .and_then(|u| u.as_str())
            .map(str::to_string)
            .unwrap_or_default();
        let params = json!({ "QueueUrl": url, "MessageBody": body });
        s.dispatch(0, &ctx, "SendMessage", params).map(drop)
    }

    #[test]
    fn the_bound_is_the_services_across_regions() {
        let body = "x".repeat(744); // 1,000 bytes counted
        let mut s = Service::new(EngineConfig {
            max_stored_bytes: 3_000,
            ..EngineConfig::default()
        });
        send(&mut s, "us-east-1", &body).unwrap();
        send(&mut s, "eu-west-1", &body).unwrap();
        send(&mut s, "ap-south-1", &body).unwrap();
        for region in ["us-east-1", "eu-west-1", "sa-east-1"] {
            let err = send(&mut s, region, "y").unwrap_err();
            assert_eq!(err.shape(), "RequestThrottled", "{region}");
        }
    }
}
