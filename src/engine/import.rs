//! Internal transfers: a message leaves one engine and enters another with its identity, as a
//! dead-letter move keeps it inside one engine (MessageId, body, attributes, SentTimestamp,
//! receive count, first-receive time, group, deduplication id, DeadLetterQueueSourceArn, trace
//! header, sender). A host that spreads one queue over several engines (the edge's partition
//! objects) needs this to put a dead-lettered message where its group lives.
//!
//! Not an SQS action: the protocol layer's dispatch never reaches it (only
//! `Engine::internal`, which a host calls directly). Three operations; the two that change
//! something leave durable records like any other call:
//! - `ExportMessages {QueueUrl, MaxNumberOfMessages?, VisibilityTimeout?}`: visible messages with
//!   their identity — standard: the oldest, in send order; FIFO: the visible head of each group
//!   that has nothing in flight, in order within the group (what receives could take). They are
//!   taken out of view as a receive takes them (see `lock_exported`) for `VisibilityTimeout`
//!   seconds (default 30, SQS's default visibility timeout; 1 … 43,200), so a concurrent receive
//!   cannot get them; if the transfer never completes they are visible again at that deadline and
//!   a later export takes them again. `VisibilityTimeout: 0` locks nothing and changes nothing:
//!   for a host's internal queue that no client receives from (the edge's dead-letter shadows).
//! - `ImportMessages {QueueUrl, Messages}`: adds them, visible, in the given order. Idempotent
//!   by MessageId, so a transfer retried after a crash does not duplicate: a message the queue
//!   still holds is skipped, and on a FIFO queue its deduplication entry (kept 5 minutes, as for
//!   sends) also skips one already received and deleted there.
//! - `RemoveMessages {QueueUrl, Messages: [{MessageId, Sequence}]}`: drops the named messages
//!   (the source's part once the destination has acknowledged the import).
//!
//! Each exported message carries its `Sequence` in the exporting engine. Every call costs
//! O(batch), not O(queue): a MessageId is derived from the sequence (`Message::id`), so there is
//! no id → message index to look a plain message up in, and one for every message would cost
//! ~40 bytes of the 150 each may take. `RemoveMessages` goes to the sequence and checks the id
//! there. `ImportMessages` finds a copy it made earlier through the queue's index of kept ids
//! (an imported message never has the id its new sequence derives), and the message itself,
//! imported back into the engine and queue it came from, through the sequence. A message
//! without `Sequence` (not from `ExportMessages`) is matched by kept id and deduplication only.

use super::ids::{parse_uuid, uuid_text};
use super::journal::RecordKey;
use super::message::{Message, MessageExtra, MessageState};
use super::queue::{DedupEntry, Removal};
use super::records::codec;
use super::Engine;
use crate::error::SqsError;
use crate::json_text::{string, Obj};
use crate::model::MessageAttributes;
use md5::{Digest, Md5};
use serde_json::{Map, Value};

/// How many messages one call moves at most (keeps one commit and one object call small).
const MAX_PER_CALL: usize = 100;
/// As for sends: a FIFO import is remembered this long by its deduplication id.
const DEDUP_WINDOW_MS: u64 = 5 * 60 * 1000;
/// How far a timestamp may lie ahead of this engine's clock: the exporting engine's clock may run
/// a little ahead (another machine). Bounded so that no deadline computed from it overflows.
const MAX_SKEW_MS: u64 = 10 * 60 * 1000;
/// How long an export hides its messages when the caller names no time: SQS's default
/// visibility timeout, far beyond one transfer (a few object calls).
const EXPORT_VISIBILITY_S: u64 = 30;
/// SQS's largest visibility timeout (12 hours).
const MAX_VISIBILITY_S: u64 = 43_200;

/// A message as it travels between engines: `{MessageId, Body, MessageAttributes?, Extra?,
/// SentTimestamp, ReceiveCount, FirstReceiveTimestamp}`, attributes and extra in the record
/// encoding. Read by hand from a `Value` (as `protocol/aws_json/params.rs` does), not by a
/// derived `Deserialize`, which would add a visitor per type to the wasm.
struct Transferred {
    id: u128,
    message_id: String,
    body: String,
    attributes: Option<MessageAttributes>,
    extra: MessageExtra,
    sent_at: u64,
    receive_count: u32,
    first_receive_at: u64,
    /// Its sequence in the engine that exported it (see the module comment).
    sequence: Option<u64>,
}

fn invalid(what: impl Into<String>) -> SqsError {
    SqsError::InvalidParameterValue(what.into())
}

const FIELDS: [&str; 8] = [
    "MessageId",
    "Body",
    "MessageAttributes",
    "Extra",
    "SentTimestamp",
    "ReceiveCount",
    "FirstReceiveTimestamp",
    "Sequence",
];

