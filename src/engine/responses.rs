//! Typed responses of the message actions, with SQS's member names (as Rust fields).
//!
//! Each writes itself as AWS JSON 1.0 text (`to_json`); `Engine::dispatch` reads that text back
//! into a `serde_json::Value`, so the two entry points cannot drift apart and the wasm carries
//! one encoder per response instead of two.

pub use super::ids::{ReceiptHandleText, UuidText};
pub use super::values::{Md5Digest, MessageId};
pub use crate::digest::Md5Text;
use crate::error::SqsError;
use crate::json_text::{list, string, Obj};
use crate::maps::SortedMap;
use crate::model::{MessageAttributeValue, MessageAttributes};
use base64::Engine as _;

/// A response that can be written as AWS JSON 1.0.
pub trait JsonResponse {
    /// Append the response's JSON text (what `serde_json::Value::to_string` gives for it).
    fn write_json(&self, out: &mut String);

    /// About how many bytes the text takes: a batch response written into a buffer that grows
    /// as it goes was reallocated and copied five or six times.
    fn size_hint(&self) -> usize {
        128
    }

    /// The response's JSON text.
    fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.size_hint());
        self.write_json(&mut out);
        out
    }
}

/// The response of an action without output (DeleteMessage, ChangeMessageVisibility): `{}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmptyResponse;

impl JsonResponse for EmptyResponse {
    fn write_json(&self, out: &mut String) {
        out.push_str("{}");
    }
}

/// SendMessage's result.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendMessageResponse {
    pub message_id: MessageId,
    pub md5_of_message_body: Md5Digest,
    pub md5_of_message_attributes: Option<String>,
    pub md5_of_message_system_attributes: Option<String>,
    /// FIFO queues only.
    pub sequence_number: Option<String>,
}

impl SendMessageResponse {
    fn write_members(&self, o: &mut Obj<'_>) {
        o.opt(
            "MD5OfMessageAttributes",
            self.md5_of_message_attributes.as_deref(),
        );
        o.token("MD5OfMessageBody", &self.md5_of_message_body.text());
        o.opt(
            "MD5OfMessageSystemAttributes",
            self.md5_of_message_system_attributes.as_deref(),
        );
        o.token("MessageId", &self.message_id.text());
        o.opt("SequenceNumber", self.sequence_number.as_deref());
    }
}

impl JsonResponse for SendMessageResponse {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        self.write_members(&mut o);
        o.end();
    }
}

/// A batch entry's `Id`, inline: at most 80 characters, as `check_batch_shape` has checked of
/// every entry before any of them runs.
pub type EntryId = arrayvec::ArrayString<80>;

/// Push a default entry onto `list` and write `id` into its [`EntryId`] there. Only called with
/// ids that passed `check_batch_shape` (≤ 80 ASCII characters), so the id always fits.
///
/// Built in place rather than pushed whole: an `EntryId` made on the stack is a short `memcpy`
/// of the id's bytes, and copying the whole entry straight after reads those bytes back in
/// loads wider than the stores that wrote them, which the CPU cannot forward (a stall on every
/// entry).
pub(crate) fn push_entry<'a, T: Default>(
    list: &'a mut Vec<T>,
    id: &str,
    entry_id: impl FnOnce(&mut T) -> &mut EntryId,
) -> &'a mut T {
    let entry = push_with(list, T::default);
    // Cannot fail for a checked id; an unchecked one too long would leave the id empty, as
    // `EntryId::from(id).unwrap_or_default()` did.
    let _ = entry_id(entry).try_push_str(id);
    entry
}

/// `list.push(make())`, and the entry just pushed, for the caller to fill in place.
pub(crate) fn push_with<T>(list: &mut Vec<T>, make: impl FnOnce() -> T) -> &mut T {
    let at = list.len();
    list.push(make());
    &mut list[at]
}

/// One `Successful` entry of SendMessageBatch: the entry's `Id` and what SendMessage answers.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendMessageBatchResultEntry {
    pub id: EntryId,
    pub result: SendMessageResponse,
}

