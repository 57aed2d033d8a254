//! `WasqCore`: one [`Service`] behind the JS wrapper's `Engine`. Every method the class exports
//! is in this file; what crosses the boundary, and how, is said in `mod.rs`.
//!
//! Every method takes the clock reading from JS (`now`, epoch ms) because the core never reads a
//! clock. Mutating calls leave their changes and events in the service; the wrapper drains them
//! with `takeChanges` / `takeEvents` after each call, so a failed storage commit can be handled in
//! JS before anything is shown to the caller.

use super::error::{range_error, restore_error, sqs_error, type_error};
use super::records::Records;
use super::records_buffer::RecordsBuffer;
use super::{convert, facts, http};
use crate::changes::PackedBatch;
use crate::context::CallContext;
use crate::engine::{Realism, SettingError};
use crate::protocol;
use crate::service::Service;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// The engine state of one JS `Engine`.
#[wasm_bindgen]
pub struct WasqCore {
    pub(crate) service: Service,
    seed: u64,
    /// Counts HTTP requests so each gets a distinct, seed-derived request id.
    requests: u64,
    /// `dispatch`'s scratch buffer: the action and its parameters written in by JS. Strings
    /// passed the ordinary way cost an allocation each (action, parameters, answer), and the
    /// bindings copy ASCII into the wasm a character at a time in JS: a cycle through them runs
    /// ~10 % slower (`scripts/bench-compare.sh`, CPU time).
    io: Vec<u8>,
    /// `dispatch`'s last answer, read by JS from [`WasqCore::io_address`]. Kept apart from
    /// `io`, so that `io` keeps its initialised length from call to call: when the answer
    /// became the scratch buffer, every call zeroed the room between the answer's length and
    /// the next request's (`Vec::extend_with`, 1.6 % of a batched cycle).
    answer: Vec<u8>,
}

/// Above this, a buffer left from a large call is given back when a small one comes.
const IO_KEEP: usize = 64 * 1024;

