//! Per-action shapes: how the legacy Query protocol flattens each action's input, and how each
//! action's JSON output is laid out as XML.
//!
//! The JSON protocol needs none of this (the engine takes the JSON object as sent); the Query
//! protocol is untyped text, so it needs the model to know which parameters are numbers, lists,
//! maps and lists of structures, and what the JSON member is called (`Attribute.N` →
//! `Attributes`, `Tag.N` → `tags` on CreateQueue but `Tags` on TagQueue).

/// How one Query input member is spelled and converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum In {
    /// `Name=value` → JSON string.
    Str,
    /// `Name=42` → JSON number.
    Int,
    /// `Name.N=value` → JSON array of strings.
    List,
    /// `Name.N.<key>=k`, `Name.N.<value>=v` → JSON object of strings.
    Map {
        /// The key's sub-parameter (`Name` or `Key`).
        key: &'static str,
        /// The value's sub-parameter (`Value`).
        value: &'static str,
    },
    /// `Name.N.Name=k`, `Name.N.Value.DataType=…` (+ `StringValue`, `BinaryValue`, list values)
    /// → JSON object of `MessageAttributeValue`.
    MessageAttributes,
    /// `Name.N.<member>=…` → JSON array of structures with the given members.
    Entries(&'static [InMember]),
}

/// One input member: its Query parameter name, its JSON member name and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InMember {
    /// The Query parameter (prefix) name.
    pub query: &'static str,
    /// The JSON member name.
    pub json: &'static str,
    /// How the value is converted.
    pub kind: In,
}

/// How one JSON output member is written as XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    /// A string, number or boolean: `<Member>text</Member>`.
    Scalar,
    /// A flattened list of scalars, each element named as given (`<QueueUrl>`).
    List(&'static str),
    /// A flattened string map: `<entry><key>k</key><value>v</value></entry>`.
    Map {
        /// Element name of one entry (`Attribute`, `Tag`).
        entry: &'static str,
        /// Element name of the key (`Name`, `Key`).
        key: &'static str,
        /// Element name of the value (`Value`).
        value: &'static str,
    },
    /// `MessageAttributes` as flattened `<MessageAttribute><Name/><Value>…</Value></MessageAttribute>`.
    MessageAttributes,
    /// A flattened list of structures, each element named as given.
    Structs(&'static str, &'static [OutMember]),
}

/// One output member: its JSON name and how it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutMember {
    /// The JSON member name (also the XML element name for scalars).
    pub json: &'static str,
    /// How the value is written.
    pub kind: Out,
}

/// One SQS action: its name, its Query input members and its output layout (`None`: no output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// The action name (`SendMessage`).
    pub name: &'static str,
    /// Query input members.
    pub input: &'static [InMember],
    /// Output members, in the order the Query model lists them.
    pub output: Option<&'static [OutMember]>,
}

const fn i(query: &'static str, json: &'static str, kind: In) -> InMember {
    InMember { query, json, kind }
}

const fn o(json: &'static str, kind: Out) -> OutMember {
    OutMember { json, kind }
}

const QUEUE_URL: InMember = i("QueueUrl", "QueueUrl", In::Str);
const ATTRIBUTES_IN: InMember = i(
    "Attribute",
    "Attributes",
    In::Map {
        key: "Name",
        value: "Value",
    },
);
const MESSAGE_SYSTEM_ATTRIBUTES: InMember = i(
    "MessageSystemAttribute",
    "MessageSystemAttributes",
    In::MessageAttributes,
);

const SEND_ENTRY: &[InMember] = &[
    i("Id", "Id", In::Str),
    i("MessageBody", "MessageBody", In::Str),
    i("DelaySeconds", "DelaySeconds", In::Int),
    i(
        "MessageAttribute",
        "MessageAttributes",
        In::MessageAttributes,
    ),
    MESSAGE_SYSTEM_ATTRIBUTES,
    i("MessageDeduplicationId", "MessageDeduplicationId", In::Str),
    i("MessageGroupId", "MessageGroupId", In::Str),
];
const DELETE_ENTRY: &[InMember] = &[
    i("Id", "Id", In::Str),
    i("ReceiptHandle", "ReceiptHandle", In::Str),
];
const CHANGE_ENTRY: &[InMember] = &[
    i("Id", "Id", In::Str),
    i("ReceiptHandle", "ReceiptHandle", In::Str),
    i("VisibilityTimeout", "VisibilityTimeout", In::Int),
];

