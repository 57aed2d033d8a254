//! The queue engine: every queue of one account and region, as a deterministic state machine.
//!
//! Each call is given `now` (epoch ms). Before acting, the engine applies everything that fell due
//! up to `now` (delays ending, visibility timeouts running out, retention, move-task steps), so a
//! host that only calls it on demand and one that also ticks on `next_deadline()` see the same
//! behaviour. Time never runs backwards inside the engine: an earlier `now` is taken as the latest
//! one seen.

mod api;
mod attributes;
pub(crate) mod ids;
mod import;
mod journal;
mod message;
mod metrics;
mod move_tasks;
mod peek;
mod queue;
pub mod queue_url;
mod queues;
mod realism;
mod receive;
mod records;
pub mod requests;
pub mod responses;
mod send;
mod stored;
mod values;
mod visibility;

use crate::changes::Changes;
use crate::context::CallContext;
use crate::error::SqsError;
use crate::events::Event;
use crate::maps::SortedMap;
use ids::IdKeys;
use journal::Journal;
use move_tasks::MoveTask;
use queue::Queue;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

pub use api::MESSAGE_ACTIONS;
pub use attributes::settable_attributes;
pub use realism::{group_partition, Realism, SettingError, Throttling};
pub use records::{RestoreError, FORMAT_VERSION};
pub use send::{check_batch_shape, MAX_BATCH_BYTES};

/// Engine settings. Every field has SQS's default (see `Default`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineConfig {
    /// Seed from which message ids and receipt handles are derived.
    pub seed: u64,
    /// The region of the queues (`us-east-1` by default); part of every ARN.
    pub region: String,
    /// The 12-digit account id in queue URLs and ARNs.
    pub account_id: String,
    /// `host[:port]` for queue URLs when a call does not say which host it was addressed to.
    pub default_host: String,
    /// In-flight limit of a standard queue (SQS: about 120,000; `OverLimit` on short polls).
    pub standard_inflight_limit: usize,
    /// In-flight limit of a FIFO queue (SQS: 120,000 since late 2024, 20,000 before; no error).
    pub fifo_inflight_limit: usize,
    /// Report durable changes (`take_changes`). Off only for a purely in-memory engine.
    pub persist: bool,
    /// Keep the event feed and the removed-message tail for `peek`.
    pub observe: bool,
    /// What the messages of all regions together may hold (`stored.rs`); sends past it are
    /// refused with RequestThrottled.
    pub max_stored_bytes: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            seed: 0,
            region: "us-east-1".into(),
            account_id: "000000000000".into(),
            default_host: "localhost:9324".into(),
            standard_inflight_limit: 120_000,
            fifo_inflight_limit: 120_000,
            persist: true,
            observe: true,
            max_stored_bytes: stored::DEFAULT_MAX_STORED_BYTES,
        }
    }
}

/// Every queue of one account and region.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    keys: IdKeys,
    queues: FxHashMap<u64, Queue>,
    /// Queue uids by name, in name order (ListQueues); one entry per queue, changed only by
    /// creating and deleting queues, so a sorted vector (`SortedMap`) rather than a B-tree.
    by_name: SortedMap<String, u64>,
    /// Names deleted in the last 60 s (re-creating one is `QueueDeletedRecently`).
    deleted_names: SortedMap<String, u64>,
    /// `(next deadline, queue uid)` for every queue that has one but the `unfiled` queue: the
    /// engine-wide timer index.
    deadlines: BTreeSet<(u64, u64)>,
    /// The queue whose deadline changed since it was last filed in `deadlines`, if any: it has
    /// no entry there (nor in `queue_deadline`) until it is filed again.
    unfiled: Option<u64>,
    /// Each queue's deadline as filed in `deadlines`. Held as `u128` only so that this map is the
    /// same type as the deduplication table's ids (`queue/dedup.rs`), one instantiation of the
    /// hash table's code in the wasm instead of two; one entry per queue, not per message.
    queue_deadline: FxHashMap<u64, u128>,
    /// Move tasks in creation order (few; a Vec keeps the wasm small).
    tasks: Vec<MoveTask>,
    next_seq: u64,
    next_queue: u64,
    next_task: u64,
    now: u64,
    journal: Journal,
    realism: Realism,
    queue_realism: Vec<(String, Realism)>,
    dice: realism::Dice,
    throttle_window: u64,
    /// Calls counted in this second, by `[queue uid, action index << 32 | partition]`: the key
    /// and value types of the deduplication table's `by_key` (one instantiation of the hash
    /// table's code in the wasm instead of two).
    throttle_counts: FxHashMap<[u64; 2], u64>,
    /// The URL the last message action resolved and its queue's uid (0: none), so a client
    /// calling one queue again compares the text instead of parsing it and searching the names
    /// (~350 instructions a call). A uid is never reused, and only deleting a queue takes a
    /// name from `by_name` (see `forget_url`): the entry is right until then.
    last_url: (String, u64),
    /// What the other regions' engines of the same service hold (`stored.rs`), as of this call.
    stored_elsewhere: u64,
}

