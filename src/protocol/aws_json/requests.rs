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

/// The message actions' strings are `Cow`s (lent from the text on the fast path); here they
/// are owned.
fn owned(s: Option<String>) -> Option<Cow<'static, str>> {
    s.map(Cow::Owned)
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

impl FromParams for QueueUrlRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(QueueUrlRequest {
            queue_url: p.str("QueueUrl")?,
        })
    }
}

impl FromParams for GetQueueUrlRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(GetQueueUrlRequest {
            queue_name: p.str("QueueName")?,
            queue_owner_aws_account_id: p.str("QueueOwnerAWSAccountId")?,
        })
    }
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

impl FromParams for GetQueueAttributesRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(GetQueueAttributesRequest {
            queue_url: p.str("QueueUrl")?,
            attribute_names: p.str_list("AttributeNames")?,
        })
    }
}

impl FromParams for SetQueueAttributesRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(SetQueueAttributesRequest {
            queue_url: p.str("QueueUrl")?,
            attributes: p.str_map("Attributes")?,
        })
    }
}

impl FromParams for TagQueueRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(TagQueueRequest {
            queue_url: p.str("QueueUrl")?,
            tags: p.str_map("Tags")?,
        })
    }
}

impl FromParams for UntagQueueRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(UntagQueueRequest {
            queue_url: p.str("QueueUrl")?,
            tag_keys: p.str_list("TagKeys")?,
        })
    }
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

impl FromParams for RemovePermissionRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(RemovePermissionRequest {
            queue_url: p.str("QueueUrl")?,
            label: p.str("Label")?,
        })
    }
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

impl FromParams for ListDeadLetterSourceQueuesRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ListDeadLetterSourceQueuesRequest {
            queue_url: p.str("QueueUrl")?,
            max_results: p.int("MaxResults")?,
            next_token: p.str("NextToken")?,
        })
    }
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

impl FromParams for ListMessageMoveTasksRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(ListMessageMoveTasksRequest {
            source_arn: p.str("SourceArn")?,
            max_results: p.int("MaxResults")?,
        })
    }
}

impl FromParams for CancelMessageMoveTaskRequest {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError> {
        Ok(CancelMessageMoveTaskRequest {
            task_handle: p.str("TaskHandle")?,
        })
    }
}
