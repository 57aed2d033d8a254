//! Internal transfers: a message leaves one engine and enters another with its identity, as a
//! dead-letter move keeps it inside one engine (MessageId, body, attributes, SentTimestamp,
//! receive count, first-receive time, group, deduplication id, DeadLetterQueueSourceArn, trace
//! header, sender). A host that spreads one queue over several engines (the edge's partition
//! objects) needs this to put a dead-lettered message where its group lives.
//!
//! Not an SQS action: `Engine::dispatch` and the protocol layer never reach it (only
//! `Engine::internal`, which a host calls directly). Three operations, each one durable change
//! like any other call:
//! - `ExportMessages {QueueUrl, MaxNumberOfMessages?}`: the oldest visible messages with their
//!   identity, in send order. Changes nothing.
//! - `ImportMessages {QueueUrl, Messages}`: adds them, visible, in the given order. Idempotent
//!   by MessageId, so a transfer retried after a crash does not duplicate: a message the queue
//!   still holds is skipped, and on a FIFO queue its deduplication entry (kept 5 minutes, as for
//!   sends) also skips one already received and deleted there.
//! - `RemoveMessages {QueueUrl, MessageIds}`: drops the named messages (the source's part once
//!   the destination has acknowledged the import).

use super::ids::{format_uuid, parse_uuid};
use super::journal::RecordKey;
use super::message::{Message, MessageExtra, MessageState};
use super::queue::{DedupEntry, Removal};
use super::Engine;
use crate::error::SqsError;
use crate::model::MessageAttributes;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// How many messages one call moves at most (keeps one commit and one object call small).
const MAX_PER_CALL: usize = 100;
/// As for sends: a FIFO import is remembered this long by its deduplication id.
const DEDUP_WINDOW_MS: u64 = 5 * 60 * 1000;

