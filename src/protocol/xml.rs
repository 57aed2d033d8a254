//! Query-protocol responses: an action's JSON output written as SQS's XML, and the XML error body.

use super::shapes::{Action, Out, OutMember};
use crate::error::SqsError;
use serde_json::Value;

/// The namespace every SQS Query response carries.
pub const XMLNS: &str = "http://queue.amazonaws.com/doc/2012-11-05/";

/// Escape XML text the way SQS does: besides `& < >`, it writes `"` as `&quot;`, `'` as `&apos;`
/// and CR as `&#xD;` (so a CR in a body survives XML line-end normalisation on the client).
///
/// Characters that XML 1.0 cannot carry at all (most C0 controls, lone surrogates cannot occur
/// in a Rust string, U+FFFE/U+FFFF) are written as U+FFFD: the engine never stores them in
/// bodies, but an error message may echo arbitrary request text, and the response must stay
/// parseable.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#xD;"),
            '\t' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// [`escape_into`] into a new string.
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    escape_into(&mut s, text);
    s
}

fn element(out: &mut String, name: &str, text: &str) {
    out.push('<');
    out.push_str(name);
    out.push('>');
    escape_into(out, text);
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// The text of a scalar: strings as they are, numbers and booleans in their JSON spelling.
/// Anything else (never produced by the engine for a scalar member) is written as its JSON text
/// rather than dropped, so a mismatch is visible instead of silent.
fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::json_text::value_text(other),
    }
}

fn write_members(out: &mut String, obj: &serde_json::Map<String, Value>, members: &[OutMember]) {
    for m in members {
        let Some(v) = obj.get(m.json) else { continue };
        if v.is_null() {
            continue;
        }
        match m.kind {
            Out::Scalar => element(out, m.json, &scalar_text(v)),
            Out::List(item) => {
                for x in v.as_array().map(Vec::as_slice).unwrap_or_default() {
                    element(out, item, &scalar_text(x));
                }
            }
            Out::Map { entry, key, value } => {
                for (k, x) in v.as_object().into_iter().flatten() {
                    out.push('<');
                    out.push_str(entry);
                    out.push('>');
                    element(out, key, k);
                    element(out, value, &scalar_text(x));
                    out.push_str("</");
                    out.push_str(entry);
                    out.push('>');
                }
            }
            Out::MessageAttributes => {
                for (k, x) in v.as_object().into_iter().flatten() {
                    out.push_str("<MessageAttribute>");
                    element(out, "Name", k);
                    out.push_str("<Value>");
                    if let Some(attr) = x.as_object() {
                        write_attribute_value(out, attr);
                    }
                    out.push_str("</Value></MessageAttribute>");
                }
            }
            Out::Structs(item, inner) => {
                for x in v.as_array().map(Vec::as_slice).unwrap_or_default() {
                    out.push('<');
                    out.push_str(item);
                    out.push('>');
                    if let Some(o) = x.as_object() {
                        write_members(out, o, inner);
                    }
                    out.push_str("</");
                    out.push_str(item);
                    out.push('>');
                }
            }
        }
    }
}

/// `MessageAttributeValue` in the Query model's member order (DataType last, as SQS sends it).
fn write_attribute_value(out: &mut String, attr: &serde_json::Map<String, Value>) {
    if let Some(v) = attr.get("StringValue").filter(|v| !v.is_null()) {
        element(out, "StringValue", &scalar_text(v));
    }
    if let Some(v) = attr.get("BinaryValue").filter(|v| !v.is_null()) {
        element(out, "BinaryValue", &scalar_text(v));
    }
    for (json, xml) in [
        ("StringListValues", "StringListValue"),
        ("BinaryListValues", "BinaryListValue"),
    ] {
        for x in attr
            .get(json)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            element(out, xml, &scalar_text(x));
        }
    }
    if let Some(v) = attr.get("DataType").filter(|v| !v.is_null()) {
        element(out, "DataType", &scalar_text(v));
    }
}

