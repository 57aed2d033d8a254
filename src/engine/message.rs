//! One message as the engine holds it.

use crate::model::MessageAttributes;
use serde::{Deserialize, Serialize};

/// Where a message is in its life. Deleted messages are not held at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum MessageState {
    /// Sent with a delay that has not ended: hidden, counted in `…Delayed`.
    Delayed,
    /// Receivable (for FIFO: subject to its group's order).
    Visible,
    /// Received; hidden until its visibility deadline.
    InFlight,
}

/// Rarely-present fields, boxed so a plain message stays small.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MessageExtra {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) trace_header: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) deduplication_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dead_letter_source_arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sender_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) group_id: Option<String>,
    /// A realism-mode duplicate delivery copy (never duplicated again).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) duplicate_copy: bool,
    /// MD5OfMessageSystemAttributes as sent (the trace header travels as a system attribute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) system_attributes_md5: Option<String>,
}

/// A message in a queue. `seq` orders it within the queue (send order) and keys its records.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub(crate) seq: u64,
    pub(crate) id: u128,
    pub(crate) body: Box<str>,
    pub(crate) body_md5: [u8; 16],
    pub(crate) attributes: Option<Box<MessageAttributes>>,
    pub(crate) extra: Option<Box<MessageExtra>>,
    /// Interned message group (0: none).
    pub(crate) group: u32,
    /// `SentTimestamp`, and the enqueue time retention counts from: SQS keeps both across a
    /// dead-letter move and starts both afresh on a redrive, so one field serves.
    pub(crate) sent_at: u64,
    pub(crate) state: MessageState,
    /// Delay end (Delayed) or visibility deadline (InFlight); meaningless when Visible.
    pub(crate) deadline: u64,
    pub(crate) receive_count: u32,
    /// Which delivery the current receipt handle belongs to (incremented on every receive).
    pub(crate) serial: u32,
    pub(crate) first_receive_at: u64,
    /// The receive the 12-hour visibility cap is counted from.
    pub(crate) received_at: u64,
    /// ChangeMessageVisibility since the last receive (a ReceiveRequestAttemptId retry is then refused).
    pub(crate) visibility_changed: bool,
}

impl Message {
    pub(crate) fn extra(&self) -> Option<&MessageExtra> {
        self.extra.as_deref()
    }

    pub(crate) fn extra_mut(&mut self) -> &mut MessageExtra {
        self.extra.get_or_insert_with(Default::default)
    }

    pub(crate) fn group_id(&self) -> Option<&str> {
        self.extra().and_then(|e| e.group_id.as_deref())
    }
}
