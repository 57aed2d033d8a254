//! The wasm-bindgen layer: JS-facing classes over [`crate::Service`], compiled only for wasm32.
//!
//! Kept thin on purpose: every rule lives in the Rust core or in the JS wrapper
//! (`pkg-template/src/`). This layer only converts values at the boundary and turns
//! [`crate::SqsError`] into real JS `Error` objects.
//!
//! Two classes cross, each in its own file: [`WasqCore`] (`core.rs`), one engine, and
//! [`RecordsBuffer`] (`records_buffer.rs`), the room a restore's records are written into. The
//! rest are helpers. What crosses, and how:
//!
//! - **Actions**, one way: `WasqCore.dispatch`. JS encodes the action's name and its AWS JSON
//!   parameters with `TextEncoder` straight into a scratch buffer in wasm memory (`ioBuffer`) and
//!   decodes the JSON answer from where it lies (`ioAddress`); `pkg-template/src/io.js` is the one
//!   JS function that does it, for every caller. The engine's internal operations (moving
//!   messages between engines) take the same way, flagged. Measured against wasm-bindgen's own
//!   string passing, which allocates in the wasm for every string and copies ASCII in JS a
//!   character at a time, this is ~10 % more cycles a CPU-second.
//! - **HTTP**, one way: a request is its head (method, path, query and header names and values,
//!   NUL-separated, one string) and its body (bytes); a response is `{status, head, body}`
//!   (`http.rs`). `handleHttp` runs a request where it is read; `admitHttp` and `dispatchParsed`
//!   are the same door in two halves, for the edge Worker, which reads a request in one place
//!   and runs it in a Durable Object.
//! - **Storage records and change batches**: one byte buffer each (`records.rs`).
//! - **Constructor options and call contexts**: plain objects, read field by field (`convert.rs`).
//! - **Other structured values** (events, `peek`, realism settings, the engine's facts): JSON
//!   text, because the core already speaks `serde_json::Value`.
//! - **Errors**: real JS `Error`s named after the SQS error shape (`error.rs`); a panic is a
//!   `WasqInternalError` (`panic.rs`).

mod alloc;
#[cfg(feature = "bench-swb")]
mod bench_swb;
mod convert;
mod core;
mod error;
mod facts;
mod http;
mod panic;
mod records;
mod records_buffer;

pub use self::core::WasqCore;
pub use self::records_buffer::RecordsBuffer;
