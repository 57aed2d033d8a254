//! What one operation changed: the records to persist and the events to report.

use crate::events::{Event, EventKind};

/// A durable record, by what it holds. Keys render as short path-like strings (see `records`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RecordKey {
    /// Engine counters and the format version.
    Meta,
    /// A queue's name, attributes, tags and timestamps.
    Queue(u64),
    /// A message's immutable content (body, attributes, ids).
    Content(u64, u64),
    /// A message's mutable delivery state (visibility, receive count).
    State(u64, u64),
    /// One FIFO deduplication entry.
    Dedup(u64, u64),
    /// One cached FIFO receive (ReceiveRequestAttemptId).
    Attempt(u64, u64),
    /// A recently deleted queue name (the 60-second re-create rule).
    Deleted(String),
    /// A message-move task.
    Task(u64),
}

/// A `RecordKey` other than `Deleted` as `(variant, first field, second field)`, the variant
/// numbered in declaration order: the derived order of the tuples is the enum's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PackedKey(u8, u64, u64);

const CONTENT: u8 = 2;
const STATE: u8 = 3;
/// Where `Deleted` keys fall among the packed ones.
pub(crate) const DELETED: u8 = 6;

impl RecordKey {
    /// The packed key, or the name of a `Deleted` key.
    fn pack(self) -> Result<PackedKey, String> {
        Ok(match self {
            RecordKey::Meta => PackedKey(0, 0, 0),
            RecordKey::Queue(q) => PackedKey(1, q, 0),
            RecordKey::Content(q, s) => PackedKey(CONTENT, q, s),
            RecordKey::State(q, s) => PackedKey(STATE, q, s),
            RecordKey::Dedup(q, n) => PackedKey(4, q, n),
            RecordKey::Attempt(q, n) => PackedKey(5, q, n),
            RecordKey::Deleted(name) => return Err(name),
            RecordKey::Task(t) => PackedKey(7, t, 0),
        })
    }
}

impl PackedKey {
    pub(crate) fn variant(self) -> u8 {
        self.0
    }

    pub(crate) fn unpack(self) -> RecordKey {
        let PackedKey(v, a, b) = self;
        match v {
            0 => RecordKey::Meta,
            1 => RecordKey::Queue(a),
            CONTENT => RecordKey::Content(a, b),
            STATE => RecordKey::State(a, b),
            4 => RecordKey::Dedup(a, b),
            5 => RecordKey::Attempt(a, b),
            _ => RecordKey::Task(a),
        }
    }
}

/// Collects dirty record keys and events while an operation runs.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// Touched records, possibly repeated; sorted and deduplicated when collected (a Vec keeps
    /// the hot path to a push and avoids another B-tree instantiation). Packed (`PackedKey`):
    /// sorting tuples of integers costs a fraction of sorting the enum, whose `Deleted` name
    /// makes every element 32 bytes and every comparison a call.
    pub(crate) dirty: Vec<PackedKey>,
    /// The names of touched `Deleted` records (rare: a queue deletion), kept apart.
    pub(crate) dirty_names: Vec<String>,
    /// The Meta record is touched by every send (the sequence counter): a flag rather than one
    /// more key per entry for the collector to sort and drop again.
    pub(crate) meta_dirty: bool,
    pub(crate) events: Vec<Event>,
    /// Persisting is on unless the host asked for a pure in-memory engine.
    pub(crate) record: bool,
    /// Events and the removed-message tail are on unless the host turned observation off.
    pub(crate) observe: bool,
    /// The event feed alone can be muted (a JS host with no `event` listener) while `peek`'s
    /// removed-message tail stays: formatting events nobody reads was a visible share of a call.
    pub(crate) muted: bool,
}

impl Journal {
    // Inline, the packing apart: a send touches Meta for every message, and in memory this is
    // then one test at the call.
    #[inline]
    pub(crate) fn touch(&mut self, key: RecordKey) {
        if self.record {
            self.touch_recorded(key);
        }
    }

    fn touch_recorded(&mut self, key: RecordKey) {
        match key.pack() {
            Ok(PackedKey(0, ..)) => self.meta_dirty = true,
            Ok(packed) => self.dirty.push(packed),
            Err(name) => self.dirty_names.push(name),
        }
    }

    pub(crate) fn message(&mut self, queue: u64, seq: u64) {
        if self.record {
            self.dirty.push(PackedKey(CONTENT, queue, seq));
            self.dirty.push(PackedKey(STATE, queue, seq));
        }
    }

    pub(crate) fn state(&mut self, queue: u64, seq: u64) {
        if self.record {
            self.dirty.push(PackedKey(STATE, queue, seq));
        }
    }

    /// Whether events are collected: callers skip preparing an event's inputs (queue name,
    /// formatted ids) when not.
    pub(crate) fn feed(&self) -> bool {
        self.observe && !self.muted
    }

    /// Record an event; `make` runs only when events are observed, so ids are not formatted
    /// for nobody.
    pub(crate) fn event(&mut self, at: u64, queue: &str, make: impl FnOnce() -> EventKind) {
        if self.feed() {
            self.events.push(Event {
                at,
                queue: queue.to_string(),
                kind: make(),
            });
        }
    }
}

#[cfg(test)]
mod packed_tests {
    use super::*;

    /// Packed keys sort as the keys do, and `Deleted` names fall where `collect_changes` puts
    /// them (between the variants numbered below and above `DELETED`).
    #[test]
    fn packed_keys_keep_the_order_of_record_keys() {
        let keys = vec![
            RecordKey::Meta,
            RecordKey::Queue(2),
            RecordKey::Queue(10),
            RecordKey::Content(1, 5),
            RecordKey::Content(2, 1),
            RecordKey::State(1, 9),
            RecordKey::Dedup(3, 0),
            RecordKey::Attempt(1, 1),
            RecordKey::Deleted("a".into()),
            RecordKey::Deleted("b".into()),
            RecordKey::Task(0),
            RecordKey::Task(4),
        ];
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(sorted, keys);
        for (i, a) in keys.iter().enumerate() {
            match a.clone().pack() {
                Ok(p) => {
                    assert_eq!(&p.unpack(), a);
                    for b in &keys[i + 1..] {
                        match b.clone().pack() {
                            Ok(q) => assert!(p < q, "{a:?} {b:?}"),
                            Err(_) => assert!(p.variant() < DELETED, "{a:?}"),
                        }
                    }
                }
                Err(_) => {
                    for b in &keys[i + 1..] {
                        if let Ok(q) = b.clone().pack() {
                            assert!(q.variant() > DELETED, "{b:?}");
                        }
                    }
                }
            }
        }
    }
}
