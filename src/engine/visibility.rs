//! DeleteMessage and ChangeMessageVisibility (and their batches): the receipt-handle rules of
//! spec §7.3, which differ between standard and FIFO queues.

use super::ids::{format_uuid, Receipt};
use super::message::MessageState;
use super::queue::{Queue, Removal};
use super::requests::{ReceiptBatchRequest, ReceiptRequest};
use super::responses::{
    push_entry, BatchResponse, BatchResultEntry, BatchResultErrorEntry, EmptyResponse,
};
use super::send::check_batch_shape;
use super::{Apart, Engine};
use crate::error::{invalid_value, SqsError};
use crate::events::EventKind;

/// Total visibility, counted from the receive, may not reach 12 hours.
const VISIBILITY_CAP_MS: u64 = 43_200_000;

fn expired(handle: &str) -> SqsError {
    invalid_value(handle, "ReceiptHandle", "The receipt handle has expired.")
}

impl Apart<'_> {
    /// Decode a handle and check it belongs to this queue incarnation.
    fn receipt(&self, handle: &str) -> Result<Receipt, SqsError> {
        self.keys
            .parse_receipt_handle(handle)
            .filter(|r| r.queue == self.uid)
            .ok_or_else(|| SqsError::ReceiptHandleIsInvalid(handle.to_string()))
    }

    /// Delete one message. Here and in `change_visibility_one` the caller re-files the queue's
    /// deadline (`sync_deadline`) once for its call, not once per entry of a batch.
    fn delete_one(&mut self, q: &mut Queue, handle: Option<&str>) -> Result<(), SqsError> {
        let handle = handle.ok_or_else(|| SqsError::MissingParameter("ReceiptHandle".into()))?;
        let r = self.receipt(handle)?;
        if q.fifo() {
            let Some(m) = q.messages.get(&r.seq) else {
                // Already deleted, expired, purged or moved: SQS answers success (spec §7.3).
                return Ok(());
            };
            if !(m.state == MessageState::InFlight && m.serial == r.serial) {
                // FIFO handles die with their visibility window (or the next delivery).
                return Err(expired(handle));
            }
        }
        // Standard queues accept any handle the message was given, even an expired or older one
        // (spec §7.3: "the request will succeed"), and a message already gone is a success as
        // well: one lookup, the removal's own.
        q.discard(r.seq, self.now, Removal::Deleted, self.journal);
        Ok(())
    }

    fn change_visibility_one(
        &mut self,
        q: &mut Queue,
        handle: Option<&str>,
        timeout: Option<i64>,
    ) -> Result<(), SqsError> {
        let now = self.now;
        let handle = handle.ok_or_else(|| SqsError::MissingParameter("ReceiptHandle".into()))?;
        let timeout =
            timeout.ok_or_else(|| SqsError::MissingParameter("VisibilityTimeout".into()))?;
        if !(0..=43_200).contains(&timeout) {
            return Err(invalid_value(
                timeout,
                "VisibilityTimeout",
                "Must be >= 0 and <= 43200, if provided.",
            ));
        }
        let r = self.receipt(handle)?;
        let Some(m) = q.messages.get_mut(&r.seq) else {
            return Err(invalid_value(
                handle,
                "ReceiptHandle",
                "Message does not exist or is not available for visibility timeout change.",
            ));
        };
        if q.attrs.fifo {
            // Not recorded on AWS for FIFO; the same rule as DeleteMessage keeps a stale
            // consumer from re-hiding a message another one now owns.
            if !(m.state == MessageState::InFlight && m.serial == r.serial) {
                return Err(expired(handle));
            }
        } else if m.state != MessageState::InFlight {
            // The handle's window already ran out: AWS answers 200 (spec §7.3, recorded) and the
            // message stays visible (§13 #15): hiding it again could take it from whoever
            // receives it next. Extensions made while it is still in flight always apply.
            return Ok(());
        }
        let timeout_ms = timeout as u64 * 1000;
        // The 12-hour cap counts from the receive and is not reset by extensions. Reaching it
        // exactly is refused, so 43,200 right after a receive fails and 43,195 works (spec §7.2).
        if timeout > 0 && now.saturating_sub(m.received_at) + timeout_ms >= VISIBILITY_CAP_MS {
            return Err(invalid_value(
                timeout,
                "VisibilityTimeout",
                "Total VisibilityTimeout for the message is beyond the limit [43200 seconds].",
            ));
        }
        m.visibility_changed = true;
        let id = m.id(self.keys);
        if timeout == 0 {
            q.make_visible(r.seq, now, self.journal);
        } else {
            q.set_in_flight(r.seq, now + timeout_ms, self.journal);
        }
        if self.journal.feed() {
            let name = q.name.clone();
            self.journal
                .event(now, &name, || EventKind::VisibilityChanged {
                    message_id: format_uuid(id),
                    visible_at: now + timeout_ms,
                });
        }
        Ok(())
    }
}

