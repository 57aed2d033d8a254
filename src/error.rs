//! One error type for everything the engine and the protocol layer can refuse.
//!
//! Each variant is named after the SQS error *shape* (what the AWS JSON protocol puts after `#` in
//! `__type`), and knows the three things a client looks at: the shape and its namespace, the legacy
//! Query error code (sent as `x-amzn-query-error` and as `<Code>` in XML), and the HTTP status.
//! The table is spec §1.2; where AWS behaviour was not recorded the choice is noted at the variant.

/// An SQS error: the request was refused and nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SqsError {
    /// The queue named by `QueueUrl` / `QueueName` does not exist.
    #[error("The specified queue does not exist.")]
    QueueDoesNotExist,
    /// CreateQueue with an existing name and a different value for a supplied attribute or
    /// different tags. Carries the whole message (see `queue_name_exists`).
    #[error("{0}")]
    QueueNameExists(String),
    /// CreateQueue within 60 s of deleting a queue of the same name.
    #[error("You must wait 60 seconds after deleting a queue before you can create another with the same name.")]
    QueueDeletedRecently,
    /// A second PurgeQueue within 60 s. Carries the queue name.
    #[error("Only one PurgeQueue operation on {0} is allowed every 60 seconds.")]
    PurgeQueueInProgress(String),
    /// In-flight limit on a short poll, or too many actions in AddPermission.
    #[error("{0}")]
    OverLimit(String),
    /// A receipt handle that this engine never issued. Carries the handle as given.
    #[error("The input receipt handle \"{0}\" is not a valid receipt handle.")]
    ReceiptHandleIsInvalid(String),
    /// Modelled by SQS but, per the AWS recordings (spec §7.4), not produced in practice; kept so the
    /// protocol layer can name it.
    #[error("The message referred to isn't in flight.")]
    MessageNotInflight,
    /// Legacy receipt-handle format.
    #[error("The specified receipt handle isn't valid for the current version.")]
    InvalidIdFormat,
    /// A body character outside the XML 1.0 `Char` production. Carries the full message.
    #[error("{0}")]
    InvalidMessageContents(String),
    /// Unknown or misplaced attribute name. Carries the full message.
    #[error("{0}")]
    InvalidAttributeName(String),
    /// Attribute value out of range or of the wrong form. Carries the full message.
    #[error("{0}")]
    InvalidAttributeValue(String),
    /// A batch with no entries. Carries the entry shape name (e.g. `SendMessageBatchRequestEntry`).
    #[error("There should be at least one {0} in the request.")]
    EmptyBatchRequest(String),
    /// A batch with more than 10 entries. Carries the number sent.
    #[error("Maximum number of entries per request are 10. You have sent {0}.")]
    TooManyEntriesInBatchRequest(usize),
    /// Two batch entries with the same `Id`. Carries the id.
    #[error("Id {0} repeated.")]
    BatchEntryIdsNotDistinct(String),
    /// A batch entry id that is empty, too long or has characters outside `[A-Za-z0-9_-]`.
    #[error("A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.")]
    InvalidBatchEntryId,
    /// The sum of a SendMessageBatch's payloads exceeds 1,048,576 bytes. Carries the size sent.
    #[error("Batch requests cannot be longer than 1048576 bytes. You have sent {0} bytes.")]
    BatchRequestTooLong(usize),
    /// An operation this queue or engine does not support. Carries the full message.
    #[error("{0}")]
    UnsupportedOperation(String),
    /// Move-task resource missing (404). Carries the full message.
    #[error("{0}")]
    ResourceNotFoundException(String),
    /// The generic "coral" validation error. Carries the full message.
    #[error("{0}")]
    InvalidParameterValue(String),
    /// A required parameter is missing. Carries the parameter name.
    #[error("The request must contain the parameter {0}.")]
    MissingParameter(String),
    /// Throttling (realism mode). Carries the full message.
    #[error("{0}")]
    RequestThrottled(String),
    /// Access denied. Carries the full message.
    #[error("{0}")]
    AccessDenied(String),
    /// Protocol: `X-Amz-Target` / `Action` names no SQS operation. Carries the full message.
    #[error("{0}")]
    UnknownOperation(String),
    /// Protocol: the body could not be parsed or a member has the wrong type. Carries the full message.
    #[error("{0}")]
    Serialization(String),
    /// Protocol: no `Authorization` header (or query signature) where one is required.
    #[error("{0}")]
    MissingAuthenticationToken(String),
    /// Protocol: an `Authorization` header that is not a complete SigV4 header. Carries the full message.
    #[error("{0}")]
    IncompleteSignature(String),
    /// Protocol: the signature does not match. Carries the full message.
    #[error("{0}")]
    SignatureDoesNotMatch(String),
    /// Protocol: the access key is not known. Carries the full message.
    #[error("{0}")]
    InvalidClientTokenId(String),
    /// Protocol: the request's date is too far from the server's clock. Carries the full message.
    #[error("{0}")]
    RequestExpired(String),
    /// Protocol: the request body is larger than SQS accepts.
    #[error("{0}")]
    RequestEntityTooLarge(String),
}

