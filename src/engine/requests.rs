//! Typed requests, deserialized from AWS JSON 1.0 parameters (member names exactly as on the wire).
//!
//! Every member is optional here: which ones are required, and the exact error when one is
//! missing, is decided by the action, as SQS does.

use crate::model::MessageAttributes;
use serde::Deserialize;
use std::collections::BTreeMap;

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateQueueRequest {
    pub queue_name: Option<String>,
    pub attributes: Option<BTreeMap<String, String>>,
    #[serde(rename = "tags")]
    pub tags: Option<BTreeMap<String, String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueueUrlRequest {
    pub queue_url: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetQueueUrlRequest {
    pub queue_name: Option<String>,
    #[serde(rename = "QueueOwnerAWSAccountId")]
    pub queue_owner_aws_account_id: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListQueuesRequest {
    pub queue_name_prefix: Option<String>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetQueueAttributesRequest {
    pub queue_url: Option<String>,
    pub attribute_names: Option<Vec<String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SetQueueAttributesRequest {
    pub queue_url: Option<String>,
    pub attributes: Option<BTreeMap<String, String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagQueueRequest {
    pub queue_url: Option<String>,
    pub tags: Option<BTreeMap<String, String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagQueueRequest {
    pub queue_url: Option<String>,
    pub tag_keys: Option<Vec<String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AddPermissionRequest {
    pub queue_url: Option<String>,
    pub label: Option<String>,
    #[serde(rename = "AWSAccountIds")]
    pub aws_account_ids: Option<Vec<String>>,
    pub actions: Option<Vec<String>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RemovePermissionRequest {
    pub queue_url: Option<String>,
    pub label: Option<String>,
}

/// SendMessage, and one entry of SendMessageBatch (which adds `Id`).
#[allow(missing_docs)]
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageRequest {
    pub queue_url: Option<String>,
    pub id: Option<String>,
    pub message_body: Option<String>,
    pub delay_seconds: Option<i64>,
    pub message_attributes: Option<MessageAttributes>,
    pub message_system_attributes: Option<MessageAttributes>,
    pub message_deduplication_id: Option<String>,
    pub message_group_id: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageBatchRequest {
    pub queue_url: Option<String>,
    pub entries: Option<Vec<SendMessageRequest>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
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

/// DeleteMessage / ChangeMessageVisibility, and one entry of their batches (which add `Id`).
#[allow(missing_docs)]
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiptRequest {
    pub queue_url: Option<String>,
    pub id: Option<String>,
    pub receipt_handle: Option<String>,
    pub visibility_timeout: Option<i64>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiptBatchRequest {
    pub queue_url: Option<String>,
    pub entries: Option<Vec<ReceiptRequest>>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListDeadLetterSourceQueuesRequest {
    pub queue_url: Option<String>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct StartMessageMoveTaskRequest {
    pub source_arn: Option<String>,
    pub destination_arn: Option<String>,
    pub max_number_of_messages_per_second: Option<i64>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListMessageMoveTasksRequest {
    pub source_arn: Option<String>,
    pub max_results: Option<i64>,
}

#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CancelMessageMoveTaskRequest {
    pub task_handle: Option<String>,
}
