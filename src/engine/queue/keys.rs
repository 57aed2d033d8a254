//! An ordered set of keys for the indexes a queue touches on every message: a standard queue's
//! visible messages (a lane) and the `(deadline, seq)` timers of delayed and in-flight messages.
//!
//! Both mostly see keys arrive in order (sends take rising sequences; receives at a rising `now`
//! with one visibility timeout give rising deadlines) and leave from the front (the oldest visible
//! message is received first; the oldest receive is deleted or expires first). A `BTreeSet` pays
//! a descent, node shifting and, for a queue that empties, a node allocation on each of those.
//! Here keys that arrive in order sit in a sorted `VecDeque`, where appending, taking the first
//! and finding one by binary search are cheap; a key that arrives out of order (a message made
//! visible again, a visibility change) goes to a `BTreeSet` beside it, and the two are merged when
//! read. A key removed from the middle of the run is marked rather than shifted out, so every
//! operation stays O(log n); marks at either end are dropped at once, and the run is compacted
//! when they are half of it, so they cost O(1) amortized and at most as much memory again.
//!
//! The wasm keeps a plain `BTreeSet` (`TreeIndex`): the run's code for two key types made the
//! package 2.2 KB larger gzipped, over its ceiling, for a cycle the same within the noise
//! (BENCHMARKS.md "Package size → Twelfth session"). Both are tested natively.

use std::collections::{BTreeSet, VecDeque};

/// The index a queue uses: the run natively, the B-tree alone in the wasm.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type KeyIndex<K> = RunIndex<K>;
#[cfg(target_arch = "wasm32")]
pub(crate) type KeyIndex<K> = TreeIndex<K>;

/// `RunIndex`'s interface over a `BTreeSet` alone.
#[derive(Debug)]
pub(crate) struct TreeIndex<K>(BTreeSet<K>);

impl<K> Default for TreeIndex<K> {
    fn default() -> Self {
        TreeIndex(BTreeSet::new())
    }
}

#[allow(dead_code)] // natively only the tests use it
impl<K: Key> TreeIndex<K> {
    pub(crate) fn insert(&mut self, key: K) {
        self.0.insert(key);
    }
    pub(crate) fn remove(&mut self, key: &K) -> bool {
        self.0.remove(key)
    }
    pub(crate) fn first(&self) -> Option<K> {
        self.0.first().copied()
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.0.iter().copied()
    }
}

/// The mark of a key removed from the middle of the run. Sequences and deadlines stay far below
/// 2^62; a key that has the bit anyway is kept in the B-tree, where the mark is never looked for.
const MARK: u64 = 1 << 62;

/// A key of a `KeyIndex`: ordered, with room for the removal mark.
pub(crate) trait Key: Copy + Ord {
    fn marked(self) -> Self;
    fn is_marked(self) -> bool;
    /// The key as it was inserted (mark cleared).
    fn unmarked(self) -> Self;
}

impl Key for u64 {
    fn marked(self) -> Self {
        self | MARK
    }
    fn is_marked(self) -> bool {
        self & MARK != 0
    }
    fn unmarked(self) -> Self {
        self & !MARK
    }
}

/// `(deadline, seq)`: the mark goes on the sequence, so marking keeps the run's order by
/// deadline and the unmarked sequence still breaks ties.
impl Key for (u64, u64) {
    fn marked(self) -> Self {
        (self.0, self.1 | MARK)
    }
    fn is_marked(self) -> bool {
        self.1 & MARK != 0
    }
    fn unmarked(self) -> Self {
        (self.0, self.1 & !MARK)
    }
}

/// Marks in the run before it is compacted, at the least: a few marks in a short run cost less
/// than compacting it again and again.
const COMPACT_AFTER: usize = 16;

/// Spare capacity the run keeps: a queue that drained a large backlog gives the memory back.
const SHRINK_ABOVE: usize = 64;

#[derive(Debug)]
pub(crate) struct RunIndex<K> {
    /// Sorted by the unmarked key; the first and last entries are never marked.
    run: VecDeque<K>,
    /// How many entries of `run` are marked.
    marks: usize,
    /// Keys that arrived below the end of the run.
    rest: BTreeSet<K>,
}

impl<K> Default for RunIndex<K> {
    fn default() -> Self {
        RunIndex {
            run: VecDeque::new(),
            marks: 0,
            rest: BTreeSet::new(),
        }
    }
}

#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
impl<K: Key> RunIndex<K> {
    /// Add `key`; nothing changes if it is present.
    pub(crate) fn insert(&mut self, key: K) {
        if key.is_marked() {
            self.rest.insert(key);
            return;
        }
        match self.run.back() {
            Some(&last) if last >= key => {
                if self.run_position(key).is_none() {
                    self.rest.insert(key);
                }
            }
            // A key above the run may be in the B-tree already (put there while the run
            // reached further).
            _ if !self.rest.is_empty() && self.rest.contains(&key) => {}
            _ => self.run.push_back(key),
        }
    }

    /// Remove `key`; whether it was present.
    pub(crate) fn remove(&mut self, key: &K) -> bool {
        // The usual case, the oldest key, before any range test or search.
        if self.run.front() == Some(key) {
            self.take(0);
            return true;
        }
        match self.run_position(*key) {
            Some(i) => {
                self.take(i);
                true
            }
            None => self.rest.remove(key),
        }
    }

    /// Where `key` is (unmarked) in the run.
    fn run_position(&self, key: K) -> Option<usize> {
        if key.is_marked() {
            return None;
        }
        // The run's ends are unmarked: the range test needs no masking.
        match (self.run.front(), self.run.back()) {
            (Some(&first), Some(&last)) if first <= key && key <= last => {}
            _ => return None,
        }
        let i = self.run.binary_search_by(|k| k.unmarked().cmp(&key)).ok()?;
        (!self.run.get(i)?.is_marked()).then_some(i)
    }

