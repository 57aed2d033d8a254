//! What one operation changed: the records to persist and the events to report.

use crate::events::{Event, EventKind};
use crate::maps::SortedMap;

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

/// A `RecordKey` other than `Deleted` as `((first field, second field), variant)`, the variant
/// numbered in declaration order. Sorting these tuples costs a fraction of sorting the enum
/// (whose `Deleted` name makes every element 32 bytes and every comparison a call); they sort
/// by the fields first, and `collect_changes` then takes the variants in turn, which gives the
/// keys' own order. The very tuple `records::sorted_by` sorts, so the wasm carries one sort
/// for both (each sort instantiation is kilobytes of it).
pub(crate) type PackedKey = ((u64, u64), usize);

const QUEUE: usize = 1;
const CONTENT: usize = 2;
const STATE: usize = 3;
const DEDUP: usize = 4;
const ATTEMPT: usize = 5;
/// Where `Deleted` keys fall among the packed ones.
pub(crate) const DELETED: usize = 6;
pub(crate) const TASK: usize = 7;

impl RecordKey {
    /// The packed key (`None` for Meta, which has a flag of its own), or the name of a
    /// `Deleted` key.
    fn pack(self) -> Result<Option<PackedKey>, String> {
        Ok(Some(match self {
            RecordKey::Meta => return Ok(None),
            RecordKey::Queue(q) => ((q, 0), QUEUE),
            RecordKey::Content(q, s) => ((q, s), CONTENT),
            RecordKey::State(q, s) => ((q, s), STATE),
            RecordKey::Dedup(q, n) => ((q, n), DEDUP),
            RecordKey::Attempt(q, n) => ((q, n), ATTEMPT),
            RecordKey::Deleted(name) => return Err(name),
            RecordKey::Task(t) => ((t, 0), TASK),
        }))
    }
}

/// The key a `PackedKey` stands for.
pub(crate) fn unpack(((a, b), variant): PackedKey) -> RecordKey {
    match variant {
        QUEUE => RecordKey::Queue(a),
        CONTENT => RecordKey::Content(a, b),
        STATE => RecordKey::State(a, b),
        DEDUP => RecordKey::Dedup(a, b),
        ATTEMPT => RecordKey::Attempt(a, b),
        _ => RecordKey::Task(a),
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
    /// The names of touched `Deleted` records (a queue deletion or re-creation), kept apart,
    /// ordered and each once as they come. The map type of `Engine::deleted_names` (the value
    /// unused), so no new code in the wasm; an insert moves the names after it, O(queues), as
    /// creating or deleting the queue did in `Engine::by_name` already.
    pub(crate) dirty_names: SortedMap<String, u64>,
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
            Ok(None) => self.meta_dirty = true,
            Ok(Some(packed)) => self.dirty.push(packed),
            Err(name) => {
                self.dirty_names.insert(name, 0);
            }
        }
    }

    pub(crate) fn message(&mut self, queue: u64, seq: u64) {
        if self.record {
            self.dirty.push(((queue, seq), CONTENT));
            self.dirty.push(((queue, seq), STATE));
        }
    }

    pub(crate) fn state(&mut self, queue: u64, seq: u64) {
        if self.record {
            self.dirty.push(((queue, seq), STATE));
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

    /// Packed keys stand for the keys they were made from, and taking them variant by variant
    /// (`Deleted` names between `ATTEMPT` and `TASK`), each variant sorted, is the keys' order.
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
        let mut packed = Vec::new();
        let mut names = Vec::new();
        for k in keys.iter().rev() {
            match k.clone().pack() {
                Ok(Some(p)) => {
                    assert_eq!(&unpack(p), k);
                    packed.push(p);
                }
                Ok(None) => assert_eq!(k, &RecordKey::Meta),
                Err(name) => names.insert(0, RecordKey::Deleted(name)),
            }
        }
        packed.sort_unstable();
        let in_variant = |v: usize| packed.iter().filter(move |k| k.1 == v).map(|&k| unpack(k));
        let order: Vec<RecordKey> = std::iter::once(RecordKey::Meta)
            .chain((QUEUE..DELETED).flat_map(in_variant))
            .chain(names)
            .chain((DELETED + 1..=TASK).flat_map(in_variant))
            .collect();
        assert_eq!(order, keys);
    }
}
