//! Native engine benchmarks (criterion). Results and the exact command: BENCHMARKS.md.
//!
//! Three paths through the same engine: `dispatch` (`serde_json::Value` in and out), the typed
//! message actions (`Service::send_message_batch`, …), and `dispatch_json` (JSON text in and out).
//! Setup (filling queues) is outside the timed loops; short measurement times keep a full
//! `cargo bench` run to a few minutes on a 2-core machine.

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;
use wasq::engine::requests::{
    ReceiptBatchRequest, ReceiptRequest, ReceiveMessageRequest, SendMessageBatchRequest,
    SendMessageRequest,
};
use wasq::engine::responses::ReceiveMessageResponse;
use wasq::protocol::aws_json;
use wasq::{CallContext, Engine, EngineConfig, Service};

const NOW: u64 = 1_700_000_000_000;
const STD_URL: &str = "http://localhost:9324/000000000000/bench";
const FIFO_URL: &str = "http://localhost:9324/000000000000/bench.fifo";

fn config(persist: bool, observe: bool) -> EngineConfig {
    EngineConfig {
        seed: 1,
        persist,
        observe,
        ..EngineConfig::default()
    }
}

/// The two public dispatch entry points; both take JSON.
trait Dispatch {
    fn call(&mut self, action: &str, params: Value) -> Value;
    /// What a host does after every call: hand the changes to storage, drain the event feed.
    fn drain(&mut self);
}

impl Dispatch for Service {
    fn call(&mut self, action: &str, params: Value) -> Value {
        self.dispatch(NOW, &CallContext::default(), action, params)
            .unwrap_or_else(|e| panic!("{action}: {e:?}"))
    }
    fn drain(&mut self) {
        black_box(self.take_changes());
        black_box(self.take_events());
    }
}

impl Dispatch for Engine {
    fn call(&mut self, action: &str, params: Value) -> Value {
        aws_json::dispatch(self, NOW, &CallContext::default(), action, params)
            .unwrap_or_else(|e| panic!("{action}: {e:?}"))
    }
    fn drain(&mut self) {
        black_box(self.take_changes());
        black_box(self.take_events());
    }
}

fn create<D: Dispatch>(d: &mut D, fifo: bool) {
    let params = if fifo {
        json!({"QueueName": "bench.fifo", "Attributes": {"FifoQueue": "true"}})
    } else {
        json!({"QueueName": "bench"})
    };
    d.call("CreateQueue", params);
    d.drain();
}

fn handles(out: &Value) -> Vec<Value> {
    out["Messages"]
        .as_array()
        .map(|m| m.iter().map(|m| m["ReceiptHandle"].clone()).collect())
        .unwrap_or_default()
}

fn send_batch_params(url: &str, start: usize, group: Option<&str>) -> Value {
    let entries: Vec<Value> = (0..10)
        .map(|i| {
            let mut e = json!({"Id": format!("e{i}"), "MessageBody": format!("message body {}", start + i)});
            if let Some(g) = group {
                e["MessageGroupId"] = json!(g);
                e["MessageDeduplicationId"] = json!(format!("d{}", start + i));
            }
            e
        })
        .collect();
    json!({"QueueUrl": url, "Entries": entries})
}

/// One message per call: SendMessage, ReceiveMessage, DeleteMessage.
fn single_cycle<D: Dispatch>(d: &mut D, send: &Value, receive: &Value) {
    d.call("SendMessage", send.clone());
    let out = d.call("ReceiveMessage", receive.clone());
    for h in handles(&out) {
        d.call(
            "DeleteMessage",
            json!({"QueueUrl": STD_URL, "ReceiptHandle": h}),
        );
    }
    d.drain();
}

