//! `peek`: a read-only view of one queue, every message and its state, for pages and tests.
//! It changes nothing: no receive counts, no handles minted, no timers applied beyond `now`.
//!
//! Written as JSON text through the crate's writer (`json_text`), each object's members in byte
//! order of their names, as serde_json's `Map` prints them; `peek` reads that text back for
//! callers that want a `Value`.

use super::ids::{sequence_number, uuid_text, Receipt};
use super::message::MessageState;
use super::Engine;
use crate::context::CallContext;
use crate::error::SqsError;
use crate::json_text::{list, string, Obj};
use serde_json::Value;

impl Engine {
    /// Every message of the queue (send order) with its state, the FIFO groups with their
    /// locks, the queue's attributes, and a tail of recently removed messages.
    pub fn peek(
        &mut self,
        now: u64,
        ctx: &CallContext,
        queue_url: &str,
    ) -> Result<Value, SqsError> {
        self.peek_text(now, ctx, queue_url)
            .map(|text| serde_json::from_str(&text).unwrap_or_default())
    }

    /// `peek` as JSON text: compact, members in byte order of their names.
    pub fn peek_text(
        &mut self,
        now: u64,
        ctx: &CallContext,
        queue_url: &str,
    ) -> Result<String, SqsError> {
        let now = self.advance(now);
        let uid = self.resolve_url(queue_url)?;
        let q = self.queue(uid)?;
        let fifo = q.fifo();
        let mut out = String::with_capacity(512);
        let mut top = Obj::new(&mut out);
        if fifo {
            // Groups in the order of their first message. Keyed `((first, group), 0)` so that
            // the sort is the one restore already instantiates for that element type.
            let mut order: Vec<((u64, u64), usize)> = q
                .fifo_groups
                .iter()
                .filter_map(|(gid, g)| Some(((*g.members.first()?, u64::from(*gid)), 0)))
                .collect();
            order.sort_unstable();
            list(top.member("groups"), &order, |out, ((_, gid), _)| {
                let Some(g) = q.fifo_groups.get(&(*gid as u32)) else {
                    return;
                };
                let locked = g.members.iter().any(|s| {
                    q.messages
                        .get(s)
                        .is_some_and(|m| m.state == MessageState::InFlight)
                });
                let mut o = Obj::new(out);
                o.str("groupId", q.group_name(*gid as u32).unwrap_or_default())
                    .bool("locked", locked);
                let ids = o.member("messageIds");
                ids.push('[');
                let mut first = true;
                for m in g.members.iter().filter_map(|s| q.messages.get(s)) {
                    if !first {
                        ids.push(',');
                    }
                    first = false;
                    string(ids, uuid_text(m.id(&q.keys)).as_str());
                }
                ids.push(']');
                o.end();
            });
        }
        let messages = top.member("messages");
        messages.push('[');
        let mut first = true;
        let mut next = |out: &mut String| {
            if !first {
                out.push(',');
            }
            first = false;
        };
        for r in &q.removed {
            next(messages);
            let mut m = Obj::new(messages);
            m.str("body", &r.body)
                .u64("endedAt", r.at)
                .opt("groupId", r.group_id.as_deref())
                .str("messageId", uuid_text(r.id(&q.keys)).as_str())
                .u64("receiveCount", u64::from(r.receive_count));
            if fifo {
                m.str("sequenceNumber", &sequence_number(r.sequence));
            }
            m.str("state", r.how).end();
        }
        for seq in q.seqs_in_order() {
            let Some(msg) = q.messages.get(&seq) else {
                continue;
            };
            next(messages);
            let extra = msg.extra();
            let mut m = Obj::new(messages);
            m.str("body", &msg.body).opt(
                "deadLetterSourceArn",
                extra.and_then(|e| e.dead_letter_source_arn.as_deref()),
            );
            if fifo {
                m.opt(
                    "deduplicationId",
                    extra.and_then(|e| e.deduplication_id.as_deref()),
                );
            }
            if msg.state == MessageState::Delayed {
                m.u64("delayedUntil", msg.deadline);
            }
            if extra.is_some_and(|e| e.duplicate_copy) {
                // Realism duplicate: same message id as the original, so viewers need to tell.
                m.bool("duplicateCopy", true);
            }
            m.opt("groupId", msg.group_id())
                .str("messageId", uuid_text(msg.id(&q.keys)).as_str());
            if msg.state == MessageState::InFlight {
                let handle = self.keys.receipt_handle(Receipt {
                    queue: uid,
                    seq,
                    serial: msg.serial,
                });
                m.str("receiptHandle", handle.as_str());
            }
            m.u64("receiveCount", u64::from(msg.receive_count))
                .u64("sentTimestamp", msg.sent_at);
            if fifo {
                m.str("sequenceNumber", &sequence_number(seq));
            }
            m.str(
                "state",
                match msg.state {
                    MessageState::Delayed => "delayed",
                    MessageState::Visible => "stored",
                    MessageState::InFlight => "in-flight",
                },
            );
            if msg.state == MessageState::InFlight {
                m.u64("visibleAt", msg.deadline);
            }
            m.end();
        }
        messages.push(']');
        top.u64("now", now);
        let mut queue = Obj::new(top.member("queue"));
        queue.str("arn", &self.arn(&q.name));
        let mut attributes = Obj::new(queue.member("attributes"));
        for &name in super::attributes::ALL_NAMES {
            if let Some(v) = self.attribute_value(q, name) {
                attributes.str(name, &v);
            }
        }
        attributes.end();
        queue
            .bool("fifo", fifo)
            .str("name", &q.name)
            .str("url", &self.url(ctx, &q.name))
            .end();
        top.end();
        Ok(out)
    }
}
