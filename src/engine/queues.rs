//! Queue-level actions: create, delete, find, list, attributes, tags, purge, permissions.
//!
//! Each answers a typed response (`responses.rs`), which `protocol/aws_json` writes.

use super::attributes::{QueueAttributes, Touched, ALL_NAMES};
use super::journal::RecordKey;
use super::queue::{Queue, Removal};
use super::requests::*;
use super::responses::{
    EmptyResponse, GetQueueAttributesResponse, ListDeadLetterSourceQueuesResponse,
    ListQueueTagsResponse, ListQueuesResponse, QueueUrlResponse,
};
use super::{Engine, QUEUE_REUSE_WAIT_MS};
use crate::context::CallContext;
use crate::error::{invalid_value, queue_name_exists, unknown_attribute, SqsError};
use crate::events::EventKind;
use crate::validate;
use base64::Engine as _;
use serde_json::{Map, Value};

const PURGE_WAIT_MS: u64 = 60_000;
const MAX_TAGS: usize = 50;

impl Engine {
    pub(crate) fn create_queue(
        &mut self,
        now: u64,
        ctx: &CallContext,
        req: CreateQueueRequest,
    ) -> Result<QueueUrlResponse, SqsError> {
        let name = req
            .queue_name
            .ok_or_else(|| SqsError::MissingParameter("QueueName".into()))?;
        let attrs = req.attributes.unwrap_or_default();
        let fifo = match attrs.get("FifoQueue") {
            None => false,
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(crate::error::invalid_attribute_value("FifoQueue")),
            },
        };
        // A standard queue named `*.fifo` (no FifoQueue attribute) is refused by the name rules.
        validate::validate_queue_name(&name, fifo)?;
        let pairs = || attrs.iter().map(|(k, v)| (k.as_str(), v.as_str()));

        if let Some(&uid) = self.by_name.get(&name) {
            let q = self.queue(uid)?;
            // Spec §3.4: only the supplied attributes are compared, with the current values.
            let mut next = q.attrs.clone();
            next.apply(pairs())?;
            for (k, _) in pairs() {
                if k == "FifoQueue" {
                    if q.attrs.fifo != fifo {
                        return Err(queue_name_exists(k));
                    }
                    continue;
                }
                if next.get(k) != q.attrs.get(k) {
                    return Err(queue_name_exists(k));
                }
            }
            // Supplied tags must equal the queue's tags, all of them, even when the queue has
            // none: real SQS refuses the create rather than re-tagging (Bogdanp/dramatiq_sqs#13,
            // awslabs/amazon-sqs-java-temporary-queues-client#70 report QueueNameExists; spec
            // §3.4 notes no emulator compares them). The message text was not recorded.
            if let Some(tags) = req.tags.as_ref().filter(|t| !t.is_empty()) {
                if *tags != q.tags {
                    return Err(SqsError::QueueNameExists(
                        "A queue already exists with the same name and different tags".into(),
                    ));
                }
            }
            return Ok(QueueUrlResponse {
                queue_url: self.url(ctx, &name),
            });
        }
        if let Some(&deleted_at) = self.deleted_names.get(&name) {
            if now < deleted_at + QUEUE_REUSE_WAIT_MS {
                return Err(SqsError::QueueDeletedRecently);
            }
        }
        let mut queue_attrs = QueueAttributes::new(fifo);
        let touched = queue_attrs.apply(pairs())?;
        let arn = self.arn(&name);
        if touched.redrive {
            self.check_redrive_target(&queue_attrs, &arn)?;
        }
        let tags = req.tags.unwrap_or_default();
        validate::validate_tags(&tags)?;
        if tags.len() > MAX_TAGS {
            return Err(SqsError::InvalidParameterValue(format!(
                "Too many tags added for queue {name}."
            )));
        }

