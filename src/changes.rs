//! The durable changes one operation made, handed to a storage adapter as one atomic batch.

/// Records to write and keys to remove. Applying every `Changes` in order to an empty key/value
/// store and handing the result to `Service::restore` rebuilds the same state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Keys to set, with their new values. A key appears at most once.
    pub put: Vec<(String, Vec<u8>)>,
    /// Keys to remove. Never also in `put`.
    pub del: Vec<String>,
}

impl Changes {
    /// Nothing to persist.
    pub fn is_empty(&self) -> bool {
        self.put.is_empty() && self.del.is_empty()
    }
}
