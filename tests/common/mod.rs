//! Test harness for the scenario suites: one `Service`, a manual clock, and a key/value store that
//! receives every `take_changes()` batch, so any test can restore a second service at any point.
//!
//! Every helper goes through the public API only (`Service::dispatch`, `tick`, `peek`, ...).
#![allow(dead_code)]

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use wasq::{CallContext, EngineConfig, Service, SqsError};

/// An arbitrary but fixed epoch-ms start, far from 0 so timestamp arithmetic is exercised.
pub const T0: u64 = 1_700_000_000_000;
pub const ACCOUNT: &str = "000000000000";
pub const REGION: &str = "us-east-1";
/// Eight distinct actions AddPermission can grant: one more than a statement may hold.
pub const GRANTABLE_ACTIONS: [&str; 8] = [
    "SendMessage",
    "ReceiveMessage",
    "DeleteMessage",
    "ChangeMessageVisibility",
    "GetQueueAttributes",
    "GetQueueUrl",
    "ListDeadLetterSourceQueues",
    "PurgeQueue",
];

pub struct Sqs {
    pub svc: Service,
    pub now: u64,
    pub ctx: CallContext,
    pub config: EngineConfig,
    /// Every change batch applied in order, as a storage adapter would.
    pub store: BTreeMap<String, Vec<u8>>,
    /// Number of change batches applied (lets tests see that a call persisted something).
    pub batches: usize,
}

impl Default for Sqs {
    fn default() -> Self {
        Self::new()
    }
}

impl Sqs {
    pub fn new() -> Self {
        Self::with_config(EngineConfig {
            seed: 42,
            ..EngineConfig::default()
        })
    }

    pub fn with_config(config: EngineConfig) -> Self {
        Sqs {
            svc: Service::new(config.clone()),
            now: T0,
            ctx: CallContext::default(),
            config,
            store: BTreeMap::new(),
            batches: 0,
        }
    }

    /// Pull pending changes into the store. Called after every successful helper call.
    pub fn sync(&mut self) {
        let ch = self.svc.take_changes();
        if !ch.is_empty() {
            self.batches += 1;
        }
        for (k, v) in ch.put {
            self.store.insert(k, v);
        }
        for k in ch.del {
            self.store.remove(&k);
        }
    }

    /// A new service rebuilt from the store alone.
    pub fn restored(&mut self) -> Sqs {
        self.sync();
        let svc = Service::restore(self.config.clone(), self.store.clone())
            .unwrap_or_else(|e| panic!("restore failed: {e}"));
        Sqs {
            svc,
            now: self.now,
            ctx: self.ctx.clone(),
            config: self.config.clone(),
            store: self.store.clone(),
            batches: self.batches,
        }
    }

    pub fn call(&mut self, action: &str, params: Value) -> Result<Value, SqsError> {
        let r = self.svc.dispatch(self.now, &self.ctx, action, params);
        self.sync();
        r
    }

    /// One of the internal transfer operations (`Service::internal`), its answer parsed.
    pub fn internal(&mut self, op: &str, params: Value) -> Result<Value, SqsError> {
        let r = self
            .svc
            .internal(self.now, &self.ctx, op, &params.to_string());
        self.sync();
        r.map(|text| serde_json::from_str(&text).expect("internal answers JSON"))
    }

    pub fn ok(&mut self, action: &str, params: Value) -> Value {
        match self.call(action, params.clone()) {
            Ok(v) => v,
            Err(e) => panic!("{action} {params} failed: {} {}", e.shape(), e.message()),
        }
    }

    /// Run a call that must fail, and check it changed nothing durable.
    pub fn err(&mut self, action: &str, params: Value) -> SqsError {
        self.sync();
        let r = self
            .svc
            .dispatch(self.now, &self.ctx, action, params.clone());
        let ch = self.svc.take_changes();
        match r {
            Ok(v) => panic!("{action} {params} succeeded unexpectedly: {v}"),
            Err(e) => {
                assert!(
                    ch.is_empty(),
                    "{action} failed with {} but persisted changes: {ch:?}",
                    e.shape()
                );
                e
            }
        }
    }