/// A message as it travels between engines.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct Transferred {
    message_id: String,
    body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message_attributes: Option<MessageAttributes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extra: Option<MessageExtra>,
    sent_timestamp: u64,
    receive_count: u32,
    first_receive_timestamp: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct ExportRequest {
    queue_url: Option<String>,
    max_number_of_messages: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct ImportRequest {
    queue_url: Option<String>,
    messages: Option<Vec<Transferred>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct RemoveRequest {
    queue_url: Option<String>,
    message_ids: Option<Vec<String>>,
}

fn read<T: for<'de> Deserialize<'de>>(params: &str) -> Result<T, SqsError> {
    serde_json::from_str(params).map_err(|e| SqsError::InvalidParameterValue(e.to_string()))
}

fn invalid(what: impl Into<String>) -> SqsError {
    SqsError::InvalidParameterValue(what.into())
}

/// 1 … MAX_PER_CALL entries.
fn bounded<T>(list: Option<Vec<T>>, name: &str) -> Result<Vec<T>, SqsError> {
    let list = list.ok_or_else(|| SqsError::MissingParameter(name.into()))?;
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
        let now = self.advance(now);
        let out = match op {
            "ExportMessages" => self.export_messages(read(params)?)?,
            "ImportMessages" => self.import_messages(now, read(params)?)?,
            "RemoveMessages" => self.remove_messages(now, read(params)?)?,
            _ => {
                return Err(SqsError::UnknownOperation(format!(
                    "The internal operation {op} does not exist."
                )))
            }
        };
        Ok(out.to_string())
    }

    fn export_messages(&self, req: ExportRequest) -> Result<Value, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let max = req.max_number_of_messages.unwrap_or(10);
        if max == 0 || max > MAX_PER_CALL as u64 {
            return Err(invalid(format!(
                "MaxNumberOfMessages must be 1 to {MAX_PER_CALL}."
            )));
        }
        let q = self.queue(uid)?;
        let messages: Vec<Transferred> = q
            .seqs_in_order()
            .into_iter()
            .filter_map(|seq| q.messages.get(&seq))
            .filter(|m| m.state == MessageState::Visible)
            .take(max as usize)
            .map(|m| Transferred {
                message_id: format_uuid(m.id(&self.keys)),
                body: m.body.to_string(),
                message_attributes: m.attributes.as_deref().cloned(),
                extra: m.stored_extra().cloned(),
                sent_timestamp: m.sent_at,
                receive_count: m.receive_count,
                first_receive_timestamp: m.first_receive_at,
            })
            .collect();
        Ok(json!({ "Messages": messages }))
    }

    fn import_messages(&mut self, now: u64, req: ImportRequest) -> Result<Value, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let list = bounded(req.messages, "Messages")?;
        let q = self.queue(uid)?;
        let fifo = q.fifo();
        // Everything is checked before anything changes: a refused call changes nothing.
        let mut ids = Vec::with_capacity(list.len());
        for m in &list {
            let id = parse_uuid(&m.message_id)
                .ok_or_else(|| invalid(format!("MessageId {} is not a UUID.", m.message_id)))?;
            if m.sent_timestamp > now || m.first_receive_timestamp > now {
                return Err(invalid(format!(
                    "Message {} has a timestamp after now.",
                    m.message_id
                )));
            }
            let extra = m.extra.as_ref();
            let group = extra.and_then(|e| e.group_id.as_deref());
            if fifo
                && (group.is_none_or(str::is_empty)
                    || extra.and_then(|e| e.deduplication_id.as_deref()).is_none())
            {
                return Err(invalid(format!(
                    "Message {} needs a group and a deduplication id in a FIFO queue.",
                    m.message_id
                )));
            }
            ids.push(id);
        }
        let held: BTreeSet<u128> = q.messages.values().map(|m| m.id(&q.keys)).collect();
        let mut imported = 0usize;
        let mut skipped = Vec::new();
        for (m, id) in list.into_iter().zip(ids) {
            let q = self.queue_mut(uid)?;
            let extra = m.extra.unwrap_or_default();
            let dedup_key = match (&extra.group_id, &extra.deduplication_id) {
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
                .is_some_and(|e| e.message_id == id);
            if held.contains(&id) || seen {
                skipped.push(m.message_id);
                continue;
            }
            let seq = self.next_seq;
            self.next_seq += 1;
            self.journal.touch(RecordKey::Meta);
            let q = self.queue_mut(uid)?;
            if let Some(key) = dedup_key.filter(|k| q.dedup.get(k).is_none()) {
                let n = q.next_dedup;
                q.next_dedup += 1;
                let entry = DedupEntry {
                    expires_at: now.saturating_add(DEDUP_WINDOW_MS),
                    message_id: id,
                    seq,
                    n,
                };
                q.remember_dedup(key, entry);
                self.journal.touch(RecordKey::Dedup(uid, n));
                self.journal.touch(RecordKey::Queue(uid));
            }
            let q = self
                .queues
                .get_mut(&uid)
                .ok_or(SqsError::QueueDoesNotExist)?;
            let group = q.intern_group(extra.group_id.as_deref());
            let mut msg = Message {
                seq,
                body_md5: Md5::digest(m.body.as_bytes()).into(),
                body: m.body.into(),
                attributes: m.message_attributes.map(Box::new),
                extra: (extra != MessageExtra::default()).then(|| Box::new(extra)),
                group,
                sent_at: m.sent_timestamp,
                state: MessageState::Visible,
                deadline: 0,
                receive_count: m.receive_count,
                serial: 0,
                first_receive_at: m.first_receive_timestamp,
                received_at: 0,
                visibility_changed: false,
            };
            msg.set_id(id, &self.keys);
            q.insert(msg, &mut self.journal);
            imported += 1;
        }
        self.sync_deadline(uid);
        Ok(json!({ "Imported": imported, "Skipped": skipped }))
    }

    fn remove_messages(&mut self, now: u64, req: RemoveRequest) -> Result<Value, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let list = bounded(req.message_ids, "MessageIds")?;
        let mut wanted = BTreeSet::new();
        for id in &list {
            wanted.insert(
                parse_uuid(id).ok_or_else(|| invalid(format!("MessageId {id} is not a UUID.")))?,
            );
        }
        let q = self
            .queues
            .get_mut(&uid)
            .ok_or(SqsError::QueueDoesNotExist)?;
        let seqs: Vec<u64> = q
            .messages
            .values()
            .filter(|m| wanted.contains(&m.id(&q.keys)))
            .map(|m| m.seq)
            .collect();
        let mut removed = 0usize;
        for seq in seqs {
            if q.remove(seq, now, Removal::DeadLettered, &mut self.journal)
                .is_some()
            {
                removed += 1;
            }
        }
        self.sync_deadline(uid);
        Ok(json!({ "Removed": removed }))
    }
}
