//! A FIFO queue's deduplication history: which message each deduplication key belongs to, for
//! five minutes after the send.
//!
//! One entry per FIFO message sent in the window, so it is kept lean (issue #2): the key string
//! is held once, in `entries`; the index by key holds a 128-bit keyed digest of it; the message
//! id is derived from the message's sequence, as the message's own is.

use super::super::ids::IdKeys;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// A FIFO deduplication entry: which message a deduplication id belongs to, until when.
#[derive(Debug, Clone)]
pub(crate) struct DedupEntry {
    pub(crate) expires_at: u64,
    pub(crate) message_id: u128,
    pub(crate) seq: u64,
    /// Record number (`d/<queue>/<n>`).
    pub(crate) n: u64,
}

#[derive(Debug)]
struct Slot {
    n: u64,
    key: Box<str>,
    expires_at: u64,
    seq: u64,
}

#[derive(Debug)]
pub(crate) struct DedupTable {
    keys: IdKeys,
    /// In record-number order, which is arrival order: sends number their entries in turn, and
    /// restore puts an entry in its place.
    entries: VecDeque<Slot>,
    /// Digest of the key → record number. A lookup compares the key itself too.
    by_key: FxHashMap<[u64; 2], u64>,
    /// Record number → message id, for the rare entry (restored from a store written under
    /// another seed) whose id is not the one its sequence derives.
    ids: FxHashMap<u64, u128>,
}

impl DedupTable {
    pub(crate) fn new(keys: IdKeys) -> Self {
        DedupTable {
            keys,
            entries: VecDeque::new(),
            by_key: FxHashMap::default(),
            ids: FxHashMap::default(),
        }
    }

    fn position(&self, n: u64) -> Option<usize> {
        self.entries.binary_search_by_key(&n, |s| s.n).ok()
    }

    fn entry(&self, slot: &Slot) -> DedupEntry {
        DedupEntry {
            expires_at: slot.expires_at,
            message_id: match self.ids.get(&slot.n) {
                Some(id) => *id,
                None => self.keys.message_id(slot.seq),
            },
            seq: slot.seq,
            n: slot.n,
        }
    }

    /// The entry for a deduplication key.
    pub(crate) fn get(&self, key: &str) -> Option<DedupEntry> {
        let n = *self.by_key.get(&self.keys.digest(key.as_bytes()))?;
        let slot = self.entries.get(self.position(n)?)?;
        (*slot.key == *key).then(|| self.entry(slot))
    }

    /// The key and entry of record `n` (for `d/<queue>/<n>`).
    pub(crate) fn by_record(&self, n: u64) -> Option<(&str, DedupEntry)> {
        let slot = self.entries.get(self.position(n)?)?;
        Some((&slot.key, self.entry(slot)))
    }

    pub(crate) fn insert(&mut self, key: String, entry: DedupEntry) {
        if entry.message_id != self.keys.message_id(entry.seq) {
            self.ids.insert(entry.n, entry.message_id);
        }
        self.by_key
            .insert(self.keys.digest(key.as_bytes()), entry.n);
        let slot = Slot {
            n: entry.n,
            key: key.into_boxed_str(),
            expires_at: entry.expires_at,
            seq: entry.seq,
        };
        match self.entries.back() {
            Some(last) if last.n >= slot.n => {
                let i = self.entries.partition_point(|s| s.n < slot.n);
                if self.entries.get(i).is_some_and(|s| s.n == slot.n) {
                    if let Some(old) = self.entries.get_mut(i) {
                        *old = slot;
                    }
                } else {
                    self.entries.insert(i, slot);
                }
            }
            _ => self.entries.push_back(slot),
        }
    }

    /// Forget the entries whose window has passed, oldest first; returns their record numbers.
    pub(crate) fn forget_expired(&mut self, now: u64) -> Vec<u64> {
        let mut gone = Vec::new();
        while self.entries.front().is_some_and(|s| s.expires_at <= now) {
            let Some(slot) = self.entries.pop_front() else {
                break;
            };
            let digest = self.keys.digest(slot.key.as_bytes());
            if self.by_key.get(&digest) == Some(&slot.n) {
                self.by_key.remove(&digest);
            }
            self.ids.remove(&slot.n);
            gone.push(slot.n);
        }
        gone
    }

    /// Forget every entry (purge, delete); returns their record numbers.
    pub(crate) fn clear(&mut self) -> Vec<u64> {
        let gone = self.entries.iter().map(|s| s.n).collect();
        self.entries = VecDeque::new();
        self.by_key = FxHashMap::default();
        self.ids = FxHashMap::default();
        gone
    }
}