    /// `err`, plus: the queue looks exactly the same through `peek` before and after.
    pub fn err_unchanged(&mut self, url: &str, action: &str, params: Value) -> SqsError {
        let before = self.peek(url);
        let e = self.err(action, params);
        let after = self.peek(url);
        assert_eq!(before, after, "{action} failed but the queue changed");
        e
    }

    pub fn url(name: &str) -> String {
        format!("http://localhost:9324/queue/{REGION}/{ACCOUNT}/{name}")
    }

    pub fn arn(name: &str) -> String {
        format!("arn:aws:sqs:{REGION}:{ACCOUNT}:{name}")
    }

    pub fn create(&mut self, name: &str, attrs: Value) -> String {
        let mut p = json!({ "QueueName": name });
        if attrs.as_object().is_some_and(|m| !m.is_empty()) {
            p["Attributes"] = attrs;
        }
        let r = self.ok("CreateQueue", p);
        let url = r["QueueUrl"].as_str().expect("QueueUrl").to_string();
        let region = self.ctx.region.as_deref().unwrap_or(REGION);
        assert_eq!(url, Self::url(name).replace(REGION, region));
        url
    }

    pub fn create_fifo(&mut self, name: &str, extra: Value) -> String {
        let mut attrs = json!({ "FifoQueue": "true" });
        if let Some(m) = extra.as_object() {
            for (k, v) in m {
                attrs[k] = v.clone();
            }
        }
        self.create(name, attrs)
    }

    pub fn send(&mut self, url: &str, body: &str) -> Value {
        self.ok(
            "SendMessage",
            json!({ "QueueUrl": url, "MessageBody": body }),
        )
    }

    /// SendMessage with extra parameters merged in.
    pub fn send_with(&mut self, url: &str, body: &str, extra: Value) -> Value {
        let mut p = json!({ "QueueUrl": url, "MessageBody": body });
        merge(&mut p, extra);
        self.ok("SendMessage", p)
    }

    pub fn send_fifo(&mut self, url: &str, group: &str, dedup: &str, body: &str) -> Value {
        self.send_with(
            url,
            body,
            json!({ "MessageGroupId": group, "MessageDeduplicationId": dedup }),
        )
    }

    /// Short-poll receive of up to `max` messages, all attributes requested.
    pub fn receive(&mut self, url: &str, max: u32) -> Vec<Value> {
        self.receive_with(url, json!({ "MaxNumberOfMessages": max }))
    }

    pub fn receive_with(&mut self, url: &str, extra: Value) -> Vec<Value> {
        let mut p = json!({
            "QueueUrl": url,
            "WaitTimeSeconds": 0,
            "MessageSystemAttributeNames": ["All"],
            "MessageAttributeNames": ["All"],
        });
        merge(&mut p, extra);
        let r = self.ok("ReceiveMessage", p);
        messages(&r)
    }

    pub fn delete(&mut self, url: &str, handle: &str) {
        self.ok(
            "DeleteMessage",
            json!({ "QueueUrl": url, "ReceiptHandle": handle }),
        );
    }

    pub fn change_visibility(
        &mut self,
        url: &str,
        handle: &str,
        secs: u64,
    ) -> Result<Value, SqsError> {
        self.call(
            "ChangeMessageVisibility",
            json!({ "QueueUrl": url, "ReceiptHandle": handle, "VisibilityTimeout": secs }),
        )
    }

    /// Move the clock forward and apply everything due.
    pub fn advance(&mut self, ms: u64) {
        self.now += ms;
        self.svc.tick(self.now);
        self.sync();
    }

    pub fn advance_secs(&mut self, s: u64) {
        self.advance(s * 1000);
    }

    pub fn attrs(&mut self, url: &str) -> Map<String, Value> {
        let r = self.ok(
            "GetQueueAttributes",
            json!({ "QueueUrl": url, "AttributeNames": ["All"] }),
        );
        r["Attributes"].as_object().cloned().unwrap_or_default()
    }

    pub fn attr(&mut self, url: &str, name: &str) -> Option<String> {
        self.attrs(url)
            .get(name)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    }

