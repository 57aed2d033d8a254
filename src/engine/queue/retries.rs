//! What a FIFO queue remembers to answer a client's retries as it answered the first try: the
//! deduplication keys of recent sends (held in `dedup`'s table) and recent receives, cached by
//! their ReceiveRequestAttemptId.

use super::{DedupEntry, Queue};

/// A cached FIFO receive, replayed for a retry with the same ReceiveRequestAttemptId. Persisted:
/// a client retries exactly when it lost the answer, which a restart may have caused.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Attempt {
    pub(crate) expires_at: u64,
    pub(crate) deliveries: Vec<(u64, u32)>,
    /// Record number (`a/<queue>/<n>`).
    pub(crate) n: u64,
}

impl Queue {
    /// Deduplication key for a FIFO message under the queue's creation-time scope.
    pub(crate) fn dedup_key(&self, group: &str, dedup_id: &str) -> String {
        if self.dedup_per_group {
            format!("{group}\u{0}{dedup_id}")
        } else {
            dedup_id.to_string()
        }
    }

    /// Forget deduplication entries whose window has passed; returns their record numbers.
    pub(crate) fn forget_expired_dedup(&mut self, now: u64) -> Vec<u64> {
        self.dedup.forget_expired(now)
    }

    /// Record a new deduplication entry under `key`.
    pub(crate) fn remember_dedup(&mut self, key: String, entry: DedupEntry) {
        self.dedup.insert(key, entry);
    }

    /// Forget every deduplication entry (purge); returns their record numbers.
    pub(crate) fn clear_dedup(&mut self) -> Vec<u64> {
        self.dedup.clear()
    }

    /// Cache a receive under its attempt id; returns the record number it replaces.
    pub(crate) fn remember_attempt(&mut self, id: String, attempt: Attempt) -> Option<u64> {
        self.attempt_order
            .push_back((attempt.expires_at, id.clone()));
        self.attempt_keys.insert(attempt.n, id.clone());
        let old = self.attempts.insert(id, attempt).map(|a| a.n);
        if let Some(n) = old {
            self.attempt_keys.remove(&n);
        }
        old
    }

    /// Forget every cached attempt (purge, delete); returns their record numbers.
    pub(crate) fn clear_attempts(&mut self) -> Vec<u64> {
        let gone = self.attempt_keys.keys().copied().collect();
        self.attempts.clear();
        self.attempt_order.clear();
        self.attempt_keys.clear();
        gone
    }

    pub(super) fn forget_expired_attempts(&mut self, now: u64) -> Vec<u64> {
        let mut gone = Vec::new();
        while let Some((at, _)) = self.attempt_order.front() {
            if *at > now {
                break;
            }
            let Some((at, key)) = self.attempt_order.pop_front() else {
                break;
            };
            if let Some(n) = self
                .attempts
                .get(&key)
                .filter(|a| a.expires_at == at)
                .map(|a| a.n)
            {
                gone.push(n);
                self.attempt_keys.remove(&n);
                self.attempts.remove(&key);
            }
        }
        gone
    }
}
