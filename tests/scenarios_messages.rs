//! Sending and receiving: validation order and texts (§4.8), MD5 digests (§5), system attributes
//! and attribute filters (§6). Batches are in scenarios_batches.rs.
mod common;

use base64::Engine as _;
use common::*;
use serde_json::{json, Value};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn s(v: &str) -> Value {
    json!({"DataType": "String", "StringValue": v})
}

#[test]
fn send_response_shape_standard() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let r = h.send(&url, "test");
    assert_eq!(r["MD5OfMessageBody"], "098f6bcd4621d373cade4e832627b4f6");
    let id = r["MessageId"].as_str().unwrap();
    assert!(!id.is_empty() && id.len() <= 100);
    // Nothing that was not sent: no attribute digests, no sequence number on standard queues.
    assert!(r.get("MD5OfMessageAttributes").is_none(), "{r}");
    assert!(r.get("MD5OfMessageSystemAttributes").is_none(), "{r}");
    assert!(r.get("SequenceNumber").is_none(), "{r}");
    let r2 = h.send(&url, "message");
    assert_eq!(r2["MD5OfMessageBody"], "78e731027d8fd50ed642340b7c9a63b3");
    assert_ne!(r2["MessageId"], r["MessageId"], "ids are unique");
}

#[test]
fn receive_response_shape() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let sent = h.send(&url, "test");
    let r = h.ok("ReceiveMessage", json!({"QueueUrl": url}));
    let msgs = messages(&r);
    assert_eq!(msgs.len(), 1);
    let m = &msgs[0];
    assert_eq!(m["MessageId"], sent["MessageId"]);
    assert_eq!(m["Body"], "test");
    assert_eq!(m["MD5OfBody"], "098f6bcd4621d373cade4e832627b4f6");
    assert!(!handle(m).is_empty());
    // Nothing requested: no Attributes, no MessageAttributes, no digest.
    assert!(m.get("Attributes").is_none(), "{m}");
    assert!(m.get("MessageAttributes").is_none(), "{m}");
    assert!(m.get("MD5OfMessageAttributes").is_none(), "{m}");
    // Empty queue: {} without Messages.
    let r = h.ok("ReceiveMessage", json!({"QueueUrl": url}));
    assert!(r.get("Messages").is_none(), "{r}");
}

#[test]
fn max_number_of_messages_defaults_to_one() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    for i in 0..3 {
        h.send(&url, &format!("m{i}"));
    }
    let r = h.ok("ReceiveMessage", json!({"QueueUrl": url}));
    assert_eq!(messages(&r).len(), 1);
    let r = h.ok(
        "ReceiveMessage",
        json!({"QueueUrl": url, "MaxNumberOfMessages": 10}),
    );
    assert_eq!(messages(&r).len(), 2);
}

#[test]
fn receive_parameter_validation() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.send(&url, "x");
    for n in [11, 0] {
        let e = h.err_unchanged(
            &url,
            "ReceiveMessage",
            json!({"QueueUrl": url, "MaxNumberOfMessages": n}),
        );
        assert_err(
            &e,
            "InvalidParameterValueException",
            &format!("Value {n} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."),
        );
    }
    for w in [21, -1] {
        let e = h.err_unchanged(
            &url,
            "ReceiveMessage",
            json!({"QueueUrl": url, "WaitTimeSeconds": w}),
        );
        assert_err(
            &e,
            "InvalidParameterValueException",
            &format!("Value {w} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."),
        );
    }
    assert_eq!(h.counts(&url), (1, 0, 0));
}

#[test]
fn md5_of_message_attributes_matches_aws_vectors() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"MyAttribute": s("foobar")}),
            "adb59cd4678ea5a855436b949cd07ab6",
        ),
        (
            json!({"timestamp": {"DataType": "Number", "StringValue": "1493147359900"}}),
            "235c5c510d26fb653d073faed50ae77c",
        ),
        (
            json!({"attr1": {"DataType": "Binary", "BinaryValue": b64(b"traceparent\x1e00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01")}}),
            "8cbe4db156db8a94db8b801b7addb984",
        ),
        (json!({"Foo": s("Bar")}), "ae7155c6026991b6d54b11589678bf9c"),
        (
            json!({
                "attribName1": s("attribValue 1"),
                "customNumberTypeAttrib": {"DataType": "Number.float", "StringValue": "4563442423554324324264524243.32543234"},
                "binaryAttribute": {"DataType": "Binary", "BinaryValue": b64(b"Hello binary world!")},
            }),
            "c932db14a896c663f83c260297d594ff",
        ),
    ];
    for (attrs, md5) in cases {
        let r = h.send_with(&url, "body", json!({"MessageAttributes": attrs.clone()}));
        assert_eq!(r["MD5OfMessageAttributes"], md5, "send digest of {attrs}");
        let got = h.receive(&url, 1);
        assert_eq!(
            got[0]["MD5OfMessageAttributes"], md5,
            "receive digest of {attrs}"
        );
        assert_eq!(
            got[0]["MessageAttributes"], attrs,
            "attributes echoed as sent"
        );
        h.delete(&url, &handle(&got[0]));
    }
}

