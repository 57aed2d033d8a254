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

/// Collects dirty record keys and events while an operation runs.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// Touched records, possibly repeated; sorted and deduplicated when collected (a Vec keeps
    /// the hot path to a push and avoids another B-tree instantiation).
    pub(crate) dirty: Vec<RecordKey>,
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
    pub(crate) fn touch(&mut self, key: RecordKey) {
        if self.record {
            if key == RecordKey::Meta {
                self.meta_dirty = true;
            } else {
                self.dirty.push(key);
            }
        }
    }

    pub(crate) fn message(&mut self, queue: u64, seq: u64) {
        if self.record {
            self.dirty.push(RecordKey::Content(queue, seq));
            self.dirty.push(RecordKey::State(queue, seq));
        }
    }

    pub(crate) fn state(&mut self, queue: u64, seq: u64) {
        if self.record {
            self.dirty.push(RecordKey::State(queue, seq));
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