/// The namespace SQS uses for its own modelled errors.
pub const SQS_NAMESPACE: &str = "com.amazonaws.sqs";
/// The namespace AWS uses for its generic ("coral") errors.
pub const CORAL_NAMESPACE: &str = "com.amazon.coral.service";

impl SqsError {
    /// The JSON shape name: what follows `#` in `__type`, and the `name` of the JS `Error`.
    pub const fn shape(&self) -> &'static str {
        use SqsError::*;
        match self {
            QueueDoesNotExist => "QueueDoesNotExist",
            QueueNameExists(_) => "QueueNameExists",
            QueueDeletedRecently => "QueueDeletedRecently",
            PurgeQueueInProgress(_) => "PurgeQueueInProgress",
            OverLimit(_) => "OverLimit",
            ReceiptHandleIsInvalid(_) => "ReceiptHandleIsInvalid",
            MessageNotInflight => "MessageNotInflight",
            InvalidIdFormat => "InvalidIdFormat",
            InvalidMessageContents(_) => "InvalidMessageContents",
            InvalidAttributeName(_) => "InvalidAttributeName",
            InvalidAttributeValue(_) => "InvalidAttributeValue",
            EmptyBatchRequest(_) => "EmptyBatchRequest",
            TooManyEntriesInBatchRequest(_) => "TooManyEntriesInBatchRequest",
            BatchEntryIdsNotDistinct(_) => "BatchEntryIdsNotDistinct",
            InvalidBatchEntryId => "InvalidBatchEntryId",
            BatchRequestTooLong(_) => "BatchRequestTooLong",
            UnsupportedOperation(_) => "UnsupportedOperation",
            ResourceNotFoundException(_) => "ResourceNotFoundException",
            InvalidParameterValue(_) => "InvalidParameterValueException",
            MissingParameter(_) => "MissingRequiredParameterException",
            RequestThrottled(_) => "RequestThrottled",
            AccessDenied(_) => "AccessDeniedException",
            UnknownOperation(_) => "UnknownOperationException",
            Serialization(_) => "SerializationException",
            MissingAuthenticationToken(_) => "MissingAuthenticationTokenException",
            IncompleteSignature(_) => "IncompleteSignatureException",
            SignatureDoesNotMatch(_) => "InvalidSignatureException",
            InvalidClientTokenId(_) => "UnrecognizedClientException",
            RequestExpired(_) => "InvalidSignatureException",
            RequestEntityTooLarge(_) => "RequestEntityTooLargeException",
        }
    }

    /// The namespace of `__type`: SQS's own for modelled errors, coral's for the generic ones.
    pub const fn namespace(&self) -> &'static str {
        use SqsError::*;
        match self {
            InvalidParameterValue(_)
            | MissingParameter(_)
            | AccessDenied(_)
            | UnknownOperation(_)
            | Serialization(_)
            | MissingAuthenticationToken(_)
            | IncompleteSignature(_)
            | SignatureDoesNotMatch(_)
            | InvalidClientTokenId(_)
            | RequestExpired(_)
            | RequestEntityTooLarge(_) => CORAL_NAMESPACE,
            _ => SQS_NAMESPACE,
        }
    }

    /// `<namespace>#<shape>`, the JSON `__type`.
    pub fn json_type(&self) -> String {
        format!("{}#{}", self.namespace(), self.shape())
    }

    /// The legacy Query error code: `x-amzn-query-error: <code>;Sender` and XML `<Code>`.
    pub const fn query_code(&self) -> &'static str {
        use SqsError::*;
        match self {
            QueueDoesNotExist => "AWS.SimpleQueueService.NonExistentQueue",
            QueueNameExists(_) => "QueueAlreadyExists",
            QueueDeletedRecently => "AWS.SimpleQueueService.QueueDeletedRecently",
            PurgeQueueInProgress(_) => "AWS.SimpleQueueService.PurgeQueueInProgress",
            OverLimit(_) => "OverLimit",
            ReceiptHandleIsInvalid(_) => "ReceiptHandleIsInvalid",
            MessageNotInflight => "AWS.SimpleQueueService.MessageNotInflight",
            InvalidIdFormat => "InvalidIdFormat",
            InvalidMessageContents(_) => "InvalidMessageContents",
            InvalidAttributeName(_) => "InvalidAttributeName",
            InvalidAttributeValue(_) => "InvalidAttributeValue",
            EmptyBatchRequest(_) => "AWS.SimpleQueueService.EmptyBatchRequest",
            TooManyEntriesInBatchRequest(_) => {
                "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"
            }
            BatchEntryIdsNotDistinct(_) => "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
            InvalidBatchEntryId => "AWS.SimpleQueueService.InvalidBatchEntryId",
            BatchRequestTooLong(_) => "AWS.SimpleQueueService.BatchRequestTooLong",
            UnsupportedOperation(_) => "AWS.SimpleQueueService.UnsupportedOperation",
            ResourceNotFoundException(_) => "ResourceNotFoundException",
            InvalidParameterValue(_) => "InvalidParameterValue",
            MissingParameter(_) => "MissingParameter",
            // Not in the legacy Query model (spec §14.10): the shape name is the code.
            RequestThrottled(_) => "RequestThrottled",
            AccessDenied(_) => "AccessDenied",
            UnknownOperation(_) => "InvalidAction",
            Serialization(_) => "MalformedQueryString",
            MissingAuthenticationToken(_) => "MissingAuthenticationToken",
            IncompleteSignature(_) => "IncompleteSignature",
            SignatureDoesNotMatch(_) => "SignatureDoesNotMatch",
            InvalidClientTokenId(_) => "InvalidClientTokenId",
            RequestExpired(_) => "RequestExpired",
            RequestEntityTooLarge(_) => "RequestEntityTooLarge",
        }
    }

    /// The HTTP status AWS answers with, in both protocols (spec §1.2 notes).
    pub const fn http_status(&self) -> u16 {
        use SqsError::*;
        match self {
            PurgeQueueInProgress(_) | OverLimit(_) | AccessDenied(_) => 403,
            MissingAuthenticationToken(_)
            | SignatureDoesNotMatch(_)
            | InvalidClientTokenId(_)
            | RequestExpired(_) => 403,
            ResourceNotFoundException(_) => 404,
            RequestEntityTooLarge(_) => 413,
            _ => 400,
        }
    }

    /// The message as the JSON protocol sends it.
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The message as the Query protocol sends it; differs from JSON only where AWS's does.
    pub fn query_message(&self) -> String {
        match self {
            SqsError::QueueDoesNotExist => {
                "The specified queue does not exist for this wsdl version.".to_string()
            }
            other => other.to_string(),
        }
    }

    /// The code a batch result entry carries in `Failed[].Code` for a per-entry failure.
    pub const fn batch_entry_code(&self) -> &'static str {
        self.query_code()
    }
}