#[test]
fn receive_digest_covers_only_the_filtered_attributes() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"VisibilityTimeout": "0"}));
    h.send_with(
        &url,
        "x",
        json!({"MessageAttributes": {"General": s("Kenobi"), "Hello": s("There"), "Help.Me": s("Me")}}),
    );
    let cases: Vec<(Value, Option<&str>, Vec<&str>)> = vec![
        (
            json!(["All"]),
            Some("4c360f3fdafd970e05fae2f149d997f5"),
            vec!["General", "Hello", "Help.Me"],
        ),
        (
            json!([".*"]),
            Some("4c360f3fdafd970e05fae2f149d997f5"),
            vec!["General", "Hello", "Help.Me"],
        ),
        (
            json!(["*"]),
            Some("4c360f3fdafd970e05fae2f149d997f5"),
            vec!["General", "Hello", "Help.Me"],
        ),
        (
            json!(["General", "Hello"]),
            Some("fca026605781cb4126a1e9044df24232"),
            vec!["General", "Hello"],
        ),
        (
            json!(["Hello", "Nope"]),
            Some("a311262e065454b75da111d535b8dacd"),
            vec!["Hello"],
        ),
        (
            json!(["Hel.*"]),
            Some("83fee93c1bcd8b9a5a923ffacdc636c7"),
            vec!["Hello", "Help.Me"],
        ),
        (json!(["AWS."]), None, vec![]),
        (json!(["..foo"]), None, vec![]),
        (json!([]), None, vec![]),
    ];
    for (filter, md5, names) in cases {
        let r = h.ok(
            "ReceiveMessage",
            json!({"QueueUrl": url, "MessageAttributeNames": filter}),
        );
        let m = &messages(&r)[0];
        assert_eq!(m["MD5OfMessageAttributes"].as_str(), md5, "filter {filter}");
        let mut got: Vec<String> = m
            .get("MessageAttributes")
            .and_then(|a| a.as_object())
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        got.sort();
        assert_eq!(got, names, "filter {filter}");
        if names.is_empty() {
            assert!(m.get("MessageAttributes").is_none());
        }
    }
}

#[test]
fn system_attributes_have_their_own_digest_and_do_not_affect_the_attribute_digest() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";
    let r = h.send_with(
        &url,
        "x",
        json!({"MessageAttributes": {"Foo": s("Bar")}, "MessageSystemAttributes": {"AWSTraceHeader": s(trace)}}),
    );
    assert_eq!(
        r["MD5OfMessageSystemAttributes"],
        "5ae4d5d7636402d80f4eb6d213245a88"
    );
    assert_eq!(
        r["MD5OfMessageAttributes"],
        "ae7155c6026991b6d54b11589678bf9c"
    );
    let m = &h.receive(&url, 1)[0];
    assert_eq!(
        m["MD5OfMessageAttributes"],
        "ae7155c6026991b6d54b11589678bf9c"
    );
    assert_eq!(sys_attr(m, "AWSTraceHeader").unwrap(), trace);
    assert!(m["MessageAttributes"].get("AWSTraceHeader").is_none());
}

#[test]
fn trace_header_from_the_call_context() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.ctx.trace_header = Some("Root=1-abc".into());
    let r = h.send(&url, "x");
    // Supplied by the host header, not by MessageSystemAttributes: no system digest in the response.
    assert!(r.get("MD5OfMessageSystemAttributes").is_none(), "{r}");
    h.ctx.trace_header = None;
    let m = &h.receive(&url, 1)[0];
    assert_eq!(sys_attr(m, "AWSTraceHeader").unwrap(), "Root=1-abc");
}

#[test]
fn system_attributes_on_receive() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"VisibilityTimeout": "5"}));
    h.ctx.sender_id = Some("AIDAEXAMPLEUSER".into());
    h.send(&url, "x");
    h.ctx.sender_id = None;
    h.advance(1234);
    let m = h.receive(&url, 1).remove(0);
    let a = m["Attributes"].as_object().unwrap().clone();
    let mut keys: Vec<&str> = a.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        vec![
            "ApproximateFirstReceiveTimestamp",
            "ApproximateReceiveCount",
            "SenderId",
            "SentTimestamp"
        ]
    );
    assert_eq!(a["SenderId"], "AIDAEXAMPLEUSER");
    assert_eq!(a["SentTimestamp"], T0.to_string().as_str());
    assert_eq!(
        a["ApproximateFirstReceiveTimestamp"],
        (T0 + 1234).to_string().as_str()
    );
    assert_eq!(a["ApproximateReceiveCount"], "1");
    h.advance_secs(5);
    let m2 = h.receive(&url, 1).remove(0);
    assert_eq!(sys_attr(&m2, "ApproximateReceiveCount").unwrap(), "2");
    assert_eq!(
        sys_attr(&m2, "ApproximateFirstReceiveTimestamp").unwrap(),
        (T0 + 1234).to_string(),
        "first receive time is kept"
    );
    assert_ne!(handle(&m2), handle(&m));
}