const QUEUE_REUSE_WAIT_MS: u64 = 60_000;

impl Engine {
    /// An engine with no queues.
    pub fn new(config: EngineConfig) -> Self {
        let keys = IdKeys::new(config.seed, &config.region);
        let journal = Journal {
            record: config.persist,
            observe: config.observe,
            ..Default::default()
        };
        Engine {
            keys,
            queues: FxHashMap::default(),
            by_name: SortedMap::new(),
            deleted_names: SortedMap::new(),
            deadlines: BTreeSet::new(),
            unfiled: None,
            queue_deadline: FxHashMap::default(),
            tasks: Vec::new(),
            next_seq: 1,
            next_queue: 1,
            next_task: 1,
            now: 0,
            journal,
            realism: Realism::default(),
            queue_realism: Vec::new(),
            dice: realism::Dice::new(config_seed_for_realism(&config)),
            throttle_window: 0,
            throttle_counts: FxHashMap::default(),
            last_url: (String::new(), 0),
            stored_elsewhere: 0,
            config,
        }
    }

    /// Turn realism mode on or off for the whole engine (`queue: None`) or override it for one
    /// queue by name. `None` for `realism` removes a per-queue override (or resets the engine's
    /// to off).
    pub fn set_realism(&mut self, queue: Option<&str>, realism: Option<Realism>) {
        match (queue, realism) {
            (None, r) => self.realism = r.unwrap_or_default(),
            (Some(q), r) => {
                self.queue_realism.retain(|(name, _)| name != q);
                if let Some(r) = r {
                    self.queue_realism.push((q.to_string(), r));
                }
            }
        }
    }

    /// The realism settings in force for a queue.
    pub fn realism_for(&self, queue: &str) -> &Realism {
        self.queue_realism
            .iter()
            .find(|(name, _)| name == queue)
            .map_or(&self.realism, |(_, r)| r)
    }

    /// The start of every action the protocol layer runs: apply what fell due, then count a
    /// message action against realism throttling. `url` and `group` are what the caller found
    /// in the request before its members were checked: a member of the wrong type is then no URL
    /// or no group, and the call is counted (or refused) as such.
    pub(crate) fn begin(
        &mut self,
        now: u64,
        action: &str,
        url: Option<&str>,
        group: Option<&str>,
    ) -> Result<u64, SqsError> {
        let now = self.advance(now);
        if let Some(a) = api::MESSAGE_ACTIONS.iter().find(|a| **a == action) {
            self.throttle(now, a, url, group)?;
        }
        Ok(now)
    }

    /// Realism throttling: refuse the call when its quota for this second is used up. `group`
    /// is the call's message group (a send's, or its first entry's), which picks the partition
    /// on high-throughput FIFO queues.
    fn throttle(
        &mut self,
        now: u64,
        action: &'static str,
        url: Option<&str>,
        group: Option<&str>,
    ) -> Result<(), SqsError> {
        let Some(url) = url else {
            return Ok(());
        };
        // Without throttling anywhere (the default) there is no quota to look the queue up for,
        // and the call's own resolve_url follows: the URL is not resolved twice.
        let throttling_anywhere = self.realism.throttling.is_some()
            || self
                .queue_realism
                .iter()
                .any(|(_, r)| r.throttling.is_some());
        if !throttling_anywhere {
            return Ok(());
        }
        let Ok(uid) = self.resolve_url(url) else {
            return Ok(());
        };
        let Some(q) = self.queues.get(&uid) else {
            return Ok(());
        };
        let Some(limits) = self.realism_for(&q.name).throttling.clone() else {
            return Ok(());
        };
        let high_throughput = q.fifo()
            && q.attrs.fifo_throughput_limit == "perMessageGroupId"
            && q.attrs.deduplication_scope == "messageGroup";
        let (limit, partition) = if !q.fifo() {
            match limits.standard_per_action {
                Some(l) => (l, 0),
                None => return Ok(()),
            }
        } else if high_throughput {
            // Sends land on the partition of their message group; other calls are counted on
            // partition 0, as their group is not known before they run.
            let partition = group
                .map(|g| group_partition(g, limits.high_throughput_partitions))
                .unwrap_or(0);
            (limits.high_throughput_per_partition, partition)
        } else {
            (limits.fifo_per_action, 0)
        };
        let window = now / 1000;
        if window != self.throttle_window {
            self.throttle_window = window;
            self.throttle_counts.clear();
        }
        let name = q.name.clone();
        let action_index = api::MESSAGE_ACTIONS
            .iter()
            .position(|a| *a == action)
            .unwrap_or(api::MESSAGE_ACTIONS.len()) as u64;
        let key = [uid, action_index << 32 | u64::from(partition)];
        let count = self.throttle_counts.get(&key).copied().unwrap_or(0);
        if count >= u64::from(limit) {
            self.journal
                .event(now, &name, || crate::events::EventKind::Throttled {
                    action: action.to_string(),
                });
            if let Some(q) = self.queues.get_mut(&uid) {
                q.counters[metrics::THROTTLED] += 1;
            }
            return Err(SqsError::RequestThrottled("Rate exceeded".into()));
        }
        self.throttle_counts.insert(key, count + 1);
        Ok(())
    }

