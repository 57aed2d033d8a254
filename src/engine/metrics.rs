//! What an operator scrapes: per queue, the messages it holds by state, the age of its oldest
//! one, and counters of what happened to its messages since this engine started.
//!
//! The counters are plain increments on the queue in hand at the few places the events happen (a
//! send, a receive, a delete, a move to the dead-letter queue, a throttled call); everything else
//! is read from the queues when somebody asks, so an engine nobody scrapes pays an addition per
//! call and nothing more. The counters live and die with their queue and are not records: like
//! any Prometheus counter they start again from zero when the process does, which scrapers
//! handle as a reset.

use super::Engine;
use crate::json_text::{push_u64, string};

/// What happened to one queue's messages since the engine started (`Queue::counters`), indexed
/// by the constants below.
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

impl Engine {
    /// Every queue's numbers at `now` (due work applied first, as any call does, so the counts
    /// are the ones GetQueueAttributes would answer), as JSON text: an array in name order of
    /// one array per queue, `[queue, region, fifo (0 or 1), visible, inflight, delayed,
    /// oldest message's age in ms (0 when empty), sent, received, deleted, moved to the
    /// dead-letter queue, throttled]`. Rows rather than objects: the member names would be text
    /// in the wasm, and the JS wrapper names the columns (`engine.metrics()`).
    pub fn metrics_json(&mut self, now: u64) -> String {
        let mut out = String::from("[");
        self.write_metrics(now, &mut out);
        out.push(']');
        out
    }

    /// `metrics_json`'s rows, each preceded by a comma when `out` does not end in `[`, so that
    /// several engines (regions) write into one array.
    pub(crate) fn write_metrics(&mut self, now: u64, out: &mut String) {
        let now = self.advance(now);
        for (name, uid) in self.by_name.iter() {
            let Some(q) = self.queues.get(uid) else {
                continue;
            };
            let age = q
                .messages
                .oldest()
                .map_or(0, |(sent_at, _)| now.saturating_sub(sent_at));
            if !out.ends_with('[') {
                out.push(',');
            }
            out.push('[');
            string(out, name);
            out.push(',');
            string(out, &self.config.region);
            let gauges = [
                u64::from(q.fifo()),
                q.visible as u64,
                q.in_flight as u64,
                q.delayed as u64,
                age,
            ];
            for n in gauges.iter().chain(q.counters.iter()) {
                out.push(',');
                push_u64(out, *n);
            }
            out.push(']');
        }
    }
}
