//! `protocol::handle` end to end with a Dispatch double: both protocols, their errors, headers
//! and statuses, the call context and the queue-URL path form.

use serde_json::{json, Value};
use wasq::protocol::{handle, request_id, Dispatch, HttpRequest, HttpResponse, ProtocolOptions};
use wasq::{CallContext, SqsError};

/// Echoes the parameters, or answers the queued result; records every call.
#[derive(Default)]
struct Echo {
    calls: Vec<(String, CallContext, Value)>,
    answer: Option<Result<Value, SqsError>>,
}

impl Dispatch for Echo {
    fn dispatch(
        &mut self,
        _now: u64,
        ctx: &CallContext,
        action: &str,
        params: Value,
    ) -> Result<Value, SqsError> {
        self.calls
            .push((action.to_string(), ctx.clone(), params.clone()));
        self.answer.take().unwrap_or(Ok(params))
    }
}

fn json_req(target: &str, body: &str) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: "/".into(),
        query: String::new(),
        headers: vec![
            ("x-amz-target".into(), target.into()),
            ("Content-Type".into(), "application/x-amz-json-1.0".into()),
            ("Host".into(), "localhost:9324".into()),
        ],
        body: body.as_bytes().to_vec(),
    }
}

fn form_req(path: &str, body: &str) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: path.into(),
        query: String::new(),
        headers: vec![
            (
                "Content-Type".into(),
                "application/x-www-form-urlencoded; charset=utf-8".into(),
            ),
            ("Host".into(), "example.test:9324".into()),
        ],
        body: body.as_bytes().to_vec(),
    }
}

fn run(d: &mut Echo, req: &HttpRequest) -> HttpResponse {
    handle(d, 0, req, &ProtocolOptions::default(), "req-1")
}

fn body_json(r: &HttpResponse) -> Value {
    serde_json::from_slice(&r.body).expect("JSON body")
}

fn body_text(r: &HttpResponse) -> String {
    String::from_utf8(r.body.clone()).expect("utf-8")
}

#[test]
fn json_request_passes_the_object_through_unchanged() {
    let mut d = Echo::default();
    let body = r#"{"QueueUrl":"u","MaxNumberOfMessages":"not a number","Extra":[1,{"a":null}]}"#;
    let r = run(&mut d, &json_req("AmazonSQS.ReceiveMessage", body));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/x-amz-json-1.0"));
    assert_eq!(r.header("x-amzn-requestid"), Some("req-1"));
    assert_eq!(r.header("x-amzn-query-error"), None);
    let sent: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body_json(&r), sent);
    assert_eq!(d.calls[0].0, "ReceiveMessage");
    assert_eq!(d.calls[0].2, sent);
}

#[test]
fn json_empty_body_is_an_empty_object_and_null_output_is_empty_object() {
    let mut d = Echo {
        answer: Some(Ok(Value::Null)),
        ..Echo::default()
    };
    let r = run(&mut d, &json_req("AmazonSQS.ListQueues", ""));
    assert_eq!(r.status, 200);
    assert_eq!(r.body, b"{}");
    assert_eq!(d.calls[0].2, json!({}));
}

#[test]
fn json_engine_errors_carry_type_message_header_and_status() {
    let cases = [
        (
            SqsError::QueueDoesNotExist,
            400,
            "com.amazonaws.sqs#QueueDoesNotExist",
            "AWS.SimpleQueueService.NonExistentQueue",
        ),
        (
            SqsError::PurgeQueueInProgress("q".into()),
            403,
            "com.amazonaws.sqs#PurgeQueueInProgress",
            "AWS.SimpleQueueService.PurgeQueueInProgress",
        ),
        (
            SqsError::ResourceNotFoundException("Task does not exist.".into()),
            404,
            "com.amazonaws.sqs#ResourceNotFoundException",
            "ResourceNotFoundException",
        ),
        (
            SqsError::MissingParameter("MessageBody".into()),
            400,
            "com.amazon.coral.service#MissingRequiredParameterException",
            "MissingParameter",
        ),
    ];
    for (err, status, ty, code) in cases {
        let mut d = Echo {
            answer: Some(Err(err.clone())),
            ..Echo::default()
        };
        let r = run(&mut d, &json_req("AmazonSQS.PurgeQueue", "{}"));
        assert_eq!(r.status, status);
        assert_eq!(
            r.header("x-amzn-query-error"),
            Some(format!("{code};Sender").as_str())
        );
        assert_eq!(r.header("x-amzn-RequestId"), Some("req-1"));
        assert_eq!(
            body_json(&r),
            json!({"__type": ty, "message": err.message()})
        );
    }
}

