//! ReceiveMessage: selection (standard lanes, FIFO groups), dead-letter moves, attempt-id
//! retries, and the response with filtered attributes and their MD5.

use super::ids::{format_uuid, sequence_number, Receipt};
use super::journal::RecordKey;
use super::message::{Message, MessageState};
use super::queue::{Attempt, Queue, Removal};
use super::requests::ReceiveMessageRequest;
use super::responses::{
    push_with, Md5Digest, MessageId, ReceiveMessageResponse, ReceivedMessage, SelectedAttributes,
};
use super::{int_in_range, Engine};
use crate::digest;
use crate::error::{invalid_value, SqsError};
use crate::events::EventKind;
use crate::maps::SortedMap;
use crate::validate;
use std::collections::BTreeSet;

const ATTEMPT_WINDOW_MS: u64 = 5 * 60 * 1000;

/// System attributes ReceiveMessage can return, in the order they are listed.
const SYSTEM_ATTRIBUTES: &[&str] = &[
    "ApproximateFirstReceiveTimestamp",
    "ApproximateReceiveCount",
    "AWSTraceHeader",
    "DeadLetterQueueSourceArn",
    "MessageDeduplicationId",
    "MessageGroupId",
    "SenderId",
    "SentTimestamp",
    "SequenceNumber",
];

/// A receive that passed validation.
pub(crate) struct ReceivePlan {
    pub(crate) max: usize,
    pub(crate) visibility_ms: u64,
    pub(crate) long_poll: bool,
}

impl Engine {
    pub(crate) fn run_receive_message(
        &mut self,
        now: u64,
        req: &ReceiveMessageRequest,
    ) -> Result<ReceiveMessageResponse, SqsError> {
        let uid = self.message_queue(req.queue_url.as_deref())?;
        let max = int_in_range(
            req.max_number_of_messages,
            "MaxNumberOfMessages",
            1,
            10,
            "Must be between 1 and 10, if provided.",
        )?
        .unwrap_or(1) as usize;
        let visibility = int_in_range(
            req.visibility_timeout,
            "VisibilityTimeout",
            0,
            43_200,
            "Must be >= 0 and <= 43200, if provided.",
        )?;
        let wait = int_in_range(
            req.wait_time_seconds,
            "WaitTimeSeconds",
            0,
            20,
            "Must be >= 0 and <= 20, if provided.",
        )?;
        let q = self.queue(uid)?;
        let fifo = q.fifo();
        // ReceiveRequestAttemptId is FIFO-only; standard queues accept and ignore it (spec §8.5).
        let attempt_id = match &req.receive_request_attempt_id {
            Some(id) if fifo => {
                validate::validate_token(id, "ReceiveRequestAttemptId")?;
                Some(id.clone())
            }
            _ => None,
        };
        let plan = ReceivePlan {
            max,
            visibility_ms: visibility.unwrap_or(q.attrs.visibility_timeout as i64) as u64 * 1000,
            long_poll: wait.unwrap_or(q.attrs.receive_message_wait_time_seconds as i64) > 0,
        };
        if let Some(id) = &attempt_id {
            if let Some(replayed) = self.replay_attempt(uid, now, id, plan.visibility_ms)? {
                return Ok(self.render_messages(uid, &replayed, req));
            }
        }
        // A FIFO receive with an attempt id remembers what it delivered, by sequence and serial.
        // An empty answer is not remembered: the attempt id exists so that a retry after a lost
        // answer gets the messages that answer held (spec §8.5), and an empty one held none, so a
        // retry receives afresh and takes what has arrived since. Chosen; AWS not recorded.
        let mut deliveries = attempt_id.is_some().then(Vec::new);
        let messages = self.receive(uid, now, &plan, req, deliveries.as_mut())?;
        if let (Some(id), Some(deliveries)) = (attempt_id, deliveries) {
            if let (Some(q), false) = (self.queues.get_mut(&uid), deliveries.is_empty()) {
                let n = q.next_attempt;
                q.next_attempt += 1;
                let replaced = q.remember_attempt(
                    id,
                    Attempt {
                        expires_at: now + ATTEMPT_WINDOW_MS,
                        deliveries,
                        n,
                    },
                );
                self.journal.touch(RecordKey::Attempt(uid, n));
                self.journal.touch(RecordKey::Queue(uid));
                if let Some(old) = replaced {
                    self.journal.touch(RecordKey::Attempt(uid, old));
                }
            }
        }
        Ok(ReceiveMessageResponse { messages })
    }

