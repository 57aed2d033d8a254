//! An ordered set of keys for the indexes a queue touches on every message: a standard queue's
//! visible messages (a lane) and the `(deadline, seq)` timers of delayed and in-flight messages.
//!
//! A `BTreeSet` with the few operations the queue uses, keys handed out by value (they are
//! sequences and deadlines).

use std::collections::BTreeSet;

#[derive(Debug)]
pub(crate) struct KeyIndex<K>(BTreeSet<K>);

impl<K> Default for KeyIndex<K> {
    fn default() -> Self {
        KeyIndex(BTreeSet::new())
    }
}

impl<K: Copy + Ord> KeyIndex<K> {
    /// Add `key`; nothing changes if it is present.
    pub(crate) fn insert(&mut self, key: K) {
        self.0.insert(key);
    }

    /// Remove `key`; whether it was present.
    pub(crate) fn remove(&mut self, key: &K) -> bool {
        self.0.remove(key)
    }

    /// The smallest key.
    pub(crate) fn first(&self) -> Option<K> {
        self.0.first().copied()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every key, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.0.iter().copied()
    }
}
