//! Durable records: what `take_changes` hands to storage, and how `restore` rebuilds from them.
//!
//! The state is kept as one record per entity rather than a log, so a store never needs
//! compaction to stay proportional to what is queued:
//!
//! | key | holds |
//! |---|---|
//! | `meta` | format version and the engine's counters |
//! | `q/<queue>` | a queue: name, attributes, tags, timestamps |
//! | `m/<queue>/<seq>` | a message's immutable content (written once) |
//! | `s/<queue>/<seq>` | a message's delivery state (rewritten on receive and visibility changes) |
//! | `d/<queue>/<n>` | a FIFO deduplication entry |
//! | `a/<queue>/<n>` | a cached FIFO receive (ReceiveRequestAttemptId), for retries |
//! | `x/<name>` | a recently deleted queue name |
//! | `t/<task>` | a message-move task |
//!
//! Numbers in keys are 16-digit hex so keys sort in creation order. Values are JSON. A store
//! written by a newer format version is refused, never misread.

use super::attributes::QueueAttributes;
use super::ids::{format_uuid, parse_uuid};
use super::journal::RecordKey;
use super::message::{Message, MessageExtra, MessageState};
use super::move_tasks::MoveTask;
use super::queue::{Attempt, DedupEntry, Queue};
use super::{Engine, EngineConfig};
use crate::changes::Changes;
use crate::maps::TryIntoMap;
use crate::model::MessageAttributes;
use codec::{Fields, Obj};
use md5::{Digest, Md5};
use serde_json::Value;

// Also read by `import.rs`: a transferred message travels in the record encoding.
pub(super) mod codec;

/// The record format this build writes. It reads this version and every older one.
pub const FORMAT_VERSION: u32 = 1;

/// Why a store could not be restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    /// A record could not be read, or records contradict each other.
    #[error("corrupt store: {0}")]
    Corrupt(String),
    /// The store was written by a newer build.
    #[error("this store has format version {found}, newer than this build of wasq reads ({supported}); upgrade wasq to open it")]
    UnsupportedVersion {
        /// The store's version.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
}

struct MetaRecord {
    /// The seed ids and receipt handles derive from: a store keeps its seed, so handles issued
    /// before a restart stay valid even when the host drew the seed at random.
    seed: Option<u64>,
    next_seq: u64,
    next_queue: u64,
    next_task: u64,
}

struct QueueRecord {
    name: String,
    attrs: QueueAttributes,
    tags: std::collections::BTreeMap<String, String>,
    created_at: u64,
    modified_at: u64,
    last_purge: Option<u64>,
    dedup_per_group: bool,
    next_dedup: u64,
    next_attempt: u64,
}

struct ContentRecord {
    id: String,
    body: String,
    attributes: Option<MessageAttributes>,
    extra: Option<MessageExtra>,
    sent_at: u64,
    enqueued_at: u64,
}

struct StateRecord {
    state: MessageState,
    deadline: u64,
    receive_count: u32,
    serial: u32,
    first_receive_at: u64,
    received_at: u64,
    visibility_changed: bool,
}

struct DedupRecord {
    key: String,
    expires_at: u64,
    message_id: String,
    seq: u64,
}

struct AttemptRecord {
    id: String,
    attempt: Attempt,
}

/// `<kind>/<16 hex digits>[/<16 hex digits>]`, written by hand: two keys per message per call,
/// and `format!` with `{:016x}` was a visible share of the cycle.
fn key_string(key: &RecordKey) -> String {
    let (kind, a, b) = match key {
        RecordKey::Meta => return "meta".into(),
        RecordKey::Deleted(name) => return ["x/", name].concat(),
        RecordKey::Queue(q) => ('q', *q, None),
        RecordKey::Content(q, s) => ('m', *q, Some(*s)),
        RecordKey::State(q, s) => ('s', *q, Some(*s)),
        RecordKey::Dedup(q, n) => ('d', *q, Some(*n)),
        RecordKey::Attempt(q, n) => ('a', *q, Some(*n)),
        RecordKey::Task(t) => ('t', *t, None),
    };
    let mut out = String::with_capacity(36);
    out.push(kind);
    for v in std::iter::once(a).chain(b) {
        out.push('/');
        push_hex16(&mut out, v);
    }
    out
}

/// `{:016x}`.
fn push_hex16(out: &mut String, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for i in (0..16).rev() {
        out.push(DIGITS[((v >> (4 * i)) & 0xf) as usize] as char);
    }
}

