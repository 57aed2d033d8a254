//! The event feed: one entry per state transition, in the order the engine made them.
//!
//! Hosts drain it after each call (`Service::take_events`); the page draws its timeline and card
//! moves from it, and tests assert on it. Events are not persisted: they describe what happened
//! in this process, not what is stored.

use crate::json_text::{list, Obj};
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

/// Events as a JSON array, byte for byte what `serde_json::to_string` makes of them through the
/// derives above (members in the derives' order: `at`, `queue`, `type`, then the variant's
/// fields; absent options left out), through the crate's own writer: the derives' serializer
/// (its flattening and its internally tagged enum) is otherwise the only user of serde's
/// serializing machinery in the wasm, beside `Value`'s.
pub fn to_json(events: &[Event]) -> String {
    let mut out = String::new();
    list(&mut out, events, |out, e| e.write_json(out));
    out
}

impl Event {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.u64("at", self.at).str("queue", &self.queue);
        let id = |o: &mut Obj<'_>, t: &'static str, message_id: &str| {
            o.str("type", t).str("messageId", message_id);
        };
        match &self.kind {
            EventKind::QueueCreated { fifo } => {
                o.str("type", "queue-created").bool("fifo", *fifo);
            }
            EventKind::QueueDeleted => {
                o.str("type", "queue-deleted");
            }
            EventKind::Sent {
                message_id,
                group_id,
                sequence_number,
                delayed_until,
            } => {
                id(&mut o, "sent", message_id);
                o.opt("groupId", group_id.as_deref())
                    .opt("sequenceNumber", sequence_number.as_deref());
                if let Some(at) = delayed_until {
                    o.u64("delayedUntil", *at);
                }
            }
            EventKind::Deduplicated {
                message_id,
                deduplication_id,
            } => {
                id(&mut o, "deduplicated", message_id);
                o.str("deduplicationId", deduplication_id);
            }
            EventKind::DelayEnded { message_id } => id(&mut o, "delay-ended", message_id),
            EventKind::Received {
                message_id,
                receipt_handle,
                receive_count,
                visible_at,
            } => {
                id(&mut o, "received", message_id);
                o.str("receiptHandle", receipt_handle)
                    .u64("receiveCount", u64::from(*receive_count))
                    .u64("visibleAt", *visible_at);
            }
            EventKind::VisibilityChanged {
                message_id,
                visible_at,
            } => {
                id(&mut o, "visibility-changed", message_id);
                o.u64("visibleAt", *visible_at);
            }
            EventKind::VisibilityExpired { message_id } => {
                id(&mut o, "visibility-expired", message_id)
            }
            EventKind::Deleted { message_id } => id(&mut o, "deleted", message_id),
            EventKind::MovedToDeadLetterQueue {
                message_id,
                dead_letter_queue,
            } => {
                id(&mut o, "moved-to-dead-letter-queue", message_id);
                o.str("deadLetterQueue", dead_letter_queue);
            }
            EventKind::MovedByTask {
                message_id,
                destination,
                new_message_id,
            } => {
                id(&mut o, "moved-by-task", message_id);
                o.str("destination", destination)
                    .str("newMessageId", new_message_id);
            }
            EventKind::Expired { message_id } => id(&mut o, "expired", message_id),
            EventKind::DuplicateDelivered { message_id } => {
                id(&mut o, "duplicate-delivered", message_id)
            }
            EventKind::SampledOut { message_id } => id(&mut o, "sampled-out", message_id),
            EventKind::Throttled { action } => {
                o.str("type", "throttled").str("action", action);
            }
            EventKind::Purged { message_id } => id(&mut o, "purged", message_id),
        }
        o.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_kinds() -> Vec<EventKind> {
        // Texts that need escaping, and every option both present and absent.
        let s = |t: &str| format!("{t} \"q\" \\ \n\u{1} é");
        vec![
            EventKind::QueueCreated { fifo: true },
            EventKind::QueueCreated { fifo: false },
            EventKind::QueueDeleted,
            EventKind::Sent {
                message_id: s("m"),
                group_id: Some(s("g")),
                sequence_number: Some("18889999999999999999".into()),
                delayed_until: Some(u64::MAX),
            },
            EventKind::Sent {
                message_id: s("m"),
                group_id: None,
                sequence_number: None,
                delayed_until: None,
            },
            EventKind::Deduplicated {
                message_id: s("m"),
                deduplication_id: s("d"),
            },
            EventKind::DelayEnded { message_id: s("m") },
            EventKind::Received {
                message_id: s("m"),
                receipt_handle: s("h"),
                receive_count: u32::MAX,
                visible_at: 0,
            },
            EventKind::VisibilityChanged {
                message_id: s("m"),
                visible_at: 1_700_000_000_000,
            },
            EventKind::VisibilityExpired { message_id: s("m") },
            EventKind::Deleted { message_id: s("m") },
            EventKind::MovedToDeadLetterQueue {
                message_id: s("m"),
                dead_letter_queue: s("dlq"),
            },
            EventKind::MovedByTask {
                message_id: s("m"),
                destination: s("to"),
                new_message_id: s("n"),
            },
            EventKind::Expired { message_id: s("m") },
            EventKind::DuplicateDelivered { message_id: s("m") },
            EventKind::SampledOut { message_id: s("m") },
            EventKind::Throttled { action: s("a") },
            EventKind::Purged { message_id: s("m") },
        ]
    }

    #[test]
    fn written_as_the_derives_serialize() {
        let events: Vec<Event> = all_kinds()
            .into_iter()
            .enumerate()
            .map(|(i, kind)| Event {
                at: i as u64 * 1_000_003,
                queue: format!("q{i}\"\t"),
                kind,
            })
            .collect();
        for e in &events {
            assert_eq!(
                to_json(std::slice::from_ref(e)),
                serde_json::to_string(&[e]).unwrap()
            );
        }
        assert_eq!(to_json(&events), serde_json::to_string(&events).unwrap());
        assert_eq!(to_json(&[]), "[]");
    }
}
