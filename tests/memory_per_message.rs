//! Memory the engine holds per stored message beyond its body and attributes, measured with a
//! counting global allocator (its own test binary, so no other test or benchmark pays for the
//! counting). Target (issue #2, BENCHMARKS.md): at most 150 bytes on a standard queue.
//!
//! `cargo test --release --test memory_per_message -- --nocapture` prints the figures.

use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use wasq::{CallContext, EngineConfig, Service};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts requested bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const N: usize = 100_000;
const NOW: u64 = 1_700_000_000_000;

/// Bytes held per message after sending `N` of them, minus the body bytes.
fn overhead(persist: bool, observe: bool, fifo: bool) -> f64 {
    let mut svc = Service::new(EngineConfig {
        seed: 3,
        persist,
        observe,
        ..EngineConfig::default()
    });
    let ctx = CallContext::default();
    let (name, attrs) = if fifo {
        ("mem.fifo", json!({"FifoQueue": "true"}))
    } else {
        ("mem", json!({}))
    };
    let out = svc
        .dispatch(
            NOW,
            &ctx,
            "CreateQueue",
            json!({"QueueName": name, "Attributes": attrs}),
        )
        .expect("CreateQueue");
    let url = out["QueueUrl"].as_str().unwrap_or_default().to_string();
    svc.take_changes();
    svc.take_events();
    let before = LIVE.load(Ordering::Relaxed);
    let mut body_bytes = 0usize;
    for start in (0..N).step_by(10) {
        let entries: Vec<Value> = (start..start + 10)
            .map(|i| {
                let body = format!("body {i:08}");
                body_bytes += body.len();
                let mut e = json!({"Id": format!("e{}", i % 10), "MessageBody": body});
                if fifo {
                    // 100 groups; every message has its own deduplication id, which the
                    // engine must keep for five minutes.
                    e["MessageGroupId"] = json!(format!("g{}", i % 100));
                    e["MessageDeduplicationId"] = json!(format!("d{i}"));
                }
                e
            })
            .collect();
        svc.dispatch(
            NOW,
            &ctx,
            "SendMessageBatch",
            json!({"QueueUrl": url, "Entries": entries}),
        )
        .expect("SendMessageBatch");
        // A host hands these to storage at once; they are not the engine's to keep.
        drop(svc.take_changes());
        drop(svc.take_events());
    }
    let held = LIVE.load(Ordering::Relaxed) - before;
    let per = (held as f64 - body_bytes as f64) / N as f64;
    eprintln!(
        "{} queue, persist {persist}, observe {observe}: {held} bytes for {N} messages ({body_bytes} body bytes): {per:.1} bytes/message beyond the body",
        if fifo { "FIFO" } else { "standard" }
    );
    drop(svc);
    per
}

/// One test, not two: tests run on parallel threads and would count each other's allocations.
#[test]
fn a_stored_message_costs_at_most_150_bytes_beyond_its_body() {
    let standard = overhead(true, true, false);
    let in_memory = overhead(false, false, false);
    let fifo = overhead(true, true, true);
    assert!(
        standard <= 150.0 && in_memory <= 150.0,
        "standard queue: {standard:.1} bytes/message (persist+observe), {in_memory:.1} (in-memory); target 150"
    );
    // FIFO has no target of its own: it also keeps a deduplication entry per message for five
    // minutes, and every FIFO message has a group and a deduplication id in its boxed extra.
    // This holds the figure reached so that it does not creep back up: 338 B with 100 groups and
    // explicit ids, then 349 once bodies were shared with receive responses (a reference count
    // in each body's allocation, +11 B; BENCHMARKS.md "Native engine → Ninth session").
    assert!(
        fifo <= 355.0,
        "FIFO queue: {fifo:.1} bytes/message; held at 355"
    );
}
