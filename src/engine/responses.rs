//! Typed responses of the actions, with SQS's member names (as Rust fields). Writing them on
//! the wire is the protocol layer's (`protocol/aws_json/responses.rs`).

pub use super::ids::{ReceiptHandleText, UuidText};
pub use super::values::{Md5Digest, MessageId};
pub use crate::digest::Md5Text;
use crate::error::SqsError;
use crate::maps::SortedMap;
use crate::model::MessageAttributes;

/// The response of an action without output (DeleteMessage, ChangeMessageVisibility): `{}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmptyResponse;

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

/// CreateQueue's and GetQueueUrl's result.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueUrlResponse {
    pub queue_url: String,
}

/// StartMessageMoveTask's result.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StartMessageMoveTaskResponse {
    pub task_handle: String,
}

/// CancelMessageMoveTask's result.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CancelMessageMoveTaskResponse {
    pub approximate_number_of_messages_moved: u64,
}

/// ListQueues' result: one page of queue URLs, and the token for the next page when more
/// remain (an empty list is omitted on the wire).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQueuesResponse {
    pub queue_urls: Vec<String>,
    pub next_token: Option<String>,
}

/// ListDeadLetterSourceQueues' result: the page of queues whose RedrivePolicy names the queue.
/// `queueUrls` is required in SQS's model, so it is on the wire even when empty (spec §4.16).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListDeadLetterSourceQueuesResponse {
    pub queue_urls: Vec<String>,
    pub next_token: Option<String>,
}

/// GetQueueAttributes' result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GetQueueAttributesResponse {
    /// The attributes asked for that the queue has, each once, in byte order of their names
    /// (the order `All` lists them in), however the request named them. The names are the
    /// engine's own, so none is copied.
    pub attributes: Vec<(&'static str, String)>,
}

/// ListQueueTags' result (no tags: no `Tags` on the wire).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQueueTagsResponse {
    pub tags: SortedMap<String, String>,
}

/// One task of a ListMessageMoveTasks result.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListMessageMoveTasksResultEntry {
    pub approximate_number_of_messages_moved: u64,
    pub approximate_number_of_messages_to_move: u64,
    pub destination_arn: Option<String>,
    pub failure_reason: Option<String>,
    /// Present when the task was started with a rate.
    pub max_number_of_messages_per_second: Option<u32>,
    pub source_arn: String,
    pub started_timestamp: u64,
    /// `RUNNING`, `COMPLETED`, `CANCELLED` or `FAILED`.
    pub status: String,
    /// Running tasks only: what CancelMessageMoveTask takes.
    pub task_handle: Option<String>,
}

/// ListMessageMoveTasks' result: the source's most recent tasks, newest first (an empty list
/// is omitted on the wire).
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListMessageMoveTasksResponse {
    pub results: Vec<ListMessageMoveTasksResultEntry>,
}