/// The XML response of a successful action.
pub fn success(action: &Action, output: &Value, request_id: &str) -> String {
    let mut out = String::with_capacity(256);
    out.push_str("<?xml version=\"1.0\"?><");
    out.push_str(action.name);
    out.push_str("Response xmlns=\"");
    out.push_str(XMLNS);
    out.push_str("\">");
    if let Some(members) = action.output {
        out.push('<');
        out.push_str(action.name);
        out.push_str("Result>");
        if let Some(obj) = output.as_object() {
            write_members(&mut out, obj, members);
        }
        out.push_str("</");
        out.push_str(action.name);
        out.push_str("Result>");
    }
    out.push_str("<ResponseMetadata>");
    element(&mut out, "RequestId", request_id);
    out.push_str("</ResponseMetadata></");
    out.push_str(action.name);
    out.push_str("Response>");
    out
}

/// The XML body of an error: the Query code and the Query wording of the message.
pub fn error(err: &SqsError, request_id: &str) -> String {
    let mut out = String::with_capacity(256);
    out.push_str("<?xml version=\"1.0\"?><ErrorResponse xmlns=\"");
    out.push_str(XMLNS);
    out.push_str("\"><Error><Type>Sender</Type>");
    element(&mut out, "Code", err.query_code());
    element(&mut out, "Message", &err.query_message());
    out.push_str("<Detail/></Error>");
    element(&mut out, "RequestId", request_id);
    out.push_str("</ErrorResponse>");
    out
}

#[cfg(test)]
mod tests {
    use super::super::shapes::action;
    use super::*;
    use serde_json::json;

    const META: &str = "<ResponseMetadata><RequestId>rid</RequestId></ResponseMetadata>";

    fn xml(name: &str, output: Value) -> String {
        let a = action(name).expect("known action");
        success(a, &output, "rid")
    }

    fn wrap(name: &str, result: Option<&str>) -> String {
        let body = match result {
            Some(r) => format!("<{name}Result>{r}</{name}Result>"),
            None => String::new(),
        };
        format!("<?xml version=\"1.0\"?><{name}Response xmlns=\"{XMLNS}\">{body}{META}</{name}Response>")
    }

    #[test]
    fn escaping_follows_sqs() {
        assert_eq!(
            escape("a&b<c>d\"e'f\rg\nh\ti"),
            "a&amp;b&lt;c&gt;d&quot;e&apos;f&#xD;g\nh\ti"
        );
        assert_eq!(escape("x\u{1}y\u{FFFF}"), "x\u{FFFD}y\u{FFFD}");
        assert_eq!(escape("日本 😀"), "日本 😀");
    }

    #[test]
    fn scalar_outputs() {
        assert_eq!(
            xml("CreateQueue", json!({"QueueUrl": "http://h/1/q"})),
            wrap("CreateQueue", Some("<QueueUrl>http://h/1/q</QueueUrl>"))
        );
        assert_eq!(
            xml("GetQueueUrl", json!({"QueueUrl": "u"})),
            wrap("GetQueueUrl", Some("<QueueUrl>u</QueueUrl>"))
        );
        assert_eq!(
            xml(
                "SendMessage",
                json!({"MessageId": "m", "MD5OfMessageBody": "b", "MD5OfMessageAttributes": "a",
                       "MD5OfMessageSystemAttributes": "s", "SequenceNumber": "1"})
            ),
            wrap(
                "SendMessage",
                Some(
                    "<MD5OfMessageBody>b</MD5OfMessageBody><MD5OfMessageAttributes>a</MD5OfMessageAttributes>\
                     <MD5OfMessageSystemAttributes>s</MD5OfMessageSystemAttributes><MessageId>m</MessageId>\
                     <SequenceNumber>1</SequenceNumber>"
                )
            )
        );
        assert_eq!(
            xml("StartMessageMoveTask", json!({"TaskHandle": "t"})),
            wrap("StartMessageMoveTask", Some("<TaskHandle>t</TaskHandle>"))
        );
        assert_eq!(
            xml(
                "CancelMessageMoveTask",
                json!({"ApproximateNumberOfMessagesMoved": 7})
            ),
            wrap(
                "CancelMessageMoveTask",
                Some("<ApproximateNumberOfMessagesMoved>7</ApproximateNumberOfMessagesMoved>")
            )
        );
    }