impl Transferred {
    fn read(v: &Value) -> Result<Self, SqsError> {
        let m = v
            .as_object()
            .ok_or_else(|| invalid("Each message must be an object."))?;
        if let Some(k) = m.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(invalid(format!("Unknown message field {k}.")));
        }
        let text = |k: &str| {
            m.get(k)
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(format!("{k} must be a string.")))
        };
        let number = |k: &str| {
            m.get(k)
                .and_then(Value::as_u64)
                .ok_or_else(|| invalid(format!("{k} must be a non-negative integer.")))
        };
        let (message_id, id) = message_id(m)?;
        let sequence = match m.get("Sequence") {
            None | Some(Value::Null) => None,
            Some(_) => Some(number("Sequence")?),
        };
        let attributes = match m.get("MessageAttributes") {
            None | Some(Value::Null) => None,
            Some(a) => Some(codec::read_message_attributes(a).map_err(invalid)?),
        };
        let extra = match m.get("Extra") {
            None | Some(Value::Null) => MessageExtra::default(),
            Some(e) => codec::read_extra(e).map_err(invalid)?,
        };
        Ok(Transferred {
            id,
            message_id,
            body: text("Body")?.to_string(),
            attributes,
            extra,
            sent_at: number("SentTimestamp")?,
            receive_count: u32::try_from(number("ReceiveCount")?)
                .map_err(|_| invalid("ReceiveCount is too large."))?,
            first_receive_at: number("FirstReceiveTimestamp")?,
            sequence,
        })
    }
}

/// A message's `MessageId`, as text and as its 128 bits.
fn message_id(m: &Map<String, Value>) -> Result<(String, u128), SqsError> {
    let text = m
        .get("MessageId")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("MessageId must be a string."))?;
    let id = parse_uuid(text).ok_or_else(|| invalid(format!("MessageId {text} is not a UUID.")))?;
    Ok((text.to_string(), id))
}

/// Record-encoded bytes as the canonical JSON text of their value (members in byte order of
/// their names, as every answer writes them; the records keep their own field order).
fn encoded(bytes: &[u8]) -> String {
    let value: Value = std::str::from_utf8(bytes)
        .ok()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default();
    crate::json_text::value_text(&value)
}

/// One exported message, members in byte order of their names.
fn export_one(out: &mut String, m: &Message, id: u128) {
    let mut o = Obj::new(out);
    o.str("Body", &m.body);
    if let Some(e) = m.stored_extra() {
        o.raw("Extra", &encoded(&codec::extra_json(e)));
    }
    o.u64("FirstReceiveTimestamp", m.first_receive_at);
    if let Some(a) = &m.attributes {
        o.raw(
            "MessageAttributes",
            &encoded(&codec::message_attributes_json(a)),
        );
    }
    o.str("MessageId", uuid_text(id).as_str())
        .u64("ReceiveCount", u64::from(m.receive_count))
        .u64("SentTimestamp", m.sent_at)
        .u64("Sequence", m.seq)
        .end();
}

/// The parameters as an object, with only the members named.
fn object<'a>(params: &'a Value, members: &[&str]) -> Result<&'a Map<String, Value>, SqsError> {
    let p = params
        .as_object()
        .ok_or_else(|| invalid("The parameters must be an object."))?;
    if let Some(k) = p.keys().find(|k| !members.contains(&k.as_str())) {
        return Err(invalid(format!("Unknown parameter {k}.")));
    }
    Ok(p)
}

fn queue_url(p: &Map<String, Value>) -> Result<Option<String>, SqsError> {
    match p.get("QueueUrl") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid("QueueUrl must be a string.")),
    }
}

/// A list of 1 … MAX_PER_CALL entries.
fn bounded<'a>(p: &'a Map<String, Value>, name: &str) -> Result<&'a [Value], SqsError> {
    let list = match p.get(name) {
        None | Some(Value::Null) => return Err(SqsError::MissingParameter(name.into())),
        Some(v) => v
            .as_array()
            .ok_or_else(|| invalid(format!("{name} must be a list.")))?,
    };
    if list.is_empty() || list.len() > MAX_PER_CALL {
        return Err(invalid(format!(
            "{name} must hold 1 to {MAX_PER_CALL} entries."
        )));
    }
    Ok(list)
}

impl Engine {
    /// Run one internal operation (see the module comment) with JSON parameters; JSON text out.
    pub fn internal(&mut self, now: u64, op: &str, params: &str) -> Result<String, SqsError> {
        let params: Value =
            serde_json::from_str(params).map_err(|e| SqsError::Serialization(e.to_string()))?;
        let now = self.advance(now);
        match op {
            "ExportMessages" => self.export_messages(now, &params),
            "ImportMessages" => self.import_messages(now, &params),
            "RemoveMessages" => self.remove_messages(now, &params),
            _ => Err(SqsError::UnknownOperation(format!(
                "The internal operation {op} does not exist."
            ))),
        }
    }

