//! `peek`'s answer, written as JSON text (`Service::peek_text`), byte for byte as recorded from
//! the `Value`-building `peek` (`tests/peek_text.txt`; `WASQ_BLESS=1` rewrites it), and the
//! same as `Service::peek`'s `Value`: messages in every state, the removed tail, FIFO groups
//! locked and not, deduplication ids, dead-letter sources and realism's duplicate copies.

mod common;

use common::{assert_transcript, handles};
use serde_json::Value;
use wasq::{CallContext, EngineConfig, Realism, Service};

const NOW: u64 = 1_700_000_000_000;
const BASE: &str = "http://localhost:9324/000000000000/";

fn call(svc: &mut Service, now: u64, action: &str, text: &str) -> Value {
    let out = svc
        .dispatch_json(now, &CallContext::default(), action, text)
        .unwrap_or_else(|e| panic!("{action} {text}: {}", e.message()));
    serde_json::from_str(&out).unwrap_or(Value::Null)
}

/// Queues in every state peek shows, and the peek of each at some moments.
fn peeks() -> Vec<(String, String)> {
    let mut svc = Service::new(EngineConfig {
        seed: 11,
        ..EngineConfig::default()
    });
    let std_url = format!("{BASE}std");
    let fifo_url = format!("{BASE}jobs.fifo");
    let dup_url = format!("{BASE}dup");
    let dlq_arn = "arn:aws:sqs:us-east-1:000000000000:dlq";
    call(&mut svc, NOW, "CreateQueue", r#"{"QueueName":"dlq"}"#);
    let redrive = format!(r#"{{\"deadLetterTargetArn\":\"{dlq_arn}\",\"maxReceiveCount\":\"1\"}}"#);
    call(
        &mut svc,
        NOW,
        "CreateQueue",
        &format!(
            r#"{{"QueueName":"std","Attributes":{{"RedrivePolicy":"{redrive}","VisibilityTimeout":"10"}},"tags":{{"t":"1"}}}}"#
        ),
    );
    call(
        &mut svc,
        NOW,
        "CreateQueue",
        r#"{"QueueName":"jobs.fifo","Attributes":{"FifoQueue":"true"}}"#,
    );
    call(&mut svc, NOW, "CreateQueue", r#"{"QueueName":"dup"}"#);
    svc.set_realism(
        None,
        Some("dup"),
        Some(Realism {
            duplicate_delivery: 1.0,
            ..Realism::default()
        }),
    );
    for (i, body) in ["a", "b \"q\" \\ \n é", "c", "d", "e"].iter().enumerate() {
        let body = serde_json::to_string(body).unwrap_or_default();
        let delay = if i == 4 { r#","DelaySeconds":30"# } else { "" };
        call(
            &mut svc,
            NOW,
            "SendMessage",
            &format!(r#"{{"QueueUrl":"{std_url}","MessageBody":{body}{delay}}}"#),
        );
    }
    for (i, g) in ["g1", "g1", "g2", "g3", "g2"].iter().enumerate() {
        call(
            &mut svc,
            NOW + i as u64,
            "SendMessage",
            &format!(
                r#"{{"QueueUrl":"{fifo_url}","MessageBody":"f{i}","MessageGroupId":"{g}","MessageDeduplicationId":"d{i}"}}"#
            ),
        );
    }
    call(
        &mut svc,
        NOW,
        "SendMessage",
        &format!(r#"{{"QueueUrl":"{dup_url}","MessageBody":"twice"}}"#),
    );
    let ctx = CallContext::default();
    let mut out = Vec::new();
    let peek = |svc: &mut Service, now: u64, url: &str, out: &mut Vec<(String, String)>| {
        let text = svc
            .peek_text(now, &ctx, url)
            .unwrap_or_else(|e| panic!("peek {url}: {}", e.message()));
        let value = svc
            .peek(now, &ctx, url)
            .unwrap_or_else(|e| panic!("peek {url}: {}", e.message()));
        assert_eq!(value.to_string(), text, "peek {url} at {now}");
        out.push((format!("peek {url} at {now}"), text));
    };
    for url in [&std_url, &fifo_url, &dup_url] {
        peek(&mut svc, NOW, url, &mut out);
    }
    // Two in flight, one deleted; the FIFO's g1 locked, one of g2 deleted.
    let got = call(
        &mut svc,
        NOW + 10,
        "ReceiveMessage",
        &format!(r#"{{"QueueUrl":"{std_url}","MaxNumberOfMessages":3}}"#),
    );
    let h = handles(&got);
    call(
        &mut svc,
        NOW + 10,
        "DeleteMessage",
        &format!(r#"{{"QueueUrl":"{std_url}","ReceiptHandle":"{}"}}"#, h[2]),
    );
    let got = call(
        &mut svc,
        NOW + 10,
        "ReceiveMessage",
        &format!(r#"{{"QueueUrl":"{fifo_url}","MaxNumberOfMessages":3}}"#),
    );
    let h = handles(&got);
    call(
        &mut svc,
        NOW + 10,
        "DeleteMessage",
        &format!(
            r#"{{"QueueUrl":"{fifo_url}","ReceiptHandle":"{}"}}"#,
            h[h.len() - 1]
        ),
    );
    call(
        &mut svc,
        NOW + 10,
        "ReceiveMessage",
        &format!(r#"{{"QueueUrl":"{dup_url}"}}"#),
    );
    for url in [&std_url, &fifo_url, &dup_url] {
        peek(&mut svc, NOW + 20, url, &mut out);
    }
    // The in-flight ones come back and, received twice, go to the dead-letter queue.
    call(
        &mut svc,
        NOW + 20_000,
        "ReceiveMessage",
        &format!(r#"{{"QueueUrl":"{std_url}","MaxNumberOfMessages":10}}"#),
    );
    for url in [&std_url, &format!("{BASE}dlq")] {
        peek(&mut svc, NOW + 40_000, url, &mut out);
    }
    call(
        &mut svc,
        NOW + 40_000,
        "PurgeQueue",
        &format!(r#"{{"QueueUrl":"{fifo_url}"}}"#),
    );
    peek(&mut svc, NOW + 40_000, &fifo_url, &mut out);
    out
}

#[test]
fn peek_text_is_the_value_peek_byte_for_byte() {
    let mut got = String::new();
    for (what, text) in peeks() {
        got.push_str(&format!("{what}\n  {text}\n"));
    }
    assert_transcript("peek_text.txt", &got);
    for needle in [
        "\"delayed\"",
        "\"stored\"",
        "\"in-flight\"",
        "\"deleted\"",
        "\"groups\"",
        "\"locked\":true",
        "\"locked\":false",
        "\"deduplicationId\"",
        "\"deadLetterSourceArn\"",
        "\"duplicateCopy\":true",
        "\"receiptHandle\"",
        "\"endedAt\"",
    ] {
        assert!(got.contains(needle), "no {needle} in any peek");
    }
}
