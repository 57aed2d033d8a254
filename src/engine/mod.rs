//! TEMPORARY skeleton so hosts compile while the engine is written; replaced in the next commit.
use crate::changes::Changes;
use crate::context::CallContext;
use crate::error::SqsError;
use crate::events::Event;

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Seed for message ids and receipt handles.
    pub seed: u64,
    /// Region of this engine.
    pub region: String,
    /// Account id (12 digits).
    pub account_id: String,
    /// Host used in queue URLs when the call names none.
    pub default_host: String,
    /// Standard queue in-flight limit.
    pub standard_inflight_limit: usize,
    /// FIFO queue in-flight limit.
    pub fifo_inflight_limit: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            seed: 0,
            region: "us-east-1".into(),
            account_id: "000000000000".into(),
            default_host: "localhost:9324".into(),
            standard_inflight_limit: 120_000,
            fifo_inflight_limit: 120_000,
        }
    }
}

/// Restore failure.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// Corrupt store.
    #[error("corrupt store: {0}")]
    Corrupt(String),
    /// Store written by a newer format.
    #[error("unsupported store format version {found} (this build reads up to {supported})")]
    UnsupportedVersion {
        /// found
        found: u32,
        /// supported
        supported: u32,
    },
}

/// Engine.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
}

impl Engine {
    /// New.
    pub fn new(config: EngineConfig) -> Self {
        Engine { config }
    }
    /// Restore.
    pub fn restore(config: EngineConfig, _records: Vec<(String, Vec<u8>)>) -> Result<Self, RestoreError> {
        Ok(Engine { config })
    }
    /// Dispatch.
    pub fn dispatch(&mut self, _now: u64, _ctx: &CallContext, action: &str, _params: serde_json::Value) -> Result<serde_json::Value, SqsError> {
        let _ = &self.config;
        Err(SqsError::UnknownOperation(format!("not yet: {action}")))
    }
    /// Tick.
    pub fn tick(&mut self, _now: u64) {}
    /// Next deadline.
    pub fn next_deadline(&self) -> Option<u64> { None }
    /// Changes.
    pub fn take_changes(&mut self) -> Changes { Changes::default() }
    /// Events.
    pub fn take_events(&mut self) -> Vec<Event> { Vec::new() }
    /// Peek.
    pub fn peek(&mut self, _now: u64, _ctx: &CallContext, _url: &str) -> Result<serde_json::Value, SqsError> { Err(SqsError::QueueDoesNotExist) }
    /// Receivable.
    pub fn receivable(&mut self, _now: u64, _url: &str) -> Result<bool, SqsError> { Err(SqsError::QueueDoesNotExist) }
}
