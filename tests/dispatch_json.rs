//! `Service::dispatch_json` answers byte for byte what `Service::dispatch` answers for the same
//! JSON text (read with `engine::read_json_params`, printed with `to_string`), for valid calls
//! and every kind of invalid one, and leaves the same state behind (changes and events).

mod common;

use common::{assert_transcript, handles};
use serde_json::Value;
use wasq::engine::read_json_params;
use wasq::{CallContext, EngineConfig, Realism, Service, Throttling};

const NOW: u64 = 1_700_000_000_000;
const STD: &str = "http://localhost:9324/000000000000/q";
const FIFO: &str = "http://localhost:9324/000000000000/q.fifo";
const HT: &str = "http://localhost:9324/000000000000/ht.fifo";

struct Pair {
    by_value: Service,
    by_text: Service,
    calls: usize,
}

impl Pair {
    fn new() -> Self {
        let config = EngineConfig {
            seed: 7,
            ..EngineConfig::default()
        };
        Pair {
            by_value: Service::new(config.clone()),
            by_text: Service::new(config),
            calls: 0,
        }
    }

    /// The same call through both paths; both answers (as text or error) must be equal, and so
    /// must the durable changes and events it left.
    fn call(&mut self, now: u64, action: &str, text: &str) -> Result<String, String> {
        let ctx = CallContext::default();
        let a = read_json_params(text)
            .and_then(|p| self.by_value.dispatch(now, &ctx, action, p))
            .map(|v| v.to_string())
            .map_err(|e| format!("{}: {}", e.json_type(), e.message()));
        let b = self
            .by_text
            .dispatch_json(now, &ctx, action, text)
            .map_err(|e| format!("{}: {}", e.json_type(), e.message()));
        assert_eq!(a, b, "{action} {text}");
        assert_eq!(
            self.by_value.take_changes(),
            self.by_text.take_changes(),
            "changes after {action} {text}"
        );
        assert_eq!(
            self.by_value.take_events(),
            self.by_text.take_events(),
            "events after {action} {text}"
        );
        self.calls += 1;
        a
    }

    fn ok(&mut self, now: u64, action: &str, text: &str) -> Value {
        let out = self.call(now, action, text);
        let out = out.unwrap_or_else(|e| panic!("{action} {text}: {e}"));
        serde_json::from_str(&out).unwrap_or(Value::Null)
    }
}

/// Sends, valid and not, in every shape the fast path must take or hand over.
fn sends(url: &str) -> Vec<String> {
    let u = format!("\"QueueUrl\":\"{url}\"");
    let mut v: Vec<String> = [
        r#"{U,"MessageBody":"plain"}"#,
        r#"{ U , "MessageBody" : "spaced" , "Extra" : {"a":[1,2,{"b":null}],"c":true,"d":false} }"#,
        r#"{U,"MessageBody":"esc \"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 é 😀"}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":5}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":0}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":-0}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":-1}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":901}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":1.0}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":1e2}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":"5"}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":99999999999999999999}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":9223372036854775807}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":-9223372036854775808}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":01}"#,
        r#"{U,"MessageBody":"x","DelaySeconds":null}"#,
        r#"{U,"MessageBody":5}"#,
        r#"{U,"MessageBody":null}"#,
        r#"{U,"MessageBody":""}"#,
        r#"{U}"#,
        r#"{"MessageBody":"no url"}"#,
        r#"{"QueueUrl":"http://localhost:9324/000000000000/nope","MessageBody":"x"}"#,
        r#"{"QueueUrl":7,"MessageBody":"x"}"#,
        r#"{U,"MessageBody":"first","MessageBody":"second"}"#,
        r#"{U,"MessageBody":"x","MessageBody":null}"#,
        r#"{U,"Message\u0042ody":"escaped key"}"#,
        r#"{U,"MessageBody":"bad \u0001 char"}"#,
        r#"{U,"MessageBody":"lone \ud800 surrogate"}"#,
        r#"{U,"MessageBody":"bad \x escape"}"#,
        r#"{U,"MessageBody":"x",}"#,
        r#"{U,"MessageBody":"x"} trailing"#,
        r#"{U,"MessageBody":"x"}   "#,
        r#"{U,"MessageBody":"unterminated}"#,
        r#"{U "MessageBody":"x"}"#,
        r#"{U,"MessageBody":"x","Deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        r#"{U,"MessageBody":"x","Weird":1.5e3}"#,
        r#"{U,"MessageBody":"x","Weird":tru}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":{"s":{"DataType":"String","StringValue":"v"},"n":{"DataType":"Number","StringValue":"1.5"},"b":{"DataType":"Binary","BinaryValue":"AAEC/w=="}}}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"not base64!"}}}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryListValues":["AA==", 3]}}}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":{"s":"flat"}}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":{"s":{"DataType":"String"}}}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":{"s":{"DataType":"String","StringValue":"a"},"s":{"DataType":"String","StringValue":"b"}}}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":{}}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":null}"#,
        r#"{U,"MessageBody":"x","MessageAttributes":[]}"#,
        r#"{U,"MessageBody":"x","MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=1-5759e988-bd862e3fe1be46a994272793"}}}"#,
        r#"{U,"MessageBody":"x","MessageGroupId":"g1","MessageDeduplicationId":"d1"}"#,
        r#"{U,"MessageBody":"x","MessageGroupId":"g1","MessageDeduplicationId":"d1"}"#,
        r#"{U,"MessageBody":"x","MessageGroupId":"g2"}"#,
        r#"{U,"MessageBody":"x","MessageGroupId":"bad group ☃","MessageDeduplicationId":"d2"}"#,
        r#"{U,"MessageBody":"x","MessageGroupId":"g1","Entries":[]}"#,
        r#"{U,"MessageBody":"x","MessageGroupId":["g"]}"#,
    ]
    .iter()
    .map(|t| t.replace('U', &u))
    .collect();
    v.extend(["", "   ", "null", "[]", "5", "\"text\"", "{", "{}"].map(str::to_string));
    v
}