/// Ten messages per call: SendMessageBatch, ReceiveMessage(10), DeleteMessageBatch.
fn batch_cycle<D: Dispatch>(d: &mut D, send: &Value, receive: &Value) {
    d.call("SendMessageBatch", send.clone());
    let out = d.call("ReceiveMessage", receive.clone());
    let entries: Vec<Value> = handles(&out)
        .into_iter()
        .enumerate()
        .map(|(i, h)| json!({"Id": format!("d{i}"), "ReceiptHandle": h}))
        .collect();
    assert_eq!(entries.len(), 10, "batched cycle must move 10 messages");
    d.call(
        "DeleteMessageBatch",
        json!({"QueueUrl": STD_URL, "Entries": entries}),
    );
    d.drain();
}

/// Batch entry ids of the typed and JSON-text cycles (no `format!` in the timed loop).
const ENTRY_IDS: [&str; 10] = ["d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"];

fn typed_send_batch() -> SendMessageBatchRequest<'static> {
    SendMessageBatchRequest {
        queue_url: Some(STD_URL.into()),
        entries: Some(
            (0..10)
                .map(|i| SendMessageRequest {
                    id: Some(format!("e{i}").into()),
                    message_body: Some(format!("message body {i}").into()),
                    ..Default::default()
                })
                .collect(),
        ),
    }
}

/// Send entries' ids and bodies, for a caller that lends its strings.
const SEND_IDS: [&str; 10] = ["e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"];
const BODIES: [&str; 10] = [
    "message body 0",
    "message body 1",
    "message body 2",
    "message body 3",
    "message body 4",
    "message body 5",
    "message body 6",
    "message body 7",
    "message body 8",
    "message body 9",
];

/// The same batch with every string borrowed (`Cow::Borrowed`), as the JSON paths lend theirs
/// from the request text: cloning it copies no string, so the cycle counts the engine's own work.
fn lent_send_batch() -> SendMessageBatchRequest<'static> {
    SendMessageBatchRequest {
        queue_url: Some(STD_URL.into()),
        entries: Some(
            SEND_IDS
                .into_iter()
                .zip(BODIES)
                .map(|(id, body)| SendMessageRequest {
                    id: Some(id.into()),
                    message_body: Some(body.into()),
                    ..Default::default()
                })
                .collect(),
        ),
    }
}

fn typed_receive(max: i64) -> ReceiveMessageRequest {
    ReceiveMessageRequest {
        queue_url: Some(STD_URL.into()),
        max_number_of_messages: Some(max),
        ..Default::default()
    }
}

/// The batched cycle through the typed actions; the request is cloned as a caller builds one
/// (owning its strings unless `send` lends them, see `lent_send_batch`). Delete entry ids are
/// owned, as before, unless `lend_ids`.
fn typed_batch_cycle(svc: &mut Service, send: &SendMessageBatchRequest, lend_ids: bool) {
    let ctx = CallContext::default();
    let sent = svc.send_message_batch(NOW, &ctx, &send.clone());
    assert_eq!(sent.map(|s| s.successful.len()).ok(), Some(10));
    let out = svc
        .receive_message(NOW, &ctx, &typed_receive(10))
        .unwrap_or_else(|e| panic!("{e:?}"));
    delete_received(svc, &out, lend_ids);
}

/// The batched cycle of a caller that keeps its send and receive requests and refills the send
/// entries in place before each call, which the typed actions allow since they borrow their
/// requests: no request is built or dropped per call but the delete (its handles are new each
/// time). Strings lent, as in `lent_send_batch`.
fn kept_request_cycle(
    svc: &mut Service,
    send: &mut SendMessageBatchRequest,
    receive: &ReceiveMessageRequest,
) {
    let ctx = CallContext::default();
    for (entry, body) in send.entries.iter_mut().flatten().zip(BODIES) {
        entry.message_body = Some(body.into());
    }
    let sent = svc.send_message_batch(NOW, &ctx, send);
    assert_eq!(sent.map(|s| s.successful.len()).ok(), Some(10));
    let out = svc
        .receive_message(NOW, &ctx, receive)
        .unwrap_or_else(|e| panic!("{e:?}"));
    delete_received(svc, &out, true);
}