    #[test]
    fn actions_without_output_have_no_result_element() {
        for name in [
            "DeleteQueue",
            "SetQueueAttributes",
            "PurgeQueue",
            "DeleteMessage",
            "ChangeMessageVisibility",
            "TagQueue",
            "UntagQueue",
            "AddPermission",
            "RemovePermission",
        ] {
            assert_eq!(xml(name, json!({})), wrap(name, None), "{name}");
            assert_eq!(xml(name, Value::Null), wrap(name, None), "{name}");
        }
    }

    #[test]
    fn lists_are_flattened_and_empty_ones_vanish() {
        assert_eq!(
            xml(
                "ListQueues",
                json!({"QueueUrls": ["a", "b&c"], "NextToken": "n"})
            ),
            wrap(
                "ListQueues",
                Some("<QueueUrl>a</QueueUrl><QueueUrl>b&amp;c</QueueUrl><NextToken>n</NextToken>")
            )
        );
        assert_eq!(xml("ListQueues", json!({})), wrap("ListQueues", Some("")));
        assert_eq!(
            xml("ListDeadLetterSourceQueues", json!({"queueUrls": ["x"]})),
            wrap("ListDeadLetterSourceQueues", Some("<QueueUrl>x</QueueUrl>"))
        );
    }

    #[test]
    fn maps_are_name_value_entries() {
        assert_eq!(
            xml(
                "GetQueueAttributes",
                json!({"Attributes": {"VisibilityTimeout": "30", "DelaySeconds": "0"}})
            ),
            wrap(
                "GetQueueAttributes",
                Some(
                    "<Attribute><Name>DelaySeconds</Name><Value>0</Value></Attribute>\
                     <Attribute><Name>VisibilityTimeout</Name><Value>30</Value></Attribute>"
                )
            )
        );
        assert_eq!(
            xml("ListQueueTags", json!({"Tags": {"team": "a\"b", "e": ""}})),
            wrap(
                "ListQueueTags",
                Some(
                    "<Tag><Key>e</Key><Value></Value></Tag><Tag><Key>team</Key><Value>a&quot;b</Value></Tag>"
                )
            )
        );
    }

    #[test]
    fn received_messages_with_attributes() {
        let out = json!({"Messages": [{
            "MessageId": "id", "ReceiptHandle": "rh", "MD5OfBody": "md5", "Body": "a\r\nb<",
            "Attributes": {"SenderId": "AIDA", "SentTimestamp": "1"},
            "MD5OfMessageAttributes": "mma",
            "MessageAttributes": {
                "b": {"DataType": "Binary", "BinaryValue": "AAE="},
                "s": {"DataType": "String", "StringValue": "v"},
                "l": {"DataType": "String.x", "StringListValues": ["p", "q"]}
            }
        }]});
        assert_eq!(
            xml("ReceiveMessage", out),
            wrap(
                "ReceiveMessage",
                Some(
                    "<Message><MessageId>id</MessageId><ReceiptHandle>rh</ReceiptHandle><MD5OfBody>md5</MD5OfBody>\
                     <Body>a&#xD;\nb&lt;</Body>\
                     <Attribute><Name>SenderId</Name><Value>AIDA</Value></Attribute>\
                     <Attribute><Name>SentTimestamp</Name><Value>1</Value></Attribute>\
                     <MD5OfMessageAttributes>mma</MD5OfMessageAttributes>\
                     <MessageAttribute><Name>b</Name><Value><BinaryValue>AAE=</BinaryValue><DataType>Binary</DataType></Value></MessageAttribute>\
                     <MessageAttribute><Name>l</Name><Value><StringListValue>p</StringListValue><StringListValue>q</StringListValue><DataType>String.x</DataType></Value></MessageAttribute>\
                     <MessageAttribute><Name>s</Name><Value><StringValue>v</StringValue><DataType>String</DataType></Value></MessageAttribute>\
                     </Message>"
                )
            )
        );
        assert_eq!(
            xml("ReceiveMessage", json!({})),
            wrap("ReceiveMessage", Some(""))
        );
    }