    /// Derive ids and handles from another seed (a restored store's own).
    fn reseed(&mut self, seed: u64) {
        self.config.seed = seed;
        self.keys = IdKeys::new(seed, &self.config.region);
        self.dice = realism::Dice::new(config_seed_for_realism(&self.config));
    }

    /// Collect events for `take_events` (the default) or not; `peek` is unaffected.
    pub fn set_event_feed(&mut self, on: bool) {
        self.journal.muted = !on;
        if !on {
            self.journal.events.clear();
        }
    }

    /// The configuration the engine runs with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Apply everything due at `now` (spurious calls are no-ops).
    pub fn tick(&mut self, now: u64) {
        self.advance(now);
    }

    /// The earliest moment at which something changes without a call: a delay or visibility
    /// timeout ending, a message expiring, a move task's next step.
    pub fn next_deadline(&self) -> Option<u64> {
        let queue = match (self.deadlines.first(), self.unfiled_deadline()) {
            (Some(a), Some(b)) => Some(a.0.min(b)),
            (a, b) => a.map(|a| a.0).or(b),
        };
        let task = self.tasks.iter().filter_map(MoveTask::next_step).min();
        match (queue, task) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Events since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.journal.events)
    }

    /// Durable changes since the last call, as records (see `records`).
    pub fn take_changes(&mut self) -> Changes {
        let mut changes = Changes::default();
        self.collect_changes(None, &mut changes);
        changes
    }

    /// `take_changes` into any sink, every key prefixed with `<region>/` when there is a region
    /// (what `Service` hands its host).
    pub fn drain_changes(
        &mut self,
        region: Option<&str>,
        sink: &mut dyn crate::changes::ChangeSink,
    ) {
        self.collect_changes(region, sink);
    }

    /// `drain_changes` prefixed with this engine's own region (what `Service` does for each).
    pub fn drain_changes_in_region(&mut self, sink: &mut dyn crate::changes::ChangeSink) {
        // Lent out of the config for the call, not cloned: no record reads the region, and a
        // clone would be an allocation per drained call.
        let region = std::mem::take(&mut self.config.region);
        self.collect_changes(Some(&region), sink);
        self.config.region = region;
    }

    /// Would a ReceiveMessage on this queue return at least one message at `now`?
    pub fn receivable(&mut self, now: u64, queue_url: &str) -> Result<bool, SqsError> {
        self.advance(now);
        let uid = self.resolve_url(queue_url)?;
        let limit = self.inflight_limit(uid);
        let q = self.queue(uid)?;
        Ok(q.visible > 0 && q.in_flight < limit && self.has_ready(uid))
    }

    fn has_ready(&self, uid: u64) -> bool {
        let Some(q) = self.queues.get(&uid) else {
            return false;
        };
        if q.fifo() {
            q.next_ready_group().is_some()
        } else {
            q.visible > 0
        }
    }

    fn inflight_limit(&self, uid: u64) -> usize {
        match self.queues.get(&uid) {
            Some(q) if q.fifo() => self.config.fifo_inflight_limit,
            _ => self.config.standard_inflight_limit,
        }
    }

    /// Move the engine's clock to `now` (never backwards) and apply everything due.
    fn advance(&mut self, now: u64) -> u64 {
        let now = now.max(self.now);
        self.now = now;
        // The unfiled queue joins the others once its own deadline is due.
        if self.unfiled_deadline().is_some_and(|at| at <= now) {
            if let Some(uid) = self.unfiled.take() {
                self.file_deadline(uid);
            }
        }
        while let Some(&(at, uid)) = self.deadlines.first() {
            if at > now {
                break;
            }
            if let Some(q) = self.queues.get_mut(&uid) {
                q.advance(now, &mut self.journal);
            }
            self.file_deadline(uid);
        }
        self.run_move_tasks(now);
        now
    }

    /// The next deadline of the `unfiled` queue, as it is now.
    fn unfiled_deadline(&self) -> Option<u64> {
        self.queues
            .get(&self.unfiled?)
            .and_then(Queue::next_deadline)
    }

    /// Note that a queue's own deadline index changed. Filing it in `deadlines` waits until
    /// another queue changes or something falls due: a client working one queue changes its
    /// deadline on nearly every call (the first send, receives, the last delete), and moving
    /// it in the B-tree each time was ~300 instructions a call. Until then the queue has no
    /// entry there, and its own index is asked instead (`unfiled_deadline`).
    fn sync_deadline(&mut self, uid: u64) {
        if self.unfiled == Some(uid) {
            return;
        }
        if let Some(previous) = self.unfiled.replace(uid) {
            self.file_deadline(previous);
        }
        if let Some(old) = self.queue_deadline.remove(&uid) {
            self.deadlines.remove(&(old as u64, uid));
        }
    }

    /// Re-file a queue in the engine-wide deadline index after its own index changed.
    fn file_deadline(&mut self, uid: u64) {
        let next = self.queues.get(&uid).and_then(Queue::next_deadline);
        let old = self.queue_deadline.get(&uid).map(|&d| d as u64);
        if old == next {
            return;
        }
        if let Some(old) = old {
            self.deadlines.remove(&(old, uid));
            self.queue_deadline.remove(&uid);
        }
        if let Some(next) = next {
            self.deadlines.insert((next, uid));
            self.queue_deadline.insert(uid, u128::from(next));
        }
    }

    // `match` rather than `ok_or`: `ok_or` builds the error it is given and drops it again
    // when there is a queue, a call to `SqsError`'s drop glue on every lookup.
    fn queue(&self, uid: u64) -> Result<&Queue, SqsError> {
        match self.queues.get(&uid) {
            Some(q) => Ok(q),
            None => Err(SqsError::QueueDoesNotExist),
        }
    }

    fn queue_mut(&mut self, uid: u64) -> Result<&mut Queue, SqsError> {
        match self.queues.get_mut(&uid) {
            Some(q) => Ok(q),
            None => Err(SqsError::QueueDoesNotExist),
        }
    }

    /// Find a queue by URL: by account and name, whatever host the URL names (spec §2). A URL
    /// of the region form must name this engine's region (a service routes it to the engine of
    /// its region first: `queue_url.rs`).
    fn resolve_url(&self, url: &str) -> Result<u64, SqsError> {
        let path = url_path(url);
        // A bare queue name where a URL is expected (`QueueUrl="my-queue"`): AWS resolves it in
        // the request's account and region, this engine's (recorded, issue #33 item 2).
        if !path.contains('/') {
            return self.queue_named(path);
        }
        let Some(parts) = queue_url::parse(path) else {
            return Err(SqsError::QueueDoesNotExist);
        };
        if parts.account != self.config.account_id
            || parts.region.is_some_and(|r| r != self.config.region)
        {
            return Err(SqsError::QueueDoesNotExist);
        }
        self.queue_named(parts.name)
    }

    fn queue_named(&self, name: &str) -> Result<u64, SqsError> {
        match self.by_name.get(name) {
            Some(uid) => Ok(*uid),
            None => Err(SqsError::QueueDoesNotExist),
        }
    }

    /// `required_url` through `last_url`: for the message actions, the calls a client repeats.
    fn message_queue(&mut self, url: Option<&str>) -> Result<u64, SqsError> {
        let Some(url) = url else {
            return Err(SqsError::MissingParameter("QueueUrl".into()));
        };
        let (last, uid) = &self.last_url;
        if *uid != 0 && last.as_str() == url {
            return Ok(*uid);
        }
        let uid = self.resolve_url(url)?;
        // Refilled in place: a client alternating between two queues reuses the allocation.
        self.last_url.0.clear();
        self.last_url.0.push_str(url);
        self.last_url.1 = uid;
        Ok(uid)
    }

    /// Drop `last_url`: a queue's name left or joined `by_name`.
    fn forget_url(&mut self) {
        self.last_url.1 = 0;
    }

    fn required_url(
        &self,
        url: &Option<impl std::ops::Deref<Target = str>>,
    ) -> Result<u64, SqsError> {
        let url = url
            .as_deref()
            .ok_or_else(|| SqsError::MissingParameter("QueueUrl".into()))?;
        self.resolve_url(url)
    }

    /// The queue an ARN names, if it is one of this engine's.
    fn resolve_arn(&self, arn: &str) -> Option<u64> {
        let mut parts = arn.splitn(6, ':');
        let (Some("arn"), Some(partition), Some("sqs"), Some(region), Some(account), Some(name)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        if partition != self.partition()
            || region != self.config.region
            || account != self.config.account_id
        {
            return None;
        }
        self.by_name.get(name).copied()
    }

    /// The ARN partition of this engine's region (`aws-cn` for `cn-north-1`, ...).
    fn partition(&self) -> &'static str {
        partition_of(&self.config.region)
    }

    fn arn(&self, name: &str) -> String {
        format!(
            "arn:{}:sqs:{}:{}:{}",
            self.partition(),
            self.config.region,
            self.config.account_id,
            name
        )
    }

    fn url(&self, ctx: &CallContext, name: &str) -> String {
        let host = ctx.host.as_deref().unwrap_or(&self.config.default_host);
        let scheme = ctx.scheme.as_deref().unwrap_or("http");
        format!(
            "{scheme}://{host}{}{}/{}/{name}",
            queue_url::PREFIX,
            self.config.region,
            self.config.account_id
        )
    }
}

