//! `peek`: a read-only view of one queue, every message and its state, for pages and tests.
//! It changes nothing: no receive counts, no handles minted, no timers applied beyond `now`.

use super::ids::{format_uuid, sequence_number, Receipt};
use super::message::MessageState;
use super::Engine;
use crate::context::CallContext;
use crate::error::SqsError;
use serde_json::{json, Map, Value};

impl Engine {
    /// `peek` as JSON text.
    pub fn peek_text(
        &mut self,
        now: u64,
        ctx: &CallContext,
        queue_url: &str,
    ) -> Result<String, SqsError> {
        self.peek(now, ctx, queue_url)
            .map(|v| super::json_out::value_text(&v))
    }

    /// Every message of the queue (send order) with its state, the FIFO groups with their
    /// locks, the queue's attributes, and a tail of recently removed messages.
    pub fn peek(
        &mut self,
        now: u64,
        ctx: &CallContext,
        queue_url: &str,
    ) -> Result<Value, SqsError> {
        let now = self.advance(now);
        let uid = self.resolve_url(queue_url)?;
        let q = self.queue(uid)?;
        let mut attributes = Map::new();
        for name in super::attributes::ALL_NAMES {
            if let Some(v) = self.attribute_value(q, name) {
                attributes.insert((*name).to_string(), Value::String(v));
            }
        }
        let mut messages: Vec<Value> = q
            .removed
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("messageId".into(), json!(r.message_id.as_str()));
                m.insert("state".into(), json!(r.how));
                m.insert("body".into(), json!(&*r.body));
                if let Some(g) = &r.group_id {
                    m.insert("groupId".into(), json!(g));
                }
                if q.fifo() {
                    m.insert("sequenceNumber".into(), json!(sequence_number(r.sequence)));
                }
                m.insert("receiveCount".into(), json!(r.receive_count));
                m.insert("endedAt".into(), json!(r.at));
                Value::Object(m)
            })
            .collect();
        for seq in q.seqs_in_order() {
            let Some(msg) = q.messages.get(&seq) else {
                continue;
            };
            let mut m = Map::new();
            m.insert("messageId".into(), json!(format_uuid(msg.id(&q.keys))));
            let state = match msg.state {
                MessageState::Delayed => "delayed",
                MessageState::Visible => "stored",
                MessageState::InFlight => "in-flight",
            };
            m.insert("state".into(), json!(state));
            m.insert("body".into(), json!(msg.body.to_string()));
            if let Some(g) = msg.group_id() {
                m.insert("groupId".into(), json!(g));
            }
            if q.fifo() {
                m.insert("sequenceNumber".into(), json!(sequence_number(seq)));
                if let Some(d) = msg.extra().and_then(|e| e.deduplication_id.as_ref()) {
                    m.insert("deduplicationId".into(), json!(d));
                }
            }
            m.insert("sentTimestamp".into(), json!(msg.sent_at));
            m.insert("receiveCount".into(), json!(msg.receive_count));
            match msg.state {
                MessageState::Delayed => {
                    m.insert("delayedUntil".into(), json!(msg.deadline));
                }
                MessageState::InFlight => {
                    m.insert("visibleAt".into(), json!(msg.deadline));
                    m.insert(
                        "receiptHandle".into(),
                        json!(self
                            .keys
                            .receipt_handle(Receipt {
                                queue: uid,
                                seq,
                                serial: msg.serial,
                            })
                            .as_str()),
                    );
                }
                MessageState::Visible => {}
            }
            if msg.extra().is_some_and(|e| e.duplicate_copy) {
                // Realism duplicate: same message id as the original, so viewers need to tell.
                m.insert("duplicateCopy".into(), json!(true));
            }
            if let Some(arn) = msg.extra().and_then(|e| e.dead_letter_source_arn.as_ref()) {
                m.insert("deadLetterSourceArn".into(), json!(arn));
            }
            messages.push(Value::Object(m));
        }
        let mut out = Map::new();
        // Built by hand so that the attribute map is moved in (`json!` would copy it).
        let mut queue = Map::new();
        queue.insert("name".into(), Value::String(q.name.clone()));
        queue.insert("url".into(), Value::String(self.url(ctx, &q.name)));
        queue.insert("arn".into(), Value::String(self.arn(&q.name)));
        queue.insert("fifo".into(), Value::Bool(q.fifo()));
        queue.insert("attributes".into(), Value::Object(attributes));
        out.insert("queue".into(), Value::Object(queue));
        out.insert("now".into(), json!(now));
        out.insert("messages".into(), Value::Array(messages));
        if q.fifo() {
            let mut groups: Vec<(u64, Value)> = q
                .fifo_groups
                .iter()
                .filter_map(|(gid, g)| {
                    let first = *g.members.first()?;
                    let locked = g.members.iter().any(|s| {
                        q.messages
                            .get(s)
                            .is_some_and(|m| m.state == MessageState::InFlight)
                    });
                    let ids: Vec<String> = g
                        .members
                        .iter()
                        .filter_map(|s| q.messages.get(s).map(|m| format_uuid(m.id(&q.keys))))
                        .collect();
                    Some((
                        first,
                        json!({
                            "groupId": q.group_name(*gid).unwrap_or_default(),
                            "locked": locked,
                            "messageIds": ids,
                        }),
                    ))
                })
                .collect();
            groups.sort_by_key(|(first, _)| *first);
            out.insert(
                "groups".into(),
                Value::Array(groups.into_iter().map(|(_, v)| v).collect()),
            );
        }
        Ok(Value::Object(out))
    }
}
