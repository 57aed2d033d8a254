//! One queue: its messages and the indexes that make every operation O(log n).
//!
//! Every state change of a message goes through the few methods here (`insert`, `deliver`,
//! `make_visible`, `remove`), which keep the indexes, the counters and the journal in step:
//! - `timers`: `(deadline, seq)` of every delayed or in-flight message (mini-redis style: one
//!   ordered index instead of a timer per message; ties broken by sequence).
//! - retention: `messages.oldest()`, by `(sent_at, seq)` (see `store`); the expiry is
//!   `sent_at + period`, so changing the period re-keys nothing.
//! - standard queues: one *lane* of visible messages per message group (fair queues), served in
//!   rotation so one noisy tenant cannot starve the others; without groups there is one lane,
//!   served oldest first.
//! - FIFO queues: every message of a group in order, and `ready_groups`, the groups whose head is
//!   visible, in the order in which they became ready (`ready_groups.rs`). A receive never looks
//!   at a locked group.

use super::attributes::QueueAttributes;
use super::ids::{format_uuid, IdKeys};
use super::journal::Journal;
use super::message::{Message, MessageState};
use super::responses::MessageBody;
use crate::events::EventKind;
use crate::maps::SortedMap;
pub(crate) use dedup::{DedupEntry, DedupTable};
use keys::KeyIndex;
use ready_groups::ReadyGroups;
pub(crate) use retries::Attempt;
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, VecDeque};
pub(crate) use store::Messages;

mod dedup;
mod keys;
mod ready_groups;
mod retries;
mod store;

/// How many removed messages a queue remembers for `peek` (the "deleted" lane's tail).
pub(crate) const REMOVED_TAIL: usize = 50;

/// A message that recently left the queue, for `peek`.
#[derive(Debug, Clone)]
pub(crate) struct Removed {
    /// The MessageId it kept from another message, if any; otherwise its id is derived from
    /// `sequence` when `peek` shows it (see `Removed::id`). Every delete files one of these, and
    /// few are ever shown, so the id is neither derived nor written as text here.
    pub(crate) kept_id: Option<u128>,
    pub(crate) body: MessageBody,
    pub(crate) group_id: Option<String>,
    pub(crate) sequence: u64,
    pub(crate) receive_count: u32,
    pub(crate) how: &'static str,
    pub(crate) at: u64,
}

impl Removed {
    /// Its MessageId, as `Message::id` gave it while the message was held.
    pub(crate) fn id(&self, keys: &IdKeys) -> u128 {
        self.kept_id
            .unwrap_or_else(|| keys.message_id(self.sequence))
    }
}

#[derive(Debug, Default)]
struct Lane {
    /// `ready_key`s of the lane's visible messages, in delivery order.
    ready: KeyIndex<u64>,
    in_rotation: bool,
}

/// Set in a standard message's `ready_key` once it has been received three times.
const RECEIVED_OFTEN: u64 = 1 << 63;

/// A visible standard message's place in its lane: oldest first, except that a message received
/// three or more times without being deleted goes to the back of the queue ([DOC]
/// sqs-available-cloudwatch-metrics.html, spec §7.2), behind every message received fewer times,
/// so a poison message does not come first on every receive. Derived from the receive count
/// (unchanged while the message is visible), so a restore rebuilds the same order.
fn ready_key(seq: u64, receive_count: u32) -> u64 {
    if receive_count >= 3 {
        seq | RECEIVED_OFTEN
    } else {
        seq
    }
}

#[derive(Debug, Default)]
pub(crate) struct FifoGroup {
    pub(crate) members: BTreeSet<u64>,
    /// The group's place in `ready_groups` while its first message is visible.
    ready_place: Option<u64>,
}

/// Why a message left the queue; decides its event and how `peek` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Removal {
    Deleted,
    Expired,
    Purged,
    DeadLettered,
    MovedByTask,
    QueueDeleted,
}

impl Removal {
    fn label(self) -> &'static str {
        match self {
            Removal::Deleted | Removal::QueueDeleted => "deleted",
            Removal::Expired => "expired",
            Removal::Purged => "purged",
            Removal::DeadLettered => "dead-lettered",
            Removal::MovedByTask => "moved",
        }
    }
}

