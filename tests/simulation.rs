//! Seeded simulation (Apache Iggy style): random sends, receives, deletes, visibility changes,
//! purges and clock jumps against the engine, checked after every step against an independent
//! model of what SQS promises, with a restore-from-records round trip every few steps.
//!
//! Reproduce a failure with the seed and step count its panic message prints:
//! `WASQ_SIM_SEED=<seed> WASQ_SIM_STEPS=<steps> cargo test --release --test simulation`.
//! Without `WASQ_SIM_SEED` a fixed default seed and a few extra seeds run.

use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use wasq::{CallContext, EngineConfig, Service, SqsError};

const T0: u64 = 1_700_000_000_000;
const DEFAULT_SEEDS: [u64; 4] = [0x5EED_0001, 7, 1_234_567, 0xDEAD_BEEF];
const DEFAULT_STEPS: usize = 2_500;
const RESTORE_EVERY: usize = 25;
const DEDUP_WINDOW_MS: u64 = 300_000;
const ATTEMPT_WINDOW_MS: u64 = 300_000;
const PURGE_WAIT_MS: u64 = 60_000;
const VISIBILITY_CAP_MS: u64 = 43_200_000;
const HANDLE_POOL: usize = 200;

type Check = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

/// Count a case in `Sim::stats` (a macro so it works while a queue is borrowed).
macro_rules! bump {
    ($sim:ident, $what:expr) => {
        *$sim.stats.entry(String::from($what)).or_insert(0) += 1
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Delayed,
    Stored,
    InFlight,
}

impl St {
    fn peek_name(self) -> &'static str {
        match self {
            St::Delayed => "delayed",
            St::Stored => "stored",
            St::InFlight => "in-flight",
        }
    }
}

/// The model's view of one live message.
#[derive(Debug, Clone)]
struct Msg {
    id: String,
    body: String,
    group: Option<String>,
    enqueued_at: u64,
    delayed_until: u64,
    /// Visibility deadline of the latest delivery (or change); in flight while it is after `now`.
    visible_at: u64,
    receive_count: u32,
    handle: Option<String>,
    received_at: u64,
    vis_changed: bool,
    /// Which receive call delivered it last.
    receive_id: u64,
}

impl Msg {
    fn state(&self, now: u64) -> St {
        if self.delayed_until > now {
            St::Delayed
        } else if self.visible_at > now {
            St::InFlight
        } else {
            St::Stored
        }
    }
}

struct Attempt {
    expires_at: u64,
    deliveries: Vec<(String, String)>,
    receive_id: u64,
}

/// The model of one queue.
struct Q {
    url: String,
    fifo: bool,
    content_dedup: bool,
    per_group_dedup: bool,
    retention_ms: u64,
    delay_ms: u64,
    visibility_ms: u64,
    /// Live messages by send order.
    msgs: BTreeMap<u64, Msg>,
    order_of: HashMap<String, u64>,
    dedup: HashMap<String, (String, u64)>,
    attempts: BTreeMap<String, Attempt>,
    last_purge: Option<u64>,
    /// Recently minted handles with the message they belong to (current and stale).
    handles: Vec<(String, String)>,
    /// Every handle ever minted for this queue, to its message.
    handle_ids: HashMap<String, String>,
    /// Messages whose deletion the engine acknowledged.
    deleted: HashSet<String>,
    /// FIFO groups in which ChangeMessageVisibility re-timed part of an in-flight run.
    tainted: HashSet<String>,
    max_count: HashMap<String, u32>,
    last_sequence: u128,
}

impl Q {
    fn by_id(&self, id: &str) -> Option<&Msg> {
        self.order_of.get(id).and_then(|o| self.msgs.get(o))
    }

    fn by_id_mut(&mut self, id: &str) -> Option<&mut Msg> {
        let o = *self.order_of.get(id)?;
        self.msgs.get_mut(&o)
    }

    fn remove(&mut self, id: &str) {
        if let Some(o) = self.order_of.remove(id) {
            self.msgs.remove(&o);
        }
    }

    /// Live messages of each FIFO group, in send order.
    fn groups(&self) -> BTreeMap<String, Vec<&Msg>> {
        let mut out: BTreeMap<String, Vec<&Msg>> = BTreeMap::new();
        for m in self.msgs.values() {
            out.entry(m.group.clone().unwrap_or_default())
                .or_default()
                .push(m);
        }
        out
    }
}

struct Sim {
    seed: u64,
    rng: XorShiftRng,
    svc: Service,
    config: EngineConfig,
    ctx: CallContext,
    now: u64,
    store: BTreeMap<String, Vec<u8>>,
    qs: Vec<Q>,
    next_order: u64,
    next_receive: u64,
    unique: u64,
    /// How often each interesting case came up, printed at the end so a run that stops
    /// exercising a path is noticed.
    stats: BTreeMap<String, u64>,
}

