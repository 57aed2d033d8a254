//! The whole service a host runs: one [`Engine`] per region, created on first use.
//!
//! SQS namespaces queues by account and region; the wire protocol takes the region from the
//! SigV4 credential scope, so the same queue name in two regions is two queues. Each engine
//! owns one region; the service routes calls and prefixes storage keys with the region.

use crate::changes::Changes;
use crate::context::CallContext;
use crate::engine::queue_url::{json_queue_url, region_of_url};
use crate::engine::requests::{
    ReceiptBatchRequest, ReceiptRequest, ReceiveMessageRequest, SendMessageBatchRequest,
    SendMessageRequest,
};
use crate::engine::responses::{
    ChangeMessageVisibilityBatchResponse, DeleteMessageBatchResponse, EmptyResponse,
    ReceiveMessageResponse, SendMessageBatchResponse, SendMessageResponse,
};
use crate::engine::{Engine, EngineConfig, RestoreError};
use crate::error::SqsError;
use crate::events::Event;
use crate::protocol::aws_json;
/// One region's records, its prefix taken off the keys.
type Records<'a> = Vec<(&'a str, &'a [u8])>;

/// Every region's engine, behind one dispatch entry point.
#[derive(Debug)]
pub struct Service {
    config: EngineConfig,
    realism: Option<crate::engine::Realism>,
    /// One engine per region, sorted by region: iteration (ticks, changes, events) runs in
    /// region order. A list, not a map: there are few regions, a lookup needs no owned key (a
    /// `BTreeMap<String, _>` lookup made every call allocate the region), and every map type is
    /// more code in the wasm.
    engines: Vec<Engine>,
    /// Where the default region's engine is in `engines`, once it exists: most calls name no
    /// region, and finding it by a search compared region names three times a message cycle.
    default_at: Option<usize>,
    event_feed: bool,
}

impl Service {
    /// An empty service. `config.region` is the default region for calls that name none.
    pub fn new(config: EngineConfig) -> Self {
        Service {
            config,
            realism: None,
            engines: Vec::new(),
            default_at: None,
            event_feed: true,
        }
    }

    /// Rebuild a service from every record its storage holds (the union of all `Changes` applied).
    pub fn restore<I>(config: EngineConfig, records: I) -> Result<Self, RestoreError>
    where
        I: IntoIterator<Item = (String, Vec<u8>)>,
    {
        let records: Vec<(String, Vec<u8>)> = records.into_iter().collect();
        Self::restore_borrowed(
            config,
            records.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        )
    }

    /// [`Service::restore`] over records the caller keeps (the wasm reads them in place from
    /// the one buffer JS hands over): each record is looked at where it lies, never copied.
    pub fn restore_borrowed<'a, I>(config: EngineConfig, records: I) -> Result<Self, RestoreError>
    where
        I: IntoIterator<Item = (&'a str, &'a [u8])>,
    {
        // A list, not a map: there are few regions, and every map type is more code in the wasm.
        let mut by_region: Vec<(&'a str, Records<'a>)> = Vec::new();
        for (key, value) in records {
            let Some((region, rest)) = key.split_once('/') else {
                return Err(RestoreError::Corrupt(format!(
                    "record key {} has no region",
                    crate::error::quoted(key)
                )));
            };
            match by_region.iter_mut().find(|(r, _)| *r == region) {
                Some((_, list)) => list.push((rest, value)),
                None => by_region.push((region, vec![(rest, value)])),
            }
        }
        let mut engines = Vec::with_capacity(by_region.len());
        // In region order, as before, so that the first of several errors is the same one.
        while let Some(first) = (0..by_region.len()).min_by_key(|i| by_region.get(*i).map(|r| r.0))
        {
            let (region, records) = by_region.swap_remove(first);
            let cfg = EngineConfig {
                region: region.to_string(),
                ..config.clone()
            };
            engines.push(Engine::restore(cfg, records)?);
        }
        let default_at = engines
            .iter()
            .position(|e| e.config().region == config.region);
        Ok(Service {
            config,
            realism: None,
            engines,
            default_at,
            event_feed: true,
        })
    }

    /// The configuration every engine is created with (its `region` is the default region).
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The engine of a region (the default region when `None`), created on the region's first use.
    fn engine_mut(&mut self, region: Option<&str>) -> &mut Engine {
        if region.is_none() {
            if let Some(i) = self.default_at.filter(|&i| i < self.engines.len()) {
                return self.counted(i);
            }
        }
        let region = region.unwrap_or(&self.config.region);
        let at = self
            .engines
            .binary_search_by(|e| e.config().region.as_str().cmp(region));
        let i = match at {
            Ok(i) => i,
            Err(i) => {
                let cfg = EngineConfig {
                    region: region.to_string(),
                    ..self.config.clone()
                };
                let mut engine = Engine::new(cfg);
                engine.set_realism(None, self.realism.clone());
                engine.set_event_feed(self.event_feed);
                self.engines.insert(i, engine);
                if let Some(d) = self.default_at.as_mut().filter(|d| **d >= i) {
                    *d += 1;
                }
                i
            }
        };
        if region == self.config.region {
            self.default_at = Some(i);
        }
        self.counted(i)
    }

