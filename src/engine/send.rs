//! SendMessage and SendMessageBatch: validation in SQS's order, FIFO deduplication, delays.

use super::ids::sequence_number;
use super::journal::RecordKey;
use super::message::{Message, MessageExtra, MessageState};
use super::queue::{DedupEntry, Queue};
use super::requests::{SendMessageBatchRequest, SendMessageRequest};
use super::responses::{
    push_entry, BatchResponse, BatchResultErrorEntry, Md5Digest, MessageId,
    SendMessageBatchResponse, SendMessageBatchResultEntry, SendMessageResponse,
};
use super::{Apart, Engine};
use crate::context::CallContext;
use crate::digest;
use crate::error::{invalid_value, SqsError};
use crate::events::EventKind;
use crate::model::MessageAttributes;
use crate::validate;
use md5::{Digest, Md5};

const DEDUP_WINDOW_MS: u64 = 5 * 60 * 1000;
/// The most payload one SendMessageBatch may carry, summed over its entries.
pub const MAX_BATCH_BYTES: usize = 1_048_576;
const MAX_DELAY_SECONDS: i64 = 900;

/// A send that passed validation, ready to enqueue.
struct Validated<'a> {
    body: &'a str,
    attributes: Option<&'a MessageAttributes>,
    system_attributes: Option<&'a MessageAttributes>,
    delay_ms: u64,
    group: Option<&'a str>,
    dedup_id: Option<String>,
}

fn non_empty(attrs: &Option<MessageAttributes>) -> Option<&MessageAttributes> {
    attrs.as_ref().filter(|a| !a.is_empty())
}

/// Body and attribute bytes, as counted against MaximumMessageSize and the batch limit.
fn payload_size(req: &SendMessageRequest) -> usize {
    req.message_body.as_deref().map_or(0, str::len)
        + non_empty(&req.message_attributes).map_or(0, validate::message_attributes_size)
}

/// Validate one message against its queue. `batch` selects the per-entry wording SQS uses
/// inside SendMessageBatch.
fn validate_send<'a>(
    q: &Queue,
    req: &'a SendMessageRequest,
    batch: bool,
) -> Result<Validated<'a>, SqsError> {
    let body = req
        .message_body
        .as_deref()
        .filter(|b| !b.is_empty())
        .ok_or_else(|| SqsError::MissingParameter("MessageBody".into()))?;
    let max = q.attrs.maximum_message_size as usize;
    if payload_size(req) > max {
        return Err(SqsError::InvalidParameterValue(if batch {
            format!("One or more parameters cannot be validated. Reason: Message must be shorter than {max} bytes.")
        } else {
            format!("One or more parameters are invalid. Reason: Message must be shorter than {max} bytes.")
        }));
    }
    if let Some(c) = validate::first_invalid_char(body) {
        return Err(validate::invalid_message_contents(c));
    }
    #[cfg(feature = "test-hooks")]
    crate::test_hooks::on_send(body);
    let attributes = non_empty(&req.message_attributes);
    if let Some(a) = attributes {
        validate::validate_message_attributes(a)?;
    }
    let system_attributes = non_empty(&req.message_system_attributes);
    if let Some(a) = system_attributes {
        validate::validate_system_attributes(a)?;
    }
    if let Some(d) = req.delay_seconds {
        if !(0..=MAX_DELAY_SECONDS).contains(&d) {
            return Err(invalid_value(
                d,
                "DelaySeconds",
                "DelaySeconds must be >= 0 and <= 900.",
            ));
        }
    }
    let group = req.message_group_id.as_deref();
    if let Some(g) = group {
        validate::validate_token(g, "MessageGroupId")?;
    }
    if !q.fifo() {
        if let Some(d) = &req.message_deduplication_id {
            // LocalStack's text (spec §4.8 item 7); AWS's was not recorded.
            return Err(invalid_value(
                d,
                "MessageDeduplicationId",
                "The request includes a parameter that is not valid for this queue type.",
            ));
        }
        let delay = req.delay_seconds.unwrap_or(q.attrs.delay_seconds as i64) as u64;
        return Ok(Validated {
            body,
            attributes,
            system_attributes,
            delay_ms: delay * 1000,
            group,
            dedup_id: None,
        });
    }
    if group.is_none() {
        return Err(if batch {
            SqsError::InvalidParameterValue(
                "The request must contain the parameter MessageGroupId.".into(),
            )
        } else {
            SqsError::MissingParameter("MessageGroupId".into())
        });
    }
    let dedup_id = match &req.message_deduplication_id {
        Some(d) => {
            validate::validate_token(d, "MessageDeduplicationId")?;
            d.to_string()
        }
        None if q.attrs.content_based_deduplication => digest::sha256_hex(body.as_bytes()),
        None => {
            return Err(SqsError::InvalidParameterValue(
                "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
                    .into(),
            ))
        }
    };
    if let Some(d) = req.delay_seconds.filter(|d| *d != 0) {
        return Err(invalid_value(
            d,
            "DelaySeconds",
            "The request include parameter that is not valid for this queue type.",
        ));
    }
    Ok(Validated {
        body,
        attributes,
        system_attributes,
        // FIFO messages take the queue's delay, whatever the request says (0 is allowed).
        delay_ms: q.attrs.delay_seconds as u64 * 1000,
        group,
        dedup_id: Some(dedup_id),
    })
}

