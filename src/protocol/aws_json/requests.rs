//! Reading the typed requests from an action's AWS JSON 1.0 parameters (a `Value` object),
//! member names exactly as on the wire. Query requests arrive here too, once `shapes.rs` has
//! turned their flattened form into the same object.

use super::params::{FromParams, Params};
use crate::engine::requests::{
    AddPermissionRequest, CancelMessageMoveTaskRequest, CreateQueueRequest,
    GetQueueAttributesRequest, GetQueueUrlRequest, ListDeadLetterSourceQueuesRequest,
    ListMessageMoveTasksRequest, ListQueuesRequest, QueueUrlRequest, ReceiptBatchRequest,
    ReceiptRequest, ReceiveMessageRequest, RemovePermissionRequest, SendMessageBatchRequest,
    SendMessageRequest, SetQueueAttributesRequest, StartMessageMoveTaskRequest, TagQueueRequest,
    UntagQueueRequest,
};
use crate::error::SqsError;
use std::borrow::Cow;

/// `FromParams` for each request, from a table of its fields: the field, the `Params` accessor
/// that reads it, the member's name on the wire, and (`=> owned`, `=> batch`) what turns the
/// value read into the field's type where they differ.
macro_rules! from_params {
    ($($ty:ty { $($field:ident: $read:ident($key:literal) $(=> $into:ident)?),+ $(,)? })+) => {
        $(impl FromParams for $ty {
            fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
                Ok(Self { $($field: into!(p.$read($key)? $(, $into)?)),+ })
            }
        })+
    };
}

/// The conversions of `from_params!`, written out where they are used: as functions (one generic
/// over the entry type) the wasm came out larger.
macro_rules! into {
    ($v:expr) => {
        $v
    };
    // The message actions' strings are `Cow`s (lent from the text on the fast path); here they
    // are owned.
    ($v:expr, owned) => {
        $v.map(Cow::Owned)
    };
    // A batch's entries, each read as the request of one.
    ($v:expr, batch) => {
        $v.map(|es| {
            es.into_iter()
                .map(FromParams::from_params)
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
    };
}

from_params! {
    CreateQueueRequest {
        queue_name: str("QueueName"),
        attributes: str_map("Attributes"),
        tags: str_map("tags"),
    }
    QueueUrlRequest {
        queue_url: str("QueueUrl"),
    }
    GetQueueUrlRequest {
        queue_name: str("QueueName"),
        queue_owner_aws_account_id: str("QueueOwnerAWSAccountId"),
    }
    ListQueuesRequest {
        queue_name_prefix: str("QueueNamePrefix"),
        max_results: int("MaxResults"),
        next_token: str("NextToken"),
    }
    GetQueueAttributesRequest {
        queue_url: str("QueueUrl"),
        attribute_names: str_list("AttributeNames"),
    }
    SetQueueAttributesRequest {
        queue_url: str("QueueUrl"),
        attributes: str_map("Attributes"),
    }
    TagQueueRequest {
        queue_url: str("QueueUrl"),
        tags: str_map("Tags"),
    }
    UntagQueueRequest {
        queue_url: str("QueueUrl"),
        tag_keys: str_list("TagKeys"),
    }
    AddPermissionRequest {
        queue_url: str("QueueUrl"),
        label: str("Label"),
        aws_account_ids: str_list("AWSAccountIds"),
        actions: str_list("Actions"),
    }
    RemovePermissionRequest {
        queue_url: str("QueueUrl"),
        label: str("Label"),
    }
    SendMessageRequest<'static> {
        queue_url: str("QueueUrl") => owned,
        id: str("Id") => owned,
        message_body: str("MessageBody") => owned,
        delay_seconds: int("DelaySeconds"),
        message_attributes: attributes("MessageAttributes"),
        message_system_attributes: attributes("MessageSystemAttributes"),
        message_deduplication_id: str("MessageDeduplicationId") => owned,
        message_group_id: str("MessageGroupId") => owned,
    }
    SendMessageBatchRequest<'static> {
        queue_url: str("QueueUrl") => owned,
        entries: entries("Entries") => batch,
    }
    ReceiveMessageRequest {
        queue_url: str("QueueUrl"),
        attribute_names: str_list("AttributeNames"),
        message_system_attribute_names: str_list("MessageSystemAttributeNames"),
        message_attribute_names: str_list("MessageAttributeNames"),
        max_number_of_messages: int("MaxNumberOfMessages"),
        visibility_timeout: int("VisibilityTimeout"),
        wait_time_seconds: int("WaitTimeSeconds"),
        receive_request_attempt_id: str("ReceiveRequestAttemptId"),
    }
    ReceiptRequest<'static> {
        queue_url: str("QueueUrl") => owned,
        id: str("Id") => owned,
        receipt_handle: str("ReceiptHandle") => owned,
        visibility_timeout: int("VisibilityTimeout"),
    }
    ReceiptBatchRequest<'static> {
        queue_url: str("QueueUrl") => owned,
        entries: entries("Entries") => batch,
    }
    ListDeadLetterSourceQueuesRequest {
        queue_url: str("QueueUrl"),
        max_results: int("MaxResults"),
        next_token: str("NextToken"),
    }
    StartMessageMoveTaskRequest {
        source_arn: str("SourceArn"),
        destination_arn: str("DestinationArn"),
        max_number_of_messages_per_second: int("MaxNumberOfMessagesPerSecond"),
    }
    ListMessageMoveTasksRequest {
        source_arn: str("SourceArn"),
        max_results: int("MaxResults"),
    }
    CancelMessageMoveTaskRequest {
        task_handle: str("TaskHandle"),
    }
}
