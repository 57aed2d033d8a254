//! `Service::dispatch_json` answers byte for byte what `Service::dispatch` answers for the same
//! JSON text (read with `aws_json::read_json_params`, printed with `to_string`), for valid calls
//! and every kind of invalid one, and leaves the same state behind (changes and events).

mod common;

use common::{assert_transcript, handles};
use serde_json::Value;
use wasq::engine::MESSAGE_ACTIONS;
use wasq::protocol::aws_json::{read_json_params, surrogates};
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
        // A `Value` holds no lone surrogate: the Value path gets such a text as `dispatch_json`
        // runs it (protocol/aws_json/surrogates.rs), each lone one as U+FFFF and named in the answer.
        let lone = surrogates::lone_surrogates(text)
            .filter(|(_, repaired)| read_json_params(repaired).is_ok());
        let a = match &lone {
            None => read_json_params(text)
                .and_then(|p| self.by_value.dispatch(now, &ctx, action, p))
                .map(|v| v.to_string()),
            Some((unit, repaired)) => read_json_params(repaired)
                .and_then(|p| self.by_value.dispatch(now, &ctx, action, p))
                .map(|v| surrogates::name_surrogate(text, *unit, v.to_string()))
                .map_err(|e| surrogates::name_surrogate_in(text, *unit, e)),
        }
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

    /// A pair holding the standard queue `q` (30 s visibility) and the FIFO queue `q.fifo`
    /// (content-based deduplication).
    fn with_queues() -> Self {
        let mut p = Pair::new();
        create(&mut p, "q", r#"{"VisibilityTimeout":"30"}"#);
        create(
            &mut p,
            "q.fifo",
            r#"{"FifoQueue":"true","ContentBasedDeduplication":"true"}"#,
        );
        p
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
    let mut p = Pair::with_queues();
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

/// The management actions write their answers as JSON text (`aws_json::dispatch_text`), not
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

/// JSON texts built from random parts for the message actions: mostly the members each action
/// reads, with values of the type it wants half the time and of any JSON type otherwise; strings
/// with escapes, numbers in every spelling, whitespace anywhere, members repeated, now and then
/// one the action does not know. `@handle@` stands for a receipt handle the test holds.
mod random_text {
    use proptest::prelude::*;

    fn ws() -> BoxedStrategy<&'static str> {
        prop::sample::select(vec!["", "", "", " ", "\n\t "]).boxed()
    }

    fn number() -> BoxedStrategy<String> {
        prop_oneof![
            4 => (-1i64..45).prop_map(|n| n.to_string()),
            1 => prop::sample::select(vec![
                "0", "-0", "1.0", "1e1", "1E+1", "2e-1", "0.5", "900", "901", "43200", "43201",
                "20", "21", "10", "11", "9007199254740993", "99999999999999999999", "1e400",
                "-9223372036854775808",
            ])
            .prop_map(str::to_string),
        ]
        .boxed()
    }

    fn string() -> BoxedStrategy<String> {
        let plain = prop::sample::select(vec![
            super::STD,
            super::FIFO,
            "x",
            "g1",
            "g2",
            "d1",
            "m1",
            "m2",
            "All",
            "String",
            "Number",
            "SentTimestamp",
            "@handle@",
            "@handle@",
            "@handle@",
        ]);
        let odd = prop::sample::select(vec![
            "",
            "Binary",
            "AAEC",
            "Senti\\u006eel",
            "tab\\there",
            "quote\\\"",
            "\\ud83d\\ude00",
            "lone \\ud800",
            "ctl \\u0001",
            "é😀",
            "a b",
            ".*",
            "AQEBnot-a-handle",
        ]);
        prop_oneof![4 => plain, 1 => odd]
            .prop_map(|s| format!("\"{s}\""))
            .boxed()
    }

    fn any_scalar() -> BoxedStrategy<String> {
        prop_oneof![
            4 => string(),
            3 => number(),
            1 => prop::sample::select(vec!["true", "false", "null"]).prop_map(str::to_string),
        ]
        .boxed()
    }

    fn list(item: BoxedStrategy<String>) -> BoxedStrategy<String> {
        prop::collection::vec((ws(), item), 0..4)
            .prop_map(|items| {
                let body: Vec<String> = items.into_iter().map(|(w, v)| format!("{w}{v}")).collect();
                format!("[{}]", body.join(","))
            })
            .boxed()
    }

    /// An object of up to `max` members, each a name drawn from `members` with its value.
    fn object(
        members: Vec<(&'static str, BoxedStrategy<String>)>,
        max: usize,
    ) -> BoxedStrategy<String> {
        let picks: Vec<BoxedStrategy<(&'static str, String)>> = members
            .into_iter()
            .map(|(name, value)| value.prop_map(move |v| (name, v)).boxed())
            .collect();
        prop::collection::vec((ws(), prop::strategy::Union::new(picks), ws()), 1..=max)
            .prop_map(|members| {
                let body: Vec<String> = members
                    .into_iter()
                    .map(|(w1, (k, v), w2)| format!("{w1}\"{k}\"{w2}:{w2}{v}"))
                    .collect();
                format!("{{{}}}", body.join(","))
            })
            .boxed()
    }

    /// Mostly `wanted`, else any JSON value.
    fn or_any(wanted: BoxedStrategy<String>) -> BoxedStrategy<String> {
        let any = any_scalar()
            .prop_recursive(2, 12, 4, |inner| {
                prop_oneof![
                    list(inner.clone()),
                    object(vec![("Other", inner.clone()), ("DataType", inner)], 3)
                ]
            })
            .boxed();
        prop_oneof![12 => wanted, 1 => any].boxed()
    }

    fn attributes() -> BoxedStrategy<String> {
        let value = object(
            vec![
                ("DataType", or_any(string())),
                ("StringValue", or_any(string())),
                ("BinaryValue", or_any(string())),
            ],
            3,
        );
        object(
            vec![
                ("a", value.clone()),
                ("b", value.clone()),
                ("AWSTraceHeader", value),
            ],
            2,
        )
    }

    fn send_members() -> Vec<(&'static str, BoxedStrategy<String>)> {
        vec![
            ("MessageBody", or_any(string())),
            ("MessageBody", or_any(string())),
            ("DelaySeconds", or_any(number())),
            ("MessageAttributes", or_any(attributes())),
            ("MessageSystemAttributes", or_any(attributes())),
            ("MessageGroupId", or_any(string())),
            ("MessageDeduplicationId", or_any(string())),
        ]
    }

    fn receipt_members() -> Vec<(&'static str, BoxedStrategy<String>)> {
        vec![
            ("ReceiptHandle", or_any(string())),
            ("ReceiptHandle", or_any(string())),
            ("VisibilityTimeout", or_any(number())),
        ]
    }

    fn with_id(
        mut members: Vec<(&'static str, BoxedStrategy<String>)>,
    ) -> Vec<(&'static str, BoxedStrategy<String>)> {
        members.push(("Id", or_any(string())));
        members.push(("Id", string()));
        members
    }

    /// `action`'s request: a queue URL first (most of the time), then the action's members.
    pub(super) fn request(action: &'static str) -> BoxedStrategy<String> {
        let members = match action {
            "SendMessage" => send_members(),
            "SendMessageBatch" => {
                vec![("Entries", or_any(list(object(with_id(send_members()), 4))))]
            }
            "ReceiveMessage" => vec![
                ("MaxNumberOfMessages", or_any(number())),
                ("VisibilityTimeout", or_any(number())),
                ("WaitTimeSeconds", or_any(number())),
                ("AttributeNames", or_any(list(string()))),
                ("MessageSystemAttributeNames", or_any(list(string()))),
                ("MessageAttributeNames", or_any(list(string()))),
                ("ReceiveRequestAttemptId", or_any(string())),
            ],
            "DeleteMessageBatch" | "ChangeMessageVisibilityBatch" => {
                vec![(
                    "Entries",
                    or_any(list(object(with_id(receipt_members()), 3))),
                )]
            }
            _ => receipt_members(),
        };
        let url = prop_oneof![
            8 => prop::sample::select(vec![super::STD, super::FIFO]),
            1 => prop::sample::select(vec!["", "x"]),
        ];
        let unknown = prop::sample::select(vec![
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "\"Other\":1",
            "\"queueUrl\":\"x\"",
        ]);
        (url, object(members, 4), unknown)
            .prop_map(|(url, rest, unknown)| {
                let mut parts: Vec<String> = Vec::new();
                match url {
                    "" => {}
                    "x" => parts.push("\"QueueUrl\":7".to_string()),
                    url => parts.push(format!("\"QueueUrl\":\"{url}\"")),
                }
                let inner = &rest[1..rest.len() - 1];
                if !inner.is_empty() {
                    parts.push(inner.to_string());
                }
                if !unknown.is_empty() {
                    parts.push(unknown.to_string());
                }
                format!("{{{}}}", parts.join(","))
            })
            .boxed()
    }
}

fn random_call() -> impl proptest::strategy::Strategy<Value = (&'static str, String)> {
    use proptest::prelude::*;
    let per_action: Vec<BoxedStrategy<(&'static str, String)>> = MESSAGE_ACTIONS
        .iter()
        .map(|&a| random_text::request(a).prop_map(move |t| (a, t)).boxed())
        .collect();
    proptest::strategy::Union::new(per_action)
}

/// Random texts for every message action, on a standard and a FIFO queue that each hold a
/// visible message and an in-flight one (whose handle `@handle@` names): the fast path and the
/// `Value` path answer alike and change alike (`Pair::call`). `WASQ_JSON_CASES` runs more cases;
/// a failure prints the smallest list of calls that still fails.
#[test]
fn random_texts_answer_alike() {
    use proptest::test_runner::{Config, TestRunner};
    let cases: u32 = std::env::var("WASQ_JSON_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let (calls_made, served) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    let strategy = proptest::collection::vec(random_call(), 1..6);
    let result = runner.run(&strategy, |calls| {
        let mut p = Pair::with_queues();
        let mut held = Vec::new();
        for url in [STD, FIFO] {
            for (group, body) in [("g1", "first"), ("g2", "second")] {
                let group = if url == FIFO {
                    format!(r#","MessageGroupId":"{group}""#)
                } else {
                    String::new()
                };
                p.ok(
                    NOW,
                    "SendMessage",
                    &format!(r#"{{"QueueUrl":"{url}","MessageBody":"{body}"{group}}}"#),
                );
            }
            let out = p.ok(NOW, "ReceiveMessage", &format!(r#"{{"QueueUrl":"{url}"}}"#));
            held.extend(handles(&out));
        }
        for (i, (action, text)) in calls.into_iter().enumerate() {
            let text = text.replace("@handle@", &held[i % held.len()]);
            // `call` asserts; a panic inside is reported (and shrunk) as a failure.
            let ok = p.call(NOW + i as u64, action, &text).is_ok();
            served.set(served.get() + usize::from(ok));
            calls_made.set(calls_made.get() + 1);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // Most random calls are refused; enough must be served for the two paths' answers to have
    // been compared on real work too.
    let (served, calls_made) = (served.get(), calls_made.get());
    assert!(
        served * 12 > calls_made,
        "{served} of {calls_made} random calls were served"
    );
}