/// DeleteMessageBatch of every message of `out`, entries borrowing its handles.
fn delete_received(svc: &mut Service, out: &ReceiveMessageResponse, lend_ids: bool) {
    let ctx = CallContext::default();
    // Entries borrow the handles from the response, as a caller that deletes what it received can.
    let entries: Vec<ReceiptRequest> = out
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| ReceiptRequest {
            id: Some(match ENTRY_IDS.get(i).copied().unwrap_or("dx") {
                id if lend_ids => id.into(),
                id => id.to_string().into(),
            }),
            receipt_handle: Some(m.receipt_handle.as_str().into()),
            ..Default::default()
        })
        .collect();
    assert_eq!(entries.len(), 10, "batched cycle must move 10 messages");
    let deleted = svc.delete_message_batch(
        NOW,
        &ctx,
        &ReceiptBatchRequest {
            queue_url: Some(STD_URL.into()),
            entries: Some(entries),
        },
    );
    assert_eq!(deleted.map(|d| d.successful.len()).ok(), Some(10));
    svc.drain();
}

fn typed_single_cycle(svc: &mut Service, body: &str) {
    let ctx = CallContext::default();
    let send = SendMessageRequest {
        queue_url: Some(STD_URL.into()),
        message_body: Some(body.into()),
        ..Default::default()
    };
    svc.send_message(NOW, &ctx, &send)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let out = svc
        .receive_message(NOW, &ctx, &typed_receive(1))
        .unwrap_or_else(|e| panic!("{e:?}"));
    for m in &out.messages {
        let del = ReceiptRequest {
            queue_url: Some(STD_URL.into()),
            receipt_handle: Some(m.receipt_handle.as_str().into()),
            ..Default::default()
        };
        svc.delete_message(NOW, &ctx, &del)
            .unwrap_or_else(|e| panic!("{e:?}"));
    }
    svc.drain();
}

/// The receipt handles in a ReceiveMessage response's text (what a host's JSON.parse would
/// find; handles contain no characters JSON escapes).
fn text_handles(out: &str) -> Vec<&str> {
    const KEY: &str = "\"ReceiptHandle\":\"";
    out.match_indices(KEY)
        .filter_map(|(i, _)| {
            let rest = out.get(i + KEY.len()..)?;
            rest.find('"').and_then(|end| rest.get(..end))
        })
        .collect()
}

/// The batched cycle through `dispatch_json`: JSON text in and out, as a JS host calls it.
fn json_batch_cycle(svc: &mut Service, send: &str, receive: &str) {
    let ctx = CallContext::default();
    let call = |svc: &mut Service, action: &str, text: &str| {
        svc.dispatch_json(NOW, &ctx, action, text)
            .unwrap_or_else(|e| panic!("{action}: {e:?}"))
    };
    black_box(call(svc, "SendMessageBatch", send));
    let out = call(svc, "ReceiveMessage", receive);
    let mut delete = String::with_capacity(1024);
    delete.push_str("{\"QueueUrl\":\"");
    delete.push_str(STD_URL);
    delete.push_str("\",\"Entries\":[");
    let hs = text_handles(&out);
    assert_eq!(hs.len(), 10, "batched cycle must move 10 messages");
    for (i, h) in hs.iter().enumerate() {
        if i > 0 {
            delete.push(',');
        }
        delete.push_str("{\"Id\":\"");
        delete.push_str(ENTRY_IDS.get(i).copied().unwrap_or("dx"));
        delete.push_str("\",\"ReceiptHandle\":\"");
        delete.push_str(h);
        delete.push_str("\"}");
    }
    delete.push_str("]}");
    black_box(call(svc, "DeleteMessageBatch", &delete));
    svc.drain();
}