/// `BatchResultErrorEntry`: an entry of a batch that failed on its own.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchResultErrorEntry {
    pub id: String,
    pub sender_fault: bool,
    pub code: String,
    pub message: String,
}

impl BatchResultErrorEntry {
    pub(crate) fn new(id: &str, e: &SqsError) -> Self {
        BatchResultErrorEntry {
            id: id.to_string(),
            sender_fault: true,
            code: e.batch_entry_code().to_string(),
            message: e.message(),
        }
    }

    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("Code", &self.code);
        o.str("Id", &self.id);
        o.str("Message", &self.message);
        o.member("SenderFault")
            .push_str(if self.sender_fault { "true" } else { "false" });
        o.end();
    }
}

/// `{Successful, Failed}` of a batch action; an empty list is omitted, as AWS does (spec §1.1).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchResponse<T> {
    pub successful: Vec<T>,
    pub failed: Vec<BatchResultErrorEntry>,
}

impl<T> Default for BatchResponse<T> {
    fn default() -> Self {
        BatchResponse {
            successful: Vec::new(),
            failed: Vec::new(),
        }
    }
}

/// A `Successful` entry that carries only the entry's `Id` (delete and visibility batches).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchResultEntry {
    pub id: EntryId,
}

/// SendMessageBatch's result.
pub type SendMessageBatchResponse = BatchResponse<SendMessageBatchResultEntry>;
/// DeleteMessageBatch's result.
pub type DeleteMessageBatchResponse = BatchResponse<BatchResultEntry>;
/// ChangeMessageVisibilityBatch's result.
pub type ChangeMessageVisibilityBatchResponse = BatchResponse<BatchResultEntry>;

fn write_batch<T>(out: &mut String, b: &BatchResponse<T>, mut entry: impl FnMut(&mut String, &T)) {
    let mut o = Obj::new(out);
    if !b.failed.is_empty() {
        list(o.member("Failed"), &b.failed, |out, f| f.write_json(out));
    }
    if !b.successful.is_empty() {
        list(o.member("Successful"), &b.successful, |out, s| {
            entry(out, s)
        });
    }
    o.end();
}

/// Room for a batch's `Failed` entries (code, message, id).
fn failed_size(b: &BatchResponse<impl Sized>) -> usize {
    b.failed
        .iter()
        .map(|f| f.id.len() + f.code.len() + f.message.len() + 64)
        .sum()
}

impl JsonResponse for SendMessageBatchResponse {
    fn size_hint(&self) -> usize {
        // Id, MD5 and message id members: ~110 bytes besides the entry id.
        let ok: usize = self.successful.iter().map(|s| s.id.len() + 128).sum();
        32 + ok + failed_size(self)
    }

    fn write_json(&self, out: &mut String) {
        write_batch(out, self, |out, s| {
            let mut o = Obj::new(out);
            o.str("Id", &s.id);
            s.result.write_members(&mut o);
            o.end();
        });
    }
}

impl JsonResponse for DeleteMessageBatchResponse {
    fn size_hint(&self) -> usize {
        let ok: usize = self.successful.iter().map(|s| s.id.len() + 10).sum();
        32 + ok + failed_size(self)
    }

    fn write_json(&self, out: &mut String) {
        write_batch(out, self, |out, s| {
            let mut o = Obj::new(out);
            o.str("Id", &s.id);
            o.end();
        });
    }
}

/// A message body, shared by the stored message and every response that carries it: a receive
/// would otherwise copy each body it returns (an allocation and a copy per message; for a
/// 256 KiB body, a 256 KiB copy).
/// triomphe's `Arc` has no weak count, so it adds 8 bytes to each stored message where std's
/// adds 16 (the standard queue's budget is 150 bytes a message); atomic rather than `Rc`'s
/// plain count, so that an engine stays `Send`.
pub type MessageBody = triomphe::Arc<str>;

/// One message of a ReceiveMessage result.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMessage {
    pub message_id: MessageId,
    pub receipt_handle: ReceiptHandleText,
    pub md5_of_body: Md5Digest,
    pub body: MessageBody,
    /// The attributes the receive's filters selected, if any. Behind one pointer, which most
    /// receives leave empty: inline, the three empty collections would be built apart and
    /// copied in with loads wider than their stores, and the message would be 176 bytes, past
    /// what the compiler copies without a `memcpy` call, rather than 112.
    pub selected: Option<Box<SelectedAttributes>>,
}