/// One queue.
#[derive(Debug)]
pub(crate) struct Queue {
    /// Incarnation id: unique over the engine's life, so a re-created name never meets old handles.
    pub(crate) uid: u64,
    pub(crate) name: String,
    pub(crate) attrs: QueueAttributes,
    pub(crate) tags: SortedMap<String, String>,
    pub(crate) created_at: u64,
    pub(crate) modified_at: u64,
    pub(crate) last_purge: Option<u64>,
    /// Dedup scope as created: changing the attribute later does not change behaviour (spec §8.3).
    pub(crate) dedup_per_group: bool,
    pub(crate) messages: Messages,
    /// Message ids derive from sequences (`Message::id`); events and peek need them here.
    pub(crate) keys: IdKeys,
    timers: KeyIndex<(u64, u64)>,
    group_ids: FxHashMap<Box<str>, u32>,
    group_names: Vec<Box<str>>,
    /// The lane of messages without a group: every message of a queue that is not a fair
    /// queue, so it is a field rather than an entry to hash for on every send and receive.
    plain: Lane,
    /// The lanes of fair queues' message groups (never group 0).
    lanes: FxHashMap<u32, Lane>,
    rotation: VecDeque<u32>,
    pub(crate) fifo_groups: FxHashMap<u32, FifoGroup>,
    ready_groups: ReadyGroups,
    pub(crate) visible: usize,
    pub(crate) in_flight: usize,
    pub(crate) delayed: usize,
    pub(crate) dedup: DedupTable,
    pub(crate) next_dedup: u64,
    pub(crate) attempts: FxHashMap<String, Attempt>,
    attempt_order: VecDeque<(u64, String)>,
    /// Record number → attempt id.
    pub(crate) attempt_keys: FxHashMap<u64, String>,
    pub(crate) next_attempt: u64,
    pub(crate) removed: VecDeque<Removed>,
    /// How many held messages keep each MessageId that is not derived from their sequence
    /// (`Message::kept_id`; two when a realism duplicate copies one). Derived ids need no index:
    /// the sequence names them. This one lets an import find a copy it already made in O(1),
    /// where deriving every held message's id made each import call O(queue). Keyed by the id's
    /// two halves, so it shares the engine's one `FxHashMap<[u64; 2], u64>` instantiation.
    kept_ids: FxHashMap<[u64; 2], u64>,
    /// What happened to the queue's messages since the engine started (see `metrics`).
    pub(crate) counters: super::metrics::Counters,
}

/// The lane of `group`, by its fields, for callers that hold another field of the queue.
fn lane_of<'a>(
    plain: &'a mut Lane,
    lanes: &'a mut FxHashMap<u32, Lane>,
    group: u32,
) -> Option<&'a mut Lane> {
    match group {
        0 => Some(plain),
        _ => lanes.get_mut(&group),
    }
}

/// What taking a message out of a queue's indexes needs to know of it.
#[derive(Debug, Clone, Copy)]
struct Indexed {
    seq: u64,
    state: MessageState,
    deadline: u64,
    group: u32,
    receive_count: u32,
    kept_id: Option<u128>,
}

impl Indexed {
    #[inline(always)]
    fn of(m: &Message) -> Indexed {
        Indexed {
            seq: m.seq,
            state: m.state,
            deadline: m.deadline,
            group: m.group,
            receive_count: m.receive_count,
            kept_id: m.kept_id(),
        }
    }
}

/// A MessageId as the key of `Queue::kept_ids`.
fn id_key(id: u128) -> [u64; 2] {
    [(id >> 64) as u64, id as u64]
}