/// A stable sort by key through one shared sort instantiation: a `sort_by_key` per record
/// type would put a separate copy of the sort (~5 KB) into the wasm for each.
fn sorted_by<T>(items: Vec<T>, key: impl Fn(&T) -> (u64, u64)) -> Vec<T> {
    // The position breaks ties, which keeps the sort stable.
    let mut order: Vec<((u64, u64), usize)> =
        items.iter().enumerate().map(|(i, t)| (key(t), i)).collect();
    order.sort_unstable();
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|(_, i)| slots.get_mut(i).and_then(Option::take))
        .collect()
}

impl Engine {
    /// Turn the dirty keys into records to put (current value) or delete (entity gone).
    pub(super) fn collect_changes(&mut self) -> Changes {
        let mut dirty = std::mem::take(&mut self.journal.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        let mut changes = Changes::default();
        for key in dirty {
            match self.record_value(&key) {
                Some(bytes) => changes.put.push((key_string(&key), bytes)),
                None => changes.del.push(key_string(&key)),
            }
        }
        changes
    }

    fn record_value(&self, key: &RecordKey) -> Option<Vec<u8>> {
        Some(match key {
            RecordKey::Meta => Obj::new()
                .u64("v", FORMAT_VERSION.into())
                .u64("seed", self.config.seed)
                .u64("next_seq", self.next_seq)
                .u64("next_queue", self.next_queue)
                .u64("next_task", self.next_task)
                .finish(),
            RecordKey::Queue(uid) => {
                let q = self.queues.get(uid)?;
                let tags = codec::map(q.tags.iter().map(|(k, v)| {
                    let mut json = Vec::new();
                    let _ = serde_json::to_writer(&mut json, v.as_str());
                    (k, json)
                }));
                Obj::new()
                    .str("name", &q.name)
                    .raw("attrs", &codec::attributes_json(&q.attrs))
                    .raw("tags", &tags)
                    .u64("created_at", q.created_at)
                    .u64("modified_at", q.modified_at)
                    .opt_u64("last_purge", q.last_purge)
                    .bool("dedup_per_group", q.dedup_per_group)
                    .u64("next_dedup", q.next_dedup)
                    .u64("next_attempt", q.next_attempt)
                    .finish()
            }
            RecordKey::Content(uid, seq) => {
                let q = self.queues.get(uid)?;
                let m = q.messages.get(seq)?;
                let mut o = Obj::new();
                o.str("id", &format_uuid(m.id(&q.keys)))
                    .str("body", &m.body);
                if let Some(a) = &m.attributes {
                    o.raw("attributes", &codec::message_attributes_json(a));
                }
                if let Some(e) = m.stored_extra() {
                    o.raw("extra", &codec::extra_json(e));
                }
                // Format 1 has both fields; they are always equal (see `Message::sent_at`).
                o.u64("sent_at", m.sent_at)
                    .u64("enqueued_at", m.sent_at)
                    .finish()
            }
            RecordKey::State(uid, seq) => {
                let m = self.queues.get(uid)?.messages.get(seq)?;
                Obj::new()
                    .str("state", codec::state_name(m.state))
                    .u64("deadline", m.deadline)
                    .u64("receive_count", m.receive_count.into())
                    .u64("serial", m.serial.into())
                    .u64("first_receive_at", m.first_receive_at)
                    .u64("received_at", m.received_at)
                    .bool("visibility_changed", m.visibility_changed)
                    .finish()
            }
            RecordKey::Dedup(uid, n) => {
                let q = self.queues.get(uid)?;
                let (key, e) = q.dedup.by_record(*n)?;
                Obj::new()
                    .str("key", key)
                    .u64("expires_at", e.expires_at)
                    .str("message_id", &format_uuid(e.message_id))
                    .u64("seq", e.seq)
                    .finish()
            }
            RecordKey::Attempt(uid, n) => {
                let q = self.queues.get(uid)?;
                let id = q.attempt_keys.get(n)?;
                Obj::new()
                    .str("id", id)
                    .raw("attempt", &codec::attempt_json(q.attempts.get(id)?))
                    .finish()
            }
            RecordKey::Deleted(name) => Obj::new()
                .u64("at", *self.deleted_names.get(name)?)
                .finish(),
            RecordKey::Task(id) => codec::task_json(self.task(*id)?),
        })
    }

    /// Rebuild an engine from every record of its store.
    pub fn restore<I>(config: EngineConfig, records: I) -> Result<Self, RestoreError>
    where
        I: IntoIterator<Item = (String, Vec<u8>)>,
    {
        let mut engine = Engine::new(config);
        let (record, observe) = (engine.journal.record, engine.journal.observe);
        engine.journal.record = false;
        engine.journal.observe = false;
        // Vecs sorted afterwards rather than maps: restore is not a hot path, and every map type
        // is more code in the wasm.
        let mut queues: Vec<(u64, QueueRecord)> = Vec::new();
        let mut contents: Vec<((u64, u64), ContentRecord)> = Vec::new();
        let mut states: Vec<((u64, u64), StateRecord)> = Vec::new();
        let mut dedups: Vec<(u64, u64, DedupRecord)> = Vec::new();
        let mut attempts: Vec<(u64, AttemptRecord)> = Vec::new();
        let mut meta: Option<MetaRecord> = None;
        for (key, value) in records {
            let corrupt = |what: &str| RestoreError::Corrupt(format!("record {key:?}: {what}"));
            let parts: Vec<&str> = key.split('/').collect();
            let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| corrupt("bad key"));
            // One JSON reader (text into `Value`) for every record: each reader type is more wasm.
            let v: Value = std::str::from_utf8(&value)
                .map_err(|e| e.to_string())
                .and_then(|text| serde_json::from_str(text).map_err(|e| e.to_string()))
                .map_err(|e| corrupt(&e))?;
            let f = Fields::of(&v).map_err(|e| corrupt(&e))?;
            macro_rules! read {
                ($r:expr $(,)?) => {
                    $r.map_err(|e: String| corrupt(&e))
                };
            }
            match parts.as_slice() {
                ["meta"] => {
                    let version = v.get("v").and_then(|v| v.as_u64()).unwrap_or(0) as u32;
                    if version > FORMAT_VERSION {
                        return Err(RestoreError::UnsupportedVersion {
                            found: version,
                            supported: FORMAT_VERSION,
                        });
                    }
                    read!(f.u32("v"))?;
                    meta = Some(MetaRecord {
                        seed: read!(f.opt_u64("seed"))?,
                        next_seq: read!(f.u64("next_seq"))?,
                        next_queue: read!(f.u64("next_queue"))?,
                        next_task: read!(f.u64("next_task"))?,
                    });
                }
                ["q", q] => {
                    let Some(Value::Object(tag_map)) = f.opt("tags") else {
                        return Err(corrupt("invalid value for field `tags`"));
                    };
                    let tags = tag_map
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), v.as_str().ok_or(())?.to_string())))
                        .try_into_map()
                        .map_err(|()| corrupt("invalid value for field `tags`"))?;
                    let attrs = f
                        .opt("attrs")
                        .ok_or_else(|| corrupt("missing field `attrs`"))?;
                    let record = QueueRecord {
                        name: read!(f.string("name"))?,
                        attrs: read!(codec::read_attributes(attrs))?,
                        tags,
                        created_at: read!(f.u64("created_at"))?,
                        modified_at: read!(f.u64("modified_at"))?,
                        last_purge: read!(f.opt_u64("last_purge"))?,
                        dedup_per_group: read!(f.bool("dedup_per_group"))?,
                        next_dedup: read!(f.u64("next_dedup"))?,
                        next_attempt: read!(f.opt_u64("next_attempt"))?.unwrap_or(0),
                    };
                    queues.push((hex(q)?, record));
                }
                ["m", q, s] => {
                    let record = ContentRecord {
                        id: read!(f.string("id"))?,
                        body: read!(f.string("body"))?,
                        attributes: read!(f
                            .opt("attributes")
                            .map(codec::read_message_attributes)
                            .transpose(),)?,
                        extra: read!(f.opt("extra").map(codec::read_extra).transpose())?,
                        sent_at: read!(f.u64("sent_at"))?,
                        enqueued_at: read!(f.u64("enqueued_at"))?,
                    };
                    contents.push(((hex(q)?, hex(s)?), record));
                }
                ["s", q, s] => {
                    let record = StateRecord {
                        state: read!(codec::read_state(&f))?,
                        deadline: read!(f.u64("deadline"))?,
                        receive_count: read!(f.u32("receive_count"))?,
                        serial: read!(f.u32("serial"))?,
                        first_receive_at: read!(f.u64("first_receive_at"))?,
                        received_at: read!(f.u64("received_at"))?,
                        visibility_changed: read!(f.bool("visibility_changed"))?,
                    };
                    states.push(((hex(q)?, hex(s)?), record));
                }
                ["d", q, n] => {
                    let record = DedupRecord {
                        key: read!(f.string("key"))?,
                        expires_at: read!(f.u64("expires_at"))?,
                        message_id: read!(f.string("message_id"))?,
                        seq: read!(f.u64("seq"))?,
                    };
                    dedups.push((hex(q)?, hex(n)?, record));
                }
                ["a", q, _] => {
                    let attempt = f
                        .opt("attempt")
                        .ok_or_else(|| corrupt("missing field `attempt`"))?;
                    let record = AttemptRecord {
                        id: read!(f.string("id"))?,
                        attempt: read!(codec::read_attempt(attempt))?,
                    };
                    attempts.push((hex(q)?, record));
                }
                ["x", name] => {
                    let at = read!(f.u64("at"))?;
                    engine.deleted_names.insert((*name).to_string(), at);
                }
                ["t", t] => {
                    let task: MoveTask = read!(codec::read_task(&v))?;
                    if task.id != hex(t)? {
                        return Err(corrupt("task id does not match its key"));
                    }
                    engine.tasks.push(task);
                }
                _ => return Err(corrupt("unknown record kind")),
            }
        }
        let has_data = !queues.is_empty() || !contents.is_empty() || !engine.tasks.is_empty();
        match meta {
            Some(m) => {
                if let Some(seed) = m.seed.filter(|s| *s != engine.config.seed) {
                    engine.reseed(seed);
                }
                engine.next_seq = m.next_seq;
                engine.next_queue = m.next_queue;
                engine.next_task = m.next_task;
            }
            None if has_data => {
                return Err(RestoreError::Corrupt(
                    "records without a meta record".into(),
                ))
            }
            None => {}
        }
        for (uid, r) in queues {
            let mut q = Queue::new(
                uid,
                r.name.clone(),
                r.attrs,
                r.created_at,
                engine.keys.clone(),
            );
            q.tags = r.tags;
            q.modified_at = r.modified_at;
            q.last_purge = r.last_purge;
            q.dedup_per_group = r.dedup_per_group;
            q.next_dedup = r.next_dedup;
            q.next_attempt = r.next_attempt;
            engine.by_name.insert(r.name, uid);
            engine.queues.insert(uid, q);
        }
        engine.tasks = sorted_by(std::mem::take(&mut engine.tasks), |t| (t.id, 0));
        let contents = sorted_by(contents, |(k, _)| *k);
        let states = sorted_by(states, |(k, _)| *k);
        if contents.len() != states.len() || contents.iter().zip(&states).any(|(c, s)| c.0 != s.0) {
            return Err(RestoreError::Corrupt(
                "message content and state records do not pair up".into(),
            ));
        }
        for (((uid, seq), c), (_, s)) in contents.into_iter().zip(states) {
            let q = engine.queues.get_mut(&uid).ok_or_else(|| {
                RestoreError::Corrupt(format!("message {uid:x}/{seq:x} of a missing queue"))
            })?;
            let id = parse_uuid(&c.id)
                .ok_or_else(|| RestoreError::Corrupt(format!("bad message id {:?}", c.id)))?;
            let group_name = c.extra.as_ref().and_then(|e| e.group_id.clone());
            let group = q.intern_group(group_name.as_deref());
            if c.enqueued_at != c.sent_at {
                // Every build of format 1 wrote them equal; a difference is damage.
                return Err(RestoreError::Corrupt(format!(
                    "message {uid:x}/{seq:x}: enqueue and send times differ"
                )));
            }
            let mut msg = Message {
                seq,
                body_md5: Md5::digest(c.body.as_bytes()).into(),
                body: c.body.into(),
                attributes: c.attributes.map(Box::new),
                extra: c.extra.map(Box::new),
                group,
                sent_at: c.sent_at,
                state: s.state,
                deadline: s.deadline,
                receive_count: s.receive_count,
                serial: s.serial,
                first_receive_at: s.first_receive_at,
                received_at: s.received_at,
                visibility_changed: s.visibility_changed,
            };
            msg.set_id(id, &engine.keys);
            q.insert(msg, &mut engine.journal);
        }
        let dedups = sorted_by(dedups, |(_, _, d)| (d.expires_at, 0));
        for (uid, n, d) in dedups {
            let Some(q) = engine.queues.get_mut(&uid) else {
                continue;
            };
            let message_id = parse_uuid(&d.message_id).ok_or_else(|| {
                RestoreError::Corrupt(format!("bad message id {:?}", d.message_id))
            })?;
            q.remember_dedup(
                d.key,
                DedupEntry {
                    expires_at: d.expires_at,
                    message_id,
                    seq: d.seq,
                    n,
                },
            );
        }
        let attempts = sorted_by(attempts, |(_, a)| (a.attempt.expires_at, 0));
        for (uid, a) in attempts {
            if let Some(q) = engine.queues.get_mut(&uid) {
                q.remember_attempt(a.id, a.attempt);
            }
        }
        let uids: Vec<u64> = engine.queues.keys().copied().collect();
        for uid in uids {
            engine.sync_deadline(uid);
        }
        engine.journal.record = record;
        engine.journal.observe = observe;
        Ok(engine)
    }
}
