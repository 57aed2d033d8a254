//! # wasq: Amazon SQS's queue semantics as a deterministic engine
//!
//! The engine is a state machine. It never reads a clock (every call is given `now`, epoch
//! milliseconds) and never draws randomness (message ids and receipt handles come from a seed
//! given at construction), so the same seed and the same calls give byte-identical results.
//!
//! ```text
//!   SendMessage ──► delayed ──(delay ends)──► stored ──ReceiveMessage──► in flight ──DeleteMessage──► deleted
//!                                               ▲                            │
//!                                               └──(visibility timeout ends)─┤
//!                                                                            └─(maxReceiveCount)──► dead-letter queue
//! ```
//!
//! Time-driven behaviour has no timers: the engine reports [`Service::next_deadline`] and applies
//! everything due when it is next given a later `now` ([`Service::tick`] or any call). Every
//! mutating call leaves its durable [`Changes`] for the host to persist atomically before it
//! answers, and [`Service::restore`] rebuilds the state from those records.
#![warn(missing_docs)]

mod base64url;
pub mod changes;
pub mod context;
pub mod digest;
pub mod engine;
pub mod error;
pub mod events;
mod hex;
mod json_text;
pub mod maps;
pub mod model;
pub mod protocol;
pub mod service;
#[cfg(feature = "test-hooks")]
mod test_hooks;
pub mod validate;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
mod words;

pub use changes::Changes;
pub use context::CallContext;
pub use engine::{Engine, EngineConfig, Realism, RestoreError, Throttling};
pub use error::SqsError;
pub use events::{Event, EventKind};
pub use maps::SortedMap;
pub use service::Service;