/// Shorthand used throughout the engine.
pub type Result<T, E = SqsError> = std::result::Result<T, E>;

/// `InvalidParameterValue` with the standard "Value X for parameter P is invalid. Reason: R." text.
#[inline]
pub fn invalid_value(value: impl std::fmt::Display, parameter: &str, reason: &str) -> SqsError {
    invalid_value_of(&value, parameter, reason)
}

/// `invalid_value`'s text, once for every type of value (the wasm had a copy per type).
fn invalid_value_of(value: &dyn std::fmt::Display, parameter: &str, reason: &str) -> SqsError {
    SqsError::InvalidParameterValue(format!(
        "Value {value} for parameter {parameter} is invalid. Reason: {reason}"
    ))
}

/// `InvalidAttributeValue` for an attribute whose value is out of range or malformed.
pub fn invalid_attribute_value(name: &str) -> SqsError {
    SqsError::InvalidAttributeValue(format!("Invalid value for the parameter {name}."))
}

/// `QueueNameExists` for a CreateQueue whose supplied attribute differs from the queue's (spec §3.4).
pub fn queue_name_exists(attribute: &str) -> SqsError {
    SqsError::QueueNameExists(format!(
        "A queue already exists with the same name and a different value for attribute {attribute}"
    ))
}

/// `InvalidAttributeName` for an attribute the queue does not know.
pub fn unknown_attribute(name: &str) -> SqsError {
    SqsError::InvalidAttributeName(format!("Unknown Attribute {name}."))
}