        let uid = self.next_queue;
        self.next_queue += 1;
        let mut q = Queue::new(uid, name.clone(), queue_attrs, now, self.keys.clone());
        q.tags = tags;
        self.queues.insert(uid, q);
        self.by_name.insert(name.clone(), uid);
        self.forget_url();
        if self.deleted_names.remove(&name).is_some() {
            self.journal.touch(RecordKey::Deleted(name.clone()));
        }
        self.journal.touch(RecordKey::Queue(uid));
        self.journal.touch(RecordKey::Meta);
        self.journal
            .event(now, &name, || EventKind::QueueCreated { fifo });
        Ok(QueueUrlResponse {
            queue_url: self.url(ctx, &name),
        })
    }

    /// A RedrivePolicy must name an existing queue of the same type whose RedriveAllowPolicy
    /// admits this source. AWS's texts for these refusals were not recorded (spec §11.1).
    fn check_redrive_target(
        &self,
        attrs: &QueueAttributes,
        source_arn: &str,
    ) -> Result<(), SqsError> {
        let Some(policy) = &attrs.redrive_policy else {
            return Ok(());
        };
        let raw = attrs.get("RedrivePolicy").unwrap_or_default();
        let bad = |reason: &str| {
            SqsError::InvalidParameterValue(format!(
                "Value {raw} for parameter RedrivePolicy is invalid. Reason: {reason}"
            ))
        };
        let dlq_uid = self
            .resolve_arn(&policy.dead_letter_target_arn)
            .ok_or_else(|| bad("Dead letter target does not exist."))?;
        let dlq = self.queue(dlq_uid)?;
        if dlq.fifo() != attrs.fifo {
            return Err(bad(if attrs.fifo {
                "Fifo queues cannot use non fifo dead letter queues."
            } else {
                "Standard queues cannot use fifo dead letter queues."
            }));
        }
        if let Some(allow) = &dlq.attrs.redrive_allow_policy {
            if !allow.allows(source_arn) {
                return Err(bad(&format!(
                    "Queue {} does not allow this queue to use it as a dead-letter queue.",
                    policy.dead_letter_target_arn
                )));
            }
        }
        Ok(())
    }

    pub(crate) fn delete_queue(
        &mut self,
        now: u64,
        req: QueueUrlRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let Some(mut q) = self.queues.remove(&uid) else {
            return Err(SqsError::QueueDoesNotExist);
        };
        for seq in q.seqs_in_order() {
            q.discard(seq, now, Removal::QueueDeleted, &mut self.journal);
        }
        for n in q.clear_dedup() {
            self.journal.touch(RecordKey::Dedup(uid, n));
        }
        for n in q.clear_attempts() {
            self.journal.touch(RecordKey::Attempt(uid, n));
        }
        self.by_name.remove(&q.name);
        self.forget_url();
        self.forget_deleted_names(now);
        self.deleted_names.insert(q.name.clone(), now);
        self.journal.touch(RecordKey::Deleted(q.name.clone()));
        self.journal.touch(RecordKey::Queue(uid));
        self.sync_deadline(uid);
        self.journal.event(now, &q.name, || EventKind::QueueDeleted);
        Ok(EmptyResponse)
    }

    /// Drop the names whose 60 s of `QueueDeletedRecently` are over, and their records: only
    /// deletions add names, so checking here keeps them to those of the last minute. Without it
    /// every name ever deleted stayed, in memory and in storage.
    fn forget_deleted_names(&mut self, now: u64) {
        let expired: Vec<String> = self
            .deleted_names
            .iter()
            .filter(|&(_, &at)| now >= at + QUEUE_REUSE_WAIT_MS)
            .map(|(name, _)| name.clone())
            .collect();
        for name in expired {
            self.deleted_names.remove(&name);
            self.journal.touch(RecordKey::Deleted(name));
        }
    }

    pub(crate) fn get_queue_url(
        &mut self,
        ctx: &CallContext,
        req: GetQueueUrlRequest,
    ) -> Result<QueueUrlResponse, SqsError> {
        let name = req
            .queue_name
            .ok_or_else(|| SqsError::MissingParameter("QueueName".into()))?;
        if let Some(owner) = &req.queue_owner_aws_account_id {
            if owner != &self.config.account_id {
                return Err(SqsError::QueueDoesNotExist);
            }
        }
        if !self.by_name.contains_key(&name) {
            return Err(SqsError::QueueDoesNotExist);
        }
        Ok(QueueUrlResponse {
            queue_url: self.url(ctx, &name),
        })
    }

    pub(crate) fn list_queues(
        &mut self,
        ctx: &CallContext,
        req: ListQueuesRequest,
    ) -> Result<ListQueuesResponse, SqsError> {
        let prefix = req.queue_name_prefix.unwrap_or_default();
        let names: Vec<&String> = self
            .by_name
            .range_from(prefix.as_str())
            .take_while(|(n, _)| n.starts_with(&prefix))
            .map(|(n, _)| n)
            .collect();
        let (page, next_token) = paginate(&names, req.max_results, req.next_token.as_deref())?;
        Ok(ListQueuesResponse {
            queue_urls: self.urls(ctx, &page),
            next_token,
        })
    }

    pub(crate) fn list_dead_letter_source_queues(
        &mut self,
        ctx: &CallContext,
        req: ListDeadLetterSourceQueuesRequest,
    ) -> Result<ListDeadLetterSourceQueuesResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let dlq_arn = self.arn(&self.queue(uid)?.name);
        let names: Vec<&String> = self
            .by_name
            .iter()
            .filter(|(_, u)| {
                self.queues.get(u).is_some_and(|q| {
                    q.attrs
                        .redrive_policy
                        .as_ref()
                        .is_some_and(|p| p.dead_letter_target_arn == dlq_arn)
                })
            })
            .map(|(n, _)| n)
            .collect();
        let (page, next_token) = paginate(&names, req.max_results, req.next_token.as_deref())?;
        Ok(ListDeadLetterSourceQueuesResponse {
            queue_urls: self.urls(ctx, &page),
            next_token,
        })
    }

    /// The queues' URLs.
    fn urls(&self, ctx: &CallContext, names: &[&String]) -> Vec<String> {
        names.iter().map(|n| self.url(ctx, n)).collect()
    }

    pub(crate) fn get_queue_attributes(
        &mut self,
        _now: u64,
        req: GetQueueAttributesRequest,
    ) -> Result<GetQueueAttributesResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let names = req.attribute_names.unwrap_or_default();
        for n in &names {
            if n != "All" && !ALL_NAMES.contains(&n.as_str()) {
                return Err(unknown_attribute(n));
            }
        }
        let all = names.iter().any(|n| n == "All");
        let q = self.queue(uid)?;
        // In byte order of the names and each once, however the request named them: every name
        // is one of ALL_NAMES (checked above), which is in that order.
        let mut attributes = Vec::with_capacity(if all { ALL_NAMES.len() } else { names.len() });
        for &name in ALL_NAMES {
            if !all && !names.iter().any(|n| n == name) {
                continue;
            }
            if let Some(v) = self.attribute_value(q, name) {
                attributes.push((name, v));
            }
        }
        Ok(GetQueueAttributesResponse { attributes })
    }

    /// One attribute as GetQueueAttributes renders it (counters included).
    pub(super) fn attribute_value(&self, q: &Queue, name: &str) -> Option<String> {
        Some(match name {
            "ApproximateNumberOfMessages" => q.visible.to_string(),
            "ApproximateNumberOfMessagesNotVisible" => q.in_flight.to_string(),
            "ApproximateNumberOfMessagesDelayed" => q.delayed.to_string(),
            "CreatedTimestamp" => (q.created_at / 1000).to_string(),
            "LastModifiedTimestamp" => (q.modified_at / 1000).to_string(),
            "QueueArn" => self.arn(&q.name),
            other => q.attrs.get(other)?,
        })
    }

    pub(crate) fn set_queue_attributes(
        &mut self,
        now: u64,
        req: SetQueueAttributesRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let attrs = req
            .attributes
            .ok_or_else(|| SqsError::MissingParameter("Attributes".into()))?;
        let q = self.queue(uid)?;
        let mut next = q.attrs.clone();
        let touched: Touched = next.apply(attrs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        if touched.redrive {
            self.check_redrive_target(&next, &self.arn(&q.name))?;
        }
        let q = self.queue_mut(uid)?;
        let retroactive_delay =
            q.fifo() && touched.delay && next.delay_seconds != q.attrs.delay_seconds;
        q.attrs = next;
        q.modified_at = now;
        if retroactive_delay {
            self.apply_fifo_delay(uid, now);
        }
        self.journal.touch(RecordKey::Queue(uid));
        self.sync_deadline(uid);
        Ok(EmptyResponse)
    }

    /// FIFO queue delay changes apply to messages already waiting for their first delivery
    /// (spec §3.1, §8.1): each one is due at its enqueue time plus the new delay.
    fn apply_fifo_delay(&mut self, uid: u64, now: u64) {
        let Some(q) = self.queues.get_mut(&uid) else {
            return;
        };
        let delay = q.attrs.delay_seconds as u64 * 1000;
        let pending: Vec<(u64, u64)> = q
            .messages
            .values()
            .filter(|m| m.receive_count == 0 && m.state != super::message::MessageState::InFlight)
            .map(|m| (m.seq, m.sent_at + delay))
            .collect();
        for (seq, due) in pending {
            if due > now {
                q.delay_until(seq, due, &mut self.journal);
            } else {
                q.make_visible(seq, now, &mut self.journal);
            }
        }
    }

    pub(crate) fn tag_queue(
        &mut self,
        now: u64,
        req: TagQueueRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let tags = req
            .tags
            .ok_or_else(|| SqsError::MissingParameter("Tags".into()))?;
        validate::validate_tags(&tags)?;
        let q = self.queue_mut(uid)?;
        let mut merged = q.tags.clone();
        merged.extend(tags);
        if merged.len() > MAX_TAGS {
            return Err(SqsError::InvalidParameterValue(format!(
                "Too many tags added for queue {}.",
                q.name
            )));
        }
        q.tags = merged;
        q.modified_at = q.modified_at.max(now);
        self.journal.touch(RecordKey::Queue(uid));
        Ok(EmptyResponse)
    }

    pub(crate) fn untag_queue(
        &mut self,
        _now: u64,
        req: UntagQueueRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let keys = req
            .tag_keys
            .ok_or_else(|| SqsError::MissingParameter("TagKeys".into()))?;
        if keys.is_empty() || keys.iter().any(|k| k.is_empty() || k.chars().count() > 128) {
            // moto's text (spec §4.15); AWS's was not recorded.
            return Err(SqsError::InvalidParameterValue(
                "Tag keys must be between 1 and 128 characters in length.".into(),
            ));
        }
        let q = self.queue_mut(uid)?;
        for k in keys {
            q.tags.remove(&k);
        }
        self.journal.touch(RecordKey::Queue(uid));
        Ok(EmptyResponse)
    }

    pub(crate) fn list_queue_tags(
        &mut self,
        req: QueueUrlRequest,
    ) -> Result<ListQueueTagsResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        Ok(ListQueueTagsResponse {
            tags: self.queue(uid)?.tags.clone(),
        })
    }

    pub(crate) fn purge_queue(
        &mut self,
        now: u64,
        req: QueueUrlRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let q = self
            .queues
            .get_mut(&uid)
            .ok_or(SqsError::QueueDoesNotExist)?;
        if let Some(last) = q.last_purge {
            if now < last + PURGE_WAIT_MS {
                return Err(SqsError::PurgeQueueInProgress(q.name.clone()));
            }
        }
        q.last_purge = Some(now);
        for seq in q.seqs_in_order() {
            q.discard(seq, now, Removal::Purged, &mut self.journal);
        }
        // Purging clears the FIFO deduplication history (spec §4.7).
        for n in q.clear_dedup() {
            self.journal.touch(RecordKey::Dedup(uid, n));
        }
        // Cached ReceiveRequestAttemptIds stay (they expire on their own): their messages are
        // gone, so a retry is refused as after a DeleteMessage (spec §8.5) instead of becoming a
        // fresh receive that hands out other messages under the old attempt id.
        self.journal.touch(RecordKey::Queue(uid));
        self.sync_deadline(uid);
        Ok(EmptyResponse)
    }

    pub(crate) fn add_permission(
        &mut self,
        now: u64,
        req: AddPermissionRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let label = req
            .label
            .ok_or_else(|| SqsError::MissingParameter("Label".into()))?;
        let accounts = req
            .aws_account_ids
            .filter(|a| !a.is_empty())
            .ok_or_else(|| SqsError::MissingParameter("AWSAccountIds".into()))?;
        let actions = req
            .actions
            .filter(|a| !a.is_empty())
            .ok_or_else(|| SqsError::MissingParameter("Actions".into()))?;
        if label.is_empty()
            || label.len() > 80
            || !label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(invalid_value(
                &label,
                "Label",
                "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.",
            ));
        }
        if actions.len() > 7 {
            return Err(SqsError::OverLimit(format!(
                "{} Actions were found, maximum allowed is 7.",
                actions.len()
            )));
        }
        const GRANTABLE: &[&str] = &[
            "*",
            "SendMessage",
            "ReceiveMessage",
            "DeleteMessage",
            "ChangeMessageVisibility",
            "GetQueueAttributes",
            "GetQueueUrl",
            "ListDeadLetterSourceQueues",
            "PurgeQueue",
            "ListQueueTags",
            "ListMessageMoveTasks",
            "StartMessageMoveTask",
            "CancelMessageMoveTask",
        ];
        for a in &actions {
            if !GRANTABLE.contains(&a.as_str()) {
                // moto's text (spec §4.18); AWS's was not recorded.
                return Err(invalid_value(
                    format!("SQS:{a}"),
                    "ActionName",
                    "Only the queue owner is allowed to invoke this action.",
                ));
            }
        }
        let q = self.queue(uid)?;
        let arn = self.arn(&q.name);
        // Values built and moved, not through `json!` (its `to_value` brings serde_json's
        // value serializer into the wasm) nor cloned (a `Value` clone brings the map's).
        let mut policy: Value = q
            .attrs
            .policy
            .as_deref()
            .and_then(|p| serde_json::from_str(p).ok())
            .unwrap_or_else(|| {
                let mut p = Map::new();
                p.insert("Version".into(), Value::String("2008-10-17".into()));
                p.insert(
                    "Id".into(),
                    Value::String(format!("{arn}/SQSDefaultPolicy")),
                );
                p.insert("Statement".into(), Value::Array(Vec::new()));
                Value::Object(p)
            });
        let mut statements = take_statements(&mut policy);
        if statements
            .iter()
            .any(|s| s.get("Sid").and_then(Value::as_str) == Some(label.as_str()))
        {
            return Err(invalid_value(&label, "Label", "Already exists."));
        }
        // Policy quotas ([DOC] quotas-policies.html, spec §4.18 / §12): 20 statements and 50
        // principals; "AddPermission returns OverLimit if the maximum number of permissions for
        // the queue is reached" ([MODEL]). The texts were not recorded anywhere examined.
        if statements.len() >= MAX_POLICY_STATEMENTS {
            return Err(SqsError::OverLimit(format!(
                "{} Statements were found, maximum allowed is {MAX_POLICY_STATEMENTS}.",
                statements.len() + 1
            )));
        }
        let principals_total =
            statements.iter().map(principal_count).sum::<usize>() + accounts.len();
        if principals_total > MAX_POLICY_PRINCIPALS {
            return Err(SqsError::OverLimit(format!(
                "{principals_total} Principals were found, maximum allowed is {MAX_POLICY_PRINCIPALS}."
            )));
        }
        let one_or_many = |items: Vec<String>| -> Value {
            if items.len() == 1 {
                Value::String(items.into_iter().next().unwrap_or_default())
            } else {
                Value::Array(items.into_iter().map(Value::String).collect())
            }
        };
        let principals = one_or_many(
            accounts
                .iter()
                .map(|a| format!("arn:{}:iam::{a}:root", self.partition()))
                .collect(),
        );
        let action_names = one_or_many(actions.iter().map(|a| format!("SQS:{a}")).collect());
        let mut principal = Map::new();
        principal.insert("AWS".into(), principals);
        let mut statement = Map::new();
        statement.insert("Sid".into(), Value::String(label));
        statement.insert("Effect".into(), Value::String("Allow".into()));
        statement.insert("Principal".into(), Value::Object(principal));
        statement.insert("Action".into(), action_names);
        statement.insert("Resource".into(), Value::String(arn));
        statements.push(Value::Object(statement));
        policy["Statement"] = Value::Array(statements);
        let text = crate::json_text::value_text(&policy);
        super::attributes::check_policy_size(&text)?;
        let q = self.queue_mut(uid)?;
        q.attrs.policy = Some(text);
        q.modified_at = now;
        self.journal.touch(RecordKey::Queue(uid));
        Ok(EmptyResponse)
    }

    pub(crate) fn remove_permission(
        &mut self,
        now: u64,
        req: RemovePermissionRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.required_url(&req.queue_url)?;
        let label = req
            .label
            .ok_or_else(|| SqsError::MissingParameter("Label".into()))?;
        let q = self.queue(uid)?;
        let mut policy: Value = q
            .attrs
            .policy
            .as_deref()
            .and_then(|p| serde_json::from_str(p).ok())
            .ok_or_else(|| invalid_value(&label, "Label", "can't find label."))?;
        let statements = take_statements(&mut policy);
        let all = statements.len();
        let kept: Vec<Value> = statements
            .into_iter()
            .filter(|s| s.get("Sid").and_then(Value::as_str) != Some(label.as_str()))
            .collect();
        if kept.len() == all {
            return Err(invalid_value(&label, "Label", "can't find label."));
        }
        let q = self.queue_mut(uid)?;
        if kept.is_empty() {
            // Removing the last statement removes the Policy attribute (spec §4.18).
            q.attrs.policy = None;
        } else {
            policy["Statement"] = Value::Array(kept);
            q.attrs.policy = Some(crate::json_text::value_text(&policy));
        }
        q.modified_at = now;
        self.journal.touch(RecordKey::Queue(uid));
        Ok(EmptyResponse)
    }
}

