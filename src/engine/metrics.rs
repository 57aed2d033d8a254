//! What an operator scrapes: per queue, the messages it holds by state, the age of its oldest
//! one, and counters of what happened to its messages since this engine started.
//!
//! The counters are plain increments at the few places the events happen (a send, a receive, a
//! delete, a move to the dead-letter queue, a throttled call); everything else is read from the
//! queues when somebody asks, so an engine nobody scrapes pays an addition per call and nothing
//! more. The counters are not records: like any Prometheus counter they start again from zero
//! when the process does, which scrapers handle as a reset.

use super::json_out::Obj;
use super::Engine;

/// What happened to one queue's messages since the engine started, indexed by the constants
/// below: an array rather than named fields, so that every hook is one call to `Metrics::add`
/// with a constant (each distinct inlined update would be code of its own in the wasm).
pub(crate) type Counters = [u64; 5];

/// Messages added by SendMessage and SendMessageBatch (a FIFO duplicate that was accepted but
/// not enqueued again is not counted, as CloudWatch's NumberOfMessagesSent does not).
pub(crate) const SENT: usize = 0;
/// Messages handed out by ReceiveMessage.
pub(crate) const RECEIVED: usize = 1;
/// Successful DeleteMessage calls and batch entries (CloudWatch's NumberOfMessagesDeleted counts
/// every successful deletion, a repeated one included).
pub(crate) const DELETED: usize = 2;
/// Messages this queue moved to its dead-letter queue after `maxReceiveCount` receives.
pub(crate) const DEAD_LETTERED: usize = 3;
/// Calls on this queue refused with RequestThrottled (realism throttling).
pub(crate) const THROTTLED: usize = 4;

/// The counters of every queue that has any, by queue uid. A vector sorted by uid rather than a
/// hash map: queues are few, a lookup is a binary search over them, and it adds no hash-table
/// instantiation to the wasm.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    by_queue: Vec<(u64, Counters)>,
}

impl Metrics {
    fn position(&self, uid: u64) -> Result<usize, usize> {
        self.by_queue.binary_search_by_key(&uid, |e| e.0)
    }

    /// Add `n` to counter `which` of queue `uid`.
    pub(crate) fn add(&mut self, uid: u64, which: usize, n: u64) {
        let at = match self.position(uid) {
            Ok(at) => at,
            Err(at) => {
                self.by_queue.insert(at, (uid, Counters::default()));
                at
            }
        };
        if let Some(c) = self.by_queue[at].1.get_mut(which) {
            *c += n;
        }
    }

    /// The counters of queue `uid` as they are (zero when nothing happened to it yet).
    pub(crate) fn get(&self, uid: u64) -> Counters {
        match self.position(uid) {
            Ok(at) => self.by_queue[at].1,
            Err(_) => Counters::default(),
        }
    }

    /// Drop a deleted queue's counters (a queue made again under its name starts from zero, as
    /// it is a new queue).
    pub(crate) fn forget(&mut self, uid: u64) {
        if let Ok(at) = self.position(uid) {
            self.by_queue.remove(at);
        }
    }
}

impl Engine {
    /// Every queue's numbers at `now` (due work applied first, as any call does, so the counts
    /// are the ones GetQueueAttributes would answer), as JSON text: an array in name order of
    /// `{queue, region, fifo, visible, inflight, delayed, oldestMessageAgeMs, sent, received,
    /// deleted, movedToDeadLetterQueue, throttled}`. `oldestMessageAgeMs` is 0 for an empty queue.
    pub fn metrics_json(&mut self, now: u64) -> String {
        let mut out = String::from("[");
        self.write_metrics(now, &mut out);
        out.push(']');
        out
    }

    /// `metrics_json`'s entries, each preceded by a comma when `out` does not end in `[`, so
    /// that several engines (regions) write into one array.
    pub(crate) fn write_metrics(&mut self, now: u64, out: &mut String) {
        let now = self.advance(now);
        for (name, uid) in self.by_name.iter() {
            let Some(q) = self.queues.get(uid) else {
                continue;
            };
            let c = self.metrics.get(*uid);
            let age = q
                .messages
                .oldest()
                .map_or(0, |(sent_at, _)| now.saturating_sub(sent_at));
            if !out.ends_with('[') {
                out.push(',');
            }
            Obj::new(out)
                .str("queue", name)
                .str("region", &self.config.region)
                .bool("fifo", q.fifo())
                .u64("visible", q.visible as u64)
                .u64("inflight", q.in_flight as u64)
                .u64("delayed", q.delayed as u64)
                .u64("oldestMessageAgeMs", age)
                .u64("sent", c[SENT])
                .u64("received", c[RECEIVED])
                .u64("deleted", c[DELETED])
                .u64("movedToDeadLetterQueue", c[DEAD_LETTERED])
                .u64("throttled", c[THROTTLED])
                .end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_kept_per_queue_and_forgotten_with_it() {
        let mut m = Metrics::default();
        m.add(7, SENT, 2);
        m.add(3, RECEIVED, 1);
        m.add(7, DELETED, 1);
        assert_eq!(m.get(7), [2, 0, 1, 0, 0]);
        assert_eq!(m.get(3)[RECEIVED], 1);
        m.forget(7);
        assert_eq!(m.get(7), Counters::default());
        assert_eq!(m.get(3)[RECEIVED], 1);
    }
}