impl Queue {
    pub(crate) fn new(
        uid: u64,
        name: String,
        attrs: QueueAttributes,
        now: u64,
        keys: IdKeys,
    ) -> Self {
        let dedup_per_group = attrs.deduplication_scope == "messageGroup";
        Queue {
            uid,
            name,
            attrs,
            tags: SortedMap::new(),
            created_at: now,
            modified_at: now,
            last_purge: None,
            dedup_per_group,
            messages: Messages::default(),
            keys: keys.clone(),
            timers: KeyIndex::default(),
            group_ids: FxHashMap::default(),
            group_names: vec!["".into()],
            plain: Lane::default(),
            lanes: FxHashMap::default(),
            rotation: VecDeque::new(),
            fifo_groups: FxHashMap::default(),
            ready_groups: ReadyGroups::default(),
            visible: 0,
            in_flight: 0,
            delayed: 0,
            dedup: DedupTable::new(keys.clone()),
            next_dedup: 0,
            attempts: FxHashMap::default(),
            attempt_order: VecDeque::new(),
            attempt_keys: FxHashMap::default(),
            next_attempt: 0,
            removed: VecDeque::new(),
            kept_ids: FxHashMap::default(),
            counters: Default::default(),
        }
    }

    pub(crate) fn fifo(&self) -> bool {
        self.attrs.fifo
    }

    /// The interned id of a message group (0 for none), creating it on first use.
    pub(crate) fn intern_group(&mut self, group: Option<&str>) -> u32 {
        let Some(group) = group else { return 0 };
        if let Some(id) = self.group_ids.get(group) {
            return *id;
        }
        let id = self.group_names.len() as u32;
        self.group_names.push(group.into());
        self.group_ids.insert(group.into(), id);
        id
    }

    pub(crate) fn group_name(&self, id: u32) -> Option<&str> {
        (id != 0)
            .then(|| self.group_names.get(id as usize).map(|s| &**s))
            .flatten()
    }

    fn retention_ms(&self) -> u64 {
        self.attrs.message_retention_period as u64 * 1000
    }

    /// The earliest moment this queue has something to do (a delay or visibility deadline, or a
    /// retention expiry).
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        let timer = self.timers.first().map(|t| t.0);
        let retention = self
            .messages
            .oldest()
            .map(|r| r.0.saturating_add(self.retention_ms()));
        match (timer, retention) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Apply everything due at `now`, in deadline order.
    pub(crate) fn advance(&mut self, now: u64, j: &mut Journal) {
        loop {
            let timer = self.timers.first().filter(|t| t.0 <= now);
            let expiry = self
                .messages
                .oldest()
                .map(|(at, seq)| (at.saturating_add(self.retention_ms()), seq))
                .filter(|r| r.0 <= now);
            match (timer, expiry) {
                (None, None) => break,
                (Some(t), Some(r)) if r.0 < t.0 => self.expire(r.1, r.0, j),
                (Some(t), _) => self.timer_fired(t.1, t.0, j),
                (None, Some(r)) => self.expire(r.1, r.0, j),
            }
        }
        for n in self.forget_expired_attempts(now) {
            j.touch(super::journal::RecordKey::Attempt(self.uid, n));
        }
    }

    fn expire(&mut self, seq: u64, at: u64, j: &mut Journal) {
        self.discard(seq, at, Removal::Expired, j);
    }

    fn timer_fired(&mut self, seq: u64, at: u64, j: &mut Journal) {
        let Some(msg) = self.messages.get(&seq) else {
            self.timers.remove(&(at, seq));
            return;
        };
        let was = msg.state;
        let id = msg.id(&self.keys);
        self.make_visible(seq, at, j);
        let name = self.name.clone();
        j.event(at, &name, || match was {
            MessageState::Delayed => EventKind::DelayEnded {
                message_id: format_uuid(id),
            },
            _ => EventKind::VisibilityExpired {
                message_id: format_uuid(id),
            },
        });
    }

    /// Add a new message (Delayed or Visible) to every index.
    pub(crate) fn insert(&mut self, msg: Message, j: &mut Journal) {
        let seq = msg.seq;
        match msg.state {
            MessageState::Delayed => {
                self.delayed += 1;
                self.timers.insert((msg.deadline, seq));
            }
            MessageState::InFlight => {
                self.in_flight += 1;
                self.timers.insert((msg.deadline, seq));
            }
            MessageState::Visible => self.visible += 1,
        }
        let group = msg.group;
        let visible = msg.state == MessageState::Visible;
        let key = ready_key(seq, msg.receive_count);
        if let Some(id) = msg.kept_id() {
            *self.kept_ids.entry(id_key(id)).or_insert(0) += 1;
        }
        self.messages.insert(msg);
        j.message(self.uid, seq);
        if self.fifo() {
            self.fifo_groups
                .entry(group)
                .or_default()
                .members
                .insert(seq);
            self.refresh_group(group);
        } else if visible {
            self.lane_push(group, key);
        }
    }