    /// The engine at `i`, told what the others hold: the stored-bytes bound is the service's
    /// (engine/stored.rs), so that a region of its own per call cannot multiply it.
    fn counted(&mut self, i: usize) -> &mut Engine {
        if self.engines.len() > 1 {
            let all: u64 = self.engines.iter().map(Engine::stored_bytes).sum();
            let own = self.engines[i].stored_bytes();
            self.engines[i].set_stored_elsewhere(all - own);
        }
        &mut self.engines[i]
    }

    /// Run one SQS action (`"SendMessage"`, …) with its AWS JSON 1.0 parameters.
    pub fn dispatch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, SqsError> {
        let url = params.get("QueueUrl").and_then(serde_json::Value::as_str);
        let routed = self.routed(ctx, url);
        let ctx = routed.as_ref().unwrap_or(ctx);
        aws_json::dispatch(self.engine_of(ctx), now, ctx, action, params)
    }

    /// `dispatch` with JSON text in and out, without a `serde_json::Value` on the way for the
    /// message actions: byte for byte what `dispatch(now, ctx, action,
    /// aws_json::read_json_params(params_json)?)` and `to_string()` give (see
    /// [`aws_json::dispatch_json`]).
    pub fn dispatch_json(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params_json: &str,
    ) -> Result<String, SqsError> {
        let routed = self.routed_json(ctx, params_json);
        let ctx = routed.as_ref().unwrap_or(ctx);
        aws_json::dispatch_json(self.engine_of(ctx), now, ctx, action, params_json)
    }

    /// `dispatch_json` with the host's own reading of text the fast path does not take (see
    /// [`aws_json::dispatch_json_with`]).
    pub fn dispatch_json_with(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params_json: &str,
        read: impl Fn(&str) -> Result<serde_json::Value, SqsError>,
    ) -> Result<String, SqsError> {
        let routed = self.routed_json(ctx, params_json);
        let ctx = routed.as_ref().unwrap_or(ctx);
        aws_json::dispatch_json_with(self.engine_of(ctx), now, ctx, action, params_json, read)
    }

    /// An internal operation (not an SQS action; see `engine/import.rs`) in the call's region.
    pub fn internal(
        &mut self,
        now: u64,
        ctx: &CallContext,
        op: &str,
        params_json: &str,
    ) -> Result<String, SqsError> {
        // Every region's numbers at once (`metrics_json`), through this one entry point rather
        // than an export of its own: each export costs the package its glue.
        if op == "Metrics" {
            return Ok(self.metrics_json(now));
        }
        self.engine_of(ctx).internal(now, op, params_json)
    }