    /// Select and deliver up to `plan.max` messages, each rendered as it is delivered (it is
    /// in hand then: rendering afterwards looked every message up again), in order; with
    /// `deliveries`, their sequences and serials too.
    pub(crate) fn receive(
        &mut self,
        uid: u64,
        now: u64,
        plan: &ReceivePlan,
        req: &ReceiveMessageRequest,
        deliveries: Option<&mut Vec<(u64, u32)>>,
    ) -> Result<Vec<ReceivedMessage>, SqsError> {
        let limit = self.inflight_limit(uid);
        let dlq = self.dead_letter_target(uid);
        let realism = match self.queues.get(&uid) {
            Some(q) => self.realism_for(&q.name).clone(),
            None => return Err(SqsError::QueueDoesNotExist),
        };
        let Some(q) = self.queues.get_mut(&uid) else {
            return Err(SqsError::QueueDoesNotExist);
        };
        if q.in_flight >= limit {
            // Standard queues refuse a short poll at the limit; long polls and FIFO queues just
            // get nothing (spec §7.5).
            if !q.fifo() && !plan.long_poll {
                return Err(SqsError::OverLimit(
                    "Too many messages are in flight for this queue. Delete messages or wait for their visibility timeout to expire."
                        .into(),
                ));
            }
            return Ok(Vec::new());
        }
        let cap = plan.max.min(limit - q.in_flight);
        let max_receives = dlq.map(|(_, n)| n);
        // Sized up front: the list grew 1 → 4 → 8 → 16, copying its ~200-byte entries each time.
        let mut messages = Vec::with_capacity(cap);
        let mut delivered = 0usize;
        let mut moved: Vec<Message> = Vec::new();
        let j = &mut self.journal;
        let keys = &self.keys;
        let wanted = wanted_attributes(req);
        let render = Render {
            keys,
            queue: q.uid,
            fifo: q.fifo(),
            account_id: &self.config.account_id,
            req,
            wanted: &wanted,
        };
        let mut out = Delivered {
            messages: &mut messages,
            deliveries,
        };
        if q.fifo() {
            while delivered < cap {
                let Some(group) = q.next_ready_group() else {
                    break;
                };
                let run = q.group_head_run(group, cap - delivered);
                if run.is_empty() {
                    break;
                }
                for seq in run {
                    if exhausted(q, seq, max_receives) {
                        moved.extend(q.remove(seq, now, Removal::DeadLettered, j));
                    } else {
                        deliver(q, seq, now, plan.visibility_ms, j, &render, &mut out);
                        delivered += 1;
                    }
                }
            }
        } else {
            // Realism: a short poll sees each visible message with this probability.
            let sample = realism.short_poll_sampling;
            let sampling = !plan.long_poll && sample > 0.0 && sample < 1.0;
            let dice = &mut self.dice;
            let mut skip = BTreeSet::new();
            let mut examined = 0usize;
            while delivered < cap {
                let shuffle = realism.reorder.then_some(&mut *dice);
                let Some(seq) = q.next_standard(&skip, shuffle) else {
                    break;
                };
                if sampling {
                    examined += 1;
                    if examined > cap {
                        break;
                    }
                    if !dice.chance(sample) {
                        skip.insert(seq);
                        let id = q
                            .messages
                            .get(&seq)
                            .map(|m| m.id(&q.keys))
                            .unwrap_or_default();
                        let name = q.name.clone();
                        j.event(now, &name, || EventKind::SampledOut {
                            message_id: format_uuid(id),
                        });
                        continue;
                    }
                }
                if exhausted(q, seq, max_receives) {
                    moved.extend(q.remove(seq, now, Removal::DeadLettered, j));
                    continue;
                }
                let is_copy = deliver(q, seq, now, plan.visibility_ms, j, &render, &mut out);
                delivered += 1;
                if !is_copy && dice.chance(realism.duplicate_delivery) {
                    let copy_seq = self.next_seq;
                    self.next_seq += 1;
                    j.touch(RecordKey::Meta);
                    duplicate(q, seq, copy_seq, now, j);
                }
            }
        }
        q.counters[super::metrics::RECEIVED] += delivered as u64;
        self.sync_deadline(uid);
        if let Some((dlq_uid, _)) = dlq {
            for msg in moved {
                self.dead_letter(uid, dlq_uid, msg, now);
            }
        }
        Ok(messages)
    }