    #[test]
    fn batch_results() {
        let failed = json!([{"Id": "f", "SenderFault": true, "Code": "InvalidMessageContents", "Message": "bad"}]);
        let failed_xml = "<BatchResultErrorEntry><Id>f</Id><SenderFault>true</SenderFault>\
                          <Code>InvalidMessageContents</Code><Message>bad</Message></BatchResultErrorEntry>";
        assert_eq!(
            xml(
                "SendMessageBatch",
                json!({"Successful": [{"Id": "a", "MessageId": "m", "MD5OfMessageBody": "b", "SequenceNumber": "9"}],
                       "Failed": failed})
            ),
            wrap(
                "SendMessageBatch",
                Some(&format!(
                    "<SendMessageBatchResultEntry><Id>a</Id><MessageId>m</MessageId>\
                     <MD5OfMessageBody>b</MD5OfMessageBody><SequenceNumber>9</SequenceNumber>\
                     </SendMessageBatchResultEntry>{failed_xml}"
                ))
            )
        );
        assert_eq!(
            xml(
                "DeleteMessageBatch",
                json!({"Successful": [{"Id": "a"}, {"Id": "b"}], "Failed": failed})
            ),
            wrap(
                "DeleteMessageBatch",
                Some(&format!(
                    "<DeleteMessageBatchResultEntry><Id>a</Id></DeleteMessageBatchResultEntry>\
                     <DeleteMessageBatchResultEntry><Id>b</Id></DeleteMessageBatchResultEntry>{failed_xml}"
                ))
            )
        );
        assert_eq!(
            xml(
                "ChangeMessageVisibilityBatch",
                json!({"Successful": [{"Id": "a"}], "Failed": []})
            ),
            wrap(
                "ChangeMessageVisibilityBatch",
                Some("<ChangeMessageVisibilityBatchResultEntry><Id>a</Id></ChangeMessageVisibilityBatchResultEntry>")
            )
        );
    }

    #[test]
    fn move_tasks() {
        let out = json!({"Results": [{
            "Status": "COMPLETED", "SourceArn": "arn:s", "DestinationArn": "arn:d",
            "MaxNumberOfMessagesPerSecond": 5, "ApproximateNumberOfMessagesMoved": 3,
            "ApproximateNumberOfMessagesToMove": 3, "StartedTimestamp": 1700000000000u64
        }, {"TaskHandle": "h", "Status": "RUNNING", "SourceArn": "arn:s",
            "ApproximateNumberOfMessagesMoved": 0, "ApproximateNumberOfMessagesToMove": 1,
            "StartedTimestamp": 1}]});
        assert_eq!(
            xml("ListMessageMoveTasks", out),
            wrap(
                "ListMessageMoveTasks",
                Some(
                    "<ListMessageMoveTasksResultEntry><Status>COMPLETED</Status><SourceArn>arn:s</SourceArn>\
                     <DestinationArn>arn:d</DestinationArn><MaxNumberOfMessagesPerSecond>5</MaxNumberOfMessagesPerSecond>\
                     <ApproximateNumberOfMessagesMoved>3</ApproximateNumberOfMessagesMoved>\
                     <ApproximateNumberOfMessagesToMove>3</ApproximateNumberOfMessagesToMove>\
                     <StartedTimestamp>1700000000000</StartedTimestamp></ListMessageMoveTasksResultEntry>\
                     <ListMessageMoveTasksResultEntry><TaskHandle>h</TaskHandle><Status>RUNNING</Status>\
                     <SourceArn>arn:s</SourceArn><ApproximateNumberOfMessagesMoved>0</ApproximateNumberOfMessagesMoved>\
                     <ApproximateNumberOfMessagesToMove>1</ApproximateNumberOfMessagesToMove>\
                     <StartedTimestamp>1</StartedTimestamp></ListMessageMoveTasksResultEntry>"
                )
            )
        );
    }

    #[test]
    fn error_body_uses_query_code_and_wording() {
        assert_eq!(
            error(&SqsError::QueueDoesNotExist, "r1"),
            format!(
                "<?xml version=\"1.0\"?><ErrorResponse xmlns=\"{XMLNS}\"><Error><Type>Sender</Type>\
                 <Code>AWS.SimpleQueueService.NonExistentQueue</Code>\
                 <Message>The specified queue does not exist for this wsdl version.</Message>\
                 <Detail/></Error><RequestId>r1</RequestId></ErrorResponse>"
            )
        );
        assert!(error(&SqsError::ReceiptHandleIsInvalid("a<b".into()), "r")
            .contains("<Message>The input receipt handle &quot;a&lt;b&quot; is not a valid receipt handle.</Message>"));
    }
}
