//! The messages of one queue, found by sequence and by age, in little more memory than the
//! messages themselves (issue #2: at most 150 bytes per message beyond body and attributes).
//!
//! A hash map of messages plus a `(sent_at, seq)` B-tree cost ≈225 bytes per message: hash
//! tables run between half and seven-eighths full, and B-trees filled in order leave their
//! nodes about 60 % full. Here messages sit in sorted runs of up to `RUN` (a `VecDeque` each, so
//! taking the oldest is O(1)) under a B-tree keyed by each run's lowest sequence: lookups stay
//! O(log n), and only the newest run has spare capacity.
//!
//! Retention order: messages normally arrive in sequence order with non-decreasing `sent_at`,
//! so the oldest is simply the first. Those go to `ordered`; the few that do not (a
//! dead-lettered message keeps its original `sent_at`) go to `others`, which also keeps a
//! `(sent_at, seq)` index.

use super::super::message::Message;
use super::super::stored::held_by;
use std::collections::{BTreeSet, VecDeque};

/// Messages per run. Small enough that inserting into or removing from the middle of a run
/// moves at most `RUN / 2` messages; large enough that the B-tree over runs costs ~2 bytes a
/// message.
const RUN: usize = 32;

/// A new run's capacity; it doubles up to `RUN`. A queue that a consumer keeps nearly empty
/// then allocates small blocks (fast for the allocator) rather than a whole run per message.
const FIRST: usize = 4;

/// Messages in sequence order, in runs keyed by a sequence no greater than any of theirs and
/// greater than every sequence of the run before. No run is empty.
///
/// The runs sit in a slab, found through a set of `(key, slot)` pairs rather than a map from key
/// to run: the set is the same B-tree type as the queue's other indexes, and each distinct
/// B-tree type costs kilobytes of wasm (issue #3).
#[derive(Debug, Default)]
struct Runs {
    index: BTreeSet<(u64, u64)>,
    /// `index`'s first and last entries: every send looks for the newest run and most
    /// receives and deletes for the oldest, and the B-tree's ends are a descent each.
    ends: Option<((u64, u64), (u64, u64))>,
    slots: Vec<VecDeque<Message>>,
    /// Slots whose run was dropped, to reuse before the slab grows.
    free: Vec<u64>,
    len: usize,
    /// The buffer of the last run, kept when a queue empties: a consumer that keeps its queue
    /// near empty otherwise allocated a run and regrew it 4 → 8 → 16 on every batch.
    spare: VecDeque<Message>,
}

impl Runs {
    /// `(key, slot)` of the run that could hold `seq`. Sends touch the newest run and receives
    /// mostly the oldest, so those two are tried before a search.
    fn locate(&self, seq: u64) -> Option<(u64, u64)> {
        let (first, last) = self.ends?;
        if last.0 <= seq {
            return Some(last);
        }
        if seq < first.0 {
            return None;
        }
        if self.run(first.1)?.back().is_some_and(|m| m.seq >= seq) {
            return Some(first);
        }
        self.index.range(..=(seq, u64::MAX)).next_back().copied()
    }

    fn refresh_ends(&mut self) {
        self.ends = self.index.first().copied().zip(self.index.last().copied());
    }

    fn run(&self, slot: u64) -> Option<&VecDeque<Message>> {
        self.slots.get(usize::try_from(slot).ok()?)
    }

    fn run_mut(&mut self, slot: u64) -> Option<&mut VecDeque<Message>> {
        self.slots.get_mut(usize::try_from(slot).ok()?)
    }

    fn get(&self, seq: u64) -> Option<&Message> {
        let run = self.run(self.locate(seq)?.1)?;
        run.get(position(run, seq)?)
    }

    fn get_mut(&mut self, seq: u64) -> Option<&mut Message> {
        let run = self.run_mut(self.locate(seq)?.1)?;
        let i = position(run, seq)?;
        run.get_mut(i)
    }

    fn first(&self) -> Option<&Message> {
        self.run(self.ends?.0 .1)?.front()
    }

    fn last(&self) -> Option<&Message> {
        self.run(self.ends?.1 .1)?.back()
    }

