//! The event feed: one entry per state transition, in the order the engine made them.
//!
//! Hosts drain it after each call (`Service::take_events`); the page draws its timeline and card
//! moves from it, and tests assert on it. Events are not persisted: they describe what happened
//! in this process, not what is stored.

use serde::Serialize;

/// One state transition of a queue or a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Engine time (epoch ms) at which the transition happened.
    pub at: u64,
    /// The queue's name.
    pub queue: String,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened, with the facts a viewer needs. Serialized with `type` in kebab-case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum EventKind {
    /// CreateQueue made a new queue.
    #[serde(rename_all = "camelCase")]
    QueueCreated {
        /// Whether it is a FIFO queue.
        fifo: bool,
    },
    /// DeleteQueue removed the queue and every message in it.
    QueueDeleted,
    /// A message was accepted into the queue.
    #[serde(rename_all = "camelCase")]
    Sent {
        /// The new message's id.
        message_id: String,
        /// Its message group, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        group_id: Option<String>,
        /// FIFO sequence number.
        #[serde(skip_serializing_if = "Option::is_none")]
        sequence_number: Option<String>,
        /// When its delay ends, if it was sent delayed.
        #[serde(skip_serializing_if = "Option::is_none")]
        delayed_until: Option<u64>,
    },
    /// A FIFO send was a duplicate within the deduplication window: accepted, not enqueued.
    #[serde(rename_all = "camelCase")]
    Deduplicated {
        /// The id of the message it duplicates.
        message_id: String,
        /// The deduplication id that matched.
        deduplication_id: String,
    },
    /// A delayed message became visible.
    #[serde(rename_all = "camelCase")]
    DelayEnded {
        /// The message.
        message_id: String,
    },
    /// A receive delivered the message; it is in flight until `visible_at`.
    #[serde(rename_all = "camelCase")]
    Received {
        /// The message.
        message_id: String,
        /// The receipt handle this delivery minted.
        receipt_handle: String,
        /// `ApproximateReceiveCount` after this delivery.
        receive_count: u32,
        /// When it becomes visible again unless deleted or changed.
        visible_at: u64,
    },
    /// ChangeMessageVisibility moved the message's deadline.
    #[serde(rename_all = "camelCase")]
    VisibilityChanged {
        /// The message.
        message_id: String,
        /// The new deadline (equal to `at` when made visible at once).
        visible_at: u64,
    },
    /// The visibility timeout ran out; the message is receivable again.
    #[serde(rename_all = "camelCase")]
    VisibilityExpired {
        /// The message.
        message_id: String,
    },
    /// DeleteMessage removed the message.
    #[serde(rename_all = "camelCase")]
    Deleted {
        /// The message.
        message_id: String,
    },
    /// The message exhausted `maxReceiveCount` and went to the dead-letter queue.
    #[serde(rename_all = "camelCase")]
    MovedToDeadLetterQueue {
        /// The message (it keeps its id in the dead-letter queue).
        message_id: String,
        /// The dead-letter queue's name.
        dead_letter_queue: String,
    },
    /// A message-move task moved the message to another queue as a new message.
    #[serde(rename_all = "camelCase")]
    MovedByTask {
        /// The message that left this queue.
        message_id: String,
        /// The queue it went to.
        destination: String,
        /// Its id in the destination.
        new_message_id: String,
    },
    /// The message outlived `MessageRetentionPeriod` and was dropped.
    #[serde(rename_all = "camelCase")]
    Expired {
        /// The message.
        message_id: String,
    },
    /// Realism: a standard-queue message was delivered and stays receivable once more, as SQS's
    /// at-least-once delivery sometimes does.
    #[serde(rename_all = "camelCase")]
    DuplicateDelivered {
        /// The message delivered twice.
        message_id: String,
    },
    /// Realism: a short poll did not see this visible message (it sampled other servers).
    #[serde(rename_all = "camelCase")]
    SampledOut {
        /// The message left out.
        message_id: String,
    },
    /// Realism: a call was refused for exceeding SQS's request quota.
    #[serde(rename_all = "camelCase")]
    Throttled {
        /// The action refused.
        action: String,
    },
    /// PurgeQueue removed the message.
    #[serde(rename_all = "camelCase")]
    Purged {
        /// The message.
        message_id: String,
    },
}