#[test]
fn default_sender_id_is_present() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    h.send(&url, "x");
    let m = h.receive(&url, 1).remove(0);
    let sid = sys_attr(&m, "SenderId").expect("SenderId always present");
    assert!(!sid.is_empty());
}

#[test]
fn system_attribute_filters() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"VisibilityTimeout": "0"}));
    h.send(&url, "x");
    let recv = |h: &mut Sqs, p: Value| -> Value {
        let mut params = json!({"QueueUrl": url});
        merge(&mut params, p);
        messages(&h.ok("ReceiveMessage", params)).remove(0)
    };
    // Inapplicable names are ignored.
    let m = recv(
        &mut h,
        json!({"MessageSystemAttributeNames": ["SenderId", "SequenceNumber"]}),
    );
    let keys: Vec<String> = m["Attributes"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, vec!["SenderId"]);
    // Deprecated AttributeNames works alone.
    let m = recv(&mut h, json!({"AttributeNames": ["SentTimestamp"]}));
    let keys: Vec<String> = m["Attributes"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, vec!["SentTimestamp"]);
    // Both given: MessageSystemAttributeNames All wins.
    let m = recv(
        &mut h,
        json!({"MessageSystemAttributeNames": ["All"], "AttributeNames": ["SenderId"]}),
    );
    assert_eq!(m["Attributes"].as_object().unwrap().len(), 4, "{m}");
    let m = recv(&mut h, json!({}));
    assert!(m.get("Attributes").is_none());
}

#[test]
fn fair_queue_group_id_is_returned_on_standard_queues() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let r = h.send_with(&url, "x", json!({"MessageGroupId": "tenant-1"}));
    assert!(r.get("SequenceNumber").is_none(), "{r}");
    let m = h.receive(&url, 1).remove(0);
    assert_eq!(sys_attr(&m, "MessageGroupId").unwrap(), "tenant-1");
    assert!(sys_attr(&m, "SequenceNumber").is_none());
    assert!(sys_attr(&m, "MessageDeduplicationId").is_none());
}

#[test]
fn empty_or_missing_body_is_missing_parameter() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    for p in [
        json!({"QueueUrl": url, "MessageBody": ""}),
        json!({"QueueUrl": url}),
    ] {
        let e = h.err_unchanged(&url, "SendMessage", p);
        assert_err(
            &e,
            "MissingRequiredParameterException",
            "The request must contain the parameter MessageBody.",
        );
        assert_eq!(e.query_code(), "MissingParameter");
    }
}

#[test]
fn size_limit_counts_utf8_bytes_and_attributes() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({"MaximumMessageSize": "1024"}));
    let too_big =
        "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.";
    h.send(&url, &"a".repeat(1024));
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "a".repeat(1025)}),
    );
    assert_err(&e, "InvalidParameterValueException", too_big);
    // 512 two-byte characters = 1024 bytes.
    h.send(&url, &"é".repeat(512));
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "é".repeat(513)}),
    );
    assert_err(&e, "InvalidParameterValueException", too_big);
    // Attribute name (2) + DataType (6) + value count toward the limit.
    h.send_with(
        &url,
        &"a".repeat(1000),
        json!({"MessageAttributes": {"ab": s(&"v".repeat(16))}}),
    );
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "a".repeat(1000), "MessageAttributes": {"ab": s(&"v".repeat(17))}}),
    );
    assert_err(&e, "InvalidParameterValueException", too_big);
    // System attributes are not counted.
    h.send_with(
        &url,
        &"a".repeat(1024),
        json!({"MessageSystemAttributes": {"AWSTraceHeader": s("Root=1-x")}}),
    );
    assert_eq!(h.counts(&url), (4, 0, 0));
}

#[test]
fn invalid_body_characters() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "a\u{7}b"}),
    );
    assert_err(
        &e,
        "InvalidMessageContents",
        "Invalid binary character '#x7' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].",
    );
    for bad in ["\u{0}", "\u{1F}", "\u{FFFE}", "\u{FFFF}"] {
        let e = h.err_unchanged(
            &url,
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": bad}),
        );
        assert_eq!(e.shape(), "InvalidMessageContents", "{bad:?}");
    }
    let ok = "tab\there\nnl\rcr \u{D7FF}\u{E000}\u{FFFD}\u{10000}\u{10FFFF} 😀";
    h.send(&url, ok);
    assert_eq!(bodies(&h.receive(&url, 1)), vec![ok]);
}

