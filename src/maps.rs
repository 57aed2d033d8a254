//! [`SortedMap`], the ordered map of everything keyed by a string.
//!
//! Every distinct `BTreeMap<K, V>` puts its own copy of the B-tree's code into the wasm (several
//! KB a type: node search, splits, merges, iteration, dropping). The maps keyed by strings (a
//! request's tags or attributes, a message's attributes, the Query protocol's form parameters, the
//! engine's queues by name) are small, or at most one entry per queue, so a sorted vector serves
//! them with a fraction of the code: a binary search and a `Vec` insert or remove. The B-trees
//! left are the message indexes, whose O(log n) updates the cost guarantees rest on.
//!
//! `collect()` into a `SortedMap` inserts pair by pair, reusing `insert`: `collect()` into a
//! `BTreeMap` sorted the pairs and built the tree in bulk, a copy of both for each map type and
//! each iterator type (2-5 KB of wasm apiece, issue #3).

use std::borrow::Borrow;
use std::fmt;

/// A map kept as a vector of `(key, value)` pairs sorted by key, each key once.
///
/// Iteration is in key order (the key's `Ord`, bytewise for strings), exactly as a `BTreeMap`'s;
/// a lookup is a binary search. Inserting or removing moves the entries after it, O(len): meant
/// for maps that are small or change rarely. `insert` of a present key replaces its value, so
/// building one from pairs (`collect`, `extend`) keeps a repeated key's last value, as a
/// `BTreeMap` does.
#[derive(Clone, PartialEq, Eq)]
pub struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> SortedMap<K, V> {
    /// An empty map (no allocation).
    pub const fn new() -> Self {
        SortedMap(Vec::new())
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter(self.0.iter())
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.0.iter().map(|(_, v)| v)
    }

    /// The entries, in key order, as a slice.
    pub fn as_slice(&self) -> &[(K, V)] {
        &self.0
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// `Ok(index)` of `key`, or `Err(index)` where it would be inserted.
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// Set `key` to `value`: the previous value if the key was present.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &mut self.0[i].1)
    }

    /// Whether `key` is present.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Remove `key`: its value if it was present.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }

    /// Insert many pairs in any order: one sort, O(n log n) in all, where inserting them one by
    /// one would move the entries after each, O(n²) for pairs in reverse order (a Query request's
    /// form, up to the body limit, and the queues' names on restore are built this way). As with
    /// `insert`, a repeated key keeps its last value.
    pub fn extend_bulk(&mut self, pairs: impl IntoIterator<Item = (K, V)>) {
        let mut all = std::mem::take(&mut self.0);
        all.extend(pairs);
        // Stable: a repeated key's pairs stay in the order they came (the present entry first).
        all.sort_by(|a, b| a.0.cmp(&b.0));
        // `dedup_by` keeps the first of a run: hand it each later value instead.
        all.dedup_by(|later, kept| {
            let repeated = later.0 == kept.0;
            if repeated {
                std::mem::swap(&mut later.1, &mut kept.1);
            }
            repeated
        });
        self.0 = all;
    }

    /// The entries whose key is `key` or after it, in order (`BTreeMap::range(key..)`).
    pub fn range_from<Q: Ord + ?Sized>(&self, key: &Q) -> Iter<'_, K, V>
    where
        K: Borrow<Q>,
    {
        let start = self.find(key).unwrap_or_else(|i| i);
        Iter(self.0[start..].iter())
    }
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap::new()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A map in key order, as a `BTreeMap` serializes.
impl<K: serde::Serialize, V: serde::Serialize> serde::Serialize for SortedMap<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, pairs: I) {
        for (k, v) in pairs {
            self.insert(k, v);
        }
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let mut map = SortedMap::new();
        map.extend(pairs);
        map
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for SortedMap<K, V> {
    fn from(pairs: [(K, V); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K, Q: Ord + ?Sized, V> std::ops::Index<&Q> for SortedMap<K, V>
where
    K: Ord + Borrow<Q>,
{
    type Output = V;

    /// The value of `key`; panics if it is absent, as `BTreeMap`'s indexing does.
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Iter<'a, K, V> {
        self.iter()
    }
}

/// A [`SortedMap`]'s entries by reference, in key order.
#[derive(Clone, Debug)]
pub struct Iter<'a, K, V>(std::slice::Iter<'a, (K, V)>);

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<K, V> DoubleEndedIterator for Iter<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl<K, V> ExactSizeIterator for Iter<'_, K, V> {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// One step applied to both maps.
    #[derive(Debug, Clone)]
    enum Op {
        Insert(String, u8),
        Remove(String),
        GetMut(String, u8),
        ExtendBulk(Vec<(String, u8)>),
    }

    /// Short keys over a small alphabet (with bytes above ASCII), so that steps collide on keys
    /// and share prefixes, and bytewise order differs from any other.
    fn key() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![Just('a'), Just('b'), Just('B'), Just('é')],
            0..4,
        )
        .prop_map(|cs| cs.into_iter().collect())
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (key(), any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
            key().prop_map(Op::Remove),
            (key(), any::<u8>()).prop_map(|(k, v)| Op::GetMut(k, v)),
            proptest::collection::vec((key(), any::<u8>()), 0..16).prop_map(Op::ExtendBulk),
        ]
    }

    proptest! {
        /// Every step answers as a `BTreeMap`'s does, and afterwards the two hold the same entries
        /// in the same order, looked up, ranged from any key and iterated either way.
        #[test]
        fn behaves_as_a_btree_map(ops in proptest::collection::vec(op(), 0..64), probe in key()) {
            let mut ours = SortedMap::new();
            let mut model = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        prop_assert_eq!(ours.insert(k.clone(), v), model.insert(k, v));
                    }
                    Op::Remove(k) => prop_assert_eq!(ours.remove(&k), model.remove(&k)),
                    Op::GetMut(k, v) => {
                        let (a, b) = (ours.get_mut(k.as_str()), model.get_mut(k.as_str()));
                        prop_assert_eq!(a.is_some(), b.is_some());
                        if let (Some(a), Some(b)) = (a, b) {
                            *a = v;
                            *b = v;
                        }
                    }
                    Op::ExtendBulk(pairs) => {
                        ours.extend_bulk(pairs.clone());
                        for (k, v) in pairs {
                            model.insert(k, v);
                        }
                    }
                }
                prop_assert_eq!(ours.len(), model.len());
                prop_assert_eq!(ours.is_empty(), model.is_empty());
            }
            prop_assert!(ours.iter().eq(model.iter()));
            prop_assert!(ours.iter().rev().eq(model.iter().rev()));
            prop_assert!(ours.keys().eq(model.keys()));
            prop_assert!(ours.values().eq(model.values()));
            prop_assert!(ours.range_from(probe.as_str()).eq(model.range(probe.clone()..)));
            prop_assert_eq!(ours.get(probe.as_str()), model.get(probe.as_str()));
            prop_assert_eq!(ours.contains_key(&probe), model.contains_key(&probe));
            prop_assert_eq!(format!("{ours:?}"), format!("{model:?}"));
            prop_assert!(ours.clone().into_iter().eq(model.clone()));
        }

        /// Built from pairs, a repeated key keeps its last value, as `collect()` into a
        /// `BTreeMap` does.
        #[test]
        fn collects_as_a_btree_map(pairs in proptest::collection::vec((key(), any::<u8>()), 0..32)) {
            let ours: SortedMap<_, _> = pairs.iter().cloned().collect();
            let model: BTreeMap<_, _> = pairs.into_iter().collect();
            prop_assert!(ours.into_iter().eq(model));
        }
    }

    #[test]
    fn equality_is_by_entries() {
        let a = SortedMap::from([("x", 1), ("y", 2)]);
        let b = SortedMap::from([("y", 2), ("x", 1)]);
        assert_eq!(a, b);
        assert_ne!(a, SortedMap::from([("x", 1)]));
        assert_eq!(a["y"], 2);
        assert_eq!(SortedMap::<String, u8>::default(), SortedMap::new());
    }
}
