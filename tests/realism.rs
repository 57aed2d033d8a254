//! Realism mode: each knob happens at its configured rate, the same seed reproduces the same
//! sequence, and consumer code written the way users write it breaks the way it breaks on AWS.

use serde_json::{json, Value};
use wasq::{CallContext, EngineConfig, Realism, Service, SqsError, Throttling};

const T0: u64 = 1_700_000_000_000;

struct Q {
    svc: Service,
    now: u64,
    ctx: CallContext,
}

impl Q {
    fn new(seed: u64, realism: Realism) -> Self {
        let mut svc = Service::new(EngineConfig {
            seed,
            ..Default::default()
        });
        svc.set_realism(None, None, Some(realism));
        Q {
            svc,
            now: T0,
            ctx: CallContext::default(),
        }
    }

    fn call(&mut self, action: &str, params: Value) -> Result<Value, SqsError> {
        self.svc.dispatch(self.now, &self.ctx, action, params)
    }

    fn create(&mut self, name: &str, attrs: Value) -> String {
        self.call(
            "CreateQueue",
            json!({"QueueName": name, "Attributes": attrs}),
        )
        .unwrap()["QueueUrl"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn send(&mut self, url: &str, body: &str) {
        self.call("SendMessage", json!({"QueueUrl": url, "MessageBody": body}))
            .unwrap();
    }

    fn receive(&mut self, url: &str, max: u32, wait: u32) -> Vec<Value> {
        self.call(
            "ReceiveMessage",
            json!({"QueueUrl": url, "MaxNumberOfMessages": max, "WaitTimeSeconds": wait}),
        )
        .unwrap()
        .get("Messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    }

    fn delete(&mut self, url: &str, m: &Value) {
        self.call(
            "DeleteMessage",
            json!({"QueueUrl": url, "ReceiptHandle": m["ReceiptHandle"]}),
        )
        .unwrap();
    }

    fn events_of(&mut self, kind: &str) -> usize {
        self.svc
            .take_events()
            .iter()
            .filter(|e| serde_json::to_value(e).unwrap()["type"] == kind)
            .count()
    }
}

fn body(m: &Value) -> String {
    m["Body"].as_str().unwrap().to_string()
}

/// Consume everything with long polls (sampling never hides messages from long polls),
/// deleting each delivery; returns bodies in delivery order.
fn drain(q: &mut Q, url: &str) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let got = q.receive(url, 10, 1);
        if got.is_empty() {
            return out;
        }
        for m in got {
            out.push(body(&m));
            q.delete(url, &m);
        }
    }
}

#[test]
fn duplicate_delivery_happens_at_the_configured_rate_and_only_on_standard_queues() {
    let realism = Realism {
        duplicate_delivery: 0.2,
        ..Default::default()
    };
    let mut q = Q::new(11, realism);
    let url = q.create("std", json!({}));
    let n = 2_000;
    for i in 0..n {
        q.send(&url, &format!("m{i}"));
    }
    let delivered = drain(&mut q, &url);
    let dups = delivered.len() - n;
    // Binomial(2000, 0.2): mean 400, sd ~18; ±5 sd.
    assert!((310..=490).contains(&dups), "{dups} duplicates");
    assert_eq!(q.events_of("duplicate-delivered"), dups);
    // Every message arrives at least once.
    let mut unique = delivered.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), n);

    let fifo = q.create(
        "f.fifo",
        json!({"FifoQueue": "true", "ContentBasedDeduplication": "true"}),
    );
    for i in 0..200 {
        q.call(
            "SendMessage",
            json!({"QueueUrl": fifo, "MessageBody": format!("f{i}"), "MessageGroupId": "g"}),
        )
        .unwrap();
    }
    assert_eq!(drain(&mut q, &fifo).len(), 200, "never duplicated on FIFO");
}