    pub fn set_attrs(&mut self, url: &str, attrs: Value) {
        self.ok(
            "SetQueueAttributes",
            json!({ "QueueUrl": url, "Attributes": attrs }),
        );
    }

    /// (ApproximateNumberOfMessages, …NotVisible, …Delayed).
    pub fn counts(&mut self, url: &str) -> (u64, u64, u64) {
        let a = self.attrs(url);
        let n = |k: &str| -> u64 {
            a.get(k)
                .and_then(|v| v.as_str())
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{k} missing or not an integer string: {a:?}"))
        };
        (
            n("ApproximateNumberOfMessages"),
            n("ApproximateNumberOfMessagesNotVisible"),
            n("ApproximateNumberOfMessagesDelayed"),
        )
    }

    pub fn peek(&mut self, url: &str) -> Value {
        let ctx = self.ctx.clone();
        match self.svc.peek(self.now, &ctx, url) {
            Ok(v) => v,
            Err(e) => panic!("peek {url}: {} {}", e.shape(), e.message()),
        }
    }

    /// peek's messages that are in the given state.
    pub fn peek_state(&mut self, url: &str, state: &str) -> Vec<Value> {
        let p = self.peek(url);
        p["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|m| m["state"] == state)
            .collect()
    }

    pub fn receivable(&mut self, url: &str) -> bool {
        let ctx = self.ctx.clone();
        self.svc
            .receivable(self.now, &ctx, url)
            .unwrap_or_else(|e| panic!("receivable: {}", e.message()))
    }

    /// Events as JSON (the serialized form hosts see), drained.
    pub fn events(&mut self) -> Vec<Value> {
        self.svc
            .take_events()
            .into_iter()
            .map(|e| serde_json::to_value(e).expect("event serializes"))
            .collect()
    }

    /// Just the `type` of each drained event, for sequence assertions.
    pub fn event_types(&mut self) -> Vec<String> {
        self.events()
            .iter()
            .map(|e| e["type"].as_str().unwrap_or("?").to_string())
            .collect()
    }
}

pub fn merge(into: &mut Value, extra: Value) {
    if let (Some(dst), Value::Object(src)) = (into.as_object_mut(), extra) {
        for (k, v) in src {
            dst.insert(k, v);
        }
    }
}

pub fn messages(r: &Value) -> Vec<Value> {
    r.get("Messages")
        .and_then(|m| m.as_array())
        .cloned()
        .unwrap_or_default()
}

pub fn bodies(msgs: &[Value]) -> Vec<String> {
    msgs.iter()
        .map(|m| m["Body"].as_str().unwrap_or("?").to_string())
        .collect()
}

pub fn handle(m: &Value) -> String {
    m["ReceiptHandle"]
        .as_str()
        .expect("ReceiptHandle")
        .to_string()
}

pub fn sys_attr(m: &Value, name: &str) -> Option<String> {
    m["Attributes"][name].as_str().map(str::to_string)
}

pub fn receive_count(m: &Value) -> u32 {
    sys_attr(m, "ApproximateReceiveCount")
        .and_then(|s| s.parse().ok())
        .expect("ApproximateReceiveCount")
}

/// Assert an error's JSON shape and exact message.
#[track_caller]
pub fn assert_err(e: &SqsError, shape: &str, message: &str) {
    assert_eq!(e.shape(), shape, "shape of {e:?}");
    assert_eq!(e.message(), message, "message of {e:?}");
}

pub fn md5_hex(bytes: &[u8]) -> String {
    use md5::{Digest, Md5};
    let d = Md5::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compare `got` with the recorded transcript `tests/<name>` (first differing line named), or
/// rewrite the file when `WASQ_BLESS` is set: the answers a change must leave byte-identical.
pub fn assert_transcript(name: &str, got: &str) {
    let path = format!("{}/tests/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("WASQ_BLESS").is_some() {
        std::fs::write(&path, got).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {} of {path}", i + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count(), "{path}: lines");
    assert_eq!(got, want, "{path}");
}

/// The receipt handles of a ReceiveMessage answer.
pub fn handles(out: &Value) -> Vec<String> {
    out["Messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|m| m["ReceiptHandle"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