    /// The dead-letter queue a receive may move exhausted messages to, with maxReceiveCount.
    /// `None` when there is no policy or its target cannot take them now: messages are then
    /// delivered normally, never dropped (spec §11.2).
    fn dead_letter_target(&self, uid: u64) -> Option<(u64, u32)> {
        let q = self.queues.get(&uid)?;
        let policy = q.attrs.redrive_policy.as_ref()?;
        let dlq_uid = self.resolve_arn(&policy.dead_letter_target_arn)?;
        let dlq = self.queues.get(&dlq_uid)?;
        if dlq_uid == uid || dlq.fifo() != q.fifo() {
            return None;
        }
        if let Some(allow) = &dlq.attrs.redrive_allow_policy {
            if !allow.allows(&self.arn(&q.name)) {
                return None;
            }
        }
        Some((dlq_uid, policy.max_receive_count))
    }

    /// Put a message that exhausted its receives into the dead-letter queue. It keeps its id,
    /// body, attributes, timestamps and receive count, and gains DeadLetterQueueSourceArn.
    fn dead_letter(&mut self, source_uid: u64, dlq_uid: u64, mut msg: Message, now: u64) {
        let Some(source) = self.queues.get_mut(&source_uid) else {
            return;
        };
        source.counters[super::metrics::DEAD_LETTERED] += 1;
        let source_name = source.name.clone();
        let source_arn = self.arn(&source_name);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.journal.touch(RecordKey::Meta);
        let Some(dlq) = self.queues.get_mut(&dlq_uid) else {
            return;
        };
        let message_id = format_uuid(msg.id(&self.keys));
        msg.renumber(seq, &self.keys);
        msg.state = MessageState::Visible;
        msg.deadline = 0;
        let fifo = dlq.fifo();
        let extra = msg.extra_mut();
        extra.dead_letter_source_arn = Some(source_arn.into());
        if fifo {
            // In a FIFO dead-letter queue the deduplication id becomes the message id, so that
            // independent messages are not deduplicated against each other there.
            extra.deduplication_id = Some(message_id.as_str().into());
        }
        let group_name = msg.group_id().map(str::to_string);
        msg.group = dlq.intern_group(group_name.as_deref());
        let dlq_name = dlq.name.clone();
        dlq.insert(msg, &mut self.journal);
        self.sync_deadline(dlq_uid);
        self.journal
            .event(now, &source_name, || EventKind::MovedToDeadLetterQueue {
                message_id,
                dead_letter_queue: dlq_name,
            });
    }

    /// A FIFO retry with the same ReceiveRequestAttemptId within 5 minutes: the same messages
    /// with the same receipt handles and a fresh visibility timeout, unless one of them was
    /// deleted, re-received or had its visibility changed (spec §8.5).
    fn replay_attempt(
        &mut self,
        uid: u64,
        now: u64,
        id: &str,
        visibility_ms: u64,
    ) -> Result<Option<Vec<u64>>, SqsError> {
        let Some(q) = self.queues.get_mut(&uid) else {
            return Err(SqsError::QueueDoesNotExist);
        };
        let Some(attempt) = q.attempts.get(id).filter(|a| a.expires_at > now).cloned() else {
            return Ok(None);
        };
        let retryable = attempt.deliveries.iter().all(|(seq, serial)| {
            q.messages.get(seq).is_some_and(|m| {
                m.serial == *serial && !m.visibility_changed && m.state != MessageState::Delayed
            })
        });
        if !retryable {
            return Err(invalid_value(
                id,
                "ReceiveRequestAttemptId",
                "The receiveRequestAttemptId is not valid anymore since the receive call is not retryable.",
            ));
        }
        for (seq, _) in &attempt.deliveries {
            q.set_in_flight(*seq, now + visibility_ms, &mut self.journal);
        }
        self.sync_deadline(uid);
        Ok(Some(attempt.deliveries.iter().map(|(s, _)| *s).collect()))
    }