impl Apart<'_> {
    /// Enqueue a validated message (or recognise it as a duplicate) and write its result into
    /// `out`, which a batch has already placed in its list: returned, the ~150-byte result was
    /// copied twice more on its way into a ~240-byte batch entry (three `memcpy` calls a
    /// message). The caller re-files the queue's deadline (`sync_deadline`) once for all the
    /// messages of its call.
    fn enqueue(
        &mut self,
        q: &mut Queue,
        ctx: &CallContext,
        v: Validated<'_>,
        out: &mut SendMessageResponse,
    ) -> Result<(), SqsError> {
        let (uid, now) = (self.uid, self.now);
        let body_md5: [u8; 16] = Md5::digest(v.body.as_bytes()).into();
        let attributes_md5 = v
            .attributes
            .and_then(|a| digest::md5_of_attributes(a.iter().map(|(k, v)| (k.as_str(), v))));
        let system_attributes_md5 = v
            .system_attributes
            .and_then(|a| digest::md5_of_attributes(a.iter().map(|(k, v)| (k.as_str(), v))));
        let trace_header = v
            .system_attributes
            .and_then(|a| a.get("AWSTraceHeader"))
            .and_then(|a| a.string_value.clone())
            .or_else(|| ctx.trace_header.clone());
        let sender_id = ctx.sender_id.clone();
        // The deduplication key built once.
        let mut dedup_key = None;
        if let (Some(dedup_id), Some(group)) = (&v.dedup_id, v.group) {
            for n in q.forget_expired_dedup(now) {
                self.journal.touch(RecordKey::Dedup(uid, n));
            }
            let key = q.dedup_key(group, dedup_id);
            if let Some(original) = q.dedup.get(&key) {
                // Accepted but not enqueued again; the answer names the original message (what
                // LocalStack and ElasticMQ do; AWS's exact answer was not recorded, spec §14.4).
                let message_id = MessageId::from_bits(original.message_id);
                let seq = original.seq;
                let name = q.name.clone();
                let (mid, did) = (message_id.to_string(), dedup_id.clone());
                self.journal.event(now, &name, || EventKind::Deduplicated {
                    message_id: mid,
                    deduplication_id: did,
                });
                out.message_id = message_id;
                out.md5_of_message_body = Md5Digest::from_bytes(body_md5);
                out.md5_of_message_attributes = attributes_md5;
                out.md5_of_message_system_attributes = system_attributes_md5;
                out.sequence_number = Some(sequence_number(seq));
                return Ok(());
            }
            dedup_key = Some(key);
        }
        let seq = *self.next_seq;
        *self.next_seq += 1;
        self.journal.touch(RecordKey::Meta);
        let id = self.keys.message_id(seq);
        if let Some(key) = dedup_key {
            let n = q.next_dedup;
            q.next_dedup += 1;
            let expires_at = now + DEDUP_WINDOW_MS;
            q.remember_dedup(
                key,
                DedupEntry {
                    expires_at,
                    message_id: id,
                    seq,
                    n,
                },
            );
            self.journal.touch(RecordKey::Dedup(uid, n));
            self.journal.touch(RecordKey::Queue(uid));
        }
        let group = q.intern_group(v.group);
        // Most standard-queue messages have none of these: then no extra is built at all (it
        // would only be dropped again).
        let any_extra = trace_header.is_some()
            || v.dedup_id.is_some()
            || sender_id.is_some()
            || v.group.is_some()
            || system_attributes_md5.is_some();
        let extra = any_extra.then(|| {
            Box::new(MessageExtra {
                trace_header: trace_header.map(Into::into),
                deduplication_id: v.dedup_id.as_deref().map(Into::into),
                sender_id: sender_id.map(Into::into),
                group_id: v.group.map(Into::into),
                system_attributes_md5: system_attributes_md5.as_deref().map(Into::into),
                ..Default::default()
            })
        });
        let delayed = v.delay_ms > 0;
        let mut msg = Message::new(
            seq,
            v.body.into(),
            body_md5,
            v.attributes.map(|a| Box::new(a.clone())),
            extra,
            group,
            now,
        );
        if v.delay_ms > 0 {
            msg.state = MessageState::Delayed;
            msg.deadline = now + v.delay_ms;
        }
        let fifo = q.fifo();
        q.insert(msg, self.journal);
        let name = self.journal.feed().then(|| q.name.clone());
        let message_id = MessageId::from_bits(id);
        let sequence = fifo.then(|| sequence_number(seq));
        if let Some(name) = name {
            let (mid, gid, sn) = (
                message_id.to_string(),
                v.group.map(str::to_string),
                sequence.clone(),
            );
            self.journal.event(now, &name, || EventKind::Sent {
                message_id: mid,
                group_id: gid,
                sequence_number: sn,
                delayed_until: delayed.then_some(now + v.delay_ms),
            });
        }
        out.message_id = message_id;
        out.md5_of_message_body = Md5Digest::from_bytes(body_md5);
        out.md5_of_message_attributes = attributes_md5;
        out.md5_of_message_system_attributes = system_attributes_md5;
        out.sequence_number = sequence;
        Ok(())
    }
}