    fn lane_push(&mut self, group: u32, key: u64) {
        let lane = match group {
            0 => &mut self.plain,
            _ => self.lanes.entry(group).or_default(),
        };
        lane.ready.insert(key);
        if !lane.in_rotation {
            lane.in_rotation = true;
            self.rotation.push_back(group);
        }
    }

    fn lane_mut(&mut self, group: u32) -> Option<&mut Lane> {
        lane_of(&mut self.plain, &mut self.lanes, group)
    }

    fn lane_remove(&mut self, group: u32, key: u64) {
        if let Some(lane) = self.lane_mut(group) {
            lane.ready.remove(&key);
        }
    }

    /// Re-derive whether a FIFO group can be served: its first message must be visible.
    pub(crate) fn refresh_group(&mut self, group: u32) {
        let Some(g) = self.fifo_groups.get_mut(&group) else {
            return;
        };
        let head = g.members.first().copied();
        let ready = head.is_some_and(|seq| {
            self.messages
                .get(&seq)
                .is_some_and(|m| m.state == MessageState::Visible)
        });
        // A group that stays ready keeps its place even when its head changes; one that becomes
        // ready joins the back (see `ready_groups.rs`).
        match (g.ready_place, ready) {
            (None, true) => g.ready_place = Some(self.ready_groups.join_back(group)),
            (Some(place), false) => {
                self.ready_groups.leave(place, group);
                g.ready_place = None;
            }
            _ => {}
        }
        if head.is_none() {
            self.fifo_groups.remove(&group);
        }
    }

    /// Move a message to Visible (delay ended, visibility expired or released).
    pub(crate) fn make_visible(&mut self, seq: u64, _now: u64, j: &mut Journal) {
        let Some(msg) = self.messages.get_mut(&seq) else {
            return;
        };
        match msg.state {
            MessageState::Visible => return,
            MessageState::Delayed => self.delayed -= 1,
            MessageState::InFlight => self.in_flight -= 1,
        }
        self.timers.remove(&(msg.deadline, seq));
        msg.state = MessageState::Visible;
        msg.deadline = 0;
        self.visible += 1;
        let group = msg.group;
        let key = ready_key(seq, msg.receive_count);
        j.state(self.uid, seq);
        if self.fifo() {
            self.refresh_group(group);
        } else {
            self.lane_push(group, key);
        }
    }

    /// Put a message that has not been delivered yet behind a delay ending at `due` (FIFO queue
    /// delay changes are retroactive).
    pub(crate) fn delay_until(&mut self, seq: u64, due: u64, j: &mut Journal) {
        let fifo = self.fifo();
        let Some(msg) = self.messages.get_mut(&seq) else {
            return;
        };
        match msg.state {
            MessageState::Delayed => {
                self.timers.remove(&(msg.deadline, seq));
            }
            MessageState::Visible => {
                self.visible -= 1;
                self.delayed += 1;
                if !fifo {
                    let group = msg.group;
                    if let Some(lane) = lane_of(&mut self.plain, &mut self.lanes, group) {
                        lane.ready.remove(&ready_key(seq, msg.receive_count));
                    }
                }
            }
            MessageState::InFlight => return,
        }
        msg.state = MessageState::Delayed;
        msg.deadline = due;
        let group = msg.group;
        self.timers.insert((due, seq));
        j.state(self.uid, seq);
        if fifo {
            self.refresh_group(group);
        }
    }

    /// Hide a visible or in-flight message until `deadline` as a delivery (receive) or as a
    /// visibility change. The caller has already taken it out of the ready indexes when it was
    /// visible (`next_standard` / FIFO selection).
    pub(crate) fn set_in_flight(&mut self, seq: u64, deadline: u64, j: &mut Journal) {
        self.set_in_flight_then(seq, deadline, j, |_| ());
    }