impl Engine {
    pub(crate) fn run_delete_message(
        &mut self,
        now: u64,
        req: &ReceiptRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.message_queue(req.queue_url.as_deref())?;
        let (q, mut r) = self.apart(uid, now)?;
        let deleted = r.delete_one(q, req.receipt_handle.as_deref());
        if deleted.is_ok() {
            q.counters[super::metrics::DELETED] += 1;
        }
        self.sync_deadline(uid);
        deleted.map(|()| EmptyResponse)
    }

    pub(crate) fn run_change_message_visibility(
        &mut self,
        now: u64,
        req: &ReceiptRequest,
    ) -> Result<EmptyResponse, SqsError> {
        let uid = self.message_queue(req.queue_url.as_deref())?;
        let (q, mut r) = self.apart(uid, now)?;
        let changed =
            r.change_visibility_one(q, req.receipt_handle.as_deref(), req.visibility_timeout);
        self.sync_deadline(uid);
        changed.map(|()| EmptyResponse)
    }

    pub(crate) fn run_delete_message_batch(
        &mut self,
        now: u64,
        req: &ReceiptBatchRequest,
    ) -> Result<BatchResponse<BatchResultEntry>, SqsError> {
        self.receipt_batch(now, req, "DeleteMessageBatchRequestEntry", |r, q, entry| {
            let deleted = r.delete_one(q, entry.receipt_handle.as_deref());
            if deleted.is_ok() {
                q.counters[super::metrics::DELETED] += 1;
            }
            deleted
        })
    }

    pub(crate) fn run_change_message_visibility_batch(
        &mut self,
        now: u64,
        req: &ReceiptBatchRequest,
    ) -> Result<BatchResponse<BatchResultEntry>, SqsError> {
        self.receipt_batch(
            now,
            req,
            "ChangeMessageVisibilityBatchRequestEntry",
            |r, q, entry| {
                r.change_visibility_one(
                    q,
                    entry.receipt_handle.as_deref(),
                    entry.visibility_timeout,
                )
            },
        )
    }

    fn receipt_batch(
        &mut self,
        now: u64,
        req: &ReceiptBatchRequest,
        entry_shape: &str,
        mut one: impl FnMut(&mut Apart<'_>, &mut Queue, &ReceiptRequest) -> Result<(), SqsError>,
    ) -> Result<BatchResponse<BatchResultEntry>, SqsError> {
        let uid = self.message_queue(req.queue_url.as_deref())?;
        let entries = req
            .entries
            .as_deref()
            .ok_or_else(|| SqsError::MissingParameter("Entries".into()))?;
        check_batch_shape(entries.iter().map(|e| e.id.as_deref()), entry_shape)?;
        let mut out = BatchResponse {
            successful: Vec::with_capacity(entries.len()),
            failed: Vec::new(),
        };
        let (q, mut r) = self.apart(uid, now)?;
        for entry in entries {
            let id = entry.id.as_deref().unwrap_or_default();
            match one(&mut r, q, entry) {
                Ok(()) => {
                    push_entry(&mut out.successful, id, |e: &mut BatchResultEntry| {
                        &mut e.id
                    });
                }
                Err(e) => out.failed.push(BatchResultErrorEntry::new(id, &e)),
            }
        }
        // Once for the batch: nothing reads the engine's deadline index between its entries.
        self.sync_deadline(uid);
        Ok(out)
    }
}
