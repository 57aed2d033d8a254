//! Durable records: what `take_changes` hands to storage, and how `restore` rebuilds from them.
//!
//! The state is kept as one record per entity rather than a log, so a store never needs
//! compaction to stay proportional to what is queued:
//!
//! | key | holds |
//! |---|---|
//! | `meta` | format version and the engine's counters |
//! | `q/<queue>` | a queue: name, attributes, tags, timestamps |
//! | `m/<queue>/<seq>` | a message's immutable content (written once), with its body's MD5 |
//! | `s/<queue>/<seq>` | a message's delivery state (rewritten on receive and visibility changes; none while it is `unstarted`) |
//! | `d/<queue>/<n>` | a FIFO deduplication entry |
//! | `a/<queue>/<n>` | a cached FIFO receive (ReceiveRequestAttemptId), for retries |
//! | `x/<name>` | a recently deleted queue name |
//! | `t/<task>` | a message-move task |
//!
//! Numbers in keys are 16-digit hex so keys sort in creation order. Values are JSON. A store
//! written by a newer format version is refused, never misread.
//!
//! Versions: 2 added `md5` to content records (restore recomputed every body's MD5 before, a
//! tenth of recovering a store), and leaves out the state record of a message that is visible and
//! was never received (most of a backlog: it was half of a store's records, and of recovering
//! it). Version 1 stores are read as they are: a content record without `md5` has it computed
//! from the body, as before; there every message has a state record.
//!
//! Version 3 added `ids` to the meta record: `2` when MessageIds and receipt-handle MACs derive
//! by rapidhash (`IdScheme::Rapid`, every store begun by this build). A store of version 1 or 2
//! has no such field and keeps deriving SipHash ids after its meta record is rewritten as
//! version 3. The version moved so that an earlier build refuses a rapidhash store rather than
//! re-deriving every message's id differently (it ignores fields it does not know).

use super::attributes::QueueAttributes;
use super::ids::{uuid_text, IdScheme};
use super::journal::{unpack, RecordKey, DELETED, TASK};
use super::message::{Delivery, Message};
use super::move_tasks::MoveTask;
use super::queue::{Attempt, DedupEntry, Queue};
use super::responses::MessageBody;
use super::{Engine, EngineConfig};
use crate::changes::ChangeSink;
use crate::json_text::{self, Obj};
use codec::Fields;
use md5::{Digest, Md5};
use serde_json::Value;

// Also read by `import.rs`: a transferred message travels in the record encoding.
pub(super) mod codec;
#[cfg(test)]
mod id_scheme_tests;
mod reader;
#[cfg(test)]
mod tests;

/// The record format this build writes. It reads this version and every older one.
pub const FORMAT_VERSION: u32 = 3;

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
    version: u32,
    /// The seed ids and receipt handles derive from: a store keeps its seed, so handles issued
    /// before a restart stay valid even when the host drew the seed at random.
    seed: Option<u64>,
    /// `Some(2)` when ids derive by `IdScheme::Rapid`; stores begun earlier have no such field.
    ids: Option<u64>,
    next_seq: u64,
    next_queue: u64,
    next_task: u64,
}

struct QueueRecord {
    name: String,
    attrs: QueueAttributes,
    tags: crate::maps::SortedMap<String, String>,
    created_at: u64,
    modified_at: u64,
    last_purge: Option<u64>,
    dedup_per_group: bool,
    next_dedup: u64,
    next_attempt: u64,
}

/// A content record that the fast reader did not take, through the general path.
fn content_from_value(v: &Value) -> Result<reader::Content<'static>, String> {
    let f = Fields::of(v)?;
    let id = f.string("id")?;
    let body = f.string("body")?.into();
    let md5 = f
        .opt("md5")
        .map(|v| {
            v.as_str()
                .and_then(reader::md5)
                .ok_or_else(|| Fields::bad("md5"))
        })
        .transpose()?;
    Ok(reader::Content {
        body,
        md5,
        attributes: f
            .opt("attributes")
            .map(codec::read_message_attributes)
            .transpose()?,
        extra: f
            .opt("extra")
            .map(codec::read_extra)
            .transpose()?
            .map(Box::new),
        sent_at: f.u64("sent_at")?,
        enqueued_at: f.u64("enqueued_at")?,
        id: reader::uuid(&id).ok_or(id),
    })
}

