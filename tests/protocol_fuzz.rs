//! `protocol::handle` never panics and every refusal is well-formed, whatever arrives.
//!
//! `PROTOCOL_FUZZ_CASES` is the total number of requests, split evenly across the three
//! properties (random, mutated JSON, mutated Query); 20,000 by default. The long run, which
//! passed in about 20 s of release build:
//!   PROTOCOL_FUZZ_CASES=1000000 cargo test --release --test protocol_fuzz

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;
use wasq::protocol::{handle, Dispatch, HttpRequest, HttpResponse, ProtocolOptions};
use wasq::{CallContext, SqsError};

/// Validates nothing: echoes whatever parameters it is given, so every conversion path and
/// every output layout sees arbitrary JSON.
struct Anything;

impl Dispatch for Anything {
    fn dispatch(
        &mut self,
        _: u64,
        _: &CallContext,
        _: &str,
        params: Value,
    ) -> Result<Value, SqsError> {
        Ok(params)
    }
}

fn cases() -> u32 {
    std::env::var("PROTOCOL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

/// A minimal XML well-formedness check: balanced tags, no stray `<`/`&`, known entities only.
fn well_formed_xml(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("<?xml version=\"1.0\"?>") else {
        return false;
    };
    let mut stack: Vec<&str> = Vec::new();
    let mut s = rest;
    while let Some(lt) = s.find('<') {
        if !text_ok(&s[..lt]) {
            return false;
        }
        let Some(gt) = s[lt..].find('>') else {
            return false;
        };
        let tag = &s[lt + 1..lt + gt];
        if let Some(name) = tag.strip_prefix('/') {
            if stack.pop() != Some(name) {
                return false;
            }
        } else if !tag.ends_with('/') {
            stack.push(tag.split(' ').next().unwrap_or(""));
        }
        s = &s[lt + gt + 1..];
    }
    stack.is_empty() && s.is_empty()
}

fn text_ok(t: &str) -> bool {
    let mut rest = t;
    while let Some(amp) = rest.find('&') {
        let after = &rest[amp..];
        let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#xD;"]
            .iter()
            .any(|e| after.starts_with(e));
        if !ok {
            return false;
        }
        rest = &rest[amp + 1..];
    }
    !t.contains('>')
        && t.chars()
            .all(|c| matches!(c, '\t' | '\n') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}'))
}

fn check(r: &HttpResponse, request_id: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(r.header("x-amzn-RequestId"), Some(request_id));
    if (200..300).contains(&r.status) {
        return Ok(());
    }
    prop_assert!(
        matches!(r.status, 400 | 403 | 404 | 413),
        "status {}",
        r.status
    );
    match r.header("Content-Type") {
        Some("application/x-amz-json-1.0") => {
            let body: Value =
                serde_json::from_slice(&r.body).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(body["__type"].as_str().is_some_and(|t| t.contains('#')));
            prop_assert!(body["message"].is_string());
            let q = r.header("x-amzn-query-error").unwrap_or("");
            let parts: Vec<&str> = q.split(';').collect();
            prop_assert!(
                parts.len() == 2 && !parts[0].is_empty() && parts[1] == "Sender",
                "{}",
                q
            );
        }
        // A Query request accepting JSON (issue #33 item 4): the XML error's fields in JSON.
        Some("application/json") => {
            let body: Value =
                serde_json::from_slice(&r.body).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(body["ErrorResponse"]["Error"]["Code"].is_string());
            prop_assert_eq!(
                body["ErrorResponse"]["RequestId"].as_str(),
                Some(request_id)
            );
        }
        // A GET on a queue's URL without an action: AWS's whole body (recorded, issue #33 item 4).
        Some("text/xml") if r.status == 404 && r.body == b"<UnknownOperationException/>" => {}
        Some("text/xml") => {
            let text =
                std::str::from_utf8(&r.body).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(well_formed_xml(text), "{}", text);
            prop_assert!(text.contains("<ErrorResponse"), "{}", text);
            prop_assert!(text.contains("<Type>Sender</Type><Code>"), "{}", text);
            let id = format!("<RequestId>{request_id}</RequestId>");
            prop_assert!(text.contains(&id));
        }
        other => prop_assert!(false, "content type {:?}", other),
    }
    Ok(())
}

fn run(strategy: impl Strategy<Value = (HttpRequest, bool)>, divisor: u32) {
    let mut runner = TestRunner::new(Config {
        cases: (cases() / divisor).max(1),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |(req, auth)| {
            let opts = ProtocolOptions {
                credentials: auth.then(|| ("AKIDEXAMPLE".to_string(), "secret".to_string())),
                max_body_bytes: 4096,
            };
            let r = handle(&mut Anything, 1_735_732_800_000, &req, &opts, "rid-1");
            check(&r, "rid-1")
        })
        .unwrap();
}

const ACTIONS: &[&str] = &[
    "CreateQueue",
    "DeleteQueue",
    "GetQueueUrl",
    "ListQueues",
    "GetQueueAttributes",
    "SetQueueAttributes",
    "PurgeQueue",
    "SendMessage",
    "SendMessageBatch",
    "ReceiveMessage",
    "DeleteMessage",
    "DeleteMessageBatch",
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch",
    "TagQueue",
    "UntagQueue",
    "ListQueueTags",
    "ListDeadLetterSourceQueues",
    "StartMessageMoveTask",
    "ListMessageMoveTasks",
    "CancelMessageMoveTask",
    "AddPermission",
    "RemovePermission",
    "Bogus",
];

const KEYS: &[&str] = &[
    "QueueUrl",
    "QueueName",
    "MessageBody",
    "DelaySeconds",
    "MaxNumberOfMessages",
    "WaitTimeSeconds",
    "VisibilityTimeout",
    "MaxResults",
    "MaxNumberOfMessagesPerSecond",
    "AttributeName.1",
    "AttributeName.x",
    "Attribute.1.Name",
    "Attribute.1.Value",
    "Attribute.2.Value",
    "Tag.1.Key",
    "Tag.1.Value",
    "TagKey.1",
    "MessageAttribute.1.Name",
    "MessageAttribute.1.Value.DataType",
    "MessageAttribute.1.Value.StringValue",
    "MessageAttribute.1.Value.BinaryValue",
    "MessageAttribute.1.Value.StringListValue.1",
    "MessageSystemAttribute.1.Name",
    "SendMessageBatchRequestEntry.1.Id",
    "SendMessageBatchRequestEntry.1.DelaySeconds",
    "SendMessageBatchRequestEntry.2.MessageAttribute.1.Name",
    "DeleteMessageBatchRequestEntry.0.Id",
    "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout",
    "AWSAccountId.1",
    "ActionName.1",
    "Action",
    "X-Amz-Credential",
    "Version",
];

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,12}",
        any::<String>().prop_map(|s| s.chars().take(12).collect()),
        Just("1".to_string()),
        Just("-99999999999999999999".to_string()),
        Just("\r\n\"'<&>".to_string()),
    ]
}

