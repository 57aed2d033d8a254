//! Writing the engine's typed responses as AWS JSON 1.0 text.
//!
//! The text is what serde_json's compact output of the same response as a `Value` would be:
//! members in byte order of their names (serde_json's `Map` is a `BTreeMap` here), empty lists
//! and absent members left out as AWS leaves them out. `dispatch` reads this text back into a
//! `Value`, so the entry points cannot drift apart and the wasm carries one encoder per response.

use crate::engine::responses::{
    BatchResponse, BatchResultErrorEntry, CancelMessageMoveTaskResponse,
    DeleteMessageBatchResponse, EmptyResponse, GetQueueAttributesResponse,
    ListDeadLetterSourceQueuesResponse, ListMessageMoveTasksResponse,
    ListMessageMoveTasksResultEntry, ListQueueTagsResponse, ListQueuesResponse, QueueUrlResponse,
    ReceiveMessageResponse, ReceivedMessage, SendMessageBatchResponse, SendMessageResponse,
    StartMessageMoveTaskResponse,
};
use crate::json_text::{list, str_list, str_map, string, Obj};
use crate::model::MessageAttributeValue;
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
}

/// A response's JSON text. Through `dyn`, so that the wasm carries this once rather than once
/// for every response type.
pub fn to_json(r: &dyn JsonResponse) -> String {
    let mut out = String::with_capacity(r.size_hint());
    r.write_json(&mut out);
    out
}

/// `{}`.
impl JsonResponse for EmptyResponse {
    fn write_json(&self, out: &mut String) {
        out.push_str("{}");
    }
}

/// SendMessage's members, also written inside each SendMessageBatch entry.
fn send_members(r: &SendMessageResponse, o: &mut Obj<'_>) {
    o.opt(
        "MD5OfMessageAttributes",
        r.md5_of_message_attributes.as_deref(),
    );
    o.token("MD5OfMessageBody", &r.md5_of_message_body.text());
    o.opt(
        "MD5OfMessageSystemAttributes",
        r.md5_of_message_system_attributes.as_deref(),
    );
    o.token("MessageId", &r.message_id.text());
    o.opt("SequenceNumber", r.sequence_number.as_deref());
}

impl JsonResponse for SendMessageResponse {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        send_members(self, &mut o);
        o.end();
    }
}

fn write_error_entry(out: &mut String, e: &BatchResultErrorEntry) {
    let mut o = Obj::new(out);
    o.str("Code", &e.code);
    o.str("Id", &e.id);
    o.str("Message", &e.message);
    o.member("SenderFault")
        .push_str(if e.sender_fault { "true" } else { "false" });
    o.end();
}

/// `{Successful, Failed}` of a batch action; an empty list is omitted, as AWS does (spec §1.1).
fn write_batch<T>(out: &mut String, b: &BatchResponse<T>, mut entry: impl FnMut(&mut String, &T)) {
    let mut o = Obj::new(out);
    if !b.failed.is_empty() {
        list(o.member("Failed"), &b.failed, write_error_entry);
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
            send_members(&s.result, &mut o);
            o.end();
        });
    }
}

/// DeleteMessageBatch's, and ChangeMessageVisibilityBatch's (the same type).
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
            list(o.member("Messages"), &self.messages, write_message);
        }
        o.end();
    }
}

/// One message of a ReceiveMessage result.
fn write_message(out: &mut String, m: &ReceivedMessage) {
    let mut o = Obj::new(out);
    let selected = m.selected.as_deref();
    if let Some(s) = selected.filter(|s| !s.attributes.is_empty()) {
        let mut a = Obj::new(o.member("Attributes"));
        for (k, v) in &s.attributes {
            string(a.key(k), v);
        }
        a.end();
    }
    o.str("Body", &m.body);
    o.token("MD5OfBody", &m.md5_of_body.text());
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
    o.token("MessageId", &m.message_id.text());
    o.token("ReceiptHandle", &m.receipt_handle);
    o.end();
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
        str_list(o.member("StringListValues"), &v.string_list_values);
    }
    o.opt("StringValue", v.string_value.as_deref());
    o.end();
}