/// `s` quoted as `format!("{s:?}")` quotes it, for the texts that name a record's key or a bad
/// id (restore's refusals). Debug's own quoting brings Unicode's printable and grapheme-extend
/// tables into the wasm, to escape the few non-ASCII characters it deems unprintable; here those
/// are written as they are, and everything else (every ASCII character, every printable
/// character beyond) comes out as Debug writes it: `"`, `\\`, `\t`, `\r`, `\n`, `\0` escaped,
/// other control characters as `\u{hex}`.
pub(crate) fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\0' => out.push_str("\\0"),
            c if c < ' ' || c == '\u{7f}' => {
                out.push_str("\\u{");
                let b = c as u8;
                if b >= 16 {
                    out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
                }
                out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
                out.push('}');
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_is_debug_for_ascii_and_printable_text() {
        let mut all = String::new();
        for b in 0u8..0x80 {
            all.push(char::from(b));
        }
        for s in [
            all.as_str(),
            "",
            "q/1/m/a",
            "é😀 ünïcødé",
            "a\"b\\c\n",
            "\u{1b}[0m",
        ] {
            assert_eq!(quoted(s), format!("{s:?}"));
        }
    }

    proptest::proptest! {
        #[test]
        fn quoted_is_debug_for_any_ascii(s in "[\\x00-\\x7f]{0,40}") {
            proptest::prop_assert_eq!(quoted(&s), format!("{s:?}"));
        }
    }

    #[test]
    fn table_rows_match_the_spec() {
        let e = SqsError::QueueDoesNotExist;
        assert_eq!(e.json_type(), "com.amazonaws.sqs#QueueDoesNotExist");
        assert_eq!(e.query_code(), "AWS.SimpleQueueService.NonExistentQueue");
        assert_eq!(e.http_status(), 400);
        assert_eq!(e.message(), "The specified queue does not exist.");
        assert_eq!(
            e.query_message(),
            "The specified queue does not exist for this wsdl version."
        );

        let e = SqsError::PurgeQueueInProgress("q1".into());
        assert_eq!(e.http_status(), 403);
        assert_eq!(
            e.message(),
            "Only one PurgeQueue operation on q1 is allowed every 60 seconds."
        );

        let e = SqsError::InvalidParameterValue("x".into());
        assert_eq!(
            e.json_type(),
            "com.amazon.coral.service#InvalidParameterValueException"
        );
        assert_eq!(e.query_code(), "InvalidParameterValue");

        let e = SqsError::MissingParameter("MessageBody".into());
        assert_eq!(
            e.json_type(),
            "com.amazon.coral.service#MissingRequiredParameterException"
        );
        assert_eq!(
            e.message(),
            "The request must contain the parameter MessageBody."
        );
        assert_eq!(
            SqsError::ResourceNotFoundException("Task does not exist.".into()).http_status(),
            404
        );
        assert_eq!(
            SqsError::TooManyEntriesInBatchRequest(20).message(),
            "Maximum number of entries per request are 10. You have sent 20."
        );
        assert_eq!(
            SqsError::ReceiptHandleIsInvalid("garbage".into()).message(),
            "The input receipt handle \"garbage\" is not a valid receipt handle."
        );
    }
}