    fn export_messages(&mut self, now: u64, params: &Value) -> Result<String, SqsError> {
        let p = object(
            params,
            &["QueueUrl", "MaxNumberOfMessages", "VisibilityTimeout"],
        )?;
        let uid = self.required_url(&queue_url(p)?)?;
        let max = match p.get("MaxNumberOfMessages") {
            None | Some(Value::Null) => 10,
            Some(v) => v.as_u64().unwrap_or(0),
        };
        if max == 0 || max > MAX_PER_CALL as u64 {
            return Err(invalid(format!(
                "MaxNumberOfMessages must be 1 to {MAX_PER_CALL}."
            )));
        }
        let lock_s = match p.get("VisibilityTimeout") {
            None | Some(Value::Null) => EXPORT_VISIBILITY_S,
            Some(v) => v
                .as_u64()
                .filter(|s| *s <= MAX_VISIBILITY_S)
                .ok_or_else(|| {
                    invalid(format!(
                        "VisibilityTimeout must be 0 to {MAX_VISIBILITY_S}."
                    ))
                })?,
        };
        let q = self.queue(uid)?;
        let max = max as usize;
        // FIFO: the visible head run of each ready group (oldest head first), as a receive would
        // take them, so a group with a message in flight gives nothing and order within a group
        // is kept. Standard: the oldest visible messages. Both walk only what they take and what
        // they skip over: a move task exports from a dead-letter queue ten at a time, many times
        // a second, and collecting every message's sequence (or every group) on each call made
        // that quadratic in the backlog.
        let seqs: Vec<u64> = if q.fifo() {
            let mut out = Vec::new();
            for g in q.ready_groups_by_head() {
                if out.len() >= max {
                    break;
                }
                out.extend(q.group_head_run(g, max - out.len()));
            }
            out
        } else {
            q.messages
                .in_seq_order()
                .filter(|m| m.state == MessageState::Visible)
                .map(|m| m.seq)
                .take(max)
                .collect()
        };
        // Plain vectors and linear searches here, not sets: each new B-tree or hash-set type
        // costs kilobytes of wasm, and these lists are at most MAX_PER_CALL long.
        let mut out = String::from("{\"Messages\":[");
        for (i, m) in seqs
            .iter()
            .filter_map(|seq| q.messages.get(seq))
            .enumerate()
        {
            if i > 0 {
                out.push(',');
            }
            export_one(&mut out, m, m.id(&self.keys));
        }
        out.push_str("]}");
        if lock_s > 0 {
            self.lock_exported(uid, &seqs, now, now.saturating_add(lock_s * 1000))?;
        }
        Ok(out)
    }

    /// Put exported messages in flight until `deadline`, as SQS's redrive holds the messages it
    /// received from the DLQ: a receive skips them, a FIFO group with one is blocked, they count
    /// in ApproximateNumberOfMessagesNotVisible, and the usual expiry makes them visible again
    /// when the transfer never completes (the host crashed before `RemoveMessages`).
    ///
    /// Not a consumer receive: the receive count, first-receive time and receive events stay as
    /// they were. SQS's redrive moves a message as a new one, so the DLQ copy's count is never
    /// seen after a completed move; after an abandoned one, counting it would let a move push a
    /// message in a DLQ that is itself in a chain over its maxReceiveCount and dead-letter it
    /// onward (the export's purpose is the opposite). No receipt handle is minted, but the serial
    /// is advanced as a receive advances it, so a handle some consumer got for an earlier receive
    /// cannot delete (FIFO) or re-time the message while it is exported; `received_at` restarts
    /// the 12-hour visibility cap from the export as a receive does.
    fn lock_exported(
        &mut self,
        uid: u64,
        seqs: &[u64],
        now: u64,
        deadline: u64,
    ) -> Result<(), SqsError> {
        let q = self
            .queues
            .get_mut(&uid)
            .ok_or(SqsError::QueueDoesNotExist)?;
        for seq in seqs {
            let Some(m) = q.messages.get_mut(seq) else {
                continue;
            };
            m.serial = m.serial.wrapping_add(1);
            m.received_at = now;
            m.visibility_changed = false;
            q.set_in_flight(*seq, deadline, &mut self.journal);
        }
        self.sync_deadline(uid);
        Ok(())
    }