/// A policy's statements, moved out of it (none when it has no list of them); the caller puts
/// the list it keeps back.
/// Statements per queue policy ([DOC] quotas-policies.html).
const MAX_POLICY_STATEMENTS: usize = 20;
/// Principals per queue policy ([DOC] quotas-policies.html).
const MAX_POLICY_PRINCIPALS: usize = 50;

fn take_statements(policy: &mut Value) -> Vec<Value> {
    match policy.get_mut("Statement") {
        Some(Value::Array(list)) => std::mem::take(list),
        // IAM allows a single statement as a bare object: it is kept, not dropped.
        Some(one @ Value::Object(_)) => vec![one.take()],
        _ => Vec::new(),
    }
}

/// How many principals a policy statement names (`"*"`, an account ARN, or a list of them).
fn principal_count(statement: &Value) -> usize {
    match statement.get("Principal") {
        Some(Value::Object(p)) => p
            .values()
            .map(|v| match v {
                Value::Array(list) => list.len(),
                _ => 1,
            })
            .sum(),
        Some(_) => 1,
        None => 0,
    }
}

/// ListQueues-style paging (spec §4.4): without MaxResults at most 1,000 and never a token; with
/// it, a token only when more remain. The token is the base64 of the last name returned.
fn paginate<'a>(
    names: &[&'a String],
    max_results: Option<i64>,
    next_token: Option<&str>,
) -> Result<(Vec<&'a String>, Option<String>), SqsError> {
    let b64 = &base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let start = match next_token {
        None | Some("") => 0,
        Some(token) => {
            let after = b64
                .decode(token)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| invalid_value(token, "NextToken", "Invalid NextToken value."))?;
            names.partition_point(|n| n.as_str() <= after.as_str())
        }
    };
    let Some(max) = max_results else {
        return Ok((names.iter().skip(start).take(1000).copied().collect(), None));
    };
    if !(1..=1000).contains(&max) {
        return Err(invalid_value(
            max,
            "MaxResults",
            "MaxResults must be an integer between 1 and 1000.",
        ));
    }
    let page: Vec<&String> = names
        .iter()
        .skip(start)
        .take(max as usize)
        .copied()
        .collect();
    let more = start + page.len() < names.len();
    let token = match (more, page.last()) {
        (true, Some(last)) => Some(b64.encode(last.as_bytes())),
        _ => None,
    };
    Ok((page, token))
}