#[wasm_bindgen]
impl WasqCore {
    /// `new WasqCore(options?, records?)`: a fresh engine, or one restored from storage records
    /// packed into one `Uint8Array` (the records layout of `records.rs`). The wrapper restores
    /// through [`WasqCore::restore`] instead, which saves copying the records once more.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, records: JsValue) -> Result<WasqCore, JsValue> {
        if records.is_undefined() || records.is_null() {
            let config = convert::config(&options)?;
            let seed = config.seed;
            return Ok(WasqCore {
                service: Service::new(config),
                seed,
                requests: 0,
                io: Vec::new(),
                answer: Vec::new(),
            });
        }
        let bytes = records
            .dyn_ref::<Uint8Array>()
            .ok_or_else(|| type_error("records must be a Uint8Array of packed records"))?
            .to_vec();
        WasqCore::restore(options, RecordsBuffer::from(bytes))
    }

    /// `WasqCore.restore(options, records)`: an engine restored from the records JS wrote into a
    /// [`RecordsBuffer`], which this consumes.
    pub fn restore(options: JsValue, records: RecordsBuffer) -> Result<WasqCore, JsValue> {
        let config = convert::config(&options)?;
        let seed = config.seed;
        let bytes = records.into_bytes();
        let mut records = Records::new(&bytes);
        let restored = Service::restore_borrowed(config, &mut records);
        // A malformed buffer ends the records early, so its reason wins over what the restore
        // made of the partial list.
        if let Some(why) = records.error() {
            return Err(type_error(why));
        }
        Ok(WasqCore {
            service: restored.map_err(|e| restore_error(&e))?,
            seed,
            requests: 0,
            io: Vec::new(),
            answer: Vec::new(),
        })
    }

    /// `WasqCore.recordsBuffer(size)`: room in the wasm memory for `size` bytes of packed
    /// records, for JS to write into through its `view()` and hand to [`WasqCore::restore`].
    #[wasm_bindgen(js_name = recordsBuffer)]
    pub fn records_buffer(size: usize) -> Result<RecordsBuffer, JsValue> {
        RecordsBuffer::new(size).ok_or_else(|| range_error("no memory for the stored records"))
    }

    /// The seed in use (drawn at construction when none was given), so a rebuild can reuse it.
    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The one way in for actions: JS writes the action's name (`name_len` bytes) and then its
    /// AWS JSON parameters (`params_len` bytes) at [`WasqCore::io_buffer`]; the answer, AWS JSON
    /// text, is left at [`WasqCore::io_address`], and its length is returned. Throws an `Error`
    /// named after the SQS error shape. With `internal`, the name is one of the engine's internal
    /// operations: `Metrics`, or `ExportMessages`, `ImportMessages` and `RemoveMessages`, which
    /// move messages between engines with their identity (`engine/import.rs`). They are no SQS
    /// actions: no protocol entry reaches them, and the wrapper's public `dispatch` never sets
    /// the flag.
    pub fn dispatch(
        &mut self,
        now: f64,
        name_len: usize,
        params_len: usize,
        context: JsValue,
        internal: bool,
    ) -> Result<usize, JsValue> {
        let now = convert::now(now)?;
        let ctx = convert::context(&context)?;
        let end = name_len.saturating_add(params_len);
        let (name, params) = self
            .io
            .get(..end)
            .map(|written| written.split_at(name_len.min(end)))
            .ok_or_else(|| range_error("dispatch: more bytes than the buffer holds"))?;
        // TextEncoder writes valid UTF-8 (a lone surrogate as U+FFFD), as the ordinary string
        // passing does; anything else is a caller's bug, not an SQS request.
        let text = |b| std::str::from_utf8(b).map_err(|_| type_error("dispatch: not UTF-8"));
        let (name, params) = (text(name)?, text(params)?);
        let out = if internal {
            self.service.internal(now, &ctx, name, params)
        } else {
            // The typed path for message actions: no serde_json::Value tree either way.
            self.service.dispatch_json(now, &ctx, name, params)
        }
        .map_err(|e| sqs_error(&e))?;
        // The answer's own buffer is kept as it is: one allocation a call, no copy.
        self.answer = out.into_bytes();
        Ok(self.answer.len())
    }

    /// The scratch buffer's address in wasm memory, with room for at least `size` bytes. The
    /// address is valid until the next call into the core (which may move or grow it).
    #[wasm_bindgen(js_name = ioBuffer)]
    pub fn io_buffer(&mut self, size: usize) -> Result<usize, JsValue> {
        if self.io.capacity() > IO_KEEP && size < IO_KEEP {
            self.io = Vec::new();
        }
        // A large answer is not held on to past the call that reads it.
        if self.answer.capacity() > IO_KEEP {
            self.answer = Vec::new();
        }
        // Every byte up to the length is initialised, so the slice `dispatch` reads is plain
        // bytes whatever JS wrote. Only growth is zeroed: the last request's bytes may stay, and
        // zeroing the whole room on every call was a memset per call for nothing.
        if let Some(more) = size.checked_sub(self.io.len()).filter(|&n| n > 0) {
            self.io
                .try_reserve(more)
                .map_err(|_| range_error("no memory for the call's parameters"))?;
            self.io.resize(size, 0);
        }
        Ok(self.io.as_mut_ptr() as usize)
    }

    /// Where `dispatch` left its answer (valid until the next call into the core).
    #[wasm_bindgen(js_name = ioAddress)]
    pub fn io_address(&self) -> usize {
        self.answer.as_ptr() as usize
    }

    /// The wasm memory, for JS to write into and read from [`WasqCore::io_buffer`].
    pub fn memory() -> JsValue {
        wasm_bindgen::memory()
    }

    /// Answer one HTTP request (AWS JSON 1.0 or Query) through the protocol layer: its head
    /// (`method\0path\0query(\0name\0value)*`) and body in, `{status, head, body}` out (the
    /// forms of `http.rs`). SQS errors become error responses, not exceptions; only malformed
    /// arguments throw.
    #[wasm_bindgen(js_name = handleHttp)]
    pub fn handle_http(
        &mut self,
        now: f64,
        head: &str,
        body: Vec<u8>,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = convert::now(now)?;
        let req = http::request(head, body)?;
        let opts = http::options(&options)?;
        let id = self.next_request_id();
        Ok(http::response(protocol::handle(
            &mut self.service,
            now,
            &req,
            &opts,
            &id,
        )))
    }

    /// `handleHttp` in two halves, for a host that reads a request in one place and runs it in
    /// another (the edge Worker and its objects): admit and read the request (the same arguments)
    /// without running it. Answers `{protocol: "json" | "query", action, params (AWS JSON text),
    /// context}`, or `{response}` when it is refused (size, signature, unknown action, malformed
    /// parameters), answered as `handleHttp` would. The other half is [`WasqCore::dispatch_parsed`].
    #[wasm_bindgen(js_name = admitHttp)]
    pub fn admit_http(
        &mut self,
        now: f64,
        head: &str,
        body: Vec<u8>,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = convert::now(now)?;
        let req = http::request(head, body)?;
        let opts = http::options(&options)?;
        match protocol::admit(now, &req, &opts) {
            Ok(parsed) => http::parsed_to_js(&parsed),
            Err(e) => {
                let id = self.next_request_id();
                let res = protocol::error_response(protocol::protocol_of(&req), &e, &id);
                http::refusal(res)
            }
        }
    }

    /// Run a request `admitHttp` read: `{status, head, body}` as `handleHttp` answers it.
    /// `requestId` is echoed; without one the core draws its own, as `handleHttp` does.
    #[wasm_bindgen(js_name = dispatchParsed)]
    pub fn dispatch_parsed(
        &mut self,
        now: f64,
        parsed: JsValue,
        request_id: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let now = convert::now(now)?;
        let (protocol, action, params, ctx) = http::parsed(&parsed)?;
        let id = request_id.unwrap_or_else(|| self.next_request_id());
        let res = match protocol::Parsed::from_text(protocol, &action, params, ctx) {
            Ok(p) => protocol::dispatch_parsed(&mut self.service, now, p, &id),
            Err(e) => protocol::error_response(protocol, &e, &id),
        };
        Ok(http::response(res))
    }

    /// What the protocol layer reads from a request's head: `{region?, host?, scheme?,
    /// traceHeader?, senderId?}`, usable as the context of later calls for the same caller.
    #[wasm_bindgen(js_name = requestContext)]
    pub fn request_context(&self, head: &str) -> Result<JsValue, JsValue> {
        convert::context_to_js(&protocol::call_context(&http::request(head, Vec::new())?))
    }

    /// Apply everything due at `now` (visibility expiries, delay ends, retention).
    pub fn tick(&mut self, now: f64) -> Result<(), JsValue> {
        self.service.tick(convert::now(now)?);
        Ok(())
    }

    /// When the engine next has time-driven work (epoch ms), or `undefined`.
    #[wasm_bindgen(js_name = nextDeadline)]
    pub fn next_deadline(&self) -> Option<f64> {
        // Deadlines are clock readings, which came in as JS numbers, so they fit in f64 exactly.
        self.service.next_deadline().map(|d| d as f64)
    }

    /// The durable changes since the last call as one batch buffer (the layout of `records.rs`),
    /// or `undefined` when there are none.
    #[wasm_bindgen(js_name = takeChanges)]
    pub fn take_changes(&mut self) -> Result<Option<Vec<u8>>, JsValue> {
        let mut batch = PackedBatch::default();
        self.service.drain_changes(&mut batch);
        batch
            .finish()
            .map_err(|_| type_error("a storage record is 4 GiB or larger"))
    }

    /// Collect events for `takeEvents` (the default) or not: the wrapper turns this off while no
    /// one listens, so calls skip formatting events that would be thrown away.
    #[wasm_bindgen(js_name = setEventFeed)]
    pub fn set_event_feed(&mut self, on: bool) {
        self.service.set_event_feed(on);
    }

    /// Events since the last call, as a JSON array.
    #[wasm_bindgen(js_name = takeEvents)]
    pub fn take_events(&mut self) -> String {
        crate::events::to_json(&self.service.take_events())
    }

    /// A read-only view of one queue and its messages, as JSON text.
    pub fn peek(&mut self, now: f64, queue_url: &str, context: JsValue) -> Result<String, JsValue> {
        let now = convert::now(now)?;
        let ctx = convert::context(&context)?;
        self.service
            .peek_text(now, &ctx, queue_url)
            .map_err(|e| sqs_error(&e))
    }

    /// Would a ReceiveMessage on the queue return something at `now`? (Long polling asks this.)
    pub fn receivable(
        &mut self,
        now: f64,
        queue_url: &str,
        context: JsValue,
    ) -> Result<bool, JsValue> {
        let now = convert::now(now)?;
        let ctx: CallContext = convert::context(&context)?;
        self.service
            .receivable(now, &ctx, queue_url)
            .map_err(|e| sqs_error(&e))
    }

    /// Realism for the whole engine (`queue` undefined) or one queue by name, from the JSON
    /// text of a setting (`"aws"`, an object of knobs, null or false; undefined: off, or drop
    /// the queue's override). It is read and checked once, by [`Realism::from_setting`]: the JS
    /// wrapper only writes the text. `options`: it came as `new Engine({ realism })`, which
    /// messages name `options.realism` (else `realism`); `region` defaults to the engine's.
    /// Answers the settings now in force there as JSON, or undefined for off. A refused setting
    /// throws a `TypeError` or a `RangeError` and changes nothing.
    #[wasm_bindgen(js_name = setRealism)]
    pub fn set_realism(
        &mut self,
        queue: Option<String>,
        setting: Option<String>,
        region: Option<String>,
        options: bool,
    ) -> Result<Option<String>, JsValue> {
        let what = if options {
            "options.realism"
        } else {
            "realism"
        };
        let realism = match setting {
            None => None,
            Some(text) => {
                Realism::from_setting(&text, what, queue.is_some()).map_err(|e| match e {
                    SettingError::Type(m) => type_error(&m),
                    SettingError::Range(m) => range_error(&m),
                })?
            }
        };
        let text = realism.as_ref().map(Realism::to_json);
        self.service
            .set_realism(region.as_deref(), queue.as_deref(), realism);
        Ok(text)
    }

    /// The realism settings in force for a queue (its override, else the engine's), as JSON.
    #[wasm_bindgen(js_name = realismFor)]
    pub fn realism_for(&mut self, queue: &str, region: Option<String>) -> String {
        self.service
            .engine(region.as_deref())
            .realism_for(queue)
            .to_json()
    }

    /// What the Worker would otherwise restate, as JSON (see `facts.rs`).
    #[wasm_bindgen(js_name = engineFacts)]
    pub fn engine_facts() -> String {
        facts::engine_facts()
    }

    /// Whether a batch's entry ids (a JSON array) pass the engine's shape check (see `facts.rs`).
    #[wasm_bindgen(js_name = batchIdsValid)]
    pub fn batch_ids_valid(ids_json: &str) -> bool {
        facts::batch_ids_valid(ids_json)
    }
}

impl WasqCore {
    fn next_request_id(&mut self) -> String {
        self.requests = self.requests.wrapping_add(1);
        protocol::request_id(self.seed, self.requests)
    }
}