fn send_batches(url: &str) -> Vec<String> {
    let u = format!("\"QueueUrl\":\"{url}\"");
    let ten: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"Id":"e{i}","MessageBody":"b{i}","MessageGroupId":"g{}","MessageDeduplicationId":"t{i}"}}"#, i % 3))
        .collect();
    let eleven: Vec<String> = (0..11)
        .map(|i| format!(r#"{{"Id":"e{i}","MessageBody":"b"}}"#))
        .collect();
    [
        format!(r#"{{{u},"Entries":[{}]}}"#, ten.join(",")),
        format!(r#"{{{u},"Entries":[{}]}}"#, eleven.join(",")),
        format!(r#"{{{u},"Entries":[{{"Id":"a","MessageBody":"ok"}},{{"Id":"b","MessageBody":""}},{{"Id":"c","MessageBody":"x","DelaySeconds":1000}}]}}"#),
        format!(r#"{{{u},"Entries":[{{"Id":"a","MessageBody":"x"}},{{"Id":"a","MessageBody":"y"}}]}}"#),
        format!(r#"{{{u},"Entries":[{{"Id":"bad id!","MessageBody":"x"}}]}}"#),
        format!(r#"{{{u},"Entries":[]}}"#),
        format!(r#"{{{u},"Entries":null}}"#),
        format!(r#"{{{u}}}"#),
        format!(r#"{{{u},"Entries":{{"Id":"a"}}}}"#),
        format!(r#"{{{u},"Entries":["a"]}}"#),
        format!(r#"{{{u},"Entries":[null]}}"#),
        format!(r#"{{{u},"Entries":[{{"Id":"a","MessageBody":7}}]}}"#),
        format!(r#"{{{u},"Entries":[{{"Id":5,"MessageBody":"x"}}]}}"#),
        format!(r#"{{{u},"MessageGroupId":"top","Entries":[{{"Id":"a","MessageBody":"x","MessageGroupId":"g"}}]}}"#),
        format!(r#"{{{u},"Entries":[{{"Id":"a","MessageBody":"x","MessageGroupId":"g","MessageDeduplicationId":"z"}}],"Entries":[]}}"#),
        format!(r#"{{{u},"Entries":[{{"Id":"a","MessageBody":"x","MessageAttributes":{{"k":{{"DataType":"String","StringValue":"v"}}}}}}]}}"#),
    ]
    .to_vec()
}

fn receives(url: &str) -> Vec<String> {
    let u = format!("\"QueueUrl\":\"{url}\"");
    [
        r#"{U,"MaxNumberOfMessages":10,"AttributeNames":["All"],"MessageAttributeNames":["All"]}"#,
        r#"{U,"MaxNumberOfMessages":2,"MessageSystemAttributeNames":["SentTimestamp","MessageGroupId"],"VisibilityTimeout":0}"#,
        r#"{U,"MaxNumberOfMessages":10,"MessageAttributeNames":["s","b.*"],"VisibilityTimeout":0}"#,
        r#"{U,"MaxNumberOfMessages":"10"}"#,
        r#"{U,"MaxNumberOfMessages":0}"#,
        r#"{U,"MaxNumberOfMessages":11}"#,
        r#"{U,"VisibilityTimeout":43201}"#,
        r#"{U,"WaitTimeSeconds":21}"#,
        r#"{U,"WaitTimeSeconds":1,"MaxNumberOfMessages":1,"VisibilityTimeout":0}"#,
        r#"{U,"AttributeNames":"All"}"#,
        r#"{U,"AttributeNames":["All",null]}"#,
        r#"{U,"ReceiveRequestAttemptId":"attempt-1","MaxNumberOfMessages":3}"#,
        r#"{U,"ReceiveRequestAttemptId":"attempt-1","MaxNumberOfMessages":3}"#,
        r#"{U,"ReceiveRequestAttemptId":"bad attempt ☃"}"#,
        r#"{U,"MessageGroupId":"g1","MaxNumberOfMessages":1,"VisibilityTimeout":0}"#,
        r#"{U,"MaxNumberOfMessages":10}"#,
    ]
    .iter()
    .map(|t| t.replace('U', &u))
    .collect()
}

/// Deletes and visibility changes for the handles of the last receive, and broken ones.
fn receipts(url: &str, handles: &[String]) -> Vec<(&'static str, String)> {
    let u = format!("\"QueueUrl\":\"{url}\"");
    let h = |i: usize| handles.get(i).cloned().unwrap_or_else(|| "none".into());
    let entries = |f: &dyn Fn(usize, &str) -> String| {
        handles
            .iter()
            .enumerate()
            .map(|(i, h)| f(i, h))
            .collect::<Vec<_>>()
            .join(",")
    };
    vec![
        (
            "ChangeMessageVisibility",
            format!(
                r#"{{{u},"ReceiptHandle":"{}","VisibilityTimeout":60}}"#,
                h(0)
            ),
        ),
        (
            "ChangeMessageVisibility",
            format!(
                r#"{{{u},"ReceiptHandle":"{}","VisibilityTimeout":43200}}"#,
                h(0)
            ),
        ),
        (
            "ChangeMessageVisibility",
            format!(r#"{{{u},"ReceiptHandle":"{}"}}"#, h(0)),
        ),
        (
            "ChangeMessageVisibility",
            format!(
                r#"{{{u},"ReceiptHandle":"{}","VisibilityTimeout":"5"}}"#,
                h(0)
            ),
        ),
        (
            "ChangeMessageVisibilityBatch",
            format!(
                r#"{{{u},"Entries":[{},{{"Id":"bad","ReceiptHandle":"garbage","VisibilityTimeout":1}}]}}"#,
                entries(&|i, h| format!(
                    r#"{{"Id":"c{i}","ReceiptHandle":"{h}","VisibilityTimeout":{}}}"#,
                    i * 7
                ))
            ),
        ),
        (
            "ChangeMessageVisibilityBatch",
            format!(r#"{{{u},"Entries":[{{"Id":"a","ReceiptHandle":"x","MessageGroupId":"g"}}]}}"#),
        ),
        (
            "DeleteMessage",
            format!(r#"{{{u},"ReceiptHandle":"{}"}}"#, h(1)),
        ),
        (
            "DeleteMessage",
            format!(r#"{{{u},"ReceiptHandle":"garbage"}}"#),
        ),
        ("DeleteMessage", format!(r#"{{{u}}}"#)),
        ("DeleteMessage", format!(r#"{{{u},"ReceiptHandle":[]}}"#)),
        (
            "DeleteMessage",
            format!(
                r#"{{{u},"ReceiptHandle":"{}","ReceiptHandle":"{}"}}"#,
                h(2),
                h(3)
            ),
        ),
        (
            "DeleteMessageBatch",
            format!(
                r#"{{{u},"Entries":[{},{{"Id":"missing"}}]}}"#,
                entries(&|i, h| format!(r#"{{"Id":"d{i}","ReceiptHandle":"{h}"}}"#))
            ),
        ),
        ("DeleteMessageBatch", format!(r#"{{{u},"Entries":[]}}"#)),
        (
            "DeleteMessageBatch",
            format!(
                r#"{{{u},"Entries":[{{"Id":"a","ReceiptHandle":"x"}},{{"Id":"a","ReceiptHandle":"y"}}]}}"#
            ),
        ),
    ]
}

fn create(p: &mut Pair, name: &str, attributes: &str) {
    p.ok(
        NOW,
        "CreateQueue",
        &format!(r#"{{"QueueName":"{name}","Attributes":{attributes}}}"#),
    );
}

/// Every call of one round on one queue, with handles threaded from receive to delete.
fn round(p: &mut Pair, now: u64, url: &str) {
    for text in sends(url) {
        let _ = p.call(now, "SendMessage", &text);
    }
    for text in send_batches(url) {
        let _ = p.call(now, "SendMessageBatch", &text);
    }
    for text in receives(url) {
        let out = p.call(now, "ReceiveMessage", &text);
        let out: Value = out
            .ok()
            .and_then(|o| serde_json::from_str(&o).ok())
            .unwrap_or(Value::Null);
        for (action, text) in receipts(url, &handles(&out)) {
            let _ = p.call(now, action, &text);
        }
    }
}

#[test]
fn both_paths_answer_alike_on_standard_and_fifo_queues() {
    let mut p = Pair::new();
    create(&mut p, "q", r#"{"VisibilityTimeout":"30"}"#);
    create(
        &mut p,
        "q.fifo",
        r#"{"FifoQueue":"true","ContentBasedDeduplication":"true"}"#,
    );
    for step in 0..3u64 {
        // Later rounds see expired visibility and ended delays too.
        let now = NOW + step * 61_000;
        round(&mut p, now, STD);
        round(&mut p, now, FIFO);
    }
    // Actions without a fast path go through `dispatch` unchanged.
    let _ = p.call(
        NOW,
        "GetQueueAttributes",
        &format!(r#"{{"QueueUrl":"{STD}","AttributeNames":["All"]}}"#),
    );
    let _ = p.call(NOW, "NoSuchAction", "{}");
    assert!(p.calls > 400, "only {} calls ran", p.calls);
}

#[test]
fn both_paths_throttle_alike() {
    let mut p = Pair::new();
    let realism = Realism {
        throttling: Some(Throttling {
            fifo_per_action: 2,
            high_throughput_per_partition: 2,
            high_throughput_partitions: 4,
            standard_per_action: Some(3),
        }),
        ..Realism::default()
    };
    p.by_value.set_realism(None, None, Some(realism.clone()));
    p.by_text.set_realism(None, None, Some(realism));
    create(&mut p, "q", "{}");
    create(&mut p, "q.fifo", r#"{"FifoQueue":"true"}"#);
    create(
        &mut p,
        "ht.fifo",
        r#"{"FifoQueue":"true","FifoThroughputLimit":"perMessageGroupId","DeduplicationScope":"messageGroup"}"#,
    );
    let mut refused = 0;
    for url in [STD, FIFO, HT] {
        for text in sends(url).iter().chain(&send_batches(url)) {
            for action in ["SendMessage", "SendMessageBatch"] {
                if p.call(NOW, action, text)
                    .is_err_and(|e| e.contains("RequestThrottled"))
                {
                    refused += 1;
                }
            }
        }
        for text in receives(url) {
            let _ = p.call(NOW, "ReceiveMessage", &text);
        }
    }
    assert!(refused > 10, "throttling never refused a call ({refused})");
}

const DLQ: &str = "http://localhost:9324/000000000000/dlq";
const SRC_ARN: &str = "arn:aws:sqs:us-east-1:000000000000:dlq";

/// Every management action (all of `dispatch` but the typed message actions), with the answers
/// that also exercise their optional members: paging tokens, empty and full lists, attribute
/// names repeated and out of order, tags, policies, move tasks in each state.
fn management_calls() -> Vec<(u64, &'static str, String)> {
    let redrive = r#"{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:dlq\",\"maxReceiveCount\":\"1\"}"#;
    let mut calls: Vec<(u64, &'static str, String)> = vec![
        (NOW, "CreateQueue", r#"{"QueueName":"dlq"}"#.into()),
        (NOW, "CreateQueue", r#"{"QueueName":"dlq"}"#.into()),
        (
            NOW,
            "CreateQueue",
            r#"{"QueueName":"dlq","Attributes":{"DelaySeconds":"3"}}"#.into(),
        ),
        (
            NOW,
            "CreateQueue",
            format!(
                r#"{{"QueueName":"q","Attributes":{{"RedrivePolicy":"{redrive}"}},"tags":{{"team":"a","env":"dev"}}}}"#
            ),
        ),
        (
            NOW,
            "CreateQueue",
            r#"{"QueueName":"q.fifo","Attributes":{"FifoQueue":"true"}}"#.into(),
        ),
        (
            NOW,
            "CreateQueue",
            format!(r#"{{"QueueName":"q2","Attributes":{{"RedrivePolicy":"{redrive}"}}}}"#),
        ),
        (NOW, "CreateQueue", r#"{"QueueName":"bad name"}"#.into()),
        (NOW, "CreateQueue", r#"{}"#.into()),
        (NOW, "GetQueueUrl", r#"{"QueueName":"q"}"#.into()),
        (NOW, "GetQueueUrl", r#"{"QueueName":"nope"}"#.into()),
        (
            NOW,
            "GetQueueUrl",
            r#"{"QueueName":"q","QueueOwnerAWSAccountId":"111111111111"}"#.into(),
        ),
        (NOW, "ListQueues", r#"{}"#.into()),
        (NOW, "ListQueues", r#"{"QueueNamePrefix":"zzz"}"#.into()),
        (NOW, "ListQueues", r#"{"QueueNamePrefix":"q"}"#.into()),
        (NOW, "ListQueues", r#"{"MaxResults":1}"#.into()),
        (
            NOW,
            "ListQueues",
            r#"{"MaxResults":2,"NextToken":"ZGxx"}"#.into(),
        ),
        (NOW, "ListQueues", r#"{"MaxResults":0}"#.into()),
        (NOW, "ListQueues", r#"{"NextToken":"!!"}"#.into()),
        (
            NOW,
            "GetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}","AttributeNames":["All"]}}"#),
        ),
        (
            NOW,
            "GetQueueAttributes",
            format!(
                r#"{{"QueueUrl":"{FIFO}","AttributeNames":["VisibilityTimeout","FifoQueue","VisibilityTimeout","ApproximateNumberOfMessages"]}}"#
            ),
        ),
        (
            NOW,
            "GetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}","AttributeNames":["Policy"]}}"#),
        ),
        (
            NOW,
            "GetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}"}}"#),
        ),
        (
            NOW,
            "GetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}","AttributeNames":["Nope"]}}"#),
        ),
        (
            NOW,
            "SetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}","Attributes":{{"VisibilityTimeout":"45"}}}}"#),
        ),
        (
            NOW,
            "SetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}","Attributes":{{"VisibilityTimeout":"-1"}}}}"#),
        ),
        (
            NOW,
            "SetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}"}}"#),
        ),
        (NOW, "ListQueueTags", format!(r#"{{"QueueUrl":"{STD}"}}"#)),
        (NOW, "ListQueueTags", format!(r#"{{"QueueUrl":"{FIFO}"}}"#)),
        (
            NOW,
            "TagQueue",
            format!(r#"{{"QueueUrl":"{FIFO}","Tags":{{"k\"ey":"v\\al\n","a":"b"}}}}"#),
        ),
        (NOW, "TagQueue", format!(r#"{{"QueueUrl":"{FIFO}"}}"#)),
        (NOW, "ListQueueTags", format!(r#"{{"QueueUrl":"{FIFO}"}}"#)),
        (
            NOW,
            "UntagQueue",
            format!(r#"{{"QueueUrl":"{FIFO}","TagKeys":["a"]}}"#),
        ),
        (
            NOW,
            "UntagQueue",
            format!(r#"{{"QueueUrl":"{FIFO}","TagKeys":[]}}"#),
        ),
        (NOW, "ListQueueTags", format!(r#"{{"QueueUrl":"{FIFO}"}}"#)),
        (
            NOW,
            "AddPermission",
            format!(
                r#"{{"QueueUrl":"{STD}","Label":"one","AWSAccountIds":["111111111111"],"Actions":["SendMessage"]}}"#
            ),
        ),
        (
            NOW,
            "AddPermission",
            format!(
                r#"{{"QueueUrl":"{STD}","Label":"two","AWSAccountIds":["111111111111","222222222222"],"Actions":["SendMessage","ReceiveMessage"]}}"#
            ),
        ),
        (
            NOW,
            "AddPermission",
            format!(
                r#"{{"QueueUrl":"{STD}","Label":"one","AWSAccountIds":["1"],"Actions":["SendMessage"]}}"#
            ),
        ),
        (
            NOW,
            "AddPermission",
            format!(
                r#"{{"QueueUrl":"{STD}","Label":"x","AWSAccountIds":["1"],"Actions":["CreateQueue"]}}"#
            ),
        ),
        (
            NOW,
            "GetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}","AttributeNames":["Policy"]}}"#),
        ),
        (
            NOW,
            "RemovePermission",
            format!(r#"{{"QueueUrl":"{STD}","Label":"one"}}"#),
        ),
        (
            NOW,
            "RemovePermission",
            format!(r#"{{"QueueUrl":"{STD}","Label":"one"}}"#),
        ),
        (
            NOW,
            "GetQueueAttributes",
            format!(r#"{{"QueueUrl":"{STD}","AttributeNames":["Policy"]}}"#),
        ),
        (
            NOW,
            "RemovePermission",
            format!(r#"{{"QueueUrl":"{STD}","Label":"two"}}"#),
        ),
        (
            NOW,
            "ListDeadLetterSourceQueues",
            format!(r#"{{"QueueUrl":"{DLQ}"}}"#),
        ),
        (
            NOW,
            "ListDeadLetterSourceQueues",
            format!(r#"{{"QueueUrl":"{STD}"}}"#),
        ),
        (
            NOW,
            "ListDeadLetterSourceQueues",
            format!(r#"{{"QueueUrl":"{DLQ}","MaxResults":1}}"#),
        ),
        (
            NOW,
            "ListMessageMoveTasks",
            format!(r#"{{"SourceArn":"{SRC_ARN}"}}"#),
        ),
    ];
    for i in 0..3 {
        calls.push((
            NOW,
            "SendMessage",
            format!(r#"{{"QueueUrl":"{DLQ}","MessageBody":"m{i}"}}"#),
        ));
    }
    calls.extend([
        (NOW, "StartMessageMoveTask", format!(r#"{{"SourceArn":"{SRC_ARN}","DestinationArn":"arn:aws:sqs:us-east-1:000000000000:q","MaxNumberOfMessagesPerSecond":1}}"#)),
        (NOW, "StartMessageMoveTask", format!(r#"{{"SourceArn":"{SRC_ARN}"}}"#)),
        (NOW, "StartMessageMoveTask", format!(r#"{{"SourceArn":"{SRC_ARN}","MaxNumberOfMessagesPerSecond":501}}"#)),
        (NOW + 500, "ListMessageMoveTasks", format!(r#"{{"SourceArn":"{SRC_ARN}"}}"#)),
        (NOW + 1000, "ListMessageMoveTasks", format!(r#"{{"SourceArn":"{SRC_ARN}","MaxResults":10}}"#)),
        (NOW + 1000, "CancelMessageMoveTask", r#"{"TaskHandle":"bm90IGpzb24="}"#.into()),
        (NOW + 1000, "CancelMessageMoveTask", r#"{}"#.into()),
    ]);
    calls
}

/// Runs the management calls, answering each as `Ok(text)` or `Err("Type: message")`, plus the
/// cancel of the task the first start made and a move task that fails.
fn management_answers() -> Vec<(String, Result<String, String>)> {
    let mut p = Pair::new();
    let mut out = Vec::new();
    let mut handle = None;
    for (now, action, text) in management_calls() {
        let answer = p.call(now, action, &text);
        if action == "StartMessageMoveTask" && handle.is_none() {
            if let Ok(a) = &answer {
                let v: Value = serde_json::from_str(a).unwrap_or(Value::Null);
                handle = v["TaskHandle"].as_str().map(str::to_string);
            }
        }
        out.push((format!("{action} {text}"), answer));
    }
    let handle = handle.unwrap_or_default();
    let more = [
        (
            NOW + 1500,
            "CancelMessageMoveTask",
            format!(r#"{{"TaskHandle":"{handle}"}}"#),
        ),
        (
            NOW + 1500,
            "CancelMessageMoveTask",
            format!(r#"{{"TaskHandle":"{handle}"}}"#),
        ),
        (
            NOW + 1500,
            "ListMessageMoveTasks",
            format!(r#"{{"SourceArn":"{SRC_ARN}","MaxResults":10}}"#),
        ),
        // Back to the messages' original source, which they have none of: the task fails.
        (
            NOW + 1500,
            "StartMessageMoveTask",
            format!(r#"{{"SourceArn":"{SRC_ARN}"}}"#),
        ),
        (
            NOW + 1500,
            "SendMessage",
            format!(r#"{{"QueueUrl":"{DLQ}","MessageBody":"m3"}}"#),
        ),
        // The destination is deleted before the second step: the task fails there.
        (
            NOW + 1500,
            "StartMessageMoveTask",
            format!(
                r#"{{"SourceArn":"{SRC_ARN}","DestinationArn":"arn:aws:sqs:us-east-1:000000000000:q","MaxNumberOfMessagesPerSecond":1}}"#
            ),
        ),
        (
            NOW + 1500,
            "DeleteQueue",
            format!(r#"{{"QueueUrl":"{STD}"}}"#),
        ),
        (
            NOW + 2600,
            "ListMessageMoveTasks",
            format!(r#"{{"SourceArn":"{SRC_ARN}","MaxResults":10}}"#),
        ),
        (
            NOW + 2600,
            "PurgeQueue",
            format!(r#"{{"QueueUrl":"{DLQ}"}}"#),
        ),
        (
            NOW + 2600,
            "PurgeQueue",
            format!(r#"{{"QueueUrl":"{DLQ}"}}"#),
        ),
        (
            NOW + 2600,
            "DeleteQueue",
            format!(r#"{{"QueueUrl":"{STD}"}}"#),
        ),
        (NOW + 2600, "CreateQueue", r#"{"QueueName":"q"}"#.into()),
        (NOW + 2600, "ListQueues", r#"{}"#.into()),
    ];
    for (now, action, text) in more {
        let answer = p.call(now, action, &text);
        out.push((format!("{action} {text}"), answer));
    }
    out
}

/// One call and its answer per line pair, as `tests/dispatch_json_management.txt` holds them.
fn transcript(answers: &[(String, Result<String, String>)]) -> String {
    let mut out = String::new();
    for (call, answer) in answers {
        out.push_str(&format!("{call}\n  => {answer:?}\n"));
    }
    out
}

/// The management actions write their answers as JSON text (`Engine::dispatch_text`), not
/// through a `serde_json::Value`. Every answer must be what the `Value` path printed: compact,
/// members in byte order of their names, each once. So each text is checked against its own
/// `Value` (read back and printed again), against `dispatch`'s `Value` (the `Pair`), and, byte
/// for byte, against a transcript recorded from the `Value`-building handlers before the change
/// (`WASQ_BLESS=1` rewrites it).
#[test]
fn management_answers_are_the_value_answers() {
    let answers = management_answers();
    for (call, answer) in &answers {
        if let Ok(text) = answer {
            let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{call}: {e}"));
            assert_eq!(&v.to_string(), text, "{call}: not the Value's text");
        }
    }
    let got = transcript(&answers);
    assert_transcript("dispatch_json_management.txt", &got);
    let oks = answers.iter().filter(|(_, a)| a.is_ok()).count();
    assert!(
        oks > 40 && answers.len() - oks > 20,
        "{oks} of {}",
        answers.len()
    );
}