fn cycles(c: &mut Criterion) {
    let single_send = json!({"QueueUrl": STD_URL, "MessageBody": "message body 0"});
    let single_receive = json!({"QueueUrl": STD_URL, "MaxNumberOfMessages": 1});
    let batch_send = send_batch_params(STD_URL, 0, None);
    let batch_receive = json!({"QueueUrl": STD_URL, "MaxNumberOfMessages": 10});
    for (label, persist, observe) in [
        ("persist+observe", true, true),
        ("persist only", true, false),
        ("in-memory", false, false),
    ] {
        let mut g = c.benchmark_group(format!("cycle/{label}"));
        g.throughput(Throughput::Elements(1));
        let mut svc = Service::new(config(persist, observe));
        create(&mut svc, false);
        g.bench_function("single/Service::dispatch", |b| {
            b.iter(|| single_cycle(&mut svc, &single_send, &single_receive))
        });
        let mut eng = Engine::new(config(persist, observe));
        create(&mut eng, false);
        g.bench_function("single/aws_json::dispatch(Engine)", |b| {
            b.iter(|| single_cycle(&mut eng, &single_send, &single_receive))
        });
        g.throughput(Throughput::Elements(10));
        g.bench_function("batch10/Service::dispatch", |b| {
            b.iter(|| batch_cycle(&mut svc, &batch_send, &batch_receive))
        });
        g.bench_function("batch10/aws_json::dispatch(Engine)", |b| {
            b.iter(|| batch_cycle(&mut eng, &batch_send, &batch_receive))
        });
        let typed_send = typed_send_batch();
        g.bench_function("batch10/Service typed", |b| {
            b.iter(|| typed_batch_cycle(&mut svc, &typed_send, false))
        });
        let lent_send = lent_send_batch();
        g.bench_function("batch10/Service typed, strings lent", |b| {
            b.iter(|| typed_batch_cycle(&mut svc, &lent_send, true))
        });
        let (mut kept_send, kept_receive) = (lent_send_batch(), typed_receive(10));
        g.bench_function("batch10/Service typed, requests kept", |b| {
            b.iter(|| kept_request_cycle(&mut svc, &mut kept_send, &kept_receive))
        });
        let (send_text, receive_text) = (batch_send.to_string(), batch_receive.to_string());
        g.bench_function("batch10/Service::dispatch_json", |b| {
            b.iter(|| json_batch_cycle(&mut svc, &send_text, &receive_text))
        });
        g.throughput(Throughput::Elements(1));
        g.bench_function("single/Service typed", |b| {
            b.iter(|| typed_single_cycle(&mut svc, "message body 0"))
        });
        g.finish();
    }
}

/// One message of SQS's largest body (256 KiB) through the typed path: what the engine itself
/// copies of a body (the store's copy; the receive response's, until bodies were shared).
fn large_body(c: &mut Criterion) {
    let mut g = c.benchmark_group("cycle/in-memory/single, 256 KiB body");
    g.throughput(Throughput::Bytes(256 * 1024));
    let body = "x".repeat(256 * 1024);
    let mut svc = Service::new(config(false, false));
    create(&mut svc, false);
    g.bench_function("Service typed", |b| {
        b.iter(|| typed_single_cycle(&mut svc, &body))
    });
    g.finish();
}

/// A standard queue holding `n` visible messages (in-memory engine: the curve is about indexes).
fn standard_queue(n: usize) -> Service {
    let mut svc = Service::new(config(false, false));
    create(&mut svc, false);
    for start in (0..n).step_by(10) {
        svc.call("SendMessageBatch", send_batch_params(STD_URL, start, None));
    }
    svc
}