/// The engine's state that a message action changes besides its queue (the id keys, the
/// sequence counter, the journal), borrowed apart from `Engine::queues` with the call's queue
/// and time: a batch then looks its queue up once, rather than probing the table (~1.7 KB
/// entries) twice a message on a send and once an entry on a delete.
struct Apart<'e> {
    keys: &'e IdKeys,
    next_seq: &'e mut u64,
    journal: &'e mut Journal,
    uid: u64,
    now: u64,
}

impl Engine {
    /// The queue `uid` and the rest of the engine a message action changes, borrowed apart.
    #[inline(always)]
    fn apart(&mut self, uid: u64, now: u64) -> Result<(&mut Queue, Apart<'_>), SqsError> {
        let Engine {
            queues,
            keys,
            next_seq,
            journal,
            ..
        } = self;
        let Some(q) = queues.get_mut(&uid) else {
            return Err(SqsError::QueueDoesNotExist);
        };
        Ok((
            q,
            Apart {
                keys,
                next_seq,
                journal,
                uid,
                now,
            },
        ))
    }
}

/// The realism dice are seeded apart from ids, so turning realism on does not change ids.
fn config_seed_for_realism(config: &EngineConfig) -> u64 {
    config.seed ^ 0x5eed_5eed_5eed_5eed
}