const ATTRIBUTES_OUT: OutMember = o(
    "Attributes",
    Out::Map {
        entry: "Attribute",
        key: "Name",
        value: "Value",
    },
);
const BATCH_ERROR: OutMember = o(
    "Failed",
    Out::Structs(
        "BatchResultErrorEntry",
        &[
            o("Id", Out::Scalar),
            o("SenderFault", Out::Scalar),
            o("Code", Out::Scalar),
            o("Message", Out::Scalar),
        ],
    ),
);
const MESSAGE: &[OutMember] = &[
    o("MessageId", Out::Scalar),
    o("ReceiptHandle", Out::Scalar),
    o("MD5OfBody", Out::Scalar),
    o("Body", Out::Scalar),
    ATTRIBUTES_OUT,
    o("MD5OfMessageAttributes", Out::Scalar),
    o("MessageAttributes", Out::MessageAttributes),
];
const MOVE_TASK: &[OutMember] = &[
    o("TaskHandle", Out::Scalar),
    o("Status", Out::Scalar),
    o("SourceArn", Out::Scalar),
    o("DestinationArn", Out::Scalar),
    o("MaxNumberOfMessagesPerSecond", Out::Scalar),
    o("ApproximateNumberOfMessagesMoved", Out::Scalar),
    o("ApproximateNumberOfMessagesToMove", Out::Scalar),
    o("FailureReason", Out::Scalar),
    o("StartedTimestamp", Out::Scalar),
];