fn headers() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = prop_oneof![
        Just("Host".to_string()),
        Just("Authorization".to_string()),
        Just("X-Amz-Date".to_string()),
        Just("X-Amzn-Trace-Id".to_string()),
        Just("x-amz-content-sha256".to_string()),
        Just("X-Forwarded-Proto".to_string()),
        Just("Content-Type".to_string()),
        "[A-Za-z-]{1,10}",
    ];
    let value = prop_oneof![
        any_text(),
        Just("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=abcd".to_string()),
        Just("AWS4-HMAC-SHA256 Credential=/, SignedHeaders=, Signature=".to_string()),
        Just("20250101T120000Z".to_string()),
        Just("application/x-amz-json-1.0".to_string()),
        Just("application/x-www-form-urlencoded".to_string()),
    ];
    prop::collection::vec((name, value), 0..5)
}

fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("POST".to_string()),
        Just("GET".to_string()),
        "[A-Z]{0,6}"
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("/".to_string()),
        Just("/123456789012/q".to_string()),
        "/[ -~]{0,20}",
        any_text()
    ]
}

/// Random bytes everywhere.
#[test]
fn random_requests() {
    let strategy = (
        method(),
        path(),
        any_text(),
        headers(),
        prop::collection::vec(any::<u8>(), 0..200),
        any::<bool>(),
    )
        .prop_map(|(method, path, query, headers, body, auth)| {
            (
                HttpRequest {
                    method,
                    path,
                    query,
                    headers,
                    body,
                },
                auth,
            )
        });
    run(strategy, 3);
}

/// JSON requests: a valid target and a mutated JSON body.
#[test]
fn mutated_json_requests() {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any_text().prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    prop::sample::select(KEYS).prop_map(str::to_string),
                    any_text()
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    let outputs = prop_oneof![
        Just("Messages"),
        Just("Attributes"),
        Just("MessageAttributes"),
        Just("Successful"),
        Just("Failed"),
        Just("Results"),
        Just("QueueUrls"),
        Just("queueUrls"),
        Just("Tags"),
    ];
    let body = (value, outputs, any::<u8>(), any::<usize>()).prop_map(|(v, key, byte, at)| {
        let mut obj = serde_json::Map::new();
        obj.insert(key.to_string(), v);
        let mut bytes = serde_json::to_vec(&Value::Object(obj)).unwrap_or_default();
        // One in four bodies gets a byte overwritten, to reach the malformed-JSON path.
        if byte % 4 == 0 && !bytes.is_empty() {
            let i = at % bytes.len();
            bytes[i] = byte;
        }
        bytes
    });
    let target = prop_oneof![
        prop::sample::select(ACTIONS).prop_map(|a| format!("AmazonSQS.{a}")),
        any_text(),
    ];
    let strategy =
        (target, body, headers(), any::<bool>()).prop_map(|(target, body, mut headers, auth)| {
            headers.push(("X-Amz-Target".into(), target));
            (
                HttpRequest {
                    method: "POST".into(),
                    path: "/".into(),
                    query: String::new(),
                    headers,
                    body,
                },
                auth,
            )
        });
    run(strategy, 3);
}

/// Query requests: an action and a mix of flattened parameters with arbitrary values.
#[test]
fn mutated_query_requests() {
    let params = prop::collection::vec(
        (
            prop_oneof![
                prop::sample::select(KEYS).prop_map(str::to_string),
                "[A-Za-z.0-9]{1,12}"
            ],
            any_text(),
        ),
        0..8,
    );
    let strategy = (
        prop::sample::select(ACTIONS),
        params,
        path(),
        any::<bool>(),
        headers(),
        any::<bool>(),
    )
        .prop_map(|(action, params, path, as_get, mut headers, auth)| {
            let mut form = form_urlencoded::Serializer::new(String::new());
            form.append_pair("Action", action);
            for (k, v) in &params {
                form.append_pair(k, v);
            }
            let encoded = form.finish();
            let (method, query, body) = if as_get {
                ("GET", encoded, Vec::new())
            } else {
                headers.push((
                    "Content-Type".into(),
                    "application/x-www-form-urlencoded".into(),
                ));
                ("POST", String::new(), encoded.into_bytes())
            };
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type") || !as_get);
            (
                HttpRequest {
                    method: method.into(),
                    path,
                    query,
                    headers,
                    body,
                },
                auth,
            )
        });
    run(strategy, 3);
}
