//! Message-move tasks (dead-letter queue redrive): Start/List/CancelMessageMoveTask, moving at
//! `MaxNumberOfMessagesPerSecond` on the engine's clock (spec §11.3–11.4).

use super::ids::{format_uuid, parse_uuid, IdKeys};
use super::journal::RecordKey;
use super::message::Message;
use super::queue::Removal;
use super::requests::{
    CancelMessageMoveTaskRequest, ListMessageMoveTasksRequest, StartMessageMoveTaskRequest,
};
use super::responses::{
    CancelMessageMoveTaskResponse, ListMessageMoveTasksResponse, ListMessageMoveTasksResultEntry,
    StartMessageMoveTaskResponse,
};
use super::{int_in_range, Engine};
use crate::error::{invalid_value, SqsError};
use crate::events::EventKind;
use crate::json_text::Obj;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// Move tasks running at once in one account (spec §11.3); the refusal's text spells it out.
const MAX_RUNNING_TASKS: usize = 100;

/// The rate when the caller names none ("system-chosen" on AWS).
const DEFAULT_RATE: u32 = 500;
const STEP_MS: u64 = 1000;

/// One move task and its progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MoveTask {
    pub(crate) id: u64,
    pub(crate) source_arn: String,
    pub(crate) destination_arn: Option<String>,
    pub(crate) rate: Option<u32>,
    pub(crate) status: String,
    pub(crate) moved: u64,
    pub(crate) to_move: u64,
    pub(crate) started_at: u64,
    pub(crate) failure_reason: Option<String>,
    /// Moves have been made for every step up to here.
    pub(crate) stepped_to: u64,
}

impl MoveTask {
    /// When the task next moves messages, while it runs.
    pub(crate) fn next_step(&self) -> Option<u64> {
        (self.status == "RUNNING").then_some(self.stepped_to + STEP_MS)
    }

    /// The base64 of `{"taskId":"<UUID>","sourceArn":…}`, as AWS's handles are (recorded,
    /// issue #33 item 3).
    fn handle(&self, keys: &IdKeys) -> String {
        let mut raw = String::new();
        Obj::new(&mut raw)
            .str("taskId", &format_uuid(task_uuid(keys, self.id)))
            .str("sourceArn", &self.source_arn)
            .end();
        base64::engine::general_purpose::STANDARD.encode(raw)
    }

    /// The task as ListMessageMoveTasks lists it.
    fn result(&self, keys: &IdKeys) -> ListMessageMoveTasksResultEntry {
        let running = self.status == "RUNNING";
        ListMessageMoveTasksResultEntry {
            approximate_number_of_messages_moved: self.moved,
            approximate_number_of_messages_to_move: self.to_move,
            destination_arn: self.destination_arn.clone(),
            failure_reason: self.failure_reason.clone(),
            max_number_of_messages_per_second: self.rate,
            source_arn: self.source_arn.clone(),
            started_timestamp: self.started_at,
            status: self.status.clone(),
            task_handle: running.then(|| self.handle(keys)),
        }
    }
}

/// A task's id as its handle shows it: a UUID, as AWS's are, derived from the task's number with
/// the engine's seeded keys (the engine draws no randomness, so a seed replays the same ids).
fn task_uuid(keys: &IdKeys, id: u64) -> u128 {
    let mut bytes = *b"move-task:\0\0\0\0\0\0\0\0";
    bytes[10..].copy_from_slice(&id.to_le_bytes());
    let [hi, lo] = keys.digest(&bytes);
    let raw = ((hi as u128) << 64) | lo as u128;
    // The RFC 4122 version (4) and variant bits, as on every id SQS hands out.
    (raw & !(0xF000u128 << 64) & !(0xC000u128 << 48)) | (0x4000u128 << 64) | (0x8000u128 << 48)
}

fn not_found(parameter: &str) -> SqsError {
    SqsError::ResourceNotFoundException(format!(
        "The resource that you specified for the {parameter} parameter doesn't exist."
    ))
}

