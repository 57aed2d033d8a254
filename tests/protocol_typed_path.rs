//! The AWS JSON 1.0 path of `protocol::handle` runs the service's typed `dispatch_json`; a
//! `Dispatch` that only has the `Value` path (the trait's default `dispatch_json`) must answer
//! every request byte for byte alike, errors and malformed bodies included. Two services with
//! the same seed are driven through the same requests, one through each path.

use serde_json::Value;
use wasq::protocol::{handle, Dispatch, HttpRequest, HttpResponse, ProtocolOptions};
use wasq::{CallContext, EngineConfig, Service, SqsError};

/// A service seen only through `Dispatch::dispatch`: the default `dispatch_json` builds a Value.
struct ValuePath(Service);

impl Dispatch for ValuePath {
    fn dispatch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params: Value,
    ) -> Result<Value, SqsError> {
        self.0.dispatch(now, ctx, action, params)
    }
}

fn service() -> Service {
    Service::new(EngineConfig {
        seed: 7,
        ..EngineConfig::default()
    })
}

fn request(action: &str, body: &[u8]) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: "/".into(),
        query: String::new(),
        headers: vec![
            ("X-Amz-Target".into(), format!("AmazonSQS.{action}")),
            ("Content-Type".into(), "application/x-amz-json-1.0".into()),
            ("Host".into(), "localhost:9324".into()),
        ],
        body: body.to_vec(),
    }
}

fn text(r: &HttpResponse) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

#[test]
fn typed_and_value_paths_answer_alike() {
    const URL: &str = "http://localhost:9324/000000000000/typed";
    const FIFO: &str = "http://localhost:9324/000000000000/typed.fifo";
    let mut typed = service();
    let mut value = ValuePath(service());
    let opts = ProtocolOptions::default();
    let mut now = 1_700_000_000_000u64;
    let mut handles: Vec<String> = Vec::new();
    let mut fast_answers = 0;
    let steps: Vec<(&str, String)> = vec![
        ("CreateQueue", r#"{"QueueName":"typed"}"#.into()),
        (
            "CreateQueue",
            r#"{"QueueName":"typed.fifo","Attributes":{"FifoQueue":"true"}}"#.into(),
        ),
        (
            "SendMessage",
            format!(r#"{{"QueueUrl":"{URL}","MessageBody":"one"}}"#),
        ),
        (
            "SendMessage",
            format!(r#"{{"QueueUrl":"{URL}","MessageBody":"two","DelaySeconds":1}}"#),
        ),
        (
            "SendMessage",
            format!(r#"{{"QueueUrl":"{URL}","MessageBody":""}}"#),
        ),
        (
            "SendMessage",
            format!(r#"{{"QueueUrl":"{URL}","MessageBody":7}}"#),
        ),
        ("SendMessage", format!(r#"{{"QueueUrl":"{URL}"}}"#)),
        (
            "SendMessageBatch",
            format!(
                r#"{{"QueueUrl":"{URL}","Entries":[{{"Id":"a","MessageBody":"x"}},{{"Id":"b","MessageBody":"y","DelaySeconds":901}}]}}"#
            ),
        ),
        (
            "SendMessage",
            format!(
                r#"{{"QueueUrl":"{FIFO}","MessageBody":"f","MessageGroupId":"g","MessageDeduplicationId":"d"}}"#
            ),
        ),
        (
            "SendMessage",
            format!(
                r#"{{"QueueUrl":"{FIFO}","MessageBody":"f","MessageGroupId":"g","MessageDeduplicationId":"d"}}"#
            ),
        ),
        (
            "ReceiveMessage",
            format!(
                r#"{{"QueueUrl":"{URL}","MaxNumberOfMessages":10,"MessageSystemAttributeNames":["All"]}}"#
            ),
        ),
        (
            "ReceiveMessage",
            format!(r#"{{"QueueUrl":"{URL}","MaxNumberOfMessages":11}}"#),
        ),
        (
            "ReceiveMessage",
            format!(r#"{{"QueueUrl":"{FIFO}","ReceiveRequestAttemptId":"r1"}}"#),
        ),
        (
            "DeleteMessage",
            format!(r#"{{"QueueUrl":"{URL}","ReceiptHandle":"nonsense"}}"#),
        ),
        (
            "GetQueueAttributes",
            format!(r#"{{"QueueUrl":"{URL}","AttributeNames":["All"]}}"#),
        ),
        ("ListQueues", String::new()),
        ("ListQueues", "  ".into()),
        ("SendMessage", "{".into()),
        ("SendMessage", "[]".into()),
        ("SendMessage", "null".into()),
        ("PurgeQueue", format!(r#"{{"QueueUrl":"{FIFO}"}}"#)),
    ];
    let mut run = |action: &str, body: &[u8], now: u64| {
        let req = request(action, body);
        let a = handle(&mut typed, now, &req, &opts, "rid");
        let b = handle(&mut value, now, &req, &opts, "rid");
        assert_eq!(
            (a.status, &a.headers, text(&a)),
            (b.status, &b.headers, text(&b)),
            "{action} {}",
            String::from_utf8_lossy(body)
        );
        a
    };
    for (action, body) in &steps {
        now += 1_500;
        let r = run(action, body.as_bytes(), now);
        if r.status == 200 && *action == "ReceiveMessage" {
            let out: Value = serde_json::from_slice(&r.body).expect("JSON answer");
            for m in out["Messages"].as_array().into_iter().flatten() {
                handles.push(m["ReceiptHandle"].as_str().unwrap_or_default().into());
                fast_answers += 1;
            }
        }
    }
    assert!(fast_answers >= 3, "the receives returned messages");
    for (i, h) in handles.iter().enumerate() {
        let url = if i + 1 == handles.len() { FIFO } else { URL };
        now += 100;
        run(
            "ChangeMessageVisibility",
            format!(r#"{{"QueueUrl":"{url}","ReceiptHandle":"{h}","VisibilityTimeout":5}}"#)
                .as_bytes(),
            now,
        );
        run(
            "DeleteMessageBatch",
            format!(r#"{{"QueueUrl":"{url}","Entries":[{{"Id":"e","ReceiptHandle":"{h}"}}]}}"#)
                .as_bytes(),
            now,
        );
    }
    run("SendMessage", b"\xff\xfe", now);
}
