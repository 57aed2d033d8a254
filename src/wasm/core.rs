//! `WasqCore`: one [`Service`] behind the JS wrapper's `Engine`.
//!
//! Every method takes the clock reading from JS (`now`, epoch ms) because the core never reads a
//! clock. Mutating calls leave their changes and events in the service; the wrapper drains them
//! with `takeChanges` / `takeEvents` after each call, so a failed storage commit can be handled in
//! JS before anything is shown to the caller.

use super::error::{range_error, restore_error, sqs_error, type_error};
use super::packed::{Records, RecordsBuffer};
use super::{convert, http};
use crate::changes::PackedBatch;
use crate::context::CallContext;
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
    /// `dispatchIo`'s scratch buffer: the action and its parameters written in by JS. Strings
    /// passed the ordinary way cost an allocation each (action, parameters, answer), and the
    /// bindings copy ASCII into the wasm a character at a time in JS.
    io: Vec<u8>,
    /// `dispatchIo`'s last answer, read by JS from [`WasqCore::io_address`]. Kept apart from
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
    /// packed into one `Uint8Array` (the records layout of `packed.rs`). The wrapper restores
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

    /// Run one SQS action with its AWS JSON parameters (JSON text); answers JSON text.
    /// Throws an `Error` named after the SQS error shape.
    pub fn dispatch(
        &mut self,
        now: f64,
        action: &str,
        params_json: &str,
        context: JsValue,
    ) -> Result<String, JsValue> {
        let now = convert::now(now)?;
        let ctx = convert::context(&context)?;
        // The typed path for message actions: no serde_json::Value tree either way.
        self.service
            .dispatch_json(now, &ctx, action, params_json)
            .map_err(|e| sqs_error(&e))
    }

    /// `dispatch` through the scratch buffer: JS writes the action's name (`action_len` bytes)
    /// and then its parameters (`params_len` bytes, AWS JSON) at [`WasqCore::io_buffer`]; the
    /// answer is left at [`WasqCore::io_address`], and its length is returned. Throws like `dispatch`.
    #[wasm_bindgen(js_name = dispatchIo)]
    pub fn dispatch_io(
        &mut self,
        now: f64,
        action_len: usize,
        params_len: usize,
        context: JsValue,
    ) -> Result<usize, JsValue> {
        let now = convert::now(now)?;
        let ctx = convert::context(&context)?;
        let end = action_len.saturating_add(params_len);
        let (action, params) = self
            .io
            .get(..end)
            .map(|written| written.split_at(action_len.min(end)))
            .ok_or_else(|| range_error("dispatchIo: more bytes than the buffer holds"))?;
        // TextEncoder writes valid UTF-8 (a lone surrogate as U+FFFD), as the ordinary string
        // passing does; anything else is a caller's bug, not an SQS request.
        let text = |b| std::str::from_utf8(b).map_err(|_| type_error("dispatchIo: not UTF-8"));
        let out = self
            .service
            .dispatch_json(now, &ctx, text(action)?, text(params)?)
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
        // Every byte up to the length is initialised, so the slice `dispatch_io` reads is plain
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

    /// Where `dispatchIo` left its answer (valid until the next call into the core).
    #[wasm_bindgen(js_name = ioAddress)]
    pub fn io_address(&self) -> usize {
        self.answer.as_ptr() as usize
    }

    /// The wasm memory, for JS to write into and read from [`WasqCore::io_buffer`].
    pub fn memory() -> JsValue {
        wasm_bindgen::memory()
    }

    /// An internal operation that moves messages between engines with their identity
    /// (`ExportMessages`, `ImportMessages`, `RemoveMessages`; see `engine/import.rs`). Not an SQS
    /// action: no protocol entry reaches it. JSON text in and out; throws like `dispatch`.
    pub fn internal(
        &mut self,
        now: f64,
        op: &str,
        params_json: &str,
        context: JsValue,
    ) -> Result<String, JsValue> {
        let now = convert::now(now)?;
        let ctx = convert::context(&context)?;
        self.service
            .internal(now, &ctx, op, params_json)
            .map_err(|e| sqs_error(&e))
    }

    /// Answer one HTTP request (AWS JSON 1.0 or Query) through the protocol layer:
    /// `{method, path, query, headers: [name, value][], body}` → `{status, headers, body}`.
    /// SQS errors become error responses, not exceptions; only malformed JS values throw.
    #[wasm_bindgen(js_name = handleHttp)]
    pub fn handle_http(
        &mut self,
        now: f64,
        request: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = convert::now(now)?;
        let req = http::request(&request)?;
        let opts = http::options(&options)?;
        let id = self.next_request_id();
        http::response(protocol::handle(&mut self.service, now, &req, &opts, &id))
    }

    /// Admit and read an HTTP request without running it: `{protocol: "json" | "query", action,
    /// params (AWS JSON text), context}`, or `{response}` when it is refused (size, signature,
    /// unknown action, malformed parameters), answered as `handleHttp` would. A host that runs
    /// requests elsewhere hands the parsed form to `dispatchParsed` there, so each is read once.
    #[wasm_bindgen(js_name = admitHttp)]
    pub fn admit_http(
        &mut self,
        now: f64,
        request: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = convert::now(now)?;
        let req = http::request(&request)?;
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

    /// Run a request `admitHttp` read: `{status, headers, body}` as `handleHttp` answers it.
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
        http::response(res)
    }

    /// What the protocol layer reads from a request's headers: `{region?, host?, scheme?,
    /// traceHeader?, senderId?}`, usable as the context of later calls for the same caller.
    #[wasm_bindgen(js_name = requestContext)]
    pub fn request_context(&self, request: JsValue) -> Result<JsValue, JsValue> {
        convert::context_to_js(&protocol::call_context(&http::request(&request)?))
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

    /// The durable changes since the last call as one batch buffer (the layout of `packed.rs`),
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
}

impl WasqCore {
    fn next_request_id(&mut self) -> String {
        self.requests = self.requests.wrapping_add(1);
        protocol::request_id(self.seed, self.requests)
    }
}