/// A FIFO queue with `groups` groups each locked by an in-flight message, and one group ready.
fn fifo_groups(groups: usize) -> Service {
    let mut svc = Service::new(config(false, false));
    create(&mut svc, true);
    for grp in 0..groups {
        svc.call(
            "SendMessage",
            json!({"QueueUrl": FIFO_URL, "MessageBody": "locked", "MessageGroupId": format!("g{grp}"), "MessageDeduplicationId": format!("l{grp}")}),
        );
    }
    let lock =
        json!({"QueueUrl": FIFO_URL, "MaxNumberOfMessages": 10, "VisibilityTimeout": 43_200});
    let mut locked = 0;
    while locked < groups {
        locked += handles(&svc.call("ReceiveMessage", lock.clone())).len();
    }
    svc.call(
        "SendMessageBatch",
        send_batch_params(FIFO_URL, 0, Some("ready")),
    );
    svc
}

fn receive_scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("receive10/standard queue of N");
    g.throughput(Throughput::Elements(10));
    // VisibilityTimeout 0 puts the ten back at the next call, so the queue keeps its size and
    // each iteration costs one receive plus ten visibility expiries.
    let receive = json!({"QueueUrl": STD_URL, "MaxNumberOfMessages": 10, "VisibilityTimeout": 0});
    for n in [1_000usize, 100_000, 1_000_000] {
        // Filled on first use, so a filtered run (`cargo bench -- cycle`) skips the setup.
        let mut svc = None;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let svc = svc.get_or_insert_with(|| standard_queue(n));
            b.iter(|| {
                let out = svc.call("ReceiveMessage", receive.clone());
                assert_eq!(handles(&out).len(), 10);
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("receive1/FIFO, N groups locked + 1 ready");
    g.throughput(Throughput::Elements(1));
    let receive = json!({"QueueUrl": FIFO_URL, "MaxNumberOfMessages": 1, "VisibilityTimeout": 0});
    for groups in [10usize, 1_000, 100_000] {
        let mut svc = None;
        g.bench_with_input(
            BenchmarkId::from_parameter(groups),
            &groups,
            |b, &groups| {
                let svc = svc.get_or_insert_with(|| fifo_groups(groups));
                b.iter(|| {
                    let out = svc.call("ReceiveMessage", receive.clone());
                    assert_eq!(handles(&out).len(), 1);
                })
            },
        );
    }
    g.finish();
}

/// The `RemoveMessages` entry naming an exported message (kept apart so the same loop can be
/// pointed at an older engine's parameter shape for a before/after run).
fn removal(m: &Value) -> Value {
    json!({"MessageId": m["MessageId"], "Sequence": m["Sequence"]})
}

/// One move-task step inside one engine, as the edge runs it between two: ExportMessages of the
/// ten oldest, ImportMessages of ten (fresh ids, so none is skipped), RemoveMessages of the ten
/// exported. The queue keeps its size, so every iteration sees `n` messages; each call used to
/// walk all of them (BENCHMARKS.md "ImportMessages and RemoveMessages on a large queue").
fn internal_step(svc: &mut Service, fresh: &mut u64) {
    let ctx = CallContext::default();
    let call = |svc: &mut Service, op: &str, params: Value| -> Value {
        let out = svc
            .internal(NOW, &ctx, op, &params.to_string())
            .expect("internal operation");
        serde_json::from_str(&out).expect("internal answers JSON")
    };
    let out = call(
        svc,
        "ExportMessages",
        json!({"QueueUrl": STD_URL, "MaxNumberOfMessages": 10}),
    );
    let exported = out["Messages"].as_array().expect("exported messages");
    let imports: Vec<Value> = exported
        .iter()
        .map(|m| {
            *fresh += 1;
            let mut m = m.clone();
            m["MessageId"] = json!(format!("00000000-0000-4000-8000-{:012x}", *fresh));
            m
        })
        .collect();
    let out = call(
        svc,
        "ImportMessages",
        json!({"QueueUrl": STD_URL, "Messages": imports}),
    );
    assert_eq!(out["Imported"], 10);
    let removals: Vec<Value> = exported.iter().map(removal).collect();
    let out = call(
        svc,
        "RemoveMessages",
        json!({"QueueUrl": STD_URL, "Messages": removals}),
    );
    assert_eq!(out["Removed"], 10);
    svc.take_changes();
}

fn internal_scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("move step of 10/standard queue of N");
    g.throughput(Throughput::Elements(10));
    for n in [10_000usize, 100_000, 1_000_000] {
        let mut svc = None;
        let mut fresh = 0u64;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let svc = svc.get_or_insert_with(|| standard_queue(n));
            b.iter(|| internal_step(svc, &mut fresh))
        });
    }
    g.finish();
}