    /// A run holding `msg`: the spare buffer if there is one, else a small new one.
    fn new_run(&mut self, msg: Message) -> VecDeque<Message> {
        let mut run = std::mem::take(&mut self.spare);
        if run.capacity() == 0 {
            run = VecDeque::with_capacity(FIRST);
        }
        run.push_back(msg);
        run
    }

    /// File `run` under `key`, in a free slot if there is one.
    fn add_run(&mut self, key: u64, run: VecDeque<Message>) {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(VecDeque::new());
                self.slots.len() as u64 - 1
            }
        };
        if let Some(place) = self.run_mut(slot) {
            *place = run;
            self.index.insert((key, slot));
            self.refresh_ends();
        }
    }

    /// Take the run filed as `(key, slot)` out, freeing its slot.
    fn take_run(&mut self, (key, slot): (u64, u64)) -> VecDeque<Message> {
        self.index.remove(&(key, slot));
        self.refresh_ends();
        let run = self.run_mut(slot).map(std::mem::take).unwrap_or_default();
        if self.index.is_empty() && self.slots.len() > 1 {
            // Nothing left: give the slab back rather than keep a slot per run of the past (one
            // slot is kept, so a queue that empties and refills does not allocate it again).
            self.slots = Vec::new();
            self.free = Vec::new();
        } else {
            self.free.push(slot);
        }
        run
    }

    /// Add a message whose sequence is not present yet.
    fn insert(&mut self, msg: Message) {
        let seq = msg.seq;
        self.len += 1;
        // Sends append: the newest run is tried before a search.
        let place = match self.ends {
            Some((_, last)) if last.0 <= seq => Some(last),
            _ => self.index.range(..=(seq, u64::MAX)).next_back().copied(),
        };
        let Some((_, slot)) = place else {
            // Before every run: join the first run under a new key if it has room.
            let run = match self.ends.map(|e| e.0) {
                Some(first) if self.run(first.1).is_some_and(|r| r.len() < RUN) => {
                    let mut run = self.take_run(first);
                    grow(&mut run);
                    run.push_front(msg);
                    run
                }
                _ => self.new_run(msg),
            };
            self.add_run(seq, run);
            return;
        };
        let Some(run) = self.run_mut(slot) else {
            return;
        };
        // Sends append to the newest run: its last message is looked at before a binary
        // search.
        let i = match run.back() {
            Some(last) if last.seq < seq => run.len(),
            _ => run.partition_point(|m| m.seq < seq),
        };
        if i == run.len() && run.len() >= RUN {
            // The usual case, appending to a full run: a new run, so runs end up full.
            let run = self.new_run(msg);
            self.add_run(seq, run);
            return;
        }
        grow(run);
        if i == run.len() {
            // `insert` at the end goes through the general shifting code.
            run.push_back(msg);
        } else {
            run.insert(i, msg);
        }
        if run.len() > RUN {
            let mut tail = run.split_off(run.len() / 2);
            run.shrink_to_fit();
            tail.reserve_exact(RUN.saturating_sub(tail.len()));
            if let Some(key) = tail.front().map(|m| m.seq) {
                self.add_run(key, tail);
            }
        }
    }

    /// Where the message with sequence `seq` lies, if it is here.
    fn find(&self, seq: u64) -> Option<Found> {
        let place = self.locate(seq)?;
        let newest = self.ends.map(|e| e.1) == Some(place);
        let i = position(self.run(place.1)?, seq)?;
        Some(Found { place, newest, i })
    }

    fn at(&self, found: Found) -> Option<&Message> {
        self.run(found.place.1)?.get(found.i)
    }

    /// Take out the message `find` found. Deletes mostly take the oldest message; `remove` is
    /// the general shifting code.
    fn take_at(&mut self, found: Found) -> Option<Message> {
        let run = self.run_mut(found.place.1)?;
        let msg = if found.i == 0 {
            run.pop_front()
        } else {
            run.remove(found.i)
        };
        if msg.is_some() {
            self.removed(found.place, found.newest);
        }
        msg
    }

    /// After a message left the run filed as `place`: an emptied run is dropped, and a run
    /// left mostly empty gives its memory back.
    fn removed(&mut self, place: (u64, u64), newest: bool) {
        let Some(run) = self.run_mut(place.1) else {
            return;
        };
        if run.is_empty() {
            let emptied = self.take_run(place);
            if self.index.is_empty() {
                self.spare = emptied;
            }
        } else if !newest && run.len() * 4 <= run.capacity() {
            // A run left mostly empty by out-of-order deletes gives its memory back; the newest
            // run keeps its capacity for the next sends.
            run.shrink_to_fit();
        }
        self.len -= 1;
    }

    /// Every message, in no particular order.
    fn values(&self) -> impl Iterator<Item = &Message> {
        self.slots.iter().flatten()
    }

    /// Every message, in sequence order.
    fn in_order(&self) -> impl Iterator<Item = &Message> {
        self.index
            .iter()
            .filter_map(|&(_, slot)| self.run(slot))
            .flatten()
    }
}