#[test]
fn validation_order_follows_the_spec_list() {
    // §4.8 lists the order emulators apply (AWS's is undocumented): empty body, size, characters,
    // attributes, DelaySeconds.
    let mut h = Sqs::new();
    let url = h.create("q", json!({"MaximumMessageSize": "1024"}));
    let big_bad = format!("\u{7}{}", "a".repeat(1100));
    let e = h.err(
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": big_bad, "DelaySeconds": 5000}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    assert!(
        e.message()
            .contains("Message must be shorter than 1024 bytes"),
        "{e}"
    );
    let e = h.err(
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "\u{7}", "DelaySeconds": 5000, "MessageAttributes": {"a": s("")}}),
    );
    assert_eq!(e.shape(), "InvalidMessageContents");
    let e = h.err(
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "ok", "DelaySeconds": 5000, "MessageAttributes": {"a": s("")}}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Message (user) attribute 'a' must contain a non-empty value of type 'String'.",
    );
    assert_eq!(h.counts(&url), (0, 0, 0));
}

#[test]
fn delay_seconds_range_on_send() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    for d in [901, -1, 54524] {
        let e = h.err_unchanged(
            &url,
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": "x", "DelaySeconds": d}),
        );
        assert_err(
            &e,
            "InvalidParameterValueException",
            &format!("Value {d} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."),
        );
    }
    h.send_with(&url, "x", json!({"DelaySeconds": 900}));
    assert_eq!(h.counts(&url), (0, 0, 1));
}

#[test]
fn message_attribute_validation() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let mut eleven = serde_json::Map::new();
    for i in 0..11 {
        eleven.insert(format!("a{i}"), s("v"));
    }
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "MessageAttributes": eleven}),
    );
    assert_eq!(
        e.message(),
        "Number of message attributes [11] exceeds the allowed maximum [10]."
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    let mut ten = serde_json::Map::new();
    for i in 0..10 {
        ten.insert(format!("a{i}"), s("v"));
    }
    h.send_with(&url, "x", json!({"MessageAttributes": ten}));

    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "MessageAttributes": {"b": {"DataType": "Binary", "BinaryValue": ""}}}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "The message attribute 'b' must contain non-empty message attribute value for message attribute type 'Binary'.",
    );
    // Names: reserved prefixes, dots at the ends, consecutive dots, bad characters, length.
    let long = "n".repeat(257);
    for bad in [
        "AWS.x",
        "aWs.x",
        "Amazon.x",
        "AMAZON.x",
        ".x",
        "x.",
        "a..b",
        "a!b",
        "a\"b",
        "a§b",
        "a(b",
        "a?b",
        long.as_str(),
    ] {
        let e = h.err_unchanged(
            &url,
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": "x", "MessageAttributes": {bad: s("v")}}),
        );
        assert_eq!(e.shape(), "InvalidParameterValueException", "name {bad}");
    }
    // Types: invalid prefix, wrong case, too long custom label. Wording varies by source (§16).
    let long_type = format!("Number.{}", "t".repeat(256));
    for bad in ["Invalid", "string", long_type.as_str()] {
        let e = h.err_unchanged(
            &url,
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": "x", "MessageAttributes": {"a": {"DataType": bad, "StringValue": "1"}}}),
        );
        assert_eq!(e.shape(), "InvalidParameterValueException", "type {bad}");
    }
    // Accepted: non-ASCII letters, custom labels.
    h.send_with(
        &url,
        "x",
        json!({"MessageAttributes": {"attr.1øßä": s("v"), "n": {"DataType": "Number.int", "StringValue": "7"}, "bin": {"DataType": "Binary.png", "BinaryValue": b64(&[0, 1, 2])}}}),
    );
}

#[test]
fn group_id_format_on_standard_queue_and_dedup_id_rejected() {
    let mut h = Sqs::new();
    let url = h.create("q", json!({}));
    let long = "g".repeat(129);
    for bad in ["", "a b", long.as_str()] {
        let e = h.err_unchanged(
            &url,
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": "x", "MessageGroupId": bad}),
        );
        assert_err(
            &e,
            "InvalidParameterValueException",
            &format!("Value {bad} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."),
        );
    }
    h.send_with(
        &url,
        "x",
        json!({"MessageGroupId": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"}),
    );
    h.send_with(&url, "x", json!({"MessageGroupId": "g".repeat(128)}));
    // LocalStack's text, not AWS-recorded (§4.8 item 7): only the code is asserted.
    let e = h.err_unchanged(
        &url,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x", "MessageDeduplicationId": "d"}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
}
