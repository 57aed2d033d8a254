//! B-tree maps built one insertion at a time, instead of by `collect()`.
//!
//! `collect()` into a `BTreeMap` gathers the pairs in a vector, sorts it and builds the tree in
//! bulk: for each map type *and each iterator type*, a copy of the standard library's stable sort
//! and of the bulk builder, 2–5 KB of wasm apiece (issue #3, the package's size). The maps built
//! this way are small (a request's tags or attributes, a message's attributes), so inserting one
//! by one costs nothing that matters and reuses the `insert` that every map type has anyway. As
//! with `collect()`, a repeated key keeps its last value.

use std::collections::BTreeMap;

/// `.into_map()` in place of `.collect::<BTreeMap<_, _>>()`.
pub(crate) trait IntoMap<K, V>: Iterator<Item = (K, V)> + Sized {
    fn into_map(self) -> BTreeMap<K, V>
    where
        K: Ord,
    {
        let mut map = BTreeMap::new();
        for (k, v) in self {
            map.insert(k, v);
        }
        map
    }
}

impl<K, V, I: Iterator<Item = (K, V)>> IntoMap<K, V> for I {}

/// `.try_into_map()` in place of `.collect::<Result<BTreeMap<_, _>, _>>()`: the map, or the
/// first error.
pub(crate) trait TryIntoMap<K, V, E>: Iterator<Item = Result<(K, V), E>> + Sized {
    fn try_into_map(self) -> Result<BTreeMap<K, V>, E>
    where
        K: Ord,
    {
        let mut map = BTreeMap::new();
        for pair in self {
            let (k, v) = pair?;
            map.insert(k, v);
        }
        Ok(map)
    }
}

impl<K, V, E, I: Iterator<Item = Result<(K, V), E>>> TryIntoMap<K, V, E> for I {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_collect_on_repeated_keys() {
        let pairs = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)];
        let collected: BTreeMap<_, _> = pairs.into_iter().collect();
        assert_eq!(pairs.into_iter().into_map(), collected);
        assert_eq!(pairs.into_iter().into_map()["b"], 3);
    }

    #[test]
    fn try_into_map_stops_at_the_first_error() {
        let ok: Result<BTreeMap<_, _>, &str> =
            [Ok(("x", 1)), Ok(("x", 2))].into_iter().try_into_map();
        assert_eq!(ok, Ok(BTreeMap::from([("x", 2)])));
        let err = [Ok(("x", 1)), Err("first"), Err("second")]
            .into_iter()
            .try_into_map();
        assert_eq!(err, Err("first"));
    }
}