impl Engine {
    pub(crate) fn run_send_message(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &SendMessageRequest,
    ) -> Result<SendMessageResponse, SqsError> {
        let uid = self.message_queue(req.queue_url.as_deref())?;
        self.check_room([req])?;
        let seq_before = self.next_seq;
        let (q, mut e) = self.apart(uid, now)?;
        let v = validate_send(q, req, false)?;
        let mut out = SendMessageResponse::default();
        let sent = e.enqueue(q, ctx, v, &mut out);
        // Each enqueued message took one sequence number; a deduplicated send took none.
        q.counters[super::metrics::SENT] += *e.next_seq - seq_before;
        self.sync_deadline(uid);
        sent.map(|()| out)
    }

    pub(crate) fn run_send_message_batch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &SendMessageBatchRequest,
    ) -> Result<SendMessageBatchResponse, SqsError> {
        let uid = self.message_queue(req.queue_url.as_deref())?;
        let entries = req
            .entries
            .as_deref()
            .ok_or_else(|| SqsError::MissingParameter("Entries".into()))?;
        check_batch_shape(
            entries.iter().map(|e| e.id.as_deref()),
            "SendMessageBatchRequestEntry",
        )?;
        let total: usize = entries.iter().map(payload_size).sum();
        if total > MAX_BATCH_BYTES {
            return Err(SqsError::BatchRequestTooLong(total));
        }
        self.check_room(entries)?;
        let seq_before = self.next_seq;
        let (q, mut e) = self.apart(uid, now)?;
        if q.fifo() {
            // On FIFO queues these fail the whole request, not one entry (spec §4.9).
            if entries.iter().any(|e| e.message_group_id.is_none()) {
                return Err(SqsError::InvalidParameterValue(
                    "The request must contain the parameter MessageGroupId.".into(),
                ));
            }
            if !q.attrs.content_based_deduplication
                && entries.iter().any(|e| e.message_deduplication_id.is_none())
            {
                return Err(SqsError::InvalidParameterValue(
                    "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
                        .into(),
                ));
            }
        }
        let mut out = BatchResponse {
            successful: Vec::with_capacity(entries.len()),
            failed: Vec::new(),
        };
        // Entries are enqueued in request order (FIFO order follows it).
        for entry in entries {
            let id = entry.id.as_deref().unwrap_or_default();
            // The entry is built where it stays (see `enqueue`), and taken back if it fails.
            let slot = push_entry(
                &mut out.successful,
                id,
                |e: &mut SendMessageBatchResultEntry| &mut e.id,
            );
            let sent =
                validate_send(q, entry, true).and_then(|v| e.enqueue(q, ctx, v, &mut slot.result));
            if let Err(e) = sent {
                out.successful.pop();
                out.failed.push(BatchResultErrorEntry::new(id, &e));
            }
        }
        q.counters[super::metrics::SENT] += *e.next_seq - seq_before;
        // Once for the batch: nothing reads the engine's deadline index between its entries.
        self.sync_deadline(uid);
        Ok(out)
    }
}