    /// The ReceiveMessage response of a replayed attempt, with attribute filters applied.
    fn render_messages(
        &self,
        uid: u64,
        seqs: &[u64],
        req: &ReceiveMessageRequest,
    ) -> ReceiveMessageResponse {
        let Some(q) = self.queues.get(&uid) else {
            return ReceiveMessageResponse::default();
        };
        let wanted = wanted_attributes(req);
        let render = Render {
            keys: &self.keys,
            queue: q.uid,
            fifo: q.fifo(),
            account_id: &self.config.account_id,
            req,
            wanted: &wanted,
        };
        let mut messages = Vec::with_capacity(seqs.len());
        for m in seqs.iter().filter_map(|seq| q.messages.get(seq)) {
            messages.push(render.message(m, m.id(&self.keys)));
        }
        ReceiveMessageResponse { messages }
    }
}

/// The system attributes a receive asked for: both parameters select them, and AWS returned
/// the union (spec §6.2).
fn wanted_attributes(req: &ReceiveMessageRequest) -> Vec<&str> {
    req.message_system_attribute_names
        .iter()
        .chain(req.attribute_names.iter())
        .flatten()
        .map(String::as_str)
        .collect()
}

/// What a receive renders its messages with, borrowed apart from the queue it changes.
struct Render<'a> {
    keys: &'a super::ids::IdKeys,
    queue: u64,
    fifo: bool,
    account_id: &'a str,
    req: &'a ReceiveMessageRequest,
    wanted: &'a [&'a str],
}

impl Render<'_> {
    /// One message of the response, with attribute filters applied; `id` is its MessageId.
    /// The attributes, which few receives ask for, are rendered apart. Not inlined: it has two
    /// callers, and one copy keeps the package small.
    fn message(&self, m: &Message, id: u128) -> ReceivedMessage {
        ReceivedMessage {
            message_id: MessageId::from_bits(id),
            receipt_handle: self.keys.receipt_handle(Receipt {
                queue: self.queue,
                seq: m.seq,
                serial: m.serial,
            }),
            md5_of_body: Md5Digest::from_bytes(m.body_md5),
            // Not `to_string()`: on a `Box<str>` that goes through `Display` and the formatter.
            body: m.body.clone(),
            selected: if self.wanted.is_empty() && self.req.message_attribute_names.is_none() {
                None
            } else {
                self.attributes(m)
            },
        }
    }

    /// The system attributes asked for, and the message attributes the filters select with
    /// their MD5; `None` if that is nothing.
    fn attributes(&self, m: &Message) -> Option<Box<SelectedAttributes>> {
        let mut attributes = SortedMap::new();
        if !self.wanted.is_empty() {
            let all = self.wanted.contains(&"All");
            for name in SYSTEM_ATTRIBUTES {
                if !all && !self.wanted.contains(name) {
                    continue;
                }
                if let Some(v) = self.system_attribute(m, name) {
                    attributes.insert((*name).to_string(), v);
                }
            }
        }
        let mut md5_of_message_attributes = None;
        let mut message_attributes = crate::model::MessageAttributes::new();
        if let (Some(filters), Some(attrs)) = (&self.req.message_attribute_names, &m.attributes) {
            let selected: Vec<(&String, &crate::model::MessageAttributeValue)> = attrs
                .iter()
                .filter(|(name, _)| validate::attribute_filter_selects(filters, name))
                .collect();
            md5_of_message_attributes =
                digest::md5_of_attributes(selected.iter().map(|(k, v)| (k.as_str(), *v)));
            if md5_of_message_attributes.is_some() {
                message_attributes = selected
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
            }
        }
        let nothing = attributes.is_empty()
            && md5_of_message_attributes.is_none()
            && message_attributes.is_empty();
        (!nothing).then(|| {
            Box::new(SelectedAttributes {
                attributes,
                md5_of_message_attributes,
                message_attributes,
            })
        })
    }

    fn system_attribute(&self, m: &Message, name: &str) -> Option<String> {
        let extra = m.extra();
        Some(match name {
            // SQS reports the IAM principal id, not the account id (spec §6.1); without SigV4
            // there is no principal, so a stable AIDA-style id derived from the account stands in.
            "SenderId" => extra
                .and_then(|e| e.sender_id.as_deref().map(str::to_string))
                .unwrap_or_else(|| format!("AIDA{}", self.account_id)),
            "SentTimestamp" => m.sent_at.to_string(),
            "ApproximateReceiveCount" => m.receive_count.to_string(),
            "ApproximateFirstReceiveTimestamp" => {
                if m.receive_count == 0 {
                    return None;
                }
                m.first_receive_at.to_string()
            }
            "SequenceNumber" if self.fifo => sequence_number(m.seq),
            "MessageDeduplicationId" if self.fifo => {
                extra?.deduplication_id.as_deref()?.to_string()
            }
            "MessageGroupId" => m.group_id()?.to_string(),
            "AWSTraceHeader" => extra?.trace_header.as_deref()?.to_string(),
            "DeadLetterQueueSourceArn" => extra?.dead_letter_source_arn.as_deref()?.to_string(),
            _ => return None,
        })
    }
}

