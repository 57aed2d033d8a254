//! Seeded simulation (Apache Iggy style): random sends, receives, deletes, visibility changes,
//! purges and clock jumps against the engine, checked after every step against an independent
//! model of what SQS promises, with a restore-from-records round trip every few steps.
//!
//! Reproduce a failure with the seed and step count its panic message prints:
//! `WASQ_SIM_SEED=<seed> WASQ_SIM_STEPS=<steps> cargo test --release --test simulation`.
//! Without `WASQ_SIM_SEED` a fixed default seed and a few extra seeds run; `WASQ_SIM_SEED=from..to`
//! runs a range of them and lists every failing one (`make soak`).

use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use wasq::{CallContext, EngineConfig, Service, SqsError};

const T0: u64 = 1_700_000_000_000;
/// 1066 meets a message whose retention ends inside a step's clock advance (at step 929), which
/// the model once expected to receive.
const DEFAULT_SEEDS: [u64; 5] = [0x5EED_0001, 7, 1_234_567, 0xDEAD_BEEF, 1066];
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

mod checks;
mod handles;

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
    fn new(seed: u64, observe: bool) -> Sim {
        let config = EngineConfig {
            seed,
            observe,
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
            // Retention runs on the clock, not on calls: a message whose period ended within
            // this advance is gone before the step's call reaches its queue. Expiring only after
            // the call let the model expect such a message to be received or re-timed (seeds
            // 1024 and 1066 at 3,000 steps).
            self.expire();
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
}

/// Runs one seed; the failure, if any, names the seed, the step and how to reproduce it.
fn run(seed: u64, steps: usize, observe: bool) -> Result<(), String> {
    let mut sim = Sim::new(seed, observe);
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
        return Err(format!(
            "simulation failed: seed {seed}, step {step} (now {}, observe {observe}): {failure}\n\
             reproduce: WASQ_SIM_SEED={seed} WASQ_SIM_STEPS={} cargo test --release --test simulation",
            sim.now,
            step + 1
        ));
    }
    eprintln!("seed {}, {steps} steps: {:#?}", sim.seed, sim.stats);
    Ok(())
}

/// `WASQ_SIM_SEED`: one seed, or `from..to` for a soak over many (`make soak`).
fn seeds_from_env() -> Vec<u64> {
    let Ok(v) = std::env::var("WASQ_SIM_SEED") else {
        return DEFAULT_SEEDS.to_vec();
    };
    let parse = |s: &str| {
        s.trim()
            .parse::<u64>()
            .unwrap_or_else(|_| panic!("WASQ_SIM_SEED={v:?} is not a u64 or a range from..to"))
    };
    match v.split_once("..") {
        Some((from, to)) => (parse(from)..parse(to)).collect(),
        None => vec![parse(&v)],
    }
}

#[test]
fn seeded_simulation_keeps_every_invariant() {
    run_seeds(true);
}

/// The same, with `observe` off (no removed tail, no events: what the native benchmarks and a
/// host that never peeks run), where a delete takes only what the indexes need of a message and
/// drops the rest where it lies (`Queue::discard`).
#[test]
fn seeded_simulation_without_observation_keeps_every_invariant() {
    run_seeds(false);
}

/// Every seed of `WASQ_SIM_SEED` (or the defaults) for `WASQ_SIM_STEPS` steps.
fn run_seeds(observe: bool) {
    let steps = std::env::var("WASQ_SIM_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_STEPS);
    // Every seed runs, so a soak lists all its failures rather than the first.
    let failures: Vec<String> = seeds_from_env()
        .into_iter()
        .filter_map(|seed| run(seed, steps, observe).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
