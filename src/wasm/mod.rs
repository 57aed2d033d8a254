//! The wasm-bindgen layer: JS-facing classes over [`crate::Service`], compiled only for wasm32.
//!
//! Kept thin on purpose: every rule lives in the Rust core or in the JS wrapper
//! (`pkg-template/src/`). This layer only converts values at the boundary and turns
//! [`crate::SqsError`] into real JS `Error` objects. Structured values cross as JSON text
//! because the core already speaks `serde_json::Value` and `JSON.parse` is faster than
//! walking objects through the bindgen boundary.

mod alloc;
#[cfg(feature = "bench-swb")]
mod bench_swb;
mod convert;
mod core;
mod error;
mod facts;
mod http;
mod packed;
mod panic;
mod realism;

pub use self::core::WasqCore;
