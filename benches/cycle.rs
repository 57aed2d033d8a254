//! Native side of the package benchmark (`scripts/bench-compare.sh --native`, BENCHMARKS.md
//! "Native cycle"). It runs the same workloads as `bench/package.mjs` so the two can be
//! compared in one run, and prints one JSON object per line for the script to collect.
//!
//! Two layers, so the wasm figures can be split into engine cost and boundary cost:
//! - `service`: `Service::dispatch` with `serde_json::Value` parameters (the Rust API);
//! - `core`: what `WasqCore::dispatch` does inside the wasm with no event listener —
//!   `Service::dispatch_json` (JSON text in and out), the event feed off, changes packed into
//!   one batch buffer after every call — minus the JS boundary.
//!
//! Both use the configuration the JS `Engine` uses (persist and observe on; the core layer
//! turns the event feed off, as the `Engine` wrapper does while no one listens).
//!
//! `cargo bench --bench cycle -- [--mode cycle|restore|memory] [--seconds S]`.
//! `memory` must run in a fresh process: it reads the resident set size before and after.

use serde_json::{json, Value};
use std::hint::black_box;
use std::time::{Duration, Instant};
use wasq::changes::PackedBatch;
use wasq::{CallContext, EngineConfig, Service};

const NOW: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z, the JS side's ManualClock start
const QUEUE: &str = "bench";
/// Messages stored for the restore and memory figures.
const STORED: usize = 100_000;

fn config() -> EngineConfig {
    EngineConfig {
        seed: 1,
        ..EngineConfig::default()
    }
}

/// The body every cycle sends; the same text as `bench/package.mjs`.
fn cycle_body() -> String {
    "x".repeat(100)
}

/// The body of the n-th stored message (restore and memory): 100 bytes, as in the cycles.
fn stored_body(n: usize) -> String {
    format!("{n:0>100}")
}

/// One dispatch path: parameters in, response out, and whatever the host does after a call.
trait Layer {
    fn call(&mut self, action: &str, params: &Value) -> Value;
}

/// `Service::dispatch` with `Value` parameters; changes and events drained after each call.
struct ServiceLayer(Service);

impl Layer for ServiceLayer {
    fn call(&mut self, action: &str, params: &Value) -> Value {
        let out = self
            .0
            .dispatch(NOW, &CallContext::default(), action, params.clone())
            .unwrap_or_else(|e| panic!("{action}: {e:?}"));
        black_box(self.0.take_changes());
        black_box(self.0.take_events());
        out
    }
}

/// The `WasqCore::dispatch` path without the JS boundary, as the wasm core does it with no
/// event listener: JSON text in and out through `Service::dispatch_json`, the event feed off,
/// and the changes packed into one batch buffer (what `takeChanges` hands to JS).
struct CoreLayer(Service);

impl CoreLayer {
    fn new() -> Self {
        let mut svc = Service::new(config());
        svc.set_event_feed(false);
        CoreLayer(svc)
    }
}

impl Layer for CoreLayer {
    fn call(&mut self, action: &str, params: &Value) -> Value {
        // The caller's JSON.stringify and JSON.parse happen in JS; here the texts are made and
        // read outside the engine too, but inside the timed loop, as they are there.
        let text = params.to_string();
        let out_text = self
            .0
            .dispatch_json(NOW, &CallContext::default(), action, &text)
            .unwrap_or_else(|e| panic!("{action}: {e:?}"));
        let mut batch = PackedBatch::default();
        self.0.drain_changes(&mut batch);
        black_box(batch.finish().unwrap_or_else(|_| panic!("record too long")));
        serde_json::from_str(&out_text).unwrap_or_else(|e| panic!("{e}"))
    }
}

fn create(layer: &mut dyn Layer) -> String {
    let out = layer.call("CreateQueue", &json!({ "QueueName": QUEUE }));
    out["QueueUrl"].as_str().unwrap_or_default().to_string()
}

