//! Typed requests, with SQS's member names (as Rust fields). Reading them from the wire is the
//! protocol layer's (`protocol/aws_json/requests.rs`; Query reaches the same reader through
//! `shapes.rs`).
//!
//! Every member is optional here: which ones are required, and the exact error when one is
//! missing, is decided by the action, as SQS does. The message actions' strings are `Cow`s so
//! the JSON fast path can lend them from the request text; other callers hand over owned ones.

use crate::maps::SortedMap;
use crate::model::MessageAttributes;
use std::borrow::Cow;

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct CreateQueueRequest {
    pub queue_name: Option<String>,
    pub attributes: Option<SortedMap<String, String>>,
    pub tags: Option<SortedMap<String, String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct QueueUrlRequest {
    pub queue_url: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct GetQueueUrlRequest {
    pub queue_name: Option<String>,
    pub queue_owner_aws_account_id: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ListQueuesRequest {
    pub queue_name_prefix: Option<String>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct GetQueueAttributesRequest {
    pub queue_url: Option<String>,
    pub attribute_names: Option<Vec<String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct SetQueueAttributesRequest {
    pub queue_url: Option<String>,
    pub attributes: Option<SortedMap<String, String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct TagQueueRequest {
    pub queue_url: Option<String>,
    pub tags: Option<SortedMap<String, String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct UntagQueueRequest {
    pub queue_url: Option<String>,
    pub tag_keys: Option<Vec<String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct AddPermissionRequest {
    pub queue_url: Option<String>,
    pub label: Option<String>,
    pub aws_account_ids: Option<Vec<String>>,
    pub actions: Option<Vec<String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct RemovePermissionRequest {
    pub queue_url: Option<String>,
    pub label: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct SendMessageRequest<'a> {
    pub queue_url: Option<Cow<'a, str>>,
    pub id: Option<Cow<'a, str>>,
    pub message_body: Option<Cow<'a, str>>,
    pub delay_seconds: Option<i64>,
    pub message_attributes: Option<MessageAttributes>,
    pub message_system_attributes: Option<MessageAttributes>,
    pub message_deduplication_id: Option<Cow<'a, str>>,
    pub message_group_id: Option<Cow<'a, str>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct SendMessageBatchRequest<'a> {
    pub queue_url: Option<Cow<'a, str>>,
    pub entries: Option<Vec<SendMessageRequest<'a>>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ReceiveMessageRequest {
    pub queue_url: Option<String>,
    pub attribute_names: Option<Vec<String>>,
    pub message_system_attribute_names: Option<Vec<String>>,
    pub message_attribute_names: Option<Vec<String>>,
    pub max_number_of_messages: Option<i64>,
    pub visibility_timeout: Option<i64>,
    pub wait_time_seconds: Option<i64>,
    pub receive_request_attempt_id: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ReceiptRequest<'a> {
    pub queue_url: Option<Cow<'a, str>>,
    pub id: Option<Cow<'a, str>>,
    pub receipt_handle: Option<Cow<'a, str>>,
    pub visibility_timeout: Option<i64>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ReceiptBatchRequest<'a> {
    pub queue_url: Option<Cow<'a, str>>,
    pub entries: Option<Vec<ReceiptRequest<'a>>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ListDeadLetterSourceQueuesRequest {
    pub queue_url: Option<String>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct StartMessageMoveTaskRequest {
    pub source_arn: Option<String>,
    pub destination_arn: Option<String>,
    pub max_number_of_messages_per_second: Option<i64>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ListMessageMoveTasksRequest {
    pub source_arn: Option<String>,
    pub max_results: Option<i64>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct CancelMessageMoveTaskRequest {
    pub task_handle: Option<String>,
}
