//! One message as the engine holds it.

use super::ids::IdKeys;
use super::responses::MessageBody;
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

/// Where a message is in its deliveries: what its state record holds. The message keeps these
/// fields flat (a nested struct would pad it); this is their value as one piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Delivery {
    pub(crate) state: MessageState,
    pub(crate) deadline: u64,
    pub(crate) receive_count: u32,
    pub(crate) serial: u32,
    pub(crate) first_receive_at: u64,
    pub(crate) received_at: u64,
    pub(crate) visibility_changed: bool,
}

impl Delivery {
    /// From its send until it is first received or delayed: visible, never received. Format 2
    /// stores no state record for a message in this state.
    pub(crate) const UNSTARTED: Delivery = Delivery {
        state: MessageState::Visible,
        deadline: 0,
        receive_count: 0,
        serial: 0,
        first_receive_at: 0,
        received_at: 0,
        visibility_changed: false,
    };
}

/// Rarely-present fields, boxed so a plain message stays small. `Box<str>` rather than `String`
/// (16 bytes instead of 24 a field): every FIFO message has an extra.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MessageExtra {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) trace_header: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) deduplication_id: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dead_letter_source_arn: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sender_id: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) group_id: Option<Box<str>>,
    /// A realism-mode duplicate delivery copy (never duplicated again).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) duplicate_copy: bool,
    /// MD5OfMessageSystemAttributes as sent (the trace header travels as a system attribute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) system_attributes_md5: Option<Box<str>>,
    /// A MessageId that is not the one derived from the message's sequence (see `Message::id`).
    /// Not part of the record's `extra`: the content record carries the id in its own field.
    #[serde(skip)]
    pub(crate) id: Option<Box<IdOverride>>,
}

/// The MessageId of the message with sequence `seq`, when that is not `IdKeys::message_id(seq)`:
/// a dead-lettered message and a realism duplicate keep the id of the message they came from
/// under a new sequence. Tied to the sequence so that a copy of the extra made for another
/// message (a move task's redrive) does not carry the id along.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IdOverride {
    seq: u64,
    // Two halves rather than a u128, which would need 16-byte alignment.
    hi: u64,
    lo: u64,
}

impl MessageExtra {
    /// Nothing but an id override: the record has no `extra` then, as before ids were derived.
    pub(crate) fn is_only_id(&self) -> bool {
        // Destructured so that a new field has to be considered here.
        let MessageExtra {
            trace_header,
            deduplication_id,
            dead_letter_source_arn,
            sender_id,
            group_id,
            duplicate_copy,
            system_attributes_md5,
            id: _,
        } = self;
        trace_header.is_none()
            && deduplication_id.is_none()
            && dead_letter_source_arn.is_none()
            && sender_id.is_none()
            && group_id.is_none()
            && !duplicate_copy
            && system_attributes_md5.is_none()
    }
}

/// A message in a queue. `seq` orders it within the queue (send order) and keys its records.
///
/// Kept small (104 bytes) because a queue holds one per stored message: the MessageId is not
/// stored but derived from `seq` (`id`), and rarely-present fields live in the boxed `extra`.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub(crate) seq: u64,
    pub(crate) body: MessageBody,
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
    /// A message as it is enqueued: visible, never received. Sends, imports, move tasks and
    /// tests all start here; callers set whatever differs (a delay, an imported receive count)
    /// on the result.
    pub(crate) fn new(
        seq: u64,
        body: MessageBody,
        body_md5: [u8; 16],
        attributes: Option<Box<MessageAttributes>>,
        extra: Option<Box<MessageExtra>>,
        group: u32,
        sent_at: u64,
    ) -> Message {
        Message::with_delivery(
            seq,
            body,
            body_md5,
            attributes,
            extra,
            group,
            sent_at,
            Delivery::UNSTARTED,
        )
    }

    /// A message in delivery state `d` (restore).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn with_delivery(
        seq: u64,
        body: MessageBody,
        body_md5: [u8; 16],
        attributes: Option<Box<MessageAttributes>>,
        extra: Option<Box<MessageExtra>>,
        group: u32,
        sent_at: u64,
        d: Delivery,
    ) -> Message {
        Message {
            seq,
            body,
            body_md5,
            attributes,
            extra,
            group,
            sent_at,
            state: d.state,
            deadline: d.deadline,
            receive_count: d.receive_count,
            serial: d.serial,
            first_receive_at: d.first_receive_at,
            received_at: d.received_at,
            visibility_changed: d.visibility_changed,
        }
    }

    /// The delivery state, as one value.
    pub(crate) fn delivery(&self) -> Delivery {
        Delivery {
            state: self.state,
            deadline: self.deadline,
            receive_count: self.receive_count,
            serial: self.serial,
            first_receive_at: self.first_receive_at,
            received_at: self.received_at,
            visibility_changed: self.visibility_changed,
        }
    }

    pub(crate) fn extra(&self) -> Option<&MessageExtra> {
        self.extra.as_deref()
    }

    pub(crate) fn extra_mut(&mut self) -> &mut MessageExtra {
        self.extra.get_or_insert_with(Default::default)
    }

    pub(crate) fn group_id(&self) -> Option<&str> {
        self.extra().and_then(|e| e.group_id.as_deref())
    }

    /// The MessageId: derived from the sequence unless the message keeps another one.
    pub(crate) fn id(&self, keys: &IdKeys) -> u128 {
        self.kept_id().unwrap_or_else(|| keys.message_id(self.seq))
    }

    /// The MessageId the message keeps from another one (a dead-lettered message, a realism
    /// duplicate, an import), when it is not the one derived from its sequence.
    pub(crate) fn kept_id(&self) -> Option<u128> {
        self.extra()
            .and_then(|e| e.id.as_deref())
            .filter(|o| o.seq == self.seq)
            .map(|o| ((o.hi as u128) << 64) | o.lo as u128)
    }

    /// Give the message the MessageId `id` (restore, or before a move to a new sequence).
    pub(crate) fn set_id(&mut self, id: u128, keys: &IdKeys) {
        if id == keys.message_id(self.seq) {
            if let Some(e) = self.extra.as_deref_mut() {
                e.id = None;
            }
            return;
        }
        self.extra_mut().id = Some(Box::new(IdOverride {
            seq: self.seq,
            hi: (id >> 64) as u64,
            lo: id as u64,
        }));
    }

    /// Move the message to sequence `seq`, keeping its MessageId (dead-letter moves, realism
    /// duplicates).
    pub(crate) fn renumber(&mut self, seq: u64, keys: &IdKeys) {
        let id = self.id(keys);
        self.seq = seq;
        self.set_id(id, keys);
    }

    /// The `extra` a content record holds.
    pub(crate) fn stored_extra(&self) -> Option<&MessageExtra> {
        self.extra().filter(|e| !e.is_only_id())
    }
}