/// Where a receive puts what it delivers.
struct Delivered<'a> {
    messages: &'a mut Vec<ReceivedMessage>,
    deliveries: Option<&'a mut Vec<(u64, u32)>>,
}

/// Has this message been delivered maxReceiveCount times already? Then the receive that would
/// deliver it again moves it to the dead-letter queue instead (spec §11.2).
fn exhausted(q: &Queue, seq: u64, max_receives: Option<u32>) -> bool {
    // Without a redrive policy there is nothing to look up.
    max_receives.is_some_and(|max| q.messages.get(&seq).is_some_and(|m| m.receive_count >= max))
}

/// Realism: leave a second, visible copy of a delivered message (same id and body, its own
/// receipt handles), as SQS's at-least-once delivery sometimes does.
fn duplicate(q: &mut Queue, seq: u64, copy_seq: u64, now: u64, j: &mut super::journal::Journal) {
    let Some(m) = q.messages.get(&seq) else {
        return;
    };
    let mut copy = m.clone();
    copy.renumber(copy_seq, &q.keys);
    copy.state = MessageState::Visible;
    copy.deadline = 0;
    copy.serial = 0;
    copy.extra_mut().duplicate_copy = true;
    let id = copy.id(&q.keys);
    q.insert(copy, j);
    let name = q.name.clone();
    j.event(now, &name, || EventKind::DuplicateDelivered {
        message_id: format_uuid(id),
    });
}

/// Deliver one visible message: count the receive, mint its handle, hide it until the deadline,
/// and render it into `out`. Returns whether it is a realism duplicate copy (which is never
/// duplicated again).
fn deliver(
    q: &mut Queue,
    seq: u64,
    now: u64,
    visibility_ms: u64,
    j: &mut super::journal::Journal,
    render: &Render<'_>,
    out: &mut Delivered<'_>,
) -> bool {
    let deadline = now + visibility_ms;
    let keys = render.keys;
    let counted = q.set_in_flight_then(seq, deadline, j, |m| {
        m.receive_count += 1;
        m.serial = m.serial.wrapping_add(1);
        if m.first_receive_at == 0 {
            m.first_receive_at = now;
        }
        m.received_at = now;
        m.visibility_changed = false;
        let is_copy = m.extra().is_some_and(|e| e.duplicate_copy);
        let id = m.id(keys);
        push_with(out.messages, || render.message(m, id));
        if let Some(d) = out.deliveries.as_deref_mut() {
            d.push((seq, m.serial));
        }
        (is_copy, id, m.receive_count, m.serial)
    });
    let Some((is_copy, id, count, serial)) = counted else {
        return false;
    };
    if j.feed() {
        let handle = keys.receipt_handle(Receipt {
            queue: q.uid,
            seq,
            serial,
        });
        let name = q.name.clone();
        j.event(now, &name, || EventKind::Received {
            message_id: format_uuid(id),
            receipt_handle: handle.to_string(),
            receive_count: count,
            visible_at: deadline,
        });
    }
    is_copy
}
