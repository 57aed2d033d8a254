//! Typed requests, read from AWS JSON 1.0 parameters (member names exactly as on the wire).
//!
//! Every member is optional here: which ones are required, and the exact error when one is
//! missing, is decided by the action, as SQS does.

use super::params::{FromParams, Params};
use crate::error::SqsError;
use crate::maps::SortedMap;
use crate::model::MessageAttributes;
use std::borrow::Cow;

/// The request's strings are `Cow`s so the JSON fast path (`json_in`) can lend them from the
/// request text; the `Value` path and callers hand over owned ones.
fn owned(s: Option<String>) -> Option<Cow<'static, str>> {
    s.map(Cow::Owned)
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct CreateQueueRequest {
    pub queue_name: Option<String>,
    pub attributes: Option<SortedMap<String, String>>,
    pub tags: Option<SortedMap<String, String>>,
}

impl FromParams for CreateQueueRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(CreateQueueRequest {
            queue_name: p.str("QueueName")?,
            attributes: p.str_map("Attributes")?,
            tags: p.str_map("tags")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct QueueUrlRequest {
    pub queue_url: Option<String>,
}

impl FromParams for QueueUrlRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(QueueUrlRequest {
            queue_url: p.str("QueueUrl")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct GetQueueUrlRequest {
    pub queue_name: Option<String>,
    pub queue_owner_aws_account_id: Option<String>,
}

impl FromParams for GetQueueUrlRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(GetQueueUrlRequest {
            queue_name: p.str("QueueName")?,
            queue_owner_aws_account_id: p.str("QueueOwnerAWSAccountId")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ListQueuesRequest {
    pub queue_name_prefix: Option<String>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

impl FromParams for ListQueuesRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ListQueuesRequest {
            queue_name_prefix: p.str("QueueNamePrefix")?,
            max_results: p.int("MaxResults")?,
            next_token: p.str("NextToken")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct GetQueueAttributesRequest {
    pub queue_url: Option<String>,
    pub attribute_names: Option<Vec<String>>,
}

impl FromParams for GetQueueAttributesRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(GetQueueAttributesRequest {
            queue_url: p.str("QueueUrl")?,
            attribute_names: p.str_list("AttributeNames")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct SetQueueAttributesRequest {
    pub queue_url: Option<String>,
    pub attributes: Option<SortedMap<String, String>>,
}

impl FromParams for SetQueueAttributesRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(SetQueueAttributesRequest {
            queue_url: p.str("QueueUrl")?,
            attributes: p.str_map("Attributes")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct TagQueueRequest {
    pub queue_url: Option<String>,
    pub tags: Option<SortedMap<String, String>>,
}

impl FromParams for TagQueueRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(TagQueueRequest {
            queue_url: p.str("QueueUrl")?,
            tags: p.str_map("Tags")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct UntagQueueRequest {
    pub queue_url: Option<String>,
    pub tag_keys: Option<Vec<String>>,
}

impl FromParams for UntagQueueRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(UntagQueueRequest {
            queue_url: p.str("QueueUrl")?,
            tag_keys: p.str_list("TagKeys")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct AddPermissionRequest {
    pub queue_url: Option<String>,
    pub label: Option<String>,
    pub aws_account_ids: Option<Vec<String>>,
    pub actions: Option<Vec<String>>,
}

impl FromParams for AddPermissionRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(AddPermissionRequest {
            queue_url: p.str("QueueUrl")?,
            label: p.str("Label")?,
            aws_account_ids: p.str_list("AWSAccountIds")?,
            actions: p.str_list("Actions")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct RemovePermissionRequest {
    pub queue_url: Option<String>,
    pub label: Option<String>,
}

impl FromParams for RemovePermissionRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(RemovePermissionRequest {
            queue_url: p.str("QueueUrl")?,
            label: p.str("Label")?,
        })
    }
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

impl FromParams for SendMessageRequest<'static> {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(SendMessageRequest {
            queue_url: owned(p.str("QueueUrl")?),
            id: owned(p.str("Id")?),
            message_body: owned(p.str("MessageBody")?),
            delay_seconds: p.int("DelaySeconds")?,
            message_attributes: p.attributes("MessageAttributes")?,
            message_system_attributes: p.attributes("MessageSystemAttributes")?,
            message_deduplication_id: owned(p.str("MessageDeduplicationId")?),
            message_group_id: owned(p.str("MessageGroupId")?),
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct SendMessageBatchRequest<'a> {
    pub queue_url: Option<Cow<'a, str>>,
    pub entries: Option<Vec<SendMessageRequest<'a>>>,
}

impl FromParams for SendMessageBatchRequest<'static> {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(SendMessageBatchRequest {
            queue_url: owned(p.str("QueueUrl")?),
            entries: p
                .entries("Entries")?
                .map(|es| {
                    es.into_iter()
                        .map(SendMessageRequest::from_params)
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()?,
        })
    }
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

impl FromParams for ReceiveMessageRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ReceiveMessageRequest {
            queue_url: p.str("QueueUrl")?,
            attribute_names: p.str_list("AttributeNames")?,
            message_system_attribute_names: p.str_list("MessageSystemAttributeNames")?,
            message_attribute_names: p.str_list("MessageAttributeNames")?,
            max_number_of_messages: p.int("MaxNumberOfMessages")?,
            visibility_timeout: p.int("VisibilityTimeout")?,
            wait_time_seconds: p.int("WaitTimeSeconds")?,
            receive_request_attempt_id: p.str("ReceiveRequestAttemptId")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ReceiptRequest<'a> {
    pub queue_url: Option<Cow<'a, str>>,
    pub id: Option<Cow<'a, str>>,
    pub receipt_handle: Option<Cow<'a, str>>,
    pub visibility_timeout: Option<i64>,
}

impl FromParams for ReceiptRequest<'static> {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ReceiptRequest {
            queue_url: owned(p.str("QueueUrl")?),
            id: owned(p.str("Id")?),
            receipt_handle: owned(p.str("ReceiptHandle")?),
            visibility_timeout: p.int("VisibilityTimeout")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ReceiptBatchRequest<'a> {
    pub queue_url: Option<Cow<'a, str>>,
    pub entries: Option<Vec<ReceiptRequest<'a>>>,
}

impl FromParams for ReceiptBatchRequest<'static> {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ReceiptBatchRequest {
            queue_url: owned(p.str("QueueUrl")?),
            entries: p
                .entries("Entries")?
                .map(|es| {
                    es.into_iter()
                        .map(ReceiptRequest::from_params)
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ListDeadLetterSourceQueuesRequest {
    pub queue_url: Option<String>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

impl FromParams for ListDeadLetterSourceQueuesRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ListDeadLetterSourceQueuesRequest {
            queue_url: p.str("QueueUrl")?,
            max_results: p.int("MaxResults")?,
            next_token: p.str("NextToken")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct StartMessageMoveTaskRequest {
    pub source_arn: Option<String>,
    pub destination_arn: Option<String>,
    pub max_number_of_messages_per_second: Option<i64>,
}

impl FromParams for StartMessageMoveTaskRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(StartMessageMoveTaskRequest {
            source_arn: p.str("SourceArn")?,
            destination_arn: p.str("DestinationArn")?,
            max_number_of_messages_per_second: p.int("MaxNumberOfMessagesPerSecond")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct ListMessageMoveTasksRequest {
    pub source_arn: Option<String>,
    pub max_results: Option<i64>,
}

impl FromParams for ListMessageMoveTasksRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ListMessageMoveTasksRequest {
            source_arn: p.str("SourceArn")?,
            max_results: p.int("MaxResults")?,
        })
    }
}

#[allow(missing_docs)]
#[derive(Debug, Default, Clone)]
pub struct CancelMessageMoveTaskRequest {
    pub task_handle: Option<String>,
}

impl FromParams for CancelMessageMoveTaskRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(CancelMessageMoveTaskRequest {
            task_handle: p.str("TaskHandle")?,
        })
    }
}