/// Whole-request checks every batch action shares: 1–10 entries, ids well-formed and distinct.
pub fn check_batch_shape<'a>(
    ids: impl ExactSizeIterator<Item = Option<&'a str>>,
    entry_shape: &str,
) -> Result<(), SqsError> {
    let n = ids.len();
    if n == 0 {
        return Err(SqsError::EmptyBatchRequest(entry_shape.to_string()));
    }
    if n > 10 {
        return Err(SqsError::TooManyEntriesInBatchRequest(n));
    }
    // At most ten ids: stack arrays and pairwise comparison, not a Vec and a B-tree set per
    // batch call. Every id is checked first (a missing one is refused as empty); then the id
    // reported is the first (in entry order) that repeats an earlier one.
    let mut list: [&str; 10] = [""; 10];
    let mut keys = [0u64; 10];
    for ((slot, key), id) in list.iter_mut().zip(keys.iter_mut()).zip(ids) {
        let id = id.unwrap_or_default();
        validate::validate_batch_entry_id(id)?;
        *slot = id;
        *key = id_key(id);
    }
    // Only ids whose keys agree are compared in full, in entry order.
    for j in 1..n.min(10) {
        for i in 0..j {
            if keys[i] == keys[j] && list[i] == list[j] {
                return Err(SqsError::BatchEntryIdsNotDistinct(list[j].to_string()));
            }
        }
    }
    Ok(())
}

/// A summary of a batch entry id that equal ids share: its length and its first, middle and
/// last bytes. Ids are compared by these first, as numbers, and in full only where they agree:
/// most batches have no two ids alike, and one integer comparison settles each such pair.
fn id_key(id: &str) -> u64 {
    let b = id.as_bytes();
    let at = |i: usize| u64::from(b.get(i).copied().unwrap_or(0));
    id.len() as u64 | at(0) << 8 | at(b.len() / 2) << 16 | at(b.len().wrapping_sub(1)) << 24
}

#[cfg(test)]
mod tests {
    use super::check_batch_shape;
    use crate::error::SqsError;
    use proptest::prelude::*;

    proptest! {
        /// The batch check against the plain rule, over ids from a small alphabet, so that
        /// repeats and look-alikes (same length, first, middle and last character) are common:
        /// the first entry (in order) whose id an earlier entry has is named.
        #[test]
        fn names_the_first_repeated_id(ids in proptest::collection::vec("[ab1-]{1,5}", 1..=10)) {
            let expected = ids
                .iter()
                .enumerate()
                .find(|(j, id)| ids[..*j].contains(id))
                .map(|(_, id)| SqsError::BatchEntryIdsNotDistinct(id.clone()));
            let got = check_batch_shape(ids.iter().map(|s| Some(s.as_str())), "Entry").err();
            prop_assert_eq!(got, expected);
        }
    }
}