impl Engine {
    pub(crate) fn start_message_move_task(
        &mut self,
        now: u64,
        req: StartMessageMoveTaskRequest,
    ) -> Result<StartMessageMoveTaskResponse, SqsError> {
        let source_arn = req
            .source_arn
            .ok_or_else(|| SqsError::MissingParameter("SourceArn".into()))?;
        let rate = int_in_range(
            req.max_number_of_messages_per_second,
            "MaxNumberOfMessagesPerSecond",
            1,
            500,
            "Number must be between 1 and 500.",
        )?
        .map(|r| r as u32);
        let source = self
            .resolve_arn(&source_arn)
            .ok_or_else(|| not_found("SourceArn"))?;
        let is_dlq = self.queues.values().any(|q| {
            q.attrs
                .redrive_policy
                .as_ref()
                .is_some_and(|p| p.dead_letter_target_arn == source_arn)
        });
        if !is_dlq {
            return Err(SqsError::InvalidParameterValue(
                "Source queue must be configured as a Dead Letter Queue.".into(),
            ));
        }
        if let Some(dest) = &req.destination_arn {
            let dest = self
                .resolve_arn(dest)
                .ok_or_else(|| not_found("DestinationArn"))?;
            // A custom destination must be of the DLQ's type ([DOC] "configure a dead-letter
            // queue redrive": "if the dead-letter queue is a FIFO queue, the redrive destination
            // queue must be a FIFO queue as well"); a standard message carries no group for a
            // FIFO queue to order it by. AWS's text was not recorded.
            if self.queue(dest)?.fifo() != self.queue(source)?.fifo() {
                return Err(SqsError::InvalidParameterValue(
                    "The destination queue must be the same type (standard or FIFO) as the source queue."
                        .into(),
                ));
            }
        }
        if self
            .tasks
            .iter()
            .any(|t| t.source_arn == source_arn && t.status == "RUNNING")
        {
            return Err(SqsError::InvalidParameterValue(
                "There is already a task running. Only one active task is allowed for a source queue arn at a given time."
                    .into(),
            ));
        }
        // "Max 100 active tasks per account" (spec §11.3, §12). The text follows the
        // one-per-source message above; AWS's was not recorded.
        if self.tasks.iter().filter(|t| t.status == "RUNNING").count() >= MAX_RUNNING_TASKS {
            return Err(SqsError::InvalidParameterValue(
                "There are already 100 tasks running. Only 100 active tasks are allowed for an account at a given time."
                    .into(),
            ));
        }
        let to_move = self.queue(source)?.visible as u64;
        let id = self.next_task;
        self.next_task += 1;
        let task = MoveTask {
            id,
            source_arn,
            destination_arn: req.destination_arn,
            rate,
            status: "RUNNING".into(),
            moved: 0,
            to_move,
            started_at: now,
            failure_reason: None,
            // The first batch moves at once; later ones once a second.
            stepped_to: now.saturating_sub(STEP_MS),
        };
        let handle = task.handle(&self.keys);
        self.tasks.push(task);
        self.journal.touch(RecordKey::Task(id));
        self.journal.touch(RecordKey::Meta);
        self.run_move_tasks(now);
        Ok(StartMessageMoveTaskResponse {
            task_handle: handle,
        })
    }

    pub(crate) fn list_message_move_tasks(
        &mut self,
        req: ListMessageMoveTasksRequest,
    ) -> Result<ListMessageMoveTasksResponse, SqsError> {
        let source_arn = req
            .source_arn
            .ok_or_else(|| SqsError::MissingParameter("SourceArn".into()))?;
        let max = int_in_range(
            req.max_results,
            "MaxResults",
            1,
            10,
            "Number must be between 1 and 10.",
        )?
        .unwrap_or(1) as usize;
        self.resolve_arn(&source_arn)
            .ok_or_else(|| not_found("SourceArn"))?;
        let keys = &self.keys;
        let results = self
            .tasks
            .iter()
            .rev()
            .filter(|t| t.source_arn == source_arn)
            .take(max)
            .map(|t| t.result(keys))
            .collect();
        Ok(ListMessageMoveTasksResponse { results })
    }