/// Every SQS action (API version 2012-11-05).
pub const ACTIONS: &[Action] = &[
    Action {
        name: "CreateQueue",
        input: &[
            i("QueueName", "QueueName", In::Str),
            ATTRIBUTES_IN,
            // The one lower-case member of the JSON model (spec §1.1).
            i(
                "Tag",
                "tags",
                In::Map {
                    key: "Key",
                    value: "Value",
                },
            ),
        ],
        output: Some(&[o("QueueUrl", Out::Scalar)]),
    },
    Action {
        name: "DeleteQueue",
        input: &[QUEUE_URL],
        output: None,
    },
    Action {
        name: "GetQueueUrl",
        input: &[
            i("QueueName", "QueueName", In::Str),
            i("QueueOwnerAWSAccountId", "QueueOwnerAWSAccountId", In::Str),
        ],
        output: Some(&[o("QueueUrl", Out::Scalar)]),
    },
    Action {
        name: "ListQueues",
        input: &[
            i("QueueNamePrefix", "QueueNamePrefix", In::Str),
            i("NextToken", "NextToken", In::Str),
            i("MaxResults", "MaxResults", In::Int),
        ],
        output: Some(&[
            o("QueueUrls", Out::List("QueueUrl")),
            o("NextToken", Out::Scalar),
        ]),
    },
    Action {
        name: "GetQueueAttributes",
        input: &[QUEUE_URL, i("AttributeName", "AttributeNames", In::List)],
        output: Some(&[ATTRIBUTES_OUT]),
    },
    Action {
        name: "SetQueueAttributes",
        input: &[QUEUE_URL, ATTRIBUTES_IN],
        output: None,
    },
    Action {
        name: "PurgeQueue",
        input: &[QUEUE_URL],
        output: None,
    },
    Action {
        name: "SendMessage",
        input: &[
            QUEUE_URL,
            i("MessageBody", "MessageBody", In::Str),
            i("DelaySeconds", "DelaySeconds", In::Int),
            i(
                "MessageAttribute",
                "MessageAttributes",
                In::MessageAttributes,
            ),
            MESSAGE_SYSTEM_ATTRIBUTES,
            i("MessageDeduplicationId", "MessageDeduplicationId", In::Str),
            i("MessageGroupId", "MessageGroupId", In::Str),
        ],
        output: Some(&[
            o("MD5OfMessageBody", Out::Scalar),
            o("MD5OfMessageAttributes", Out::Scalar),
            o("MD5OfMessageSystemAttributes", Out::Scalar),
            o("MessageId", Out::Scalar),
            o("SequenceNumber", Out::Scalar),
        ]),
    },
    Action {
        name: "SendMessageBatch",
        input: &[
            QUEUE_URL,
            i(
                "SendMessageBatchRequestEntry",
                "Entries",
                In::Entries(SEND_ENTRY),
            ),
        ],
        output: Some(&[
            o(
                "Successful",
                Out::Structs(
                    "SendMessageBatchResultEntry",
                    &[
                        o("Id", Out::Scalar),
                        o("MessageId", Out::Scalar),
                        o("MD5OfMessageBody", Out::Scalar),
                        o("MD5OfMessageAttributes", Out::Scalar),
                        o("MD5OfMessageSystemAttributes", Out::Scalar),
                        o("SequenceNumber", Out::Scalar),
                    ],
                ),
            ),
            BATCH_ERROR,
        ]),
    },
    Action {
        name: "ReceiveMessage",
        input: &[
            QUEUE_URL,
            i("AttributeName", "AttributeNames", In::List),
            i(
                "MessageSystemAttributeName",
                "MessageSystemAttributeNames",
                In::List,
            ),
            i("MessageAttributeName", "MessageAttributeNames", In::List),
            i("MaxNumberOfMessages", "MaxNumberOfMessages", In::Int),
            i("VisibilityTimeout", "VisibilityTimeout", In::Int),
            i("WaitTimeSeconds", "WaitTimeSeconds", In::Int),
            i(
                "ReceiveRequestAttemptId",
                "ReceiveRequestAttemptId",
                In::Str,
            ),
        ],
        output: Some(&[o("Messages", Out::Structs("Message", MESSAGE))]),
    },
    Action {
        name: "DeleteMessage",
        input: &[QUEUE_URL, i("ReceiptHandle", "ReceiptHandle", In::Str)],
        output: None,
    },
    Action {
        name: "DeleteMessageBatch",
        input: &[
            QUEUE_URL,
            i(
                "DeleteMessageBatchRequestEntry",
                "Entries",
                In::Entries(DELETE_ENTRY),
            ),
        ],
        output: Some(&[
            o(
                "Successful",
                Out::Structs("DeleteMessageBatchResultEntry", &[o("Id", Out::Scalar)]),
            ),
            BATCH_ERROR,
        ]),
    },
    Action {
        name: "ChangeMessageVisibility",
        input: &[
            QUEUE_URL,
            i("ReceiptHandle", "ReceiptHandle", In::Str),
            i("VisibilityTimeout", "VisibilityTimeout", In::Int),
        ],
        output: None,
    },
    Action {
        name: "ChangeMessageVisibilityBatch",
        input: &[
            QUEUE_URL,
            i(
                "ChangeMessageVisibilityBatchRequestEntry",
                "Entries",
                In::Entries(CHANGE_ENTRY),
            ),
        ],
        output: Some(&[
            o(
                "Successful",
                Out::Structs(
                    "ChangeMessageVisibilityBatchResultEntry",
                    &[o("Id", Out::Scalar)],
                ),
            ),
            BATCH_ERROR,
        ]),
    },
    Action {
        name: "TagQueue",
        input: &[
            QUEUE_URL,
            i(
                "Tag",
                "Tags",
                In::Map {
                    key: "Key",
                    value: "Value",
                },
            ),
        ],
        output: None,
    },
    Action {
        name: "UntagQueue",
        input: &[QUEUE_URL, i("TagKey", "TagKeys", In::List)],
        output: None,
    },
    Action {
        name: "ListQueueTags",
        input: &[QUEUE_URL],
        output: Some(&[o(
            "Tags",
            Out::Map {
                entry: "Tag",
                key: "Key",
                value: "Value",
            },
        )]),
    },
    Action {
        name: "ListDeadLetterSourceQueues",
        input: &[
            QUEUE_URL,
            i("NextToken", "NextToken", In::Str),
            i("MaxResults", "MaxResults", In::Int),
        ],
        // The JSON model's other lower-case member (spec §1.1).
        output: Some(&[
            o("queueUrls", Out::List("QueueUrl")),
            o("NextToken", Out::Scalar),
        ]),
    },
    Action {
        name: "StartMessageMoveTask",
        input: &[
            i("SourceArn", "SourceArn", In::Str),
            i("DestinationArn", "DestinationArn", In::Str),
            i(
                "MaxNumberOfMessagesPerSecond",
                "MaxNumberOfMessagesPerSecond",
                In::Int,
            ),
        ],
        output: Some(&[o("TaskHandle", Out::Scalar)]),
    },
    Action {
        name: "ListMessageMoveTasks",
        input: &[
            i("SourceArn", "SourceArn", In::Str),
            i("MaxResults", "MaxResults", In::Int),
        ],
        output: Some(&[o(
            "Results",
            Out::Structs("ListMessageMoveTasksResultEntry", MOVE_TASK),
        )]),
    },
    Action {
        name: "CancelMessageMoveTask",
        input: &[i("TaskHandle", "TaskHandle", In::Str)],
        output: Some(&[o("ApproximateNumberOfMessagesMoved", Out::Scalar)]),
    },
    Action {
        name: "AddPermission",
        input: &[
            QUEUE_URL,
            i("Label", "Label", In::Str),
            i("AWSAccountId", "AWSAccountIds", In::List),
            i("ActionName", "Actions", In::List),
        ],
        output: None,
    },
    Action {
        name: "RemovePermission",
        input: &[QUEUE_URL, i("Label", "Label", In::Str)],
        output: None,
    },
];

/// The action of that exact name, if SQS has one.
pub fn action(name: &str) -> Option<&'static Action> {
    ACTIONS.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_of_the_api_is_listed_once() {
        let mut names: Vec<&str> = ACTIONS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
        assert_eq!(names.len(), 23);
        assert!(action("SendMessage").is_some());
        assert!(action("sendmessage").is_none());
    }

    #[test]
    fn actions_without_output_are_exactly_the_model_ones() {
        let mut none: Vec<&str> = ACTIONS
            .iter()
            .filter(|a| a.output.is_none())
            .map(|a| a.name)
            .collect();
        none.sort_unstable();
        assert_eq!(
            none,
            [
                "AddPermission",
                "ChangeMessageVisibility",
                "DeleteMessage",
                "DeleteQueue",
                "PurgeQueue",
                "RemovePermission",
                "SetQueueAttributes",
                "TagQueue",
                "UntagQueue"
            ]
        );
    }
}