impl JsonResponse for QueueUrlResponse {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).str("QueueUrl", &self.queue_url).end();
    }
}

impl JsonResponse for StartMessageMoveTaskResponse {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).str("TaskHandle", &self.task_handle).end();
    }
}

impl JsonResponse for CancelMessageMoveTaskResponse {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .u64(
                "ApproximateNumberOfMessagesMoved",
                self.approximate_number_of_messages_moved,
            )
            .end();
    }
}

/// A page of queue URLs: `NextToken` when more remain, then the URLs under `urls_member`,
/// left out when empty unless `always`. ListQueues and ListDeadLetterSourceQueues differ only
/// in those two.
fn write_url_page(
    out: &mut String,
    urls_member: &'static str,
    always: bool,
    urls: &[String],
    next_token: Option<&str>,
) {
    let mut o = Obj::new(out);
    o.opt("NextToken", next_token);
    if always || !urls.is_empty() {
        str_list(o.member(urls_member), urls);
    }
    o.end();
}

/// Room for a page of URLs: each URL, its quotes and comma, and a token.
fn url_page_size(urls: &[String]) -> usize {
    64 + urls.iter().map(|u| u.len() + 3).sum::<usize>()
}

impl JsonResponse for ListQueuesResponse {
    fn size_hint(&self) -> usize {
        url_page_size(&self.queue_urls)
    }

    fn write_json(&self, out: &mut String) {
        write_url_page(
            out,
            "QueueUrls",
            false,
            &self.queue_urls,
            self.next_token.as_deref(),
        );
    }
}

impl JsonResponse for ListDeadLetterSourceQueuesResponse {
    fn size_hint(&self) -> usize {
        url_page_size(&self.queue_urls)
    }

    fn write_json(&self, out: &mut String) {
        write_url_page(
            out,
            "queueUrls",
            true,
            &self.queue_urls,
            self.next_token.as_deref(),
        );
    }
}

impl JsonResponse for GetQueueAttributesResponse {
    fn size_hint(&self) -> usize {
        // Each name and value with their quotes, colon and comma; a Policy may be long.
        let each: usize = self
            .attributes
            .iter()
            .map(|(k, v)| k.len() + v.len() + 8)
            .sum();
        16 + each
    }

    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        if !self.attributes.is_empty() {
            let mut a = Obj::new(o.member("Attributes"));
            for (name, value) in &self.attributes {
                a.str(name, value);
            }
            a.end();
        }
        o.end();
    }
}

impl JsonResponse for ListQueueTagsResponse {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        if !self.tags.is_empty() {
            str_map(o.member("Tags"), self.tags.iter());
        }
        o.end();
    }
}

impl JsonResponse for ListMessageMoveTasksResponse {
    fn size_hint(&self) -> usize {
        // Member names, two ARNs, a handle (base64 of a UUID and an ARN) and the numbers.
        16 + 640 * self.results.len()
    }

    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        if !self.results.is_empty() {
            list(o.member("Results"), &self.results, write_move_task);
        }
        o.end();
    }
}

