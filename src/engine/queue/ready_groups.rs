//! The FIFO groups a receive can serve (their first message is visible), in the order in which
//! they became ready.
//!
//! Recorded against AWS (issue #33, spec §7 FIFO receive): a group joins the back when it becomes
//! ready, whether its first message was just sent or its lock ended (visibility timeout expired,
//! ChangeMessageVisibility to 0, a receive with `VisibilityTimeout=0`); a group that stays ready
//! keeps its place. So a receive serves `g3` before a `g1` whose lock ended after `g3` was sent,
//! although `g1`'s head is older. Each change and each look at the front is O(log groups).

use std::collections::BTreeSet;

#[derive(Debug, Default)]
pub(crate) struct ReadyGroups {
    /// `(place, group)`; u64 groups so it shares one BTreeSet instantiation with the timer
    /// indexes (each distinct B-tree type costs kilobytes of wasm).
    order: BTreeSet<(u64, u64)>,
    /// The place the next group to become ready takes: places only grow.
    next: u64,
}

impl ReadyGroups {
    /// Put `group` at the back; returns its place, which `leave` needs.
    pub(crate) fn join_back(&mut self, group: u32) -> u64 {
        let place = self.next;
        self.next += 1;
        self.order.insert((place, group as u64));
        place
    }

    /// Take `group` (at `place`) out: it is locked, delayed or empty.
    pub(crate) fn leave(&mut self, place: u64, group: u32) {
        self.order.remove(&(place, group as u64));
    }

    /// The group that has been ready longest.
    pub(crate) fn first(&self) -> Option<u32> {
        self.order.first().map(|&(_, g)| g as u32)
    }

    /// Every ready group, longest ready first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.order.iter().map(|&(_, g)| g as u32)
    }
}