#[test]
fn the_same_seed_reproduces_the_identical_sequence() {
    let run = |seed: u64| {
        let mut q = Q::new(seed, Realism::aws());
        let url = q.create("q", json!({}));
        for i in 0..300 {
            q.send(&url, &format!("m{i}"));
        }
        let mut seen = Vec::new();
        for _ in 0..60 {
            for m in q.receive(&url, 10, 0) {
                seen.push(body(&m));
                q.delete(&url, &m);
            }
            q.now += 1_000;
        }
        seen
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

#[test]
fn reorder_shuffles_standard_queues_and_a_consumer_that_assumes_order_breaks() {
    let mut q = Q::new(
        3,
        Realism {
            reorder: true,
            ..Default::default()
        },
    );
    let url = q.create("q", json!({}));
    for i in 0..100 {
        q.send(&url, &format!("{i:03}"));
    }
    let got = drain(&mut q, &url);
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted.len(), 100);
    // A consumer that checks "each message comes after the previous one" finds inversions.
    let inversions = got.windows(2).filter(|w| w[0] > w[1]).count();
    assert!(inversions > 20, "{inversions} inversions: {got:?}");

    // Without realism the same workload is strictly oldest first.
    let mut exact = Q::new(3, Realism::default());
    let url = exact.create("q", json!({}));
    for i in 0..100 {
        exact.send(&url, &format!("{i:03}"));
    }
    let got = drain(&mut exact, &url);
    assert_eq!(got, sorted);
}

#[test]
fn short_poll_sampling_returns_fewer_and_a_naive_consumer_stops_early() {
    let mut q = Q::new(
        9,
        Realism {
            short_poll_sampling: 0.5,
            ..Default::default()
        },
    );
    let url = q.create("q", json!({}));
    for i in 0..20 {
        q.send(&url, &format!("m{i}"));
    }
    // Over many short polls of 10 from a queue that always holds ≥ 10, about half come back.
    let mut returned = 0usize;
    let polls = 200;
    for _ in 0..polls {
        let got = q.receive(&url, 10, 0);
        returned += got.len();
        for m in &got {
            // Release at once so the queue keeps its 20 visible messages.
            q.call(
                "ChangeMessageVisibility",
                json!({"QueueUrl": url, "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}),
            )
            .unwrap();
        }
    }
    let mean = returned as f64 / polls as f64;
    assert!((4.0..=6.0).contains(&mean), "mean {mean} per poll");
    assert!(q.events_of("sampled-out") > 0);

    // A consumer that treats an empty short poll as "queue empty" stops with messages left.
    let mut naive = Q::new(
        21,
        Realism {
            short_poll_sampling: 0.5,
            ..Default::default()
        },
    );
    let url = naive.create("q", json!({}));
    naive.send(&url, "only");
    naive.send(&url, "two");
    let mut processed = 0;
    let mut stopped_early = false;
    for _attempt in 0..50 {
        let mut local = 0;
        loop {
            let got = naive.receive(&url, 10, 0);
            if got.is_empty() {
                break; // "queue is empty"
            }
            for m in got {
                local += 1;
                naive.delete(&url, &m);
            }
        }
        processed += local;
        let left: u64 = naive
            .call(
                "GetQueueAttributes",
                json!({"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]}),
            )
            .unwrap()["Attributes"]["ApproximateNumberOfMessages"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        if left > 0 {
            stopped_early = true;
            break;
        }
        naive.send(&url, "again");
        naive.send(&url, "again2");
    }
    assert!(
        stopped_early,
        "after {processed} messages the naive consumer never stopped early"
    );
    // A long poll sees everything.
    assert!(!drain(&mut naive, &url).is_empty());
}

#[test]
fn throttling_refuses_past_the_fifo_quota_and_a_producer_with_backoff_delivers_all() {
    let realism = Realism {
        throttling: Some(Throttling::default()),
        ..Default::default()
    };
    let mut q = Q::new(1, realism);
    let url = q.create("f.fifo", json!({"FifoQueue": "true"}));
    let send = |q: &mut Q, i: usize| {
        q.call(
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": format!("m{i}"), "MessageGroupId": "g", "MessageDeduplicationId": format!("d{i}")}),
        )
    };
    // A producer without retries: 400 sends within one second; SQS allows 300.
    let mut lost = 0;
    for i in 0..400 {
        match send(&mut q, i) {
            Ok(_) => {}
            Err(e) => {
                assert_eq!(e.shape(), "RequestThrottled");
                assert_eq!(e.message(), "Rate exceeded");
                lost += 1;
            }
        }
    }
    assert_eq!(lost, 100);
    assert_eq!(q.events_of("throttled"), 100);

    // A producer that retries with backoff (as the AWS SDK does) delivers everything.
    q.now += 1_000;
    let mut delivered = 0;
    for i in 1_000..1_400 {
        let mut backoff = 50;
        loop {
            match send(&mut q, i) {
                Ok(_) => {
                    delivered += 1;
                    break;
                }
                Err(e) if e.shape() == "RequestThrottled" => {
                    q.now += backoff;
                    backoff = (backoff * 2).min(1_000);
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
    assert_eq!(delivered, 400);
    // Batches count as one call each: 3,000 messages a second fit.
    q.now += 1_000;
    for b in 0..300 {
        let entries: Vec<Value> = (0..10)
            .map(|k| json!({"Id": format!("e{k}"), "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": format!("b{b}-{k}")}))
            .collect();
        q.call(
            "SendMessageBatch",
            json!({"QueueUrl": url, "Entries": entries}),
        )
        .unwrap();
    }
    let standard = q.create("std", json!({}));
    for i in 0..1_000 {
        q.send(&standard, &format!("s{i}"));
    }
}

#[test]
fn realism_can_be_set_for_one_queue_only() {
    let mut q = Q::new(2, Realism::default());
    let noisy = q.create("noisy", json!({}));
    let quiet = q.create("quiet", json!({}));
    q.svc.set_realism(
        None,
        Some("noisy"),
        Some(Realism {
            duplicate_delivery: 1.0,
            ..Default::default()
        }),
    );
    q.send(&noisy, "a");
    q.send(&quiet, "b");
    assert_eq!(drain(&mut q, &noisy), vec!["a", "a"]);
    assert_eq!(drain(&mut q, &quiet), vec!["b"]);
}