/// A deduplication record that the fast reader did not take, through the general path (fields
/// read in the order they always were, so the same one is named when several are wrong).
fn dedup_from_value(v: &Value) -> Result<reader::Dedup<'static>, String> {
    let f = Fields::of(v)?;
    let key = f.string("key")?.into();
    let expires_at = f.u64("expires_at")?;
    let message_id = f.string("message_id")?;
    Ok(reader::Dedup {
        key,
        expires_at,
        message_id: reader::uuid(&message_id).ok_or(message_id),
        seq: f.u64("seq")?,
    })
}

/// A state record that the fast reader did not take, through the general path.
fn state_from_value(v: &Value) -> Result<reader::State, String> {
    let f = Fields::of(v)?;
    Ok(reader::State {
        state: codec::read_state(&f)?,
        deadline: f.u64("deadline")?,
        receive_count: f.u32("receive_count")?,
        serial: f.u32("serial")?,
        first_receive_at: f.u64("first_receive_at")?,
        received_at: f.u64("received_at")?,
        visibility_changed: f.bool("visibility_changed")?,
    })
}

/// What `restore` has read, before it builds anything: lists sorted afterwards rather than
/// maps, since every map type is more code in the wasm.
#[derive(Default)]
struct Read<'a> {
    meta: Option<MetaRecord>,
    queues: Vec<(u64, QueueRecord)>,
    contents: Vec<((u64, u64), reader::Content<'a>)>,
    states: Vec<((u64, u64), reader::State)>,
    dedups: Vec<(u64, u64, reader::Dedup<'a>)>,
    attempts: Vec<(u64, AttemptRecord)>,
}

struct AttemptRecord {
    id: String,
    attempt: Attempt,
}

/// Appends `<kind>/<16 hex digits>[/<16 hex digits>]`, written by hand: two keys per message
/// per call, where `format!` with `{:016x}` runs the whole formatter for a plain copy.
fn push_key(out: &mut String, key: &RecordKey) {
    let (kind, a, b) = match key {
        RecordKey::Meta => return out.push_str("meta"),
        RecordKey::Deleted(name) => {
            out.push_str("x/");
            return out.push_str(name);
        }
        RecordKey::Queue(q) => ("q", *q, None),
        RecordKey::Content(q, s) => ("m", *q, Some(*s)),
        RecordKey::State(q, s) => ("s", *q, Some(*s)),
        RecordKey::Dedup(q, n) => ("d", *q, Some(*n)),
        RecordKey::Attempt(q, n) => ("a", *q, Some(*n)),
        RecordKey::Task(t) => ("t", *t, None),
    };
    out.push_str(kind);
    for v in std::iter::once(a).chain(b) {
        push_hex16(out, v);
    }
}

/// `/{:016x}`.
fn push_hex16(out: &mut String, v: u64) {
    let mut text = [b'/'; 17];
    crate::hex::write(&v.to_be_bytes(), &mut text[1..]);
    out.push_str(crate::hex::ascii_text(&text).as_str());
}

/// A message that is visible and was never received (a delayed one too, once its delay is over):
/// the state restore gives a message without a state record (format 2), so none is stored.
fn unstarted(m: &Message) -> bool {
    m.delivery() == Delivery::UNSTARTED
}

/// A stable sort by key through one shared sort instantiation: a `sort_by_key` per record
/// type would put a separate copy of the sort (~5 KB) into the wasm for each.
fn sorted_by<T>(items: Vec<T>, key: impl Fn(&T) -> (u64, u64)) -> Vec<T> {
    // Checked in place first: records usually come back sorted, and the list of keys is 2.4 MB
    // of fresh memory for 100,000 messages (page faults are much of a first restore).
    if items
        .windows(2)
        .all(|w| w.first().map(&key) <= w.get(1).map(&key))
    {
        return items;
    }
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
    /// Hand the dirty keys to `sink` as records to put (current value) or delete (entity
    /// gone), each key prefixed with `<region>/` when there is a region. Keys and values are
    /// written into two buffers reused for every record, so a record costs the sink's copy only.
    pub(super) fn collect_changes(&mut self, region: Option<&str>, sink: &mut dyn ChangeSink) {
        let mut dirty = std::mem::take(&mut self.journal.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        let names = std::mem::take(&mut self.journal.dirty_names);
        // Meta sorts before every other key, so it goes first, as when it was in the list.
        let meta = std::mem::take(&mut self.journal.meta_dirty).then_some(RecordKey::Meta);
        if meta.is_none() && dirty.is_empty() && names.is_empty() {
            // Nothing to hand over (always so in memory): no buffers to allocate.
            self.journal.dirty = dirty;
            return;
        }
        let mut key_text = String::with_capacity(40 + region.map_or(0, str::len));
        if let Some(region) = region {
            key_text.push_str(region);
            key_text.push('/');
        }
        let prefix = key_text.len();
        let mut value = String::with_capacity(256);
        // The keys in `RecordKey` order: variant by variant (each sorted by its fields), the
        // `Deleted` names between the variants around them.
        let in_variant = |v: usize| dirty.iter().filter(move |k| k.1 == v).map(|&k| unpack(k));
        let keys = meta
            .into_iter()
            .chain((1..DELETED).flat_map(in_variant))
            .chain(names.into_iter().map(|(name, _)| RecordKey::Deleted(name)))
            .chain((DELETED + 1..=TASK).flat_map(in_variant));
        for key in keys {
            key_text.truncate(prefix);
            push_key(&mut key_text, &key);
            value.clear();
            match self.write_record(&key, &mut value) {
                Some(()) => sink.put(&key_text, value.as_bytes()),
                None => sink.del(&key_text),
            }
        }
        // The list goes back empty with its capacity: the next call's keys would otherwise
        // regrow it from nothing (four reallocations for a batch of ten).
        dirty.clear();
        self.journal.dirty = dirty;
    }

    /// The current value of `key`, or `None` when its entity is gone (then `out` holds
    /// nothing the caller uses).
    fn write_record(&self, key: &RecordKey, out: &mut String) -> Option<()> {
        match key {
            RecordKey::Meta => {
                let mut o = Obj::new(out);
                o.u64("v", FORMAT_VERSION.into())
                    .u64("seed", self.config.seed);
                if self.keys.scheme() == IdScheme::Rapid {
                    o.u64("ids", 2);
                }
                o.u64("next_seq", self.next_seq)
                    .u64("next_queue", self.next_queue)
                    .u64("next_task", self.next_task)
                    .end()
            }
            RecordKey::Queue(uid) => {
                let q = self.queues.get(uid)?;
                let mut o = Obj::new(out);
                o.str("name", &q.name);
                codec::write_attributes(o.member("attrs"), &q.attrs);
                codec::write_map(o.member("tags"), q.tags.iter(), |out, v| {
                    json_text::string(out, v)
                });
                o.u64("created_at", q.created_at)
                    .u64("modified_at", q.modified_at)
                    .nullable_u64("last_purge", q.last_purge)
                    .bool("dedup_per_group", q.dedup_per_group)
                    .u64("next_dedup", q.next_dedup)
                    .u64("next_attempt", q.next_attempt)
                    .end()
            }
            RecordKey::Content(uid, seq) => {
                let q = self.queues.get(uid)?;
                let m = q.messages.get(seq)?;
                let mut o = Obj::new(out);
                o.str("id", &uuid_text(m.id(&q.keys))).str("body", &m.body);
                o.str("md5", &crate::digest::hex16(&m.body_md5));
                if let Some(a) = &m.attributes {
                    codec::write_message_attributes(o.member("attributes"), a);
                }
                if let Some(e) = m.stored_extra() {
                    codec::write_extra(o.member("extra"), e);
                }
                // Formats 1 and 2 have both fields; they are always equal (see `Message::sent_at`).
                o.u64("sent_at", m.sent_at)
                    .u64("enqueued_at", m.sent_at)
                    .end()
            }
            RecordKey::State(uid, seq) => {
                let m = self.queues.get(uid)?.messages.get(seq)?;
                if unstarted(m) {
                    // Deleted rather than written: restore gives a message without one this
                    // state. A message can come back to it (a delay ends).
                    return None;
                }
                Obj::new(out)
                    .str("state", codec::state_name(m.state))
                    .u64("deadline", m.deadline)
                    .u64("receive_count", m.receive_count.into())
                    .u64("serial", m.serial.into())
                    .u64("first_receive_at", m.first_receive_at)
                    .u64("received_at", m.received_at)
                    .bool("visibility_changed", m.visibility_changed)
                    .end()
            }
            RecordKey::Dedup(uid, n) => {
                let q = self.queues.get(uid)?;
                let (key, e) = q.dedup.by_record(*n)?;
                Obj::new(out)
                    .str("key", key)
                    .u64("expires_at", e.expires_at)
                    .str("message_id", &uuid_text(e.message_id))
                    .u64("seq", e.seq)
                    .end()
            }
            RecordKey::Attempt(uid, n) => {
                let q = self.queues.get(uid)?;
                let id = q.attempt_keys.get(n)?;
                let attempt = q.attempts.get(id)?;
                let mut o = Obj::new(out);
                o.str("id", id);
                codec::write_attempt(o.member("attempt"), attempt);
                o.end()
            }
            RecordKey::Deleted(name) => {
                let at = *self.deleted_names.get(name)?;
                Obj::new(out).u64("at", at).end()
            }
            RecordKey::Task(id) => codec::write_task(out, self.task(*id)?),
        }
        Some(())
    }

    /// Rebuild an engine from every record of its store.
    pub fn restore<'a, I>(config: EngineConfig, records: I) -> Result<Self, RestoreError>
    where
        I: IntoIterator<Item = (&'a str, &'a [u8])>,
    {
        let mut engine = Engine::new(config);
        let (record, observe) = (engine.journal.record, engine.journal.observe);
        engine.journal.record = false;
        engine.journal.observe = false;
        let records = records.into_iter();
        let mut read = Read::default();
        // Up to one content record per record (format 2: a backlog stores no states) and a
        // state per message at most: one allocation each instead of a dozen growing copies.
        let records_hint = records.size_hint().0;
        read.contents.reserve(records_hint);
        read.states.reserve(records_hint / 2);
        for (key, value) in records {
            engine.read_record(key, value, &mut read)?;
        }
        let Read {
            meta,
            queues,
            contents,
            states,
            dedups,
            attempts,
        } = read;
        let has_data = !queues.is_empty() || !contents.is_empty() || !engine.tasks.is_empty();
        let version = meta.as_ref().map_or(FORMAT_VERSION, |m| m.version);
        let meta_read = meta.is_some();
        match meta {
            Some(m) => {
                if let Some(seed) = m.seed.filter(|s| *s != engine.config.seed) {
                    engine.reseed(seed);
                }
                // Before any queue takes a copy of the keys.
                match m.ids {
                    None => engine.keys.set_scheme(IdScheme::Sip13),
                    Some(2) => engine.keys.set_scheme(IdScheme::Rapid),
                    Some(other) => {
                        return Err(RestoreError::Corrupt(format!(
                            "record \"meta\": unknown id scheme {other}"
                        )))
                    }
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
        let mut names = Vec::with_capacity(queues.len());
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
            names.push((r.name, uid));
            engine.queues.insert(uid, q);
        }
        // In one sort: the queues come in creation order, and inserting each name would move
        // the names after it, O(queues²) in all.
        engine.by_name.extend_bulk(names);
        engine.tasks = sorted_by(std::mem::take(&mut engine.tasks), |t| (t.id, 0));
        let contents = sorted_by(contents, |(k, _)| *k);
        let states = sorted_by(states, |(k, _)| *k);
        let unpaired =
            || RestoreError::Corrupt("message content and state records do not pair up".into());
        // Since format 2 a message without a state record has never started (see `unstarted`).
        let mut next = 0;
        for ((uid, seq), c) in contents {
            let s = match states.get(next) {
                Some((key, s)) if *key == (uid, seq) => {
                    next += 1;
                    *s
                }
                // A state record whose message is missing: the states are sorted, so it was passed.
                Some((key, _)) if *key < (uid, seq) => return Err(unpaired()),
                _ if version >= 2 => Delivery::UNSTARTED,
                _ => return Err(unpaired()),
            };
            engine.restore_message(uid, seq, c, s)?;
        }
        if next != states.len() {
            return Err(unpaired());
        }
        let dedups = sorted_by(dedups, |(_, _, d)| (d.expires_at, 0));
        for (uid, n, d) in dedups {
            let Some(q) = engine.queues.get_mut(&uid) else {
                continue;
            };
            let message_id = d.message_id.map_err(|id| {
                RestoreError::Corrupt(format!("bad message id {}", crate::error::quoted(&id)))
            })?;
            q.remember_dedup(
                d.key.into_owned(),
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
        if version < FORMAT_VERSION && meta_read {
            // From the next commit on the store holds this format's records (a state record
            // deleted when a delay ends, say), so its meta record must say so in that same
            // batch: read as version 1, that store would be refused as unpaired.
            engine.journal.touch(RecordKey::Meta);
        }
        Ok(engine)
    }

    /// One message from its two records (a call per message, as `read_record` is).
    #[inline(never)]
    fn restore_message(
        &mut self,
        uid: u64,
        seq: u64,
        c: reader::Content<'_>,
        s: reader::State,
    ) -> Result<(), RestoreError> {
        let q = self.queues.get_mut(&uid).ok_or_else(|| {
            RestoreError::Corrupt(format!("message {uid:x}/{seq:x} of a missing queue"))
        })?;
        let id = c.id.map_err(|id| {
            RestoreError::Corrupt(format!("bad message id {}", crate::error::quoted(&id)))
        })?;
        let group_name = c.extra.as_ref().and_then(|e| e.group_id.clone());
        let group = q.intern_group(group_name.as_deref());
        if c.enqueued_at != c.sent_at {
            // Every build of formats 1 and 2 wrote them equal; a difference is damage.
            return Err(RestoreError::Corrupt(format!(
                "message {uid:x}/{seq:x}: enqueue and send times differ"
            )));
        }
        // Stored since format 2; a version 1 record has the body only.
        let body_md5 = c
            .md5
            .unwrap_or_else(|| Md5::digest(c.body.as_bytes()).into());
        let mut msg = Message::with_delivery(
            seq,
            MessageBody::from(&*c.body),
            body_md5,
            c.attributes.map(Box::new),
            c.extra,
            group,
            c.sent_at,
            s,
        );
        msg.set_id(id, &self.keys);
        q.insert(msg, &mut self.journal);
        Ok(())
    }

    /// One record into `into`. A function of its own rather than the body of `restore`'s loop:
    /// V8 runs a wasm function that is already running in its baseline code until it returns
    /// (no on-stack replacement), so a loop body that is a call gets the optimised code after a
    /// few records, where an inlined one would stay slow through the whole first restore.
    #[inline(never)]
    fn read_record<'a>(
        &mut self,
        key: &'a str,
        value: &'a [u8],
        into: &mut Read<'a>,
    ) -> Result<(), RestoreError> {
        // Every reason a record is refused is named with its key here, once, rather than at each
        // of the fields' many `?`s (a call to the formatting and a drop each, in the wasm).
        match self.read_fields(key, value, into) {
            Ok(()) => Ok(()),
            Err(Bad::What(what)) => Err(RestoreError::Corrupt(format!(
                "record {}: {what}",
                crate::error::quoted(key)
            ))),
            Err(Bad::Newer(e)) => Err(e),
        }
    }

    /// `read_record`'s work; a failure says what is wrong, not yet with the record's key.
    fn read_fields<'a>(
        &mut self,
        key: &'a str,
        value: &'a [u8],
        into: &mut Read<'a>,
    ) -> Result<(), Bad> {
        // Message and deduplication keys in the writer's form are read by their bytes; the
        // parts then only say which kind the record is.
        let message_key = reader::message_key(key);
        let mut segments = key.split('/');
        let parts = match message_key {
            Some((kind, ..)) => [Some(kind), Some(""), Some(""), None],
            None => [
                segments.next(),
                segments.next(),
                segments.next(),
                segments.next(),
            ],
        };
        let hex = |s: &str| reader::key_hex(s).ok_or_else(|| String::from("bad key"));
        // After the value, as the key's numbers always were read.
        let numbers = |q: &str, n: &str| -> Result<(u64, u64), String> {
            match message_key {
                Some((_, q, n)) => Ok((q, n)),
                None => Ok((hex(q)?, hex(n)?)),
            }
        };
        let text = std::str::from_utf8(value).map_err(|e| e.to_string())?;
        // One general JSON reader (text into `Value`) for every record the fast reader does
        // not take: each reader type is more wasm.
        let parse =
            || -> Result<Value, String> { serde_json::from_str(text).map_err(|e| e.to_string()) };
        match parts {
            [Some("m"), Some(q), Some(s), None] => {
                let record = match reader::content(text) {
                    Some(record) => record,
                    None => content_from_value(&parse()?)?,
                };
                into.contents.push((numbers(q, s)?, record));
                return Ok(());
            }
            [Some("s"), Some(q), Some(s), None] => {
                let record = match reader::state(text) {
                    Some(record) => record,
                    None => state_from_value(&parse()?)?,
                };
                into.states.push((numbers(q, s)?, record));
                return Ok(());
            }
            [Some("d"), Some(q), Some(n), None] => {
                let record = match reader::dedup(text) {
                    Some(record) => record,
                    None => dedup_from_value(&parse()?)?,
                };
                let (q, n) = numbers(q, n)?;
                into.dedups.push((q, n, record));
                return Ok(());
            }
            _ => {}
        }
        let v = parse()?;
        let f = Fields::of(&v)?;
        match parts {
            [Some("meta"), None, ..] => {
                let version = v.get("v").and_then(|v| v.as_u64()).unwrap_or(0) as u32;
                if version > FORMAT_VERSION {
                    return Err(Bad::Newer(RestoreError::UnsupportedVersion {
                        found: version,
                        supported: FORMAT_VERSION,
                    }));
                }
                f.u32("v")?;
                into.meta = Some(MetaRecord {
                    version,
                    seed: f.opt_u64("seed")?,
                    ids: f.opt_u64("ids")?,
                    next_seq: f.u64("next_seq")?,
                    next_queue: f.u64("next_queue")?,
                    next_task: f.u64("next_task")?,
                });
            }
            [Some("q"), Some(q), None, _] => {
                let bad_tags = || String::from("invalid value for field `tags`");
                let Some(Value::Object(tag_map)) = f.opt("tags") else {
                    return Err(bad_tags().into());
                };
                let tags = tag_map
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), v.as_str().ok_or(())?.to_string())))
                    .collect::<Result<_, ()>>()
                    .map_err(|()| bad_tags())?;
                let attrs = f
                    .opt("attrs")
                    .ok_or_else(|| String::from("missing field `attrs`"))?;
                let record = QueueRecord {
                    name: f.string("name")?,
                    attrs: codec::read_attributes(attrs)?,
                    tags,
                    created_at: f.u64("created_at")?,
                    modified_at: f.u64("modified_at")?,
                    last_purge: f.opt_u64("last_purge")?,
                    dedup_per_group: f.bool("dedup_per_group")?,
                    next_dedup: f.u64("next_dedup")?,
                    next_attempt: f.opt_u64("next_attempt")?.unwrap_or(0),
                };
                into.queues.push((hex(q)?, record));
            }
            [Some("a"), Some(q), Some(_), None] => {
                let attempt = f
                    .opt("attempt")
                    .ok_or_else(|| String::from("missing field `attempt`"))?;
                let record = AttemptRecord {
                    id: f.string("id")?,
                    attempt: codec::read_attempt(attempt)?,
                };
                into.attempts.push((hex(q)?, record));
            }
            [Some("x"), Some(name), None, _] => {
                let at = f.u64("at")?;
                self.deleted_names.insert(name.to_string(), at);
            }
            [Some("t"), Some(t), None, _] => {
                let task: MoveTask = codec::read_task(&v)?;
                if task.id != hex(t)? {
                    return Err(String::from("task id does not match its key").into());
                }
                self.tasks.push(task);
            }
            _ => return Err(String::from("unknown record kind").into()),
        }
        Ok(())
    }
}

/// Why `read_fields` refused a record: what is wrong with it, or a store of a newer format.
enum Bad {
    What(String),
    Newer(RestoreError),
}

impl From<String> for Bad {
    fn from(what: String) -> Self {
        Bad::What(what)
    }
}