    /// `set_in_flight`, then `then` on the message (`None` if there is none): a receive counts
    /// the delivery there rather than finding the message a second time.
    pub(crate) fn set_in_flight_then<R>(
        &mut self,
        seq: u64,
        deadline: u64,
        j: &mut Journal,
        then: impl FnOnce(&mut Message) -> R,
    ) -> Option<R> {
        let fifo = self.fifo();
        let msg = self.messages.get_mut(&seq)?;
        match msg.state {
            MessageState::InFlight => {
                self.timers.remove(&(msg.deadline, seq));
            }
            MessageState::Visible => {
                self.visible -= 1;
                self.in_flight += 1;
                if !fifo {
                    let group = msg.group;
                    if let Some(lane) = lane_of(&mut self.plain, &mut self.lanes, group) {
                        lane.ready.remove(&ready_key(seq, msg.receive_count));
                    }
                }
            }
            MessageState::Delayed => {
                self.timers.remove(&(msg.deadline, seq));
                self.delayed -= 1;
                self.in_flight += 1;
            }
        }
        msg.state = MessageState::InFlight;
        msg.deadline = deadline;
        let group = msg.group;
        self.timers.insert((deadline, seq));
        j.state(self.uid, seq);
        let r = then(msg);
        if fifo {
            self.refresh_group(group);
        }
        Some(r)
    }

    /// The next visible message of a standard queue, rotating across message groups. Leaves it
    /// in its lane; `set_in_flight` or `remove` takes it out. With `shuffle` (realism mode) the
    /// lane and the message within the lane's first 64 are drawn at random instead.
    pub(crate) fn next_standard(
        &mut self,
        skip: &BTreeSet<u64>,
        mut shuffle: Option<&mut super::realism::Dice>,
    ) -> Option<u64> {
        if let Some(d) = shuffle.as_deref_mut() {
            for _ in 0..d.below(self.rotation.len()) {
                if let Some(g) = self.rotation.pop_front() {
                    self.rotation.push_back(g);
                }
            }
        }
        let mut looked = 0usize;
        while let Some(group) = self.rotation.pop_front() {
            let Some(lane) = self.lane_mut(group) else {
                continue;
            };
            let candidate = if skip.is_empty() && shuffle.is_none() {
                // Every receive without realism: the lane's first, with no merged walk.
                lane.ready.first().map(|key| key & !RECEIVED_OFTEN)
            } else {
                let mut candidates = lane
                    .ready
                    .iter()
                    .map(|key| key & !RECEIVED_OFTEN)
                    .filter(|s| !skip.contains(s));
                match shuffle.as_deref_mut() {
                    None => candidates.next(),
                    Some(d) => {
                        let window: Vec<u64> = candidates.take(64).collect();
                        window.get(d.below(window.len())).copied()
                    }
                }
            };
            match candidate {
                Some(seq) => {
                    self.rotation.push_back(group);
                    return Some(seq);
                }
                None if lane.ready.is_empty() => {
                    lane.in_rotation = false;
                    if group != 0 {
                        self.lanes.remove(&group);
                    }
                }
                None => {
                    self.rotation.push_back(group);
                    looked += 1;
                    if looked > self.rotation.len() {
                        return None;
                    }
                }
            }
        }
        None
    }

    /// The FIFO group to serve next (the one that has been ready longest).
    pub(crate) fn next_ready_group(&self) -> Option<u32> {
        self.ready_groups.first()
    }