#[test]
fn json_unknown_target_and_malformed_body() {
    for target in [
        "AmazonSQS.Nope",
        "DynamoDB_20120810.PutItem",
        "AmazonSQS.sendmessage",
        "",
    ] {
        let mut d = Echo::default();
        let r = run(&mut d, &json_req(target, "{}"));
        assert_eq!(r.status, 400, "{target}");
        assert_eq!(
            body_json(&r)["__type"],
            "com.amazon.coral.service#UnknownOperationException"
        );
        assert_eq!(r.header("x-amzn-query-error"), Some("InvalidAction;Sender"));
        assert!(d.calls.is_empty());
    }
    for body in ["{", "[1]", "\"s\"", "{\"a\":1}x"] {
        let mut d = Echo::default();
        let r = run(&mut d, &json_req("AmazonSQS.SendMessage", body));
        assert_eq!(r.status, 400, "{body}");
        assert_eq!(
            body_json(&r)["__type"],
            "com.amazon.coral.service#SerializationException"
        );
        assert_eq!(
            r.header("x-amzn-query-error"),
            Some("MalformedQueryString;Sender")
        );
        assert!(d.calls.is_empty());
    }
}

#[test]
fn header_names_are_case_insensitive() {
    let mut req = json_req("AmazonSQS.ListQueues", "{}");
    req.headers[0].0 = "X-AMZ-TARGET".into();
    let mut d = Echo::default();
    assert_eq!(run(&mut d, &req).status, 200);
    assert_eq!(d.calls[0].0, "ListQueues");
}

#[test]
fn oversized_bodies_are_refused_in_the_request_protocol() {
    let opts = ProtocolOptions {
        max_body_bytes: 10,
        ..ProtocolOptions::default()
    };
    let mut d = Echo::default();
    let r = handle(
        &mut d,
        0,
        &json_req("AmazonSQS.ListQueues", "{\"QueueNamePrefix\":\"x\"}"),
        &opts,
        "r",
    );
    assert_eq!(r.status, 413);
    assert_eq!(
        body_json(&r)["__type"],
        "com.amazon.coral.service#RequestEntityTooLargeException"
    );
    // The host may have stopped reading at the limit, so the message names the limit only.
    assert_eq!(
        body_json(&r)["message"],
        "Request body exceeds the limit of 10 bytes."
    );
    let r = handle(
        &mut d,
        0,
        &form_req("/", "Action=ListQueues&QueueNamePrefix=x"),
        &opts,
        "r",
    );
    assert_eq!(r.status, 413);
    assert!(body_text(&r).contains("<Code>RequestEntityTooLarge</Code>"));
    assert!(d.calls.is_empty());
    let r = handle(
        &mut d,
        0,
        &json_req("AmazonSQS.ListQueues", "{}"),
        &opts,
        "r",
    );
    assert_eq!(r.status, 200);
}

#[test]
fn call_context_from_headers() {
    let mut req = json_req("AmazonSQS.SendMessage", "{}");
    req.headers.push((
        "Authorization".into(),
        "AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20250101/eu-west-3/sqs/aws4_request, SignedHeaders=host, Signature=00".into(),
    ));
    req.headers
        .push(("X-Amzn-Trace-Id".into(), "Root=1-abc".into()));
    req.headers
        .push(("X-Forwarded-Proto".into(), "https".into()));
    let mut d = Echo::default();
    assert_eq!(run(&mut d, &req).status, 200);
    let ctx = &d.calls[0].1;
    assert_eq!(ctx.region.as_deref(), Some("eu-west-3"));
    assert_eq!(ctx.host.as_deref(), Some("localhost:9324"));
    assert_eq!(ctx.trace_header.as_deref(), Some("Root=1-abc"));
    assert_eq!(ctx.scheme.as_deref(), Some("https"));
    let sender = ctx.sender_id.clone().expect("sender id");
    assert_eq!(sender.len(), 21);
    assert!(sender.starts_with("AIDA"));
    assert_eq!(Some(sender), wasq::protocol::call_context(&req).sender_id);

    let mut d = Echo::default();
    run(&mut d, &json_req("AmazonSQS.SendMessage", "{}"));
    assert_eq!(d.calls[0].1.region, None);
    assert_eq!(d.calls[0].1.sender_id, None);

    // Presigned-URL credential in the query string.
    let mut get = form_req("/", "");
    get.method = "GET".into();
    get.query =
        "Action=ListQueues&X-Amz-Credential=AK%2F20250101%2Fap-south-1%2Fsqs%2Faws4_request".into();
    let mut d = Echo::default();
    assert_eq!(run(&mut d, &get).status, 200);
    assert_eq!(d.calls[0].1.region.as_deref(), Some("ap-south-1"));
}