/// What a receive's attribute filters selected of one message.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectedAttributes {
    /// The system attributes asked for (`Attributes` on the wire), by name.
    pub attributes: SortedMap<String, String>,
    /// Present when message attributes were asked for and at least one was selected.
    pub md5_of_message_attributes: Option<String>,
    pub message_attributes: MessageAttributes,
}

/// The empty selection of a message that was received without attributes.
static NOTHING_SELECTED: SelectedAttributes = SelectedAttributes {
    attributes: SortedMap::new(),
    md5_of_message_attributes: None,
    message_attributes: SortedMap::new(),
};

impl ReceivedMessage {
    /// The system attributes returned (`Attributes` on the wire), by name.
    pub fn attributes(&self) -> &SortedMap<String, String> {
        &self.selection().attributes
    }

    /// `MD5OfMessageAttributes` of the message attributes returned, if any were.
    pub fn md5_of_message_attributes(&self) -> Option<&str> {
        self.selection().md5_of_message_attributes.as_deref()
    }

    /// The message attributes returned.
    pub fn message_attributes(&self) -> &MessageAttributes {
        &self.selection().message_attributes
    }

    fn selection(&self) -> &SelectedAttributes {
        self.selected.as_deref().unwrap_or(&NOTHING_SELECTED)
    }
}

/// ReceiveMessage's result (an empty list is omitted on the wire).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReceiveMessageResponse {
    pub messages: Vec<ReceivedMessage>,
}

impl JsonResponse for ReceiveMessageResponse {
    fn size_hint(&self) -> usize {
        // Member names, the message id and the MD5: ~130 bytes besides body and handle;
        // attributes are rare enough to be left to growth.
        let each: usize = self
            .messages
            .iter()
            .map(|m| m.body.len() + m.receipt_handle.len() + 160)
            .sum();
        16 + each
    }

    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        if !self.messages.is_empty() {
            list(o.member("Messages"), &self.messages, |out, m| {
                m.write_json(out)
            });
        }
        o.end();
    }
}

impl ReceivedMessage {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        let selected = self.selected.as_deref();
        if let Some(s) = selected.filter(|s| !s.attributes.is_empty()) {
            let mut a = Obj::new(o.member("Attributes"));
            for (k, v) in &s.attributes {
                string(a.key(k), v);
            }
            a.end();
        }
        o.str("Body", &self.body);
        o.token("MD5OfBody", &self.md5_of_body.text());
        if let Some(s) = selected {
            o.opt(
                "MD5OfMessageAttributes",
                s.md5_of_message_attributes.as_deref(),
            );
            if !s.message_attributes.is_empty() {
                let mut a = Obj::new(o.member("MessageAttributes"));
                for (k, v) in &s.message_attributes {
                    write_attribute(a.key(k), v);
                }
                a.end();
            }
        }
        o.token("MessageId", &self.message_id.text());
        o.token("ReceiptHandle", &self.receipt_handle);
        o.end();
    }
}

/// A `MessageAttributeValue` as AWS JSON 1.0 renders it (binary values in base64).
fn write_attribute(out: &mut String, v: &MessageAttributeValue) {
    let b64 = &base64::engine::general_purpose::STANDARD;
    let mut o = Obj::new(out);
    if !v.binary_list_values.is_empty() {
        list(
            o.member("BinaryListValues"),
            &v.binary_list_values,
            |out, b| string(out, &b64.encode(b)),
        );
    }
    if let Some(b) = &v.binary_value {
        o.str("BinaryValue", &b64.encode(b));
    }
    o.str("DataType", &v.data_type);
    if !v.string_list_values.is_empty() {
        list(
            o.member("StringListValues"),
            &v.string_list_values,
            |out, s| string(out, s),
        );
    }
    o.opt("StringValue", v.string_value.as_deref());
    o.end();
}