/// Validate an integer parameter against an inclusive range with SQS's
/// "Value X for parameter P is invalid. Reason: R" text.
fn int_in_range(
    value: Option<i64>,
    parameter: &str,
    min: i64,
    max: i64,
    reason: &str,
) -> Result<Option<i64>, SqsError> {
    match value {
        Some(v) if v < min || v > max => Err(crate::error::invalid_value(v, parameter, reason)),
        other => Ok(other),
    }
}

/// The path of a queue URL: what follows the host, or the whole text when it names no scheme.
fn url_path(url: &str) -> &str {
    // Nearly every URL starts with one of these; `find("://")` would run the two-way substring
    // searcher in the wasm (no SIMD there), a visible share of every message call.
    let after_scheme = match url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    {
        Some(rest) => Some(rest),
        None => url
            .as_bytes()
            .windows(3)
            .position(|w| w == b"://")
            .map(|i| &url[i + 3..]),
    };
    match after_scheme {
        // A byte loop over the host, not `find`'s searcher (see `resolve_url`).
        Some(rest) => rest
            .bytes()
            .position(|b| b == b'/')
            .map_or("", |p| &rest[p..]),
        None => url,
    }
}

/// The ARN partition a region belongs to: SQS queue ARNs are `arn:<partition>:sqs:...` (spec §2),
/// and only the commercial regions use `aws`.
pub(crate) fn partition_of(region: &str) -> &'static str {
    const PARTITIONS: [(&str, &str); 6] = [
        ("cn-", "aws-cn"),
        ("us-gov-", "aws-us-gov"),
        ("us-isob-", "aws-iso-b"),
        ("us-isof-", "aws-iso-f"),
        ("us-iso-", "aws-iso"),
        ("eu-isoe-", "aws-iso-e"),
    ];
    PARTITIONS
        .iter()
        .find(|(prefix, _)| region.starts_with(prefix))
        .map_or("aws", |(_, partition)| partition)
}