    /// The FIFO groups whose head is visible, longest ready first: what a receive could take.
    pub(crate) fn ready_groups_by_head(&self) -> impl Iterator<Item = u32> + '_ {
        self.ready_groups.iter()
    }

    /// The visible messages at the head of a FIFO group, in order, up to the first that is not.
    pub(crate) fn group_head_run(&self, group: u32, limit: usize) -> Vec<u64> {
        let Some(g) = self.fifo_groups.get(&group) else {
            return Vec::new();
        };
        g.members
            .iter()
            .take_while(|seq| {
                self.messages
                    .get(seq)
                    .is_some_and(|m| m.state == MessageState::Visible)
            })
            .take(limit)
            .copied()
            .collect()
    }

    /// Whether the queue holds a message with MessageId `id`. `seq` is where the id would sit if
    /// it is one derived from a sequence: the message's sequence in the engine that minted it
    /// (an export says it). An id this engine derived is found only through it; any other id
    /// through `kept_ids`.
    pub(crate) fn holds_id(&self, id: u128, seq: Option<u64>) -> bool {
        self.kept_ids.contains_key(&id_key(id))
            || seq
                .and_then(|s| self.messages.get(&s))
                .is_some_and(|m| m.id(&self.keys) == id)
    }

    /// Remove a message from every index, remembering it in the removed tail, and give it back
    /// to be put elsewhere (a dead-letter queue, a move task's destination, another engine).
    pub(crate) fn remove(
        &mut self,
        seq: u64,
        now: u64,
        how: Removal,
        j: &mut Journal,
    ) -> Option<Message> {
        let msg = self.unindex(seq, j)?;
        if j.observe && how != Removal::QueueDeleted {
            self.remember(&msg, msg.body.clone(), now, how, j);
        }
        Some(msg)
    }

    /// Remove a message for good (deleted, expired, purged, or its queue deleted). As `remove`,
    /// but nothing is given back.
    pub(crate) fn discard(&mut self, seq: u64, now: u64, how: Removal, j: &mut Journal) -> bool {
        let Some(msg) = self.unindex(seq, j) else {
            return false;
        };
        // The removed tail shares the body (a JS engine observes by default; a copy was an
        // allocation on every delete).
        self.remember(&msg, msg.body.clone(), now, how, j);
        true
    }

    /// Take a message out of the store and every index.
    fn unindex(&mut self, seq: u64, j: &mut Journal) -> Option<Message> {
        let msg = self.messages.remove(&seq)?;
        self.unindexed(Indexed::of(&msg), j);
        Some(msg)
    }

    /// Take a message that has left the store out of every index.
    fn unindexed(&mut self, msg: Indexed, j: &mut Journal) {
        let seq = msg.seq;
        if let Some(id) = msg.kept_id {
            let key = id_key(id);
            match self.kept_ids.get_mut(&key) {
                Some(n) if *n > 1 => *n -= 1,
                _ => {
                    self.kept_ids.remove(&key);
                }
            }
        }
        match msg.state {
            MessageState::Delayed => {
                self.delayed -= 1;
                self.timers.remove(&(msg.deadline, seq));
            }
            MessageState::InFlight => {
                self.in_flight -= 1;
                self.timers.remove(&(msg.deadline, seq));
            }
            MessageState::Visible => {
                self.visible -= 1;
                if !self.fifo() {
                    self.lane_remove(msg.group, ready_key(seq, msg.receive_count));
                }
            }
        }
        if self.fifo() {
            if let Some(g) = self.fifo_groups.get_mut(&msg.group) {
                g.members.remove(&seq);
            }
            self.refresh_group(msg.group);
        }
        j.message(self.uid, seq);
    }

    /// Report a message's removal and keep it in the removed tail for `peek`.
    fn remember(
        &mut self,
        msg: &Message,
        body: MessageBody,
        now: u64,
        how: Removal,
        j: &mut Journal,
    ) {
        if how == Removal::QueueDeleted {
            return;
        }
        let keys = &self.keys;
        // Dead-letter and move-task removals are reported by the engine, which knows where the
        // message went.
        if matches!(how, Removal::Deleted | Removal::Expired | Removal::Purged) {
            j.event(now, &self.name, || {
                let message_id = format_uuid(msg.id(keys));
                match how {
                    Removal::Deleted => EventKind::Deleted { message_id },
                    Removal::Expired => EventKind::Expired { message_id },
                    _ => EventKind::Purged { message_id },
                }
            });
        }
        self.removed.push_back(Removed {
            kept_id: msg.kept_id(),
            body,
            group_id: msg.group_id().map(str::to_string),
            sequence: msg.seq,
            receive_count: msg.receive_count,
            how: how.label(),
            at: now,
        });
        if self.removed.len() > REMOVED_TAIL {
            self.removed.pop_front();
        }
    }

    /// Every message's sequence, in send order (for purge, delete and peek; not a hot path).
    pub(crate) fn seqs_in_order(&self) -> Vec<u64> {
        self.messages.seqs_in_order()
    }
}