    /// SendMessage in the call's region.
    pub fn send_message(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &SendMessageRequest<'_>,
    ) -> Result<SendMessageResponse, SqsError> {
        let routed = self.routed(ctx, req.queue_url.as_deref());
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).send_message(now, ctx, req)
    }

    /// SendMessageBatch in the call's region.
    pub fn send_message_batch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &SendMessageBatchRequest<'_>,
    ) -> Result<SendMessageBatchResponse, SqsError> {
        let routed = self.routed(ctx, req.queue_url.as_deref());
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).send_message_batch(now, ctx, req)
    }

    /// ReceiveMessage in the call's region.
    pub fn receive_message(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &ReceiveMessageRequest,
    ) -> Result<ReceiveMessageResponse, SqsError> {
        let routed = self.routed(ctx, req.queue_url.as_deref());
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).receive_message(now, req)
    }

    /// DeleteMessage in the call's region.
    pub fn delete_message(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &ReceiptRequest<'_>,
    ) -> Result<EmptyResponse, SqsError> {
        let routed = self.routed(ctx, req.queue_url.as_deref());
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).delete_message(now, req)
    }

    /// DeleteMessageBatch in the call's region.
    pub fn delete_message_batch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &ReceiptBatchRequest<'_>,
    ) -> Result<DeleteMessageBatchResponse, SqsError> {
        let routed = self.routed(ctx, req.queue_url.as_deref());
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).delete_message_batch(now, req)
    }

    /// ChangeMessageVisibility in the call's region.
    pub fn change_message_visibility(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &ReceiptRequest<'_>,
    ) -> Result<EmptyResponse, SqsError> {
        let routed = self.routed(ctx, req.queue_url.as_deref());
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).change_message_visibility(now, req)
    }

    /// ChangeMessageVisibilityBatch in the call's region.
    pub fn change_message_visibility_batch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: &ReceiptBatchRequest<'_>,
    ) -> Result<ChangeMessageVisibilityBatchResponse, SqsError> {
        let routed = self.routed(ctx, req.queue_url.as_deref());
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx)
            .change_message_visibility_batch(now, req)
    }

    /// The context to run a call naming `url` in, when the URL names another region than the
    /// call's and this service has an engine there: a queue URL reaches its queue whatever region
    /// the client signed for (issue #33 item 5, `engine/queue_url.rs`). `None`: the call's own.
    /// A region no engine holds is not created from a URL: the call's engine answers that the
    /// queue does not exist.
    fn routed(&self, ctx: &CallContext, url: Option<&str>) -> Option<CallContext> {
        let region = url.and_then(region_of_url)?;
        let own = ctx.region.as_deref().unwrap_or(&self.config.region);
        if region == own || !self.engines.iter().any(|e| e.config().region == region) {
            return None;
        }
        Some(CallContext {
            region: Some(region.to_string()),
            ..ctx.clone()
        })
    }

    /// `routed` for a JSON body, read only when another region's engine exists: a service of one
    /// region (nearly every host) answers without scanning the body for its QueueUrl.
    fn routed_json(&self, ctx: &CallContext, params_json: &str) -> Option<CallContext> {
        let own = ctx.region.as_deref().unwrap_or(&self.config.region);
        if self.engines.iter().all(|e| e.config().region == own) {
            return None;
        }
        self.routed(ctx, json_queue_url(params_json).as_deref())
    }

    /// The engine of the call's region.
    fn engine_of(&mut self, ctx: &CallContext) -> &mut Engine {
        self.engine_mut(ctx.region.as_deref())
    }

    /// The engine of a region, creating it if this is the region's first use.
    pub fn engine(&mut self, region: Option<&str>) -> &mut Engine {
        self.engine_mut(region)
    }

    /// Apply everything due at `now` in every region (visibility expiries, delays, retention, moves).
    pub fn tick(&mut self, now: u64) {
        for engine in &mut self.engines {
            engine.tick(now);
        }
    }

    /// The earliest moment at which some engine has work to do, if any.
    pub fn next_deadline(&self) -> Option<u64> {
        self.engines.iter().filter_map(Engine::next_deadline).min()
    }

    /// Durable changes since the last call, keys prefixed with `<region>/`.
    pub fn take_changes(&mut self) -> Changes {
        let mut all = Changes::default();
        self.drain_changes(&mut all);
        all
    }

    /// `take_changes` into any sink (e.g. [`crate::changes::PackedBatch`]), region by region.
    pub fn drain_changes(&mut self, sink: &mut dyn crate::changes::ChangeSink) {
        for engine in &mut self.engines {
            engine.drain_changes_in_region(sink);
        }
    }

    /// A read-only view of one queue: every message and its state (see [`crate::peek`]).
    pub fn peek(
        &mut self,
        now: u64,
        ctx: &CallContext,
        queue_url: &str,
    ) -> Result<serde_json::Value, SqsError> {
        let routed = self.routed(ctx, Some(queue_url));
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).peek(now, ctx, queue_url)
    }

    /// Every queue's numbers in every region at `now`, as one JSON array (see
    /// [`Engine::metrics_json`]).
    pub fn metrics_json(&mut self, now: u64) -> String {
        let mut out = String::from("[");
        for engine in &mut self.engines {
            engine.write_metrics(now, &mut out);
        }
        out.push(']');
        out
    }

    /// `peek` as JSON text (what the `Value` prints as).
    pub fn peek_text(
        &mut self,
        now: u64,
        ctx: &CallContext,
        queue_url: &str,
    ) -> Result<String, SqsError> {
        let routed = self.routed(ctx, Some(queue_url));
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).peek_text(now, ctx, queue_url)
    }

    /// Would a ReceiveMessage on this queue return something at `now`? Long polling asks this
    /// after every call instead of retrying receives.
    pub fn receivable(
        &mut self,
        now: u64,
        ctx: &CallContext,
        queue_url: &str,
    ) -> Result<bool, SqsError> {
        let routed = self.routed(ctx, Some(queue_url));
        let ctx = routed.as_ref().unwrap_or(ctx);
        self.engine_of(ctx).receivable(now, queue_url)
    }

    /// Realism mode for every region (`queue: None`) or one queue of a region, by name; see
    /// [`crate::engine::Realism`]. It also applies to regions first used later.
    pub fn set_realism(
        &mut self,
        region: Option<&str>,
        queue: Option<&str>,
        realism: Option<crate::engine::Realism>,
    ) {
        match (region, queue) {
            (None, None) => {
                self.realism = realism.clone();
                for engine in &mut self.engines {
                    engine.set_realism(None, realism.clone());
                }
            }
            (region, queue) => self.engine(region).set_realism(queue, realism),
        }
    }

    /// Collect events for `take_events` (the default) or not, in every region, present and future.
    /// A host turns the feed off while nobody listens; `peek` keeps working either way.
    pub fn set_event_feed(&mut self, on: bool) {
        self.event_feed = on;
        for engine in &mut self.engines {
            engine.set_event_feed(on);
        }
    }

    /// Events since the last call, in order within each region.
    pub fn take_events(&mut self) -> Vec<Event> {
        let mut all = Vec::new();
        for engine in &mut self.engines {
            all.extend(engine.take_events());
        }
        all
    }
}