#[test]
fn query_post_converts_parameters_and_answers_xml() {
    let mut d = Echo {
        answer: Some(Ok(json!({"MessageId": "m1", "MD5OfMessageBody": "d41d"}))),
        ..Echo::default()
    };
    let r = run(
        &mut d,
        &form_req(
            "/",
            "Action=SendMessage&Version=2012-11-05&QueueUrl=http%3A%2F%2Fh%2F1%2Fq&MessageBody=a%22b&DelaySeconds=3",
        ),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Content-Type"), Some("text/xml"));
    assert_eq!(r.header("x-amzn-RequestId"), Some("req-1"));
    assert_eq!(
        body_text(&r),
        "<?xml version=\"1.0\"?><SendMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">\
         <SendMessageResult><MD5OfMessageBody>d41d</MD5OfMessageBody><MessageId>m1</MessageId></SendMessageResult>\
         <ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></SendMessageResponse>"
    );
    assert_eq!(
        d.calls[0].2,
        json!({"QueueUrl": "http://h/1/q", "MessageBody": "a\"b", "DelaySeconds": 3})
    );
}

#[test]
fn query_on_queue_path_derives_queue_url() {
    let mut d = Echo::default();
    let r = run(&mut d, &form_req("/123456789012/my-q", "Action=PurgeQueue"));
    assert_eq!(r.status, 200);
    assert_eq!(
        d.calls[0].2,
        json!({"QueueUrl": "http://example.test:9324/123456789012/my-q"})
    );
    assert_eq!(
        body_text(&r),
        "<?xml version=\"1.0\"?><PurgeQueueResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">\
         <ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></PurgeQueueResponse>"
    );
    let mut get = form_req("/123456789012/my-q", "");
    get.method = "GET".into();
    get.headers.retain(|(k, _)| k != "Content-Type");
    get.query = "Action=GetQueueAttributes&AttributeName.1=All".into();
    let mut d = Echo::default();
    assert_eq!(run(&mut d, &get).status, 200);
    assert_eq!(
        d.calls[0].2,
        json!({"QueueUrl": "http://example.test:9324/123456789012/my-q", "AttributeNames": ["All"]})
    );
}

#[test]
fn query_errors_are_xml_with_status() {
    let mut d = Echo {
        answer: Some(Err(SqsError::QueueDoesNotExist)),
        ..Echo::default()
    };
    let r = run(&mut d, &form_req("/", "Action=GetQueueUrl&QueueName=nope"));
    assert_eq!(r.status, 400);
    assert_eq!(r.header("Content-Type"), Some("text/xml"));
    assert_eq!(
        body_text(&r),
        "<?xml version=\"1.0\"?><ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><Error>\
         <Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>\
         <Message>The specified queue does not exist for this wsdl version.</Message><Detail/></Error>\
         <RequestId>req-1</RequestId></ErrorResponse>"
    );

    let mut d = Echo::default();
    let r = run(&mut d, &form_req("/", "Action=Frobnicate"));
    assert_eq!(r.status, 400);
    assert!(body_text(&r).contains("<Code>InvalidAction</Code><Message>The action Frobnicate is not valid for this endpoint.</Message>"));
    let r = run(&mut d, &form_req("/", "Version=2012-11-05"));
    assert!(body_text(&r).contains("<Code>MissingParameter</Code><Message>The request must contain the parameter Action.</Message>"));
    let r = run(
        &mut d,
        &form_req("/", "Action=ReceiveMessage&WaitTimeSeconds=soon"),
    );
    assert_eq!(r.status, 400);
    assert!(body_text(&r).contains("<Code>InvalidParameterValue</Code>"));
    assert!(d.calls.is_empty());

    let mut d = Echo {
        answer: Some(Err(SqsError::OverLimit("too many".into()))),
        ..Echo::default()
    };
    let r = run(&mut d, &form_req("/", "Action=ReceiveMessage"));
    assert_eq!(r.status, 403);
}

#[test]
fn request_ids_are_host_supplied_and_deterministic() {
    let id = request_id(42, 7);
    assert_eq!(id, request_id(42, 7));
    let mut d = Echo::default();
    let r = handle(
        &mut d,
        0,
        &json_req("AmazonSQS.ListQueues", "{}"),
        &ProtocolOptions::default(),
        &id,
    );
    assert_eq!(r.header("x-amzn-RequestId"), Some(id.as_str()));
}
