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

/// What happened to one queue's messages since the engine started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counters {
    /// Messages added by SendMessage and SendMessageBatch (a FIFO duplicate that was accepted
    /// but not enqueued again is not counted, as CloudWatch's NumberOfMessagesSent does not).
    pub(crate) sent: u64,
    /// Messages handed out by ReceiveMessage.
    pub(crate) received: u64,
    /// Successful DeleteMessage calls and batch entries (CloudWatch's NumberOfMessagesDeleted
    /// counts every successful deletion, a repeated one included).
    pub(crate) deleted: u64,
    /// Messages this queue moved to its dead-letter queue after `maxReceiveCount` receives.
    pub(crate) dead_lettered: u64,
    /// Calls on this queue refused with RequestThrottled (realism throttling).
    pub(crate) throttled: u64,
}

/// The counters of every queue that has any, by queue uid. A vector sorted by uid rather than a
/// hash map: queues are few, a lookup is a binary search over them, and it adds no hash-table
/// instantiation to the wasm.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    by_queue: Vec<(u64, Counters)>,
}

impl Metrics {
    /// The counters of queue `uid`, made on first use.
    #[inline]
    pub(crate) fn of(&mut self, uid: u64) -> &mut Counters {
        let at = match self.by_queue.binary_search_by_key(&uid, |e| e.0) {
            Ok(at) => at,
            Err(at) => {
                self.by_queue.insert(at, (uid, Counters::default()));
                at
            }
        };
        &mut self.by_queue[at].1
    }

    /// The counters of queue `uid` as they are (zero when nothing happened to it yet).
    pub(crate) fn get(&self, uid: u64) -> Counters {
        match self.by_queue.binary_search_by_key(&uid, |e| e.0) {
            Ok(at) => self.by_queue[at].1,
            Err(_) => Counters::default(),
        }
    }

    /// Drop a deleted queue's counters (a queue made again under its name starts from zero, as
    /// it is a new queue).
    pub(crate) fn forget(&mut self, uid: u64) {
        if let Ok(at) = self.by_queue.binary_search_by_key(&uid, |e| e.0) {
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
                .u64("sent", c.sent)
                .u64("received", c.received)
                .u64("deleted", c.deleted)
                .u64("movedToDeadLetterQueue", c.dead_lettered)
                .u64("throttled", c.throttled)
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
        m.of(7).sent += 2;
        m.of(3).received += 1;
        m.of(7).deleted += 1;
        assert_eq!(
            m.get(7),
            Counters {
                sent: 2,
                deleted: 1,
                ..Default::default()
            }
        );
        assert_eq!(m.get(3).received, 1);
        m.forget(7);
        assert_eq!(m.get(7), Counters::default());
        assert_eq!(m.get(3).received, 1);
    }
}