    fn take(&mut self, i: usize) {
        if i == 0 {
            self.run.pop_front();
            while self.run.front().is_some_and(|k| k.is_marked()) {
                self.run.pop_front();
                self.marks -= 1;
            }
        } else if i + 1 == self.run.len() {
            self.run.pop_back();
            while self.run.back().is_some_and(|k| k.is_marked()) {
                self.run.pop_back();
                self.marks -= 1;
            }
        } else {
            if let Some(k) = self.run.get_mut(i) {
                *k = k.marked();
            }
            self.marks += 1;
            if self.marks > COMPACT_AFTER && self.marks * 2 > self.run.len() {
                self.run.retain(|k| !k.is_marked());
                self.marks = 0;
            }
        }
        if self.run.capacity() > SHRINK_ABOVE && self.run.len() * 4 < self.run.capacity() {
            self.run.shrink_to(self.run.len() * 2);
        }
    }

    /// The smallest key.
    pub(crate) fn first(&self) -> Option<K> {
        match (self.run.front(), self.rest.first()) {
            (Some(&a), Some(&b)) => Some(a.min(b)),
            (a, b) => a.or(b).copied(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.run.is_empty() && self.rest.is_empty()
    }

    /// Every key, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = K> + '_ {
        let mut run = self
            .run
            .iter()
            .copied()
            .filter(|k| !k.is_marked())
            .peekable();
        let mut rest = self.rest.iter().copied().peekable();
        std::iter::from_fn(move || match (run.peek(), rest.peek()) {
            (Some(a), Some(b)) if b < a => rest.next(),
            (Some(_), _) => run.next(),
            (None, _) => rest.next(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u64),
        Remove(u64),
    }

    /// Keys bunched so that inserts land in order, out of order and on present keys, and
    /// removals hit the run's ends, its middle and absent keys; a few carry the mark bit.
    fn op() -> impl Strategy<Value = Op> {
        let key = prop_oneof![8 => 0u64..200, 1 => Just(MARK | 5), 1 => Just(u64::MAX)];
        prop_oneof![
            3 => key.clone().prop_map(Op::Insert),
            2 => key.prop_map(Op::Remove),
        ]
    }

    fn check<K: Key + std::fmt::Debug>(index: &RunIndex<K>, model: &BTreeSet<K>) {
        assert_eq!(
            index.iter().collect::<Vec<_>>(),
            model.iter().copied().collect::<Vec<_>>()
        );
        assert_eq!(index.first(), model.first().copied());
        assert_eq!(index.is_empty(), model.is_empty());
        assert!(index.run.front().is_none_or(|k| !k.is_marked()));
        assert!(index.run.back().is_none_or(|k| !k.is_marked()));
        assert_eq!(
            index.marks,
            index.run.iter().filter(|k| k.is_marked()).count()
        );
    }

    proptest! {
        /// The index is a `BTreeSet` in everything it answers, whatever the order of operations.
        #[test]
        fn behaves_as_a_btreeset(ops in prop::collection::vec(op(), 0..400)) {
            let mut index = RunIndex::<u64>::default();
            // The wasm's index, held to the same answers.
            let mut tree = TreeIndex::<u64>::default();
            let mut model = BTreeSet::new();
            for op in ops {
                match op {
                    Op::Insert(k) => {
                        index.insert(k);
                        tree.insert(k);
                        model.insert(k);
                    }
                    Op::Remove(k) => {
                        let removed = model.remove(&k);
                        prop_assert_eq!(index.remove(&k), removed);
                        prop_assert_eq!(tree.remove(&k), removed);
                    }
                }
                check(&index, &model);
                prop_assert_eq!(tree.iter().collect::<Vec<_>>(), index.iter().collect::<Vec<_>>());
                prop_assert_eq!(tree.first(), model.first().copied());
                prop_assert_eq!(tree.is_empty(), model.is_empty());
            }
        }

        /// The same for timers, whose mark sits on the sequence: ties on the deadline included.
        #[test]
        fn timers_behave_as_a_btreeset(ops in prop::collection::vec(op(), 0..400)) {
            let mut index = RunIndex::<(u64, u64)>::default();
            let mut model = BTreeSet::new();
            for op in ops {
                match op {
                    Op::Insert(k) => {
                        let key = (k / 8, k);
                        index.insert(key);
                        model.insert(key);
                    }
                    Op::Remove(k) => {
                        let key = (k / 8, k);
                        prop_assert_eq!(index.remove(&key), model.remove(&key));
                    }
                }
                check(&index, &model);
            }
        }
    }

    /// The steady state of a queue: keys appended and taken from the front never reach the
    /// B-tree, and removals from the middle leave marks that compaction bounds.
    #[test]
    fn in_order_traffic_stays_in_the_run_and_marks_stay_bounded() {
        let mut index = RunIndex::<u64>::default();
        for k in 0..10_000u64 {
            index.insert(k);
            if k % 2 == 1 && k > 1 {
                // The key before the one just appended: in the middle of the run.
                assert!(index.remove(&(k - 1)));
            }
        }
        assert!(index.rest.is_empty());
        assert!(index.marks * 2 <= index.run.len() || index.marks <= COMPACT_AFTER);
        let left: Vec<u64> = index.iter().collect();
        assert_eq!(left.first(), Some(&0));
        assert_eq!(left.len(), 5_001);
        for k in left {
            assert!(index.remove(&k));
        }
        assert!(index.is_empty());
        assert!(index.run.capacity() <= SHRINK_ABOVE);
    }
}