/// One task of a ListMessageMoveTasks result.
fn write_move_task(out: &mut String, t: &ListMessageMoveTasksResultEntry) {
    let mut o = Obj::new(out);
    o.u64(
        "ApproximateNumberOfMessagesMoved",
        t.approximate_number_of_messages_moved,
    )
    .u64(
        "ApproximateNumberOfMessagesToMove",
        t.approximate_number_of_messages_to_move,
    )
    .opt("DestinationArn", t.destination_arn.as_deref())
    .opt("FailureReason", t.failure_reason.as_deref());
    if let Some(rate) = t.max_number_of_messages_per_second {
        o.u64("MaxNumberOfMessagesPerSecond", u64::from(rate));
    }
    o.str("SourceArn", &t.source_arn)
        .u64("StartedTimestamp", t.started_timestamp)
        .str("Status", &t.status)
        .opt("TaskHandle", t.task_handle.as_deref());
    o.end();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(r: &dyn JsonResponse) -> String {
        to_json(r)
    }

    #[test]
    fn a_page_of_queue_urls_omits_an_empty_list_but_dead_letter_sources_keep_it() {
        let urls = vec!["http://h/1/a".to_string(), "http://h/1/b\"".to_string()];
        let page = ListQueuesResponse {
            queue_urls: urls.clone(),
            next_token: Some("YQ".into()),
        };
        assert_eq!(
            text(&page),
            json!({"NextToken": "YQ", "QueueUrls": urls}).to_string()
        );
        assert_eq!(text(&ListQueuesResponse::default()), "{}");
        let sources = ListDeadLetterSourceQueuesResponse {
            queue_urls: urls.clone(),
            next_token: None,
        };
        assert_eq!(text(&sources), json!({ "queueUrls": urls }).to_string());
        assert_eq!(
            text(&ListDeadLetterSourceQueuesResponse::default()),
            r#"{"queueUrls":[]}"#
        );
    }

    #[test]
    fn queue_attributes_are_written_in_the_order_given_and_escaped() {
        let policy = r#"{"Version":"2012-10-17","Statement":[]}"#;
        let r = GetQueueAttributesResponse {
            attributes: vec![("DelaySeconds", "0".into()), ("Policy", policy.into())],
        };
        assert_eq!(
            text(&r),
            json!({"Attributes": {"DelaySeconds": "0", "Policy": policy}}).to_string()
        );
        assert_eq!(text(&GetQueueAttributesResponse::default()), "{}");
    }

    #[test]
    fn tags_are_a_map_of_strings_and_no_tags_no_member() {
        let tags: crate::maps::SortedMap<String, String> = [
            ("team".to_string(), "a\"b".to_string()),
            ("é\n".to_string(), String::new()),
        ]
        .into_iter()
        .collect();
        let r = ListQueueTagsResponse { tags };
        assert_eq!(
            text(&r),
            json!({"Tags": {"team": "a\"b", "é\n": ""}}).to_string()
        );
        assert_eq!(text(&ListQueueTagsResponse::default()), "{}");
    }

    #[test]
    fn move_tasks_write_only_the_members_they_have() {
        let running = ListMessageMoveTasksResultEntry {
            approximate_number_of_messages_moved: 3,
            approximate_number_of_messages_to_move: 10,
            destination_arn: Some("arn:aws:sqs:us-east-1:1:q".into()),
            failure_reason: None,
            max_number_of_messages_per_second: Some(5),
            source_arn: "arn:aws:sqs:us-east-1:1:dlq".into(),
            started_timestamp: 1_700_000_000_000,
            status: "RUNNING".into(),
            task_handle: Some("aGFuZGxl".into()),
        };
        let failed = ListMessageMoveTasksResultEntry {
            failure_reason: Some("AWS.SimpleQueueService.NonExistentQueue".into()),
            status: "FAILED".into(),
            source_arn: "arn:aws:sqs:us-east-1:1:dlq".into(),
            ..Default::default()
        };
        let r = ListMessageMoveTasksResponse {
            results: vec![running, failed],
        };
        let expected = json!({"Results": [
            {
                "ApproximateNumberOfMessagesMoved": 3,
                "ApproximateNumberOfMessagesToMove": 10,
                "DestinationArn": "arn:aws:sqs:us-east-1:1:q",
                "MaxNumberOfMessagesPerSecond": 5,
                "SourceArn": "arn:aws:sqs:us-east-1:1:dlq",
                "StartedTimestamp": 1_700_000_000_000u64,
                "Status": "RUNNING",
                "TaskHandle": "aGFuZGxl",
            },
            {
                "ApproximateNumberOfMessagesMoved": 0,
                "ApproximateNumberOfMessagesToMove": 0,
                "FailureReason": "AWS.SimpleQueueService.NonExistentQueue",
                "SourceArn": "arn:aws:sqs:us-east-1:1:dlq",
                "StartedTimestamp": 0,
                "Status": "FAILED",
            },
        ]});
        assert_eq!(text(&r), expected.to_string());
        assert_eq!(text(&ListMessageMoveTasksResponse::default()), "{}");
    }
}