    pub(crate) fn cancel_message_move_task(
        &mut self,
        now: u64,
        req: CancelMessageMoveTaskRequest,
    ) -> Result<CancelMessageMoveTaskResponse, SqsError> {
        let handle = req
            .task_handle
            .ok_or_else(|| SqsError::MissingParameter("TaskHandle".into()))?;
        let malformed =
            || SqsError::InvalidParameterValue("Value for parameter TaskHandle is invalid.".into());
        let decoded: Value = base64::engine::general_purpose::STANDARD
            .decode(handle.as_bytes())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|text| serde_json::from_str(&text).ok())
            .ok_or_else(malformed)?;
        // Any taskId text is well formed; one that names no task is not found (recorded).
        let task_id = decoded
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(malformed)?;
        let wanted = parse_uuid(task_id);
        let source_arn = decoded
            .get("sourceArn")
            .and_then(Value::as_str)
            .ok_or_else(malformed)?;
        self.resolve_arn(source_arn)
            .ok_or_else(|| not_found("SourceArn"))?;
        let keys = &self.keys;
        let task = self
            .tasks
            .iter_mut()
            .find(|t| {
                t.source_arn == source_arn && wanted.is_some_and(|w| w == task_uuid(keys, t.id))
            })
            .ok_or_else(|| SqsError::ResourceNotFoundException("Task does not exist.".into()))?;
        if task.status != "RUNNING" {
            return Err(invalid_value(
                &handle,
                "TaskHandle",
                "Only active tasks can be cancelled.",
            ));
        }
        task.status = "CANCELLED".into();
        task.stepped_to = now;
        let moved = task.moved;
        let id = task.id;
        self.journal.touch(RecordKey::Task(id));
        Ok(CancelMessageMoveTaskResponse {
            approximate_number_of_messages_moved: moved,
        })
    }

    /// Make every step of every running task that is due at `now`.
    pub(super) fn run_move_tasks(&mut self, now: u64) {
        let is_due = |t: &MoveTask| t.next_step().is_some_and(|s| s <= now);
        // Every call comes through here, and nearly always no task is due: then nothing is
        // collected (the empty list's making and dropping cost more than the test).
        if !self.tasks.iter().any(is_due) {
            return;
        }
        let due: Vec<u64> = self
            .tasks
            .iter()
            .filter(|t| is_due(t))
            .map(|t| t.id)
            .collect();
        for id in due {
            while let Some(step) = self.task(id).and_then(MoveTask::next_step) {
                if step > now {
                    break;
                }
                self.step_task(id, step);
            }
        }
    }

    fn step_task(&mut self, id: u64, at: u64) {
        let Some(mut task) = self.task(id).cloned() else {
            return;
        };
        task.stepped_to = at;
        let finish = |task: &mut MoveTask, status: &str, reason: Option<&str>| {
            task.status = status.into();
            task.failure_reason = reason.map(str::to_string);
        };
        match self.resolve_arn(&task.source_arn) {
            None => finish(
                &mut task,
                "FAILED",
                Some("AWS.SimpleQueueService.NonExistentQueue"),
            ),
            Some(source) => {
                let budget = task.rate.unwrap_or(DEFAULT_RATE) as u64;
                let budget = budget.min(task.to_move.saturating_sub(task.moved));
                for _ in 0..budget {
                    match self.move_one(source, task.destination_arn.as_deref(), at) {
                        Ok(true) => task.moved += 1,
                        Ok(false) => break,
                        Err(reason) => {
                            finish(&mut task, "FAILED", Some(reason));
                            break;
                        }
                    }
                }
                let source_empty = self.queues.get(&source).is_none_or(|q| q.visible == 0);
                if task.status == "RUNNING" && (task.moved >= task.to_move || source_empty) {
                    finish(&mut task, "COMPLETED", None);
                }
            }
        }
        if let Some(slot) = self.tasks.iter_mut().find(|t| t.id == id) {
            *slot = task;
        }
        self.journal.touch(RecordKey::Task(id));
    }

    pub(super) fn task(&self, id: u64) -> Option<&MoveTask> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Move the oldest visible message of `source` to its destination as a new message (new id,
    /// new enqueue time, receive count reset: spec §11.3). `Ok(false)`: nothing left to move.
    fn move_one(
        &mut self,
        source: u64,
        destination: Option<&str>,
        now: u64,
    ) -> Result<bool, &'static str> {
        let Some(q) = self.queues.get_mut(&source) else {
            return Ok(false);
        };
        let seq = if q.fifo() {
            q.next_ready_group()
                .and_then(|g| q.group_head_run(g, 1).first().copied())
        } else {
            q.next_standard(&BTreeSet::new(), None)
        };
        let Some(seq) = seq else { return Ok(false) };
        let dest_arn = match destination {
            Some(d) => d.to_string(),
            None => q
                .messages
                .get(&seq)
                .and_then(|m| m.extra())
                .and_then(|e| e.dead_letter_source_arn.as_deref().map(str::to_string))
                .ok_or("AWS.SimpleQueueService.NonExistentQueue")?,
        };
        let dest = self
            .resolve_arn(&dest_arn)
            .ok_or("AWS.SimpleQueueService.NonExistentQueue")?;
        let Some(q) = self.queues.get_mut(&source) else {
            return Ok(false);
        };
        let Some(old) = q.remove(seq, now, Removal::MovedByTask, &mut self.journal) else {
            return Ok(false);
        };
        let source_name = q.name.clone();
        self.sync_deadline(source);
        let new_seq = self.next_seq;
        self.next_seq += 1;
        self.journal.touch(RecordKey::Meta);
        let new_id = self.keys.message_id(new_seq);
        let Some(d) = self.queues.get_mut(&dest) else {
            return Ok(false);
        };
        let mut extra = old.extra.clone();
        if let Some(e) = extra.as_deref_mut() {
            e.dead_letter_source_arn = None;
            if d.attrs.fifo && e.deduplication_id.is_none() {
                e.deduplication_id = Some(format_uuid(new_id).into());
            }
        }
        let group = d.intern_group(old.group_id());
        let msg = Message::new(
            new_seq,
            old.body.clone(),
            old.body_md5,
            old.attributes.clone(),
            extra,
            group,
            now,
        );
        let dest_name = d.name.clone();
        d.insert(msg, &mut self.journal);
        self.sync_deadline(dest);
        self.journal
            .event(now, &source_name, || EventKind::MovedByTask {
                message_id: format_uuid(old.id(&self.keys)),
                destination: dest_name,
                new_message_id: format_uuid(new_id),
            });
        Ok(true)
    }
}