    fn import_messages(&mut self, now: u64, params: &Value) -> Result<String, SqsError> {
        let p = object(params, &["QueueUrl", "Messages"])?;
        let uid = self.required_url(&queue_url(p)?)?;
        let fifo = self.queue(uid)?.fifo();
        // Everything is checked before anything changes: a refused call changes nothing.
        let latest = now.saturating_add(MAX_SKEW_MS);
        let mut list = Vec::new();
        for v in bounded(p, "Messages")? {
            let m = Transferred::read(v)?;
            if m.sent_at > latest || m.first_receive_at > latest {
                return Err(invalid(format!(
                    "Message {} has a timestamp after now.",
                    m.message_id
                )));
            }
            let e = &m.extra;
            if fifo
                && (e.group_id.as_deref().is_none_or(str::is_empty) || e.deduplication_id.is_none())
            {
                return Err(invalid(format!(
                    "Message {} needs a group and a deduplication id in a FIFO queue.",
                    m.message_id
                )));
            }
            list.push(m);
        }
        let mut imported = 0u64;
        let mut skipped = Vec::new();
        for m in list {
            let q = self.queue_mut(uid)?;
            let dedup_key = match (&m.extra.group_id, &m.extra.deduplication_id) {
                (Some(g), Some(d)) if fifo => Some(q.dedup_key(g, d)),
                _ => None,
            };
            for n in q.forget_expired_dedup(now) {
                self.journal.touch(RecordKey::Dedup(uid, n));
            }
            let q = self.queue_mut(uid)?;
            let seen = dedup_key
                .as_ref()
                .and_then(|k| q.dedup.get(k))
                .is_some_and(|e| e.message_id == m.id);
            // Checked per message, after the ones before it went in: a list that names one
            // message twice imports it once.
            if q.holds_id(m.id, m.sequence) || seen {
                skipped.push(m.message_id);
                continue;
            }
            let seq = self.next_seq;
            self.next_seq += 1;
            self.journal.touch(RecordKey::Meta);
            let q = self
                .queues
                .get_mut(&uid)
                .ok_or(SqsError::QueueDoesNotExist)?;
            if let Some(key) = dedup_key.filter(|k| q.dedup.get(k).is_none()) {
                let n = q.next_dedup;
                q.next_dedup += 1;
                let entry = DedupEntry {
                    expires_at: now.saturating_add(DEDUP_WINDOW_MS),
                    message_id: m.id,
                    seq,
                    n,
                };
                q.remember_dedup(key, entry);
                self.journal.touch(RecordKey::Dedup(uid, n));
                self.journal.touch(RecordKey::Queue(uid));
            }
            let group = q.intern_group(m.extra.group_id.as_deref());
            let extra = m.extra;
            let body_md5 = Md5::digest(m.body.as_bytes()).into();
            let mut msg = Message::new(
                seq,
                m.body.into(),
                body_md5,
                m.attributes.map(Box::new),
                (extra != MessageExtra::default()).then(|| Box::new(extra)),
                group,
                m.sent_at,
            );
            msg.receive_count = m.receive_count;
            msg.first_receive_at = m.first_receive_at;
            msg.set_id(m.id, &self.keys);
            q.insert(msg, &mut self.journal);
            imported += 1;
        }
        self.sync_deadline(uid);
        let mut out = String::new();
        let mut o = Obj::new(&mut out);
        o.u64("Imported", imported);
        crate::json_text::list(o.member("Skipped"), &skipped, |out, id| string(out, id));
        o.end();
        Ok(out)
    }

    fn remove_messages(&mut self, now: u64, params: &Value) -> Result<String, SqsError> {
        let p = object(params, &["QueueUrl", "Messages"])?;
        let uid = self.required_url(&queue_url(p)?)?;
        let mut wanted = Vec::new();
        for v in bounded(p, "Messages")? {
            let m = v
                .as_object()
                .filter(|m| m.keys().all(|k| k == "MessageId" || k == "Sequence"))
                .ok_or_else(|| invalid("Each message must be {MessageId, Sequence}."))?;
            let (_, id) = message_id(m)?;
            let seq = m
                .get("Sequence")
                .and_then(Value::as_u64)
                .ok_or_else(|| invalid("Sequence must be a non-negative integer."))?;
            wanted.push((seq, id));
        }
        let q = self
            .queues
            .get_mut(&uid)
            .ok_or(SqsError::QueueDoesNotExist)?;
        // The id is checked at the sequence: a pair that does not match removes nothing.
        let seqs: Vec<u64> = wanted
            .iter()
            .filter(|(seq, id)| q.messages.get(seq).is_some_and(|m| m.id(&q.keys) == *id))
            .map(|(seq, _)| *seq)
            .collect();
        let mut removed = 0u64;
        for seq in seqs {
            if q.remove(seq, now, Removal::DeadLettered, &mut self.journal)
                .is_some()
            {
                removed += 1;
            }
        }
        self.sync_deadline(uid);
        let mut out = String::new();
        Obj::new(&mut out).u64("Removed", removed).end();
        Ok(out)
    }
}