fn handles(out: &Value) -> Vec<String> {
    out["Messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|m| m["ReceiptHandle"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// SendMessage → ReceiveMessage(1) → DeleteMessage. Returns messages moved (1).
fn single(layer: &mut dyn Layer, url: &str, body: &str) -> usize {
    layer.call(
        "SendMessage",
        &json!({"QueueUrl": url, "MessageBody": body}),
    );
    let out = layer.call(
        "ReceiveMessage",
        &json!({"QueueUrl": url, "MaxNumberOfMessages": 1}),
    );
    let hs = handles(&out);
    assert_eq!(hs.len(), 1, "single cycle must move one message");
    for h in &hs {
        layer.call(
            "DeleteMessage",
            &json!({"QueueUrl": url, "ReceiptHandle": h}),
        );
    }
    hs.len()
}

/// SendMessageBatch(10) → ReceiveMessage(10) → DeleteMessageBatch(10). Returns messages moved.
fn batch(layer: &mut dyn Layer, url: &str, body: &str) -> usize {
    let entries: Vec<Value> = (0..10)
        .map(|i| json!({"Id": format!("m{i}"), "MessageBody": body}))
        .collect();
    layer.call(
        "SendMessageBatch",
        &json!({"QueueUrl": url, "Entries": entries}),
    );
    let out = layer.call(
        "ReceiveMessage",
        &json!({"QueueUrl": url, "MaxNumberOfMessages": 10}),
    );
    let hs = handles(&out);
    assert_eq!(hs.len(), 10, "batched cycle must move 10 messages");
    let entries: Vec<Value> = hs
        .iter()
        .enumerate()
        .map(|(i, h)| json!({"Id": format!("d{i}"), "ReceiptHandle": h}))
        .collect();
    layer.call(
        "DeleteMessageBatch",
        &json!({"QueueUrl": url, "Entries": entries}),
    );
    hs.len()
}

type Cycle = fn(&mut dyn Layer, &str, &str) -> usize;

/// Messages per second of `cycle` run for `seconds` after a warm-up of a tenth of that.
fn rate(layer: &mut dyn Layer, cycle: Cycle, seconds: f64) -> f64 {
    let url = create(layer);
    let body = cycle_body();
    let warm = Instant::now();
    while warm.elapsed().as_secs_f64() < seconds / 10.0 {
        cycle(layer, &url, &body);
    }
    let budget = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut moved = 0usize;
    // The clock is read every 64 cycles so reading it costs nothing measurable.
    loop {
        for _ in 0..64 {
            moved += cycle(layer, &url, &body);
        }
        if start.elapsed() >= budget {
            break;
        }
    }
    moved as f64 / start.elapsed().as_secs_f64()
}

fn cycle_mode(seconds: f64) {
    let runs: [(&str, &str, Cycle); 4] = [
        ("single", "service", single),
        ("single", "core", single),
        ("batch10", "service", batch),
        ("batch10", "core", batch),
    ];
    for (workload, layer_name, cycle) in runs {
        let mut layer: Box<dyn Layer> = match layer_name {
            "service" => Box::new(ServiceLayer(Service::new(config()))),
            _ => Box::new(CoreLayer::new()),
        };
        let per_s = rate(layer.as_mut(), cycle, seconds);
        println!(
            "{}",
            json!({"side": "native", "bench": "cycle", "workload": workload,
                   "layer": layer_name, "messages_per_s": per_s})
        );
    }
}

/// A service holding `STORED` messages and the records its storage would hold.
fn stored(keep_records: bool) -> (Service, Vec<(String, Vec<u8>)>) {
    let mut svc = ServiceLayer(Service::new(config()));
    let mut records = std::collections::BTreeMap::new();
    let out = svc
        .0
        .dispatch(
            NOW,
            &CallContext::default(),
            "CreateQueue",
            json!({ "QueueName": QUEUE }),
        )
        .unwrap_or_else(|e| panic!("CreateQueue: {e:?}"));
    let url = out["QueueUrl"].as_str().unwrap_or_default().to_string();
    records.extend(svc.0.take_changes().put);
    svc.0.take_events();
    for start in (0..STORED).step_by(10) {
        let entries: Vec<Value> = (start..start + 10)
            .map(|i| json!({"Id": format!("m{}", i % 10), "MessageBody": stored_body(i)}))
            .collect();
        svc.0
            .dispatch(
                NOW,
                &CallContext::default(),
                "SendMessageBatch",
                json!({"QueueUrl": url, "Entries": entries}),
            )
            .unwrap_or_else(|e| panic!("SendMessageBatch: {e:?}"));
        let changes = svc.0.take_changes();
        svc.0.take_events();
        if !keep_records {
            continue;
        }
        for (key, value) in changes.put {
            records.insert(key, value);
        }
        for key in changes.del {
            records.remove(&key);
        }
    }
    (svc.0, records.into_iter().collect())
}

fn restore_mode() {
    let (_, records) = stored(true);
    let record_bytes: usize = records.iter().map(|(k, v)| k.len() + v.len()).sum();
    let mut times = Vec::new();
    for _ in 0..5 {
        let input = records.clone();
        let start = Instant::now();
        let svc = Service::restore(config(), input).unwrap_or_else(|e| panic!("{e:?}"));
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        black_box(svc);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{}",
        json!({"side": "native", "bench": "restore", "messages": STORED,
               "records": records.len(), "record_bytes": record_bytes,
               "ms": times[times.len() / 2]})
    );
}

/// Resident set size in bytes, from /proc (Linux); 0 elsewhere.
fn rss() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn memory_mode() {
    let before = rss();
    // The records are what a host's storage holds, not the engine: not kept here.
    let (svc, _) = stored(false);
    let after = rss();
    black_box(&svc);
    println!(
        "{}",
        json!({"side": "native", "bench": "memory", "messages": STORED, "body_bytes": 100,
               "rss_bytes_per_message": (after.saturating_sub(before)) as f64 / STORED as f64})
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let seconds = value("--seconds")
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(2.0);
    match value("--mode").as_deref().unwrap_or("cycle") {
        "cycle" => cycle_mode(seconds),
        "restore" => restore_mode(),
        "memory" => memory_mode(),
        other => {
            eprintln!("unknown --mode {other}: cycle, restore or memory");
            std::process::exit(2);
        }
    }
}