/// Where `seq` is in a run. Sequences in a run are usually consecutive (one queue taking every
/// sequence), so the offset from the first is tried before a binary search.
fn position(run: &VecDeque<Message>, seq: u64) -> Option<usize> {
    let offset = seq.checked_sub(run.front()?.seq)?;
    if let Ok(guess) = usize::try_from(offset) {
        if run.get(guess).is_some_and(|m| m.seq == seq) {
            return Some(guess);
        }
    }
    run.binary_search_by_key(&seq, |m| m.seq).ok()
}

/// Where `Runs::find` found a message: its run's `(key, slot)`, whether that run is the newest,
/// and the message's index in it.
#[derive(Debug, Clone, Copy)]
struct Found {
    place: (u64, u64),
    newest: bool,
    i: usize,
}

/// Make room for one more message in a run that is not full.
fn grow(run: &mut VecDeque<Message>) {
    if run.len() == run.capacity() && run.len() < RUN {
        let target = (run.capacity() * 2).clamp(FIRST, RUN);
        run.reserve_exact(target - run.len());
    }
}

/// A queue's messages by sequence, with the oldest (by `sent_at`, then sequence) at hand.
#[derive(Debug, Default)]
pub(crate) struct Messages {
    /// Sequence order is `(sent_at, seq)` order here.
    ordered: Runs,
    others: Runs,
    others_by_age: BTreeSet<(u64, u64)>,
    /// What the messages hold, as `stored.rs` counts it.
    bytes: u64,
}

impl Messages {
    pub(crate) fn get(&self, seq: &u64) -> Option<&Message> {
        match self.ordered.get(*seq) {
            Some(m) => Some(m),
            None if self.others.len == 0 => None,
            None => self.others.get(*seq),
        }
    }

    pub(crate) fn get_mut(&mut self, seq: &u64) -> Option<&mut Message> {
        if self.others.len == 0 {
            return self.ordered.get_mut(*seq);
        }
        match self.ordered.get_mut(*seq) {
            Some(m) => Some(m),
            None => self.others.get_mut(*seq),
        }
    }

    /// Add a message, replacing one with the same sequence.
    pub(crate) fn insert(&mut self, msg: Message) {
        let seq = msg.seq;
        let held = held_by(&msg);
        let last = self.ordered.last().map(|m| (m.seq, m.sent_at));
        let newest = last.is_none_or(|(last_seq, _)| seq > last_seq);
        if !newest || self.others.len > 0 {
            self.remove(&seq);
        }
        self.bytes += held;
        let in_order = newest && last.is_none_or(|(_, sent_at)| msg.sent_at >= sent_at);
        if in_order {
            self.ordered.insert(msg);
        } else {
            self.others_by_age.insert((msg.sent_at, seq));
            self.others.insert(msg);
        }
    }

    pub(crate) fn remove(&mut self, seq: &u64) -> Option<Message> {
        let (runs, found) = self.find(*seq)?;
        let msg = runs.take_at(found)?;
        self.bytes -= held_by(&msg);
        Some(msg)
    }