fn code(r: &Result<Value, SqsError>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => e.shape(),
    }
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn sha256_hex(body: &str) -> String {
    Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Sim {
    fn new(seed: u64) -> Sim {
        let config = EngineConfig {
            seed,
            ..EngineConfig::default()
        };
        let mut sim = Sim {
            seed,
            rng: XorShiftRng::seed_from_u64(seed),
            svc: Service::new(config.clone()),
            config,
            ctx: CallContext::default(),
            now: T0,
            store: BTreeMap::new(),
            qs: Vec::new(),
            next_order: 0,
            next_receive: 0,
            unique: 0,
            stats: BTreeMap::new(),
        };
        // (name, fifo, content dedup, per-group dedup, retention s, delay s, visibility s)
        let specs = [
            ("sim-std", false, false, false, 1_209_600, 0, 5),
            ("sim-short", false, false, false, 60, 2, 3),
            ("sim-a.fifo", true, true, false, 1_209_600, 0, 4),
            ("sim-b.fifo", true, false, true, 600, 1, 6),
        ];
        for (name, fifo, cbd, per_group, retention, delay, vis) in specs {
            let mut attrs = json!({
                "MessageRetentionPeriod": retention.to_string(),
                "DelaySeconds": delay.to_string(),
                "VisibilityTimeout": vis.to_string(),
            });
            if fifo {
                attrs["FifoQueue"] = json!("true");
                attrs["ContentBasedDeduplication"] = json!(cbd.to_string());
                if per_group {
                    attrs["DeduplicationScope"] = json!("messageGroup");
                    attrs["FifoThroughputLimit"] = json!("perMessageGroupId");
                }
            }
            let out = sim
                .call(
                    "CreateQueue",
                    json!({"QueueName": name, "Attributes": attrs}),
                )
                .unwrap_or_else(|e| panic!("CreateQueue {name}: {e:?}"));
            sim.qs.push(Q {
                url: s(&out["QueueUrl"]),
                fifo,
                content_dedup: cbd,
                per_group_dedup: per_group,
                retention_ms: retention * 1000,
                delay_ms: delay * 1000,
                visibility_ms: vis * 1000,
                msgs: BTreeMap::new(),
                order_of: HashMap::new(),
                dedup: HashMap::new(),
                attempts: BTreeMap::new(),
                last_purge: None,
                handles: Vec::new(),
                handle_ids: HashMap::new(),
                deleted: HashSet::new(),
                tainted: HashSet::new(),
                max_count: HashMap::new(),
                last_sequence: 0,
            });
        }
        sim.sync();
        sim
    }

    fn call(&mut self, action: &str, params: Value) -> Result<Value, SqsError> {
        self.svc.dispatch(self.now, &self.ctx, action, params)
    }

    /// Apply the step's change batch to the store, as a storage adapter would.
    fn sync(&mut self) {
        let ch = self.svc.take_changes();
        for k in &ch.del {
            self.store.remove(k);
        }
        for (k, v) in ch.put {
            self.store.insert(k, v);
        }
        self.svc.take_events();
    }

    fn step(&mut self, step: usize) -> Check {
        if self.rng.random_bool(0.5) {
            self.now += self.rng.random_range(0..200);
        }
        let qi = self.rng.random_range(0..self.qs.len());
        match self.rng.random_range(0..100u32) {
            0..=17 => self.send(qi)?,
            18..=29 => self.send_batch(qi)?,
            30..=51 => self.receive(qi)?,
            52..=63 => self.delete(qi, false)?,
            64..=69 => self.delete(qi, true)?,
            70..=77 => self.change_visibility(qi, false)?,
            78..=80 => self.change_visibility(qi, true)?,
            81 => self.purge(qi)?,
            82..=91 => self.jump(0, 3_000),
            92..=96 => self.jump(1_000, 120_000),
            97..=98 => self.jump(600_000, 7_200_000),
            _ => self.jump(86_400_000, 86_400_001),
        }
        self.sync();
        self.expire();
        self.check_all()?;
        if step % RESTORE_EVERY == RESTORE_EVERY - 1 {
            self.restore_check()?;
        }
        Ok(())
    }

    fn jump(&mut self, lo: u64, hi: u64) {
        self.now += self.rng.random_range(lo..hi);
        // Half the time the host ticks on its timer; otherwise the next call catches up.
        if self.rng.random_bool(0.5) {
            self.svc.tick(self.now);
        }
    }

    /// Retention: a message exists until `enqueued_at + retention`.
    fn expire(&mut self) {
        let now = self.now;
        for q in &mut self.qs {
            let gone: Vec<String> = q
                .msgs
                .values()
                .filter(|m| m.enqueued_at + q.retention_ms <= now)
                .map(|m| m.id.clone())
                .collect();
            for id in gone {
                bump!(self, "retention expiry");
                q.remove(&id);
            }
        }
    }

    fn new_entry(&mut self, qi: usize, batch: bool) -> (Value, bool) {
        self.unique += 1;
        let q = &self.qs[qi];
        let mut p = json!({});
        let mut valid = true;
        if q.fifo {
            let body = if self.rng.random_bool(0.5) {
                format!("c{}", self.rng.random_range(0..20u32))
            } else {
                format!("u{}", self.unique)
            };
            p["MessageBody"] = json!(body);
            p["MessageGroupId"] = json!(format!("g{}", self.rng.random_range(0..5u32)));
            if !q.content_dedup || self.rng.random_bool(0.3) {
                p["MessageDeduplicationId"] =
                    json!(format!("d{}", self.rng.random_range(0..30u32)));
            }
            if self.rng.random_bool(0.2) {
                p["DelaySeconds"] = json!(0);
            }
        } else {
            p["MessageBody"] = json!(format!("s{}", self.unique));
            match self.rng.random_range(0..10u32) {
                0..=3 => {}
                4..=5 => p["DelaySeconds"] = json!(0),
                6..=8 => p["DelaySeconds"] = json!(self.rng.random_range(1..30u32)),
                _ => p["DelaySeconds"] = json!(self.rng.random_range(30..=900u32)),
            }
            if self.rng.random_bool(0.3) {
                p["MessageGroupId"] = json!(format!("t{}", self.rng.random_range(0..4u32)));
            }
            if self.rng.random_bool(if batch { 0.05 } else { 0.02 }) {
                p["DelaySeconds"] = json!(901);
                valid = false;
            }
        }
        (p, valid)
    }

    /// What a valid send must do: name the original of a duplicate, or enqueue a new message.
    fn apply_send(&mut self, qi: usize, p: &Value, out: &Value) -> Check {
        let now = self.now;
        let q = &mut self.qs[qi];
        let body = s(&p["MessageBody"]);
        let group = p.get("MessageGroupId").map(s);
        let id = s(&out["MessageId"]);
        ensure!(!id.is_empty(), "send answered no MessageId: {out}");
        if q.fifo {
            let dedup_id = p
                .get("MessageDeduplicationId")
                .map(s)
                .unwrap_or_else(|| sha256_hex(&body));
            let key = if q.per_group_dedup {
                format!("{}\u{0}{dedup_id}", group.clone().unwrap_or_default())
            } else {
                dedup_id
            };
            if let Some((original, expires)) = q.dedup.get(&key) {
                if *expires > now {
                    ensure!(
                        *original == id,
                        "duplicate send (key {key:?}) answered {id}, original {original}"
                    );
                    bump!(self, "send: duplicate");
                    return Ok(());
                }
            }
            let seq: u128 = s(&out["SequenceNumber"]).parse().unwrap_or(0);
            ensure!(
                seq > q.last_sequence,
                "sequence number {seq} not above {}",
                q.last_sequence
            );
            q.last_sequence = seq;
            q.dedup.insert(key, (id.clone(), now + DEDUP_WINDOW_MS));
        }
        ensure!(
            !q.order_of.contains_key(&id) && !q.deleted.contains(&id),
            "send reused message id {id}"
        );
        let delay_ms = match p.get("DelaySeconds").and_then(Value::as_u64) {
            Some(d) if !q.fifo => d * 1000,
            _ => q.delay_ms,
        };
        bump!(
            self,
            if delay_ms > 0 {
                "send: new, delayed"
            } else {
                "send: new"
            }
        );
        let order = self.next_order;
        self.next_order += 1;
        q.order_of.insert(id.clone(), order);
        q.msgs.insert(
            order,
            Msg {
                id,
                body,
                group,
                enqueued_at: now,
                delayed_until: now + delay_ms,
                visible_at: 0,
                receive_count: 0,
                handle: None,
                received_at: 0,
                vis_changed: false,
                receive_id: 0,
            },
        );
        Ok(())
    }

    fn send(&mut self, qi: usize) -> Check {
        let (mut p, valid) = self.new_entry(qi, false);
        p["QueueUrl"] = json!(self.qs[qi].url);
        let r = self.call("SendMessage", p.clone());
        match (&r, valid) {
            (Ok(out), true) => self.apply_send(qi, &p, out),
            (Err(e), false) if e.shape() == "InvalidParameterValueException" => Ok(()),
            _ => Err(format!("SendMessage {p} (valid: {valid}) answered {r:?}")),
        }
    }

    fn send_batch(&mut self, qi: usize) -> Check {
        let n = self.rng.random_range(1..=10usize);
        let entries: Vec<(Value, bool)> = (0..n)
            .map(|i| {
                let (mut e, valid) = self.new_entry(qi, true);
                e["Id"] = json!(format!("e{i}"));
                (e, valid)
            })
            .collect();
        let params = json!({
            "QueueUrl": self.qs[qi].url,
            "Entries": entries.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>(),
        });
        let out = self
            .call("SendMessageBatch", params.clone())
            .map_err(|e| format!("SendMessageBatch {params} failed: {e:?}"))?;
        let ok = out["Successful"].as_array().cloned().unwrap_or_default();
        let failed: BTreeSet<String> = out["Failed"]
            .as_array()
            .map(|f| f.iter().map(|e| s(&e["Id"])).collect())
            .unwrap_or_default();
        let want_failed: BTreeSet<String> = entries
            .iter()
            .filter(|(_, v)| !v)
            .map(|(e, _)| s(&e["Id"]))
            .collect();
        ensure!(
            failed == want_failed,
            "batch failed {failed:?}, want {want_failed:?}"
        );
        ensure!(ok.len() + failed.len() == n, "batch answered {out}");
        // Entries are enqueued in request order; Successful lists them in that order too.
        let mut ok = ok.iter();
        for (e, valid) in &entries {
            if !valid {
                continue;
            }
            let res = ok.next().cloned().unwrap_or(Value::Null);
            ensure!(res["Id"] == e["Id"], "batch result {res} for entry {e}");
            self.apply_send(qi, e, &res)?;
        }
        Ok(())
    }

    fn receive(&mut self, qi: usize) -> Check {
        let now = self.now;
        let max = self.rng.random_range(1..=10usize);
        let mut p = json!({
            "QueueUrl": self.qs[qi].url,
            "MaxNumberOfMessages": max,
            "WaitTimeSeconds": 0,
            "AttributeNames": ["All"],
        });
        let vis_ms = match self.rng.random_range(0..10u32) {
            0..=3 => self.qs[qi].visibility_ms,
            4..=5 => {
                p["VisibilityTimeout"] = json!(0);
                0
            }
            6..=8 => {
                let v = self.rng.random_range(1..30u64);
                p["VisibilityTimeout"] = json!(v);
                v * 1000
            }
            _ => {
                let v = self.rng.random_range(60..=43_200u64);
                p["VisibilityTimeout"] = json!(v);
                v * 1000
            }
        };
        // A third of attempt ids retry the queue's previous one, as a client that lost an answer.
        let attempt = match self.rng.random_range(0..10u32) {
            0..=1 => Some(format!("att{}", self.rng.random_range(0..6u32))),
            2 => self.qs[qi].attempts.keys().next().cloned(),
            _ => None,
        };
        if let Some(a) = &attempt {
            p["ReceiveRequestAttemptId"] = json!(a);
        }
        let r = self.call("ReceiveMessage", p.clone());
        let fifo = self.qs[qi].fifo;
        let q = &mut self.qs[qi];
        let cached = match (&attempt, fifo) {
            (Some(a), true) => q.attempts.get(a).filter(|c| c.expires_at > now),
            _ => None,
        };
        if let Some(c) = cached {
            let retryable = c.deliveries.iter().all(|(id, handle)| {
                q.by_id(id).is_some_and(|m| {
                    m.handle.as_deref() == Some(handle)
                        && !m.vis_changed
                        && m.state(now) != St::Delayed
                })
            });
            if !retryable {
                ensure!(
                    code(&r) == "InvalidParameterValueException",
                    "stale attempt {attempt:?} answered {r:?}"
                );
                bump!(self, "receive: attempt no longer retryable");
                return Ok(());
            }
            let got: Vec<(String, String)> = r
                .map_err(|e| format!("attempt replay failed: {e:?}"))?["Messages"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|m| (s(&m["MessageId"]), s(&m["ReceiptHandle"])))
                        .collect()
                })
                .unwrap_or_default();
            ensure!(
                got == c.deliveries,
                "attempt replay returned {got:?}, first answer was {:?}",
                c.deliveries
            );
            let deliveries = c.deliveries.clone();
            bump!(self, "receive: attempt replayed");
            let rid = c.receive_id;
            for (id, _) in deliveries {
                if let Some(m) = q.by_id_mut(&id) {
                    m.visible_at = now + vis_ms;
                    m.receive_id = rid;
                }
            }
            return Ok(());
        }
        let out = r.map_err(|e| format!("ReceiveMessage {p} failed: {e:?}"))?;
        let got = out["Messages"].as_array().cloned().unwrap_or_default();
        let expected = if fifo {
            q.groups()
                .values()
                .map(|g| g.iter().take_while(|m| m.state(now) == St::Stored).count())
                .sum::<usize>()
                .min(max)
        } else {
            let stored = q.msgs.values().filter(|m| m.state(now) == St::Stored);
            stored.count().min(max)
        };
        ensure!(
            got.len() == expected,
            "receive(max {max}) returned {} messages, {expected} were receivable",
            got.len()
        );
        self.next_receive += 1;
        let rid = self.next_receive;
        bump!(self, format!("receive: {} message(s)", got.len().min(2)));
        if vis_ms == 0 && !got.is_empty() {
            bump!(self, "receive: visibility 0");
        }
        let mut seen = HashSet::new();
        let mut per_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut deliveries = Vec::new();
        for g in &got {
            let id = s(&g["MessageId"]);
            let handle = s(&g["ReceiptHandle"]);
            ensure!(
                seen.insert(id.clone()),
                "{id} delivered twice in one receive"
            );
            ensure!(!q.deleted.contains(&id), "deleted message {id} delivered");
            let m = q
                .by_id_mut(&id)
                .ok_or_else(|| format!("receive delivered unknown or removed message {id}"))?;
            let st = m.state(now);
            ensure!(
                st == St::Stored,
                "{id} delivered while {st:?} (delayed until {}, visible at {}, now {now})",
                m.delayed_until,
                m.visible_at
            );
            ensure!(
                g["Body"] == json!(m.body),
                "{id} body {} != {}",
                g["Body"],
                m.body
            );
            let count = s(&g["Attributes"]["ApproximateReceiveCount"]);
            ensure!(
                count == (m.receive_count + 1).to_string(),
                "{id} ApproximateReceiveCount {count}, expected {}",
                m.receive_count + 1
            );
            ensure!(m.handle.as_ref() != Some(&handle), "{id} handle reused");
            if m.receive_count > 0 {
                bump!(self, "receive: redelivery");
            }
            m.receive_count += 1;
            m.handle = Some(handle.clone());
            m.visible_at = now + vis_ms;
            m.received_at = now;
            m.vis_changed = false;
            m.receive_id = rid;
            if let Some(grp) = &m.group {
                ensure!(
                    g["Attributes"]["MessageGroupId"] == json!(grp),
                    "{id} group {}",
                    g["Attributes"]["MessageGroupId"]
                );
            }
            per_group
                .entry(m.group.clone().unwrap_or_default())
                .or_default()
                .push(id.clone());
            q.handles.push((handle.clone(), id.clone()));
            q.handle_ids.insert(handle.clone(), id.clone());
            deliveries.push((id, handle));
        }
        if q.handles.len() > HANDLE_POOL {
            q.handles.drain(..q.handles.len() - HANDLE_POOL);
        }
        if fifo {
            // A group's deliveries are the head of its live messages, in send order: nothing
            // earlier in the group was left behind (in flight, delayed or visible).
            let groups = q.groups();
            for (g, ids) in &per_group {
                let live: Vec<&String> = groups
                    .get(g)
                    .map(|v| v.iter().map(|m| &m.id).collect())
                    .unwrap_or_default();
                let head: Vec<&String> = live.iter().take(ids.len()).copied().collect();
                ensure!(
                    head == ids.iter().collect::<Vec<_>>(),
                    "group {g}: delivered {ids:?}, but the group's live messages are {live:?}"
                );
            }
            if let (Some(a), false) = (attempt, deliveries.is_empty()) {
                q.attempts.insert(
                    a,
                    Attempt {
                        expires_at: now + ATTEMPT_WINDOW_MS,
                        deliveries,
                        receive_id: rid,
                    },
                );
            }
        }
        Ok(())
    }

    /// A receipt handle to act on: mostly a current one, sometimes stale, foreign or garbage.
    fn pick_handle(&mut self, qi: usize) -> Option<String> {
        let now = self.now;
        let roll = self.rng.random_range(0..100u32);
        if roll < 4 {
            return Some("garbage-handle".into());
        }
        if roll < 8 {
            let other = (qi + 1 + self.rng.random_range(0..self.qs.len() - 1)) % self.qs.len();
            let pool = &self.qs[other].handles;
            if !pool.is_empty() {
                return Some(pool[self.rng.random_range(0..pool.len())].0.clone());
            }
        }
        let q = &self.qs[qi];
        let current: Vec<&String> = q
            .msgs
            .values()
            .filter(|m| m.state(now) == St::InFlight)
            .filter_map(|m| m.handle.as_ref())
            .collect();
        if roll < 65 && !current.is_empty() {
            return Some(current[self.rng.random_range(0..current.len())].clone());
        }
        if q.handles.is_empty() {
            return None;
        }
        Some(
            q.handles[self.rng.random_range(0..q.handles.len())]
                .0
                .clone(),
        )
    }

    /// The model's verdict on a delete: expected error shape, or `None` for success.
    fn delete_one(&mut self, qi: usize, handle: &str) -> Option<&'static str> {
        let now = self.now;
        let q = &mut self.qs[qi];
        let Some(id) = q.handle_ids.get(handle).cloned() else {
            return Some("ReceiptHandleIsInvalid");
        };
        // Already deleted, expired or purged: success, nothing to do.
        let m = q.by_id(&id)?;
        if q.fifo && !(m.state(now) == St::InFlight && m.handle.as_deref() == Some(handle)) {
            return Some("InvalidParameterValueException");
        }
        q.remove(&id);
        q.deleted.insert(id);
        None
    }

    fn delete(&mut self, qi: usize, batch: bool) -> Check {
        let n = if batch {
            self.rng.random_range(1..=10)
        } else {
            1
        };
        let handles: Vec<String> = (0..n).filter_map(|_| self.pick_handle(qi)).collect();
        if handles.is_empty() {
            return Ok(());
        }
        let url = self.qs[qi].url.clone();
        if !batch {
            let r = self.call(
                "DeleteMessage",
                json!({"QueueUrl": url, "ReceiptHandle": handles[0]}),
            );
            let want = self.delete_one(qi, &handles[0]).unwrap_or("ok");
            bump!(self, format!("delete: {want}"));
            ensure!(
                code(&r) == want,
                "DeleteMessage answered {r:?}, expected {want}"
            );
            return Ok(());
        }
        let entries: Vec<Value> = handles
            .iter()
            .enumerate()
            .map(|(i, h)| json!({"Id": format!("d{i}"), "ReceiptHandle": h}))
            .collect();
        let params = json!({"QueueUrl": url, "Entries": entries});
        let out = self
            .call("DeleteMessageBatch", params)
            .map_err(|e| format!("DeleteMessageBatch failed: {e:?}"))?;
        let mut want_failed = BTreeSet::new();
        for (i, h) in handles.iter().enumerate() {
            let verdict = self.delete_one(qi, h);
            bump!(self, format!("delete (batch): {}", verdict.unwrap_or("ok")));
            if verdict.is_some() {
                want_failed.insert(format!("d{i}"));
            }
        }
        let failed: BTreeSet<String> = out["Failed"]
            .as_array()
            .map(|f| f.iter().map(|e| s(&e["Id"])).collect())
            .unwrap_or_default();
        ensure!(
            failed == want_failed,
            "DeleteMessageBatch failed {failed:?}, expected {want_failed:?}"
        );
        Ok(())
    }

    /// The model's verdict on a visibility change (and its effect when it succeeds).
    fn change_one(&mut self, qi: usize, handle: &str, timeout: u64) -> Option<&'static str> {
        let now = self.now;
        let q = &mut self.qs[qi];
        let Some(id) = q.handle_ids.get(handle).cloned() else {
            return Some("ReceiptHandleIsInvalid");
        };
        let fifo = q.fifo;
        let Some(m) = q.by_id_mut(&id) else {
            return Some("InvalidParameterValueException");
        };
        let in_flight = m.state(now) == St::InFlight;
        let current = m.handle.as_deref() == Some(handle);
        if fifo && !(in_flight && current) {
            return Some("InvalidParameterValueException");
        }
        if !in_flight {
            // Standard: the handle's window ran out; AWS answers 200 and the message stays
            // visible (spec §7.3), whichever delivery the handle came from.
            if current || m.receive_count > 0 {
                bump!(self, "visibility change: expired handle, no-op");
            }
            return None;
        }
        if timeout > 0 && now - m.received_at + timeout * 1000 >= VISIBILITY_CAP_MS {
            return Some("InvalidParameterValueException");
        }
        m.vis_changed = true;
        m.visible_at = now + timeout * 1000;
        if let Some(g) = m.group.clone() {
            q.tainted.insert(g);
        }
        None
    }

    fn change_visibility(&mut self, qi: usize, batch: bool) -> Check {
        let n = if batch {
            self.rng.random_range(1..=10)
        } else {
            1
        };
        let mut entries = Vec::new();
        for _ in 0..n {
            let Some(h) = self.pick_handle(qi) else {
                continue;
            };
            let t = match self.rng.random_range(0..20u32) {
                0..=4 => 0,
                5..=14 => self.rng.random_range(1..20u64),
                15..=17 => self.rng.random_range(20..120u64),
                _ => self.rng.random_range(43_000..=43_200u64),
            };
            entries.push((h, t));
        }
        if entries.is_empty() {
            return Ok(());
        }
        let url = self.qs[qi].url.clone();
        if !batch {
            let (h, t) = entries[0].clone();
            let r = self.call(
                "ChangeMessageVisibility",
                json!({"QueueUrl": url, "ReceiptHandle": h, "VisibilityTimeout": t}),
            );
            let want = self.change_one(qi, &h, t).unwrap_or("ok");
            bump!(self, format!("visibility change: {want}"));
            ensure!(
                code(&r) == want,
                "ChangeMessageVisibility({t}) answered {r:?}, expected {want}"
            );
            return Ok(());
        }
        let list: Vec<Value> = entries
            .iter()
            .enumerate()
            .map(|(i, (h, t))| json!({"Id": format!("v{i}"), "ReceiptHandle": h, "VisibilityTimeout": t}))
            .collect();
        let out = self
            .call(
                "ChangeMessageVisibilityBatch",
                json!({"QueueUrl": url, "Entries": list}),
            )
            .map_err(|e| format!("ChangeMessageVisibilityBatch failed: {e:?}"))?;
        let mut want_failed = BTreeSet::new();
        for (i, (h, t)) in entries.iter().enumerate() {
            let verdict = self.change_one(qi, h, *t);
            bump!(
                self,
                format!("visibility change (batch): {}", verdict.unwrap_or("ok"))
            );
            if verdict.is_some() {
                want_failed.insert(format!("v{i}"));
            }
        }
        let failed: BTreeSet<String> = out["Failed"]
            .as_array()
            .map(|f| f.iter().map(|e| s(&e["Id"])).collect())
            .unwrap_or_default();
        ensure!(
            failed == want_failed,
            "ChangeMessageVisibilityBatch failed {failed:?}, expected {want_failed:?}"
        );
        Ok(())
    }

    fn purge(&mut self, qi: usize) -> Check {
        let now = self.now;
        let url = self.qs[qi].url.clone();
        let r = self.call("PurgeQueue", json!({"QueueUrl": url}));
        let q = &mut self.qs[qi];
        if q.last_purge.is_some_and(|t| now < t + PURGE_WAIT_MS) {
            ensure!(
                code(&r) == "PurgeQueueInProgress",
                "second purge answered {r:?}"
            );
            bump!(self, "purge: refused within 60 s");
            return Ok(());
        }
        ensure!(r.is_ok(), "PurgeQueue answered {r:?}");
        q.last_purge = Some(now);
        bump!(self, "purge");
        q.msgs.clear();
        q.order_of.clear();
        q.dedup.clear();
        q.attempts.clear();
        Ok(())
    }

    /// Every invariant, for every queue, against peek and GetQueueAttributes.
    fn check_all(&mut self) -> Check {
        let now = self.now;
        let mut model_deadline: Option<u64> = None;
        for qi in 0..self.qs.len() {
            let url = self.qs[qi].url.clone();
            let peek = self
                .svc
                .peek(now, &self.ctx, &url)
                .map_err(|e| format!("peek failed: {e:?}"))?;
            let attrs = self
                .call(
                    "GetQueueAttributes",
                    json!({"QueueUrl": url, "AttributeNames": ["All"]}),
                )
                .map_err(|e| format!("GetQueueAttributes failed: {e:?}"))?;
            let q = &mut self.qs[qi];
            let mut counts = HashMap::new();
            let mut listed = HashSet::new();
            for pm in peek["messages"].as_array().into_iter().flatten() {
                let id = s(&pm["messageId"]);
                let state = s(&pm["state"]);
                if !["delayed", "stored", "in-flight"].contains(&state.as_str()) {
                    ensure!(q.by_id(&id).is_none(), "{url}: live {id} listed as {state}");
                    continue;
                }
                ensure!(listed.insert(id.clone()), "{url}: peek lists {id} twice");
                ensure!(
                    !q.deleted.contains(&id),
                    "{url}: deleted {id} is back as {state}"
                );
                *counts.entry(state.clone()).or_insert(0u64) += 1;
                let m: Msg = q
                    .by_id(&id)
                    .ok_or_else(|| {
                        format!("{url}: peek lists {id} ({state}), the model has no such message")
                    })?
                    .clone();
                let want = m.state(now);
                ensure!(state == want.peek_name(), "{url}: {id} is {state}, expected {want:?} (now {now}, delayed until {}, visible at {})", m.delayed_until, m.visible_at);
                let rc = pm["receiveCount"].as_u64().unwrap_or(u64::MAX) as u32;
                ensure!(
                    rc == m.receive_count,
                    "{url}: {id} receiveCount {rc}, expected {}",
                    m.receive_count
                );
                let prev = q.max_count.entry(id.clone()).or_insert(0);
                ensure!(
                    rc >= *prev,
                    "{url}: {id} receive count went down {prev} -> {rc}"
                );
                *prev = rc;
                ensure!(pm["body"] == json!(m.body), "{url}: {id} body changed");
                match want {
                    St::InFlight => {
                        ensure!(
                            pm["visibleAt"] == json!(m.visible_at),
                            "{url}: {id} visibleAt {} != {}",
                            pm["visibleAt"],
                            m.visible_at
                        );
                        ensure!(
                            pm["receiptHandle"] == json!(m.handle),
                            "{url}: {id} handle differs"
                        );
                    }
                    St::Delayed => ensure!(
                        pm["delayedUntil"] == json!(m.delayed_until),
                        "{url}: {id} delayedUntil"
                    ),
                    St::Stored => {}
                }
            }
            ensure!(
                listed.len() == q.msgs.len(),
                "{url}: peek lists {} live messages, the model has {}",
                listed.len(),
                q.msgs.len()
            );
            let a = &attrs["Attributes"];
            for (name, state) in [
                ("ApproximateNumberOfMessages", "stored"),
                ("ApproximateNumberOfMessagesNotVisible", "in-flight"),
                ("ApproximateNumberOfMessagesDelayed", "delayed"),
            ] {
                let n = counts.get(state).copied().unwrap_or(0);
                ensure!(
                    s(&a[name]) == n.to_string(),
                    "{url}: {name} = {}, peek has {n} {state}",
                    a[name]
                );
            }
            if q.fifo {
                let in_flight: Vec<(String, Vec<u64>)> = q
                    .groups()
                    .into_iter()
                    .map(|(g, msgs)| {
                        let rids = msgs
                            .iter()
                            .filter(|m| m.state(now) == St::InFlight)
                            .map(|m| m.receive_id)
                            .collect();
                        (g, rids)
                    })
                    .collect();
                for (g, mut rids) in in_flight {
                    if rids.is_empty() {
                        q.tainted.remove(&g);
                        continue;
                    }
                    // A later receive can only have taken messages ahead of earlier ones (a
                    // visibility change released the head); never behind them.
                    ensure!(
                        rids.windows(2).all(|w| w[0] >= w[1]),
                        "{url}: group {g} in flight from receives {rids:?} in send order"
                    );
                    rids.dedup();
                    if rids.len() > 1 {
                        bump!(
                            self,
                            "fifo: group in flight from two receives (after a change)"
                        );
                    }
                    ensure!(
                        rids.len() == 1 || q.tainted.contains(&g),
                        "{url}: group {g} has deliveries in flight from receives {rids:?}"
                    );
                }
            }
            for m in q.msgs.values() {
                let d = match m.state(now) {
                    St::Delayed => m.delayed_until,
                    St::InFlight => m.visible_at,
                    St::Stored => u64::MAX,
                };
                let d = d.min(m.enqueued_at + q.retention_ms);
                model_deadline = Some(model_deadline.map_or(d, |x: u64| x.min(d)));
            }
        }
        let engine = self.svc.next_deadline();
        ensure!(
            engine == model_deadline,
            "next_deadline {engine:?}, model says {model_deadline:?}"
        );
        Ok(())
    }

    /// Rebuild a service from the stored records alone; it must show the same queues, then it
    /// takes over (so the rest of the run also exercises the restored state).
    fn restore_check(&mut self) -> Check {
        self.sync();
        let mut restored = Service::restore(self.config.clone(), self.store.clone())
            .map_err(|e| format!("restore failed: {e}"))?;
        for q in &self.qs {
            let live = |mut v: Value| {
                if let Some(list) = v["messages"].as_array_mut() {
                    list.retain(|m| {
                        ["delayed", "stored", "in-flight"]
                            .contains(&m["state"].as_str().unwrap_or(""))
                    });
                }
                v
            };
            let a = self.svc.peek(self.now, &self.ctx, &q.url).map(live);
            let b = restored.peek(self.now, &self.ctx, &q.url).map(live);
            ensure!(
                a == b,
                "{}: restored peek differs:\n live:     {a:?}\n restored: {b:?}",
                q.url
            );
        }
        ensure!(
            restored.next_deadline() == self.svc.next_deadline(),
            "restored next_deadline differs"
        );
        restored.take_changes();
        self.svc = restored;
        bump!(self, "restore");
        Ok(())
    }
}

fn run(seed: u64, steps: usize) {
    let mut sim = Sim::new(seed);
    for step in 0..steps {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sim.step(step)));
        let failure = match outcome {
            Ok(Ok(())) => continue,
            Ok(Err(msg)) => msg,
            Err(p) => format!(
                "engine panicked: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            ),
        };
        panic!(
            "simulation failed: seed {seed}, step {step} (now {}): {failure}\n\
             reproduce: WASQ_SIM_SEED={seed} WASQ_SIM_STEPS={} cargo test --release --test simulation",
            sim.now,
            step + 1
        );
    }
    eprintln!("seed {}, {steps} steps: {:#?}", sim.seed, sim.stats);
}

#[test]
fn seeded_simulation_keeps_every_invariant() {
    let steps = std::env::var("WASQ_SIM_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_STEPS);
    let seeds: Vec<u64> = match std::env::var("WASQ_SIM_SEED") {
        Ok(v) => vec![v
            .parse()
            .unwrap_or_else(|_| panic!("WASQ_SIM_SEED={v:?} is not a u64"))],
        Err(_) => DEFAULT_SEEDS.to_vec(),
    };
    for seed in seeds {
        run(seed, steps);
    }
}