/// Every record of a standard queue holding `n` messages, as storage holds them.
fn stored_records(n: usize) -> Vec<(String, Vec<u8>)> {
    let mut svc = Service::new(config(true, false));
    // Not `create`: its records must reach the store too.
    svc.call("CreateQueue", json!({"QueueName": "bench"}));
    let mut store: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for start in (0..n).step_by(10) {
        svc.call("SendMessageBatch", send_batch_params(STD_URL, start, None));
        let ch = svc.take_changes();
        for k in ch.del {
            store.remove(&k);
        }
        store.extend(ch.put);
    }
    let records: Vec<(String, Vec<u8>)> = store.into_iter().collect();
    let bytes: usize = records.iter().map(|(k, v)| k.len() + v.len()).sum();
    eprintln!(
        "restore: {} records, {bytes} bytes (keys + values) for {n} messages",
        records.len()
    );
    records
}

fn restore(c: &mut Criterion) {
    let n = 100_000;
    let mut g = c.benchmark_group("restore");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    let mut records = None;
    g.bench_function(BenchmarkId::new("Service::restore", n), |b| {
        let records = records.get_or_insert_with(|| stored_records(n));
        b.iter_batched(
            || records.clone(),
            |r| {
                let mut restored = Service::restore(config(true, false), r).expect("restore");
                assert!(restored
                    .receivable(NOW, &CallContext::default(), STD_URL)
                    .unwrap_or(false));
                restored
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = cycles, large_body, receive_scaling, internal_scaling, restore
}

/// `WASQ_FIXED_CYCLES=<n> WASQ_PATH=<dispatch|typed|typed-lent|typed-kept|json> WASQ_CONFIG=<persist+observe|persist
/// only|in-memory>`: run exactly n batched cycles on one path and exit, for
/// `perf stat -e instructions:u`. Instruction counts do not depend on what else the shared
/// machine runs, so paths compare cleanly when wall-clock figures swing by ±30 %.
fn fixed_cycles(n: usize) {
    let (persist, observe) = match std::env::var("WASQ_CONFIG").as_deref() {
        Ok("in-memory") => (false, false),
        Ok("persist only") => (true, false),
        _ => (true, true),
    };
    let mut svc = Service::new(config(persist, observe));
    create(&mut svc, false);
    let send = send_batch_params(STD_URL, 0, None);
    let receive = json!({"QueueUrl": STD_URL, "MaxNumberOfMessages": 10});
    let typed_send = typed_send_batch();
    let lent_send = lent_send_batch();
    let (mut kept_send, kept_receive) = (lent_send_batch(), typed_receive(10));
    let (send_text, receive_text) = (send.to_string(), receive.to_string());
    let path = std::env::var("WASQ_PATH").unwrap_or_default();
    for _ in 0..n {
        match path.as_str() {
            "typed" => typed_batch_cycle(&mut svc, &typed_send, false),
            "typed-lent" => typed_batch_cycle(&mut svc, &lent_send, true),
            "typed-kept" => kept_request_cycle(&mut svc, &mut kept_send, &kept_receive),
            "json" => json_batch_cycle(&mut svc, &send_text, &receive_text),
            "none" => {}
            _ => batch_cycle(&mut svc, &send, &receive),
        }
    }
}

fn main() {
    if let Some(n) = std::env::var("WASQ_FIXED_CYCLES")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        fixed_cycles(n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