    /// What the messages hold, as `stored.rs` counts it.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The runs holding `seq` and where in them; a message leaving `others` leaves its age
    /// index here.
    fn find(&mut self, seq: u64) -> Option<(&mut Runs, Found)> {
        if let Some(found) = self.ordered.find(seq) {
            return Some((&mut self.ordered, found));
        }
        if self.others.len == 0 {
            return None;
        }
        let found = self.others.find(seq)?;
        if let Some(m) = self.others.at(found) {
            self.others_by_age.remove(&(m.sent_at, m.seq));
        }
        Some((&mut self.others, found))
    }

    /// `(sent_at, seq)` of the message sent first: the next to expire by retention.
    pub(crate) fn oldest(&self) -> Option<(u64, u64)> {
        let ordered = self.ordered.first().map(|m| (m.sent_at, m.seq));
        let other = self.others_by_age.first().copied();
        match (ordered, other) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Every message, in no particular order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &Message> {
        self.ordered.values().chain(self.others.values())
    }

    /// Every message, in sequence order: the two stores' runs merged as they are walked (no sort,
    /// which would be one more instantiation in the wasm). Lazy, so that a caller that wants the
    /// first few (an export of the oldest visible messages) touches only those and what it skips.
    pub(crate) fn in_seq_order(&self) -> impl Iterator<Item = &Message> {
        let mut ordered = self.ordered.in_order().peekable();
        let mut others = self.others.in_order().peekable();
        std::iter::from_fn(move || match (ordered.peek(), others.peek()) {
            (Some(a), Some(b)) if b.seq < a.seq => others.next(),
            (Some(_), _) => ordered.next(),
            (None, _) => others.next(),
        })
    }

    /// Every message's sequence, in order.
    pub(crate) fn seqs_in_order(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.ordered.len + self.others.len);
        out.extend(self.in_seq_order().map(|m| m.seq));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(seq: u64, sent_at: u64) -> Message {
        Message::new(
            seq,
            format!("m{seq}").into(),
            [0; 16],
            None,
            None,
            0,
            sent_at,
        )
    }

    /// The store against a sorted map, under inserts in and out of order and removals anywhere.
    #[test]
    fn agrees_with_a_sorted_map() {
        let mut store = Messages::default();
        let mut model: std::collections::BTreeMap<u64, u64> = Default::default();
        // A small deterministic generator: the test needs variety, not quality.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut seq = 1000u64;
        let mut clock = 0u64;
        for step in 0..20_000 {
            let r = next() % 10;
            if r < 5 {
                seq += 1 + next() % 3;
                clock += next() % 2;
                store.insert(msg(seq, clock));
                model.insert(seq, clock);
            } else if r < 6 {
                // Out of sequence order, or with an older send time.
                let s = next() % (seq + 10);
                let at = next() % (clock + 1);
                store.insert(msg(s, at));
                model.insert(s, at);
            } else if let Some(&victim) = model.keys().nth((next() % 8) as usize) {
                let victim = if r < 8 {
                    victim
                } else {
                    let keys: Vec<u64> = model.keys().copied().collect();
                    keys[(next() as usize) % keys.len()]
                };
                let taken = store.remove(&victim).map(|m| m.sent_at);
                assert_eq!(taken, model.remove(&victim));
            }
            assert_eq!(
                store.ordered.len + store.others.len,
                model.len(),
                "step {step}"
            );
            assert_eq!(store.values().count(), model.len(), "step {step}");
            if step % 100 == 0 {
                let in_order: Vec<u64> = model.keys().copied().collect();
                assert_eq!(store.seqs_in_order(), in_order, "step {step}");
            }
            let oldest = model.iter().map(|(s, at)| (*at, *s)).min();
            assert_eq!(store.oldest(), oldest, "step {step}");
            let probe = next() % (seq + 10);
            assert_eq!(
                store.get(&probe).map(|m| m.sent_at),
                model.get(&probe).copied()
            );
        }
        let mut seqs: Vec<u64> = store.values().map(|m| m.seq).collect();
        seqs.sort_unstable();
        assert_eq!(seqs, model.keys().copied().collect::<Vec<_>>());
        for s in seqs {
            assert_eq!(store.get(&s).map(|m| m.seq), Some(s));
        }
    }
}
