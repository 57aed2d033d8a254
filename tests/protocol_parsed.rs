//! `protocol::admit` + `protocol::dispatch_parsed` (what the edge Worker and its objects use, with
//! the parsed request carried between them as text) answer every request byte for byte as
//! `protocol::handle` does. Two services with the same seed are driven through the same
//! requests, JSON and Query, valid and refused, one through each path; refusals must come from
//! `admit` itself, before anything runs.

use wasq::protocol::{
    admit, dispatch_parsed, error_response, handle, protocol_of, HttpRequest, HttpResponse, Parsed,
    ProtocolOptions,
};
use wasq::{EngineConfig, Service};

const HOST: &str = "edge.test:8787";
const URL: &str = "http://edge.test:8787/000000000000/parsed";
const FIFO: &str = "http://edge.test:8787/000000000000/parsed.fifo";

fn service() -> Service {
    Service::new(EngineConfig {
        seed: 11,
        ..EngineConfig::default()
    })
}

fn json(action: &str, body: &str) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: "/".into(),
        query: String::new(),
        headers: vec![
            ("X-Amz-Target".into(), format!("AmazonSQS.{action}")),
            ("Content-Type".into(), "application/x-amz-json-1.0".into()),
            ("Host".into(), HOST.into()),
            ("X-Amzn-Trace-Id".into(), "Root=1-parsed".into()),
        ],
        body: body.as_bytes().to_vec(),
    }
}

fn form(path: &str, body: &str) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: path.into(),
        query: String::new(),
        headers: vec![
            (
                "Content-Type".into(),
                "application/x-www-form-urlencoded".into(),
            ),
            ("Host".into(), HOST.into()),
            ("X-Forwarded-Proto".into(), "http".into()),
        ],
        body: body.as_bytes().to_vec(),
    }
}

fn get(query: &str) -> HttpRequest {
    HttpRequest {
        method: "GET".into(),
        query: query.into(),
        ..form("/", "")
    }
}

/// The split path, with the parsed form carried as the Worker carries it: protocol, action name,
/// parameters as text, context. `Err` holds the refusal `admit` answered.
fn split(
    d: &mut Service,
    now: u64,
    req: &HttpRequest,
    opts: &ProtocolOptions,
    id: &str,
) -> Result<HttpResponse, HttpResponse> {
    let parsed = admit(now, req, opts).map_err(|e| error_response(protocol_of(req), &e, id))?;
    let carried = Parsed::from_text(
        parsed.protocol(),
        parsed.action.name,
        parsed.params_text().into_owned(),
        parsed.ctx.clone(),
    )
    .expect("what admit read reads back");
    assert_eq!(carried, parsed.clone(), "the text form loses nothing");
    Ok(dispatch_parsed(d, now, carried, id))
}

fn text(r: &HttpResponse) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

/// The receipt handles in an answer, JSON or XML, so later steps can use them.
fn handles_in(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [("\"ReceiptHandle\":\"", "\""), ("<ReceiptHandle>", "<")] {
        let mut rest = body;
        while let Some(at) = rest.find(open) {
            rest = &rest[at + open.len()..];
            let end = rest.find(close).unwrap_or(rest.len());
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn admit_then_dispatch_parsed_answers_as_handle() {
    let mut whole = service();
    let mut parts = service();
    let opts = ProtocolOptions::default();
    let mut now = 1_700_000_000_000u64;
    let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    // (request, whether admit refuses it)
    let mut steps: Vec<(HttpRequest, bool)> = vec![
        (json("CreateQueue", r#"{"QueueName":"parsed"}"#), false),
        (
            json(
                "CreateQueue",
                r#"{"QueueName":"parsed.fifo","Attributes":{"FifoQueue":"true","ContentBasedDeduplication":"true"}}"#,
            ),
            false,
        ),
        (form("/", "Action=GetQueueUrl&QueueName=parsed"), false),
        (
            json(
                "SendMessage",
                &format!(r#"{{"QueueUrl":"{URL}","MessageBody":"héllo","MessageAttributes":{{"k":{{"DataType":"String","StringValue":"v"}}}}}}"#),
            ),
            false,
        ),
        (
            form(
                "/000000000000/parsed",
                "Action=SendMessage&MessageBody=by%20path&DelaySeconds=0",
            ),
            false,
        ),
        (
            form(
                "/",
                &format!(
                    "Action=SendMessageBatch&QueueUrl={}&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=one&SendMessageBatchRequestEntry.2.Id=b&SendMessageBatchRequestEntry.2.MessageBody=two",
                    enc(URL)
                ),
            ),
            false,
        ),
        (
            json(
                "SendMessageBatch",
                &format!(r#"{{"QueueUrl":"{FIFO}","Entries":[{{"Id":"1","MessageBody":"f1","MessageGroupId":"g"}},{{"Id":"1","MessageBody":"dup id","MessageGroupId":"g"}}]}}"#),
            ),
            false,
        ),
        (
            json(
                "SendMessage",
                &format!(r#"{{"QueueUrl":"{FIFO}","MessageBody":"f","MessageGroupId":"g"}}"#),
            ),
            false,
        ),
        (
            json(
                "SendMessage",
                &format!(r#"{{"QueueUrl":"{FIFO}","MessageBody":"no group"}}"#),
            ),
            false,
        ),
        (
            json(
                "ReceiveMessage",
                &format!(r#"{{"QueueUrl":"{URL}","MaxNumberOfMessages":2,"MessageAttributeNames":["All"],"MessageSystemAttributeNames":["All"]}}"#),
            ),
            false,
        ),
        (
            get(&format!(
                "Action=ReceiveMessage&QueueUrl={}&MaxNumberOfMessages=10&AttributeName.1=All",
                enc(URL)
            )),
            false,
        ),
        (
            form(
                "/",
                &format!("Action=ReceiveMessage&QueueUrl={}&MaxNumberOfMessages=11", enc(URL)),
            ),
            false,
        ),
        (
            json(
                "GetQueueAttributes",
                &format!(r#"{{"QueueUrl":"{URL}","AttributeNames":["All"]}}"#),
            ),
            false,
        ),
        (
            json("DeleteMessage", &format!(r#"{{"QueueUrl":"{URL}","ReceiptHandle":"bogus"}}"#)),
            false,
        ),
        (json("ListQueues", ""), false),
        (json("GetQueueUrl", r#"{"QueueName":"missing"}"#), false),
        (form("/", "Action=GetQueueUrl&QueueName=missing"), false),
        // Refused before anything runs.
        (json("SendMessage", "{not json"), true),
        (json("SendMessage", "[1]"), true),
        (json("SendMessage", "7"), true),
        (json("NoSuchAction", "{}"), true),
        (
            HttpRequest {
                body: vec![0xff, 0xfe],
                ..json("SendMessage", "")
            },
            true,
        ),
        (form("/", "QueueName=no-action"), true),
        (form("/", "Action=NoSuchAction"), true),
        (form("/", "Action=GetQueueUrl&QueueName=a&QueueName=b&Attribute.x.Name=1"), false),
        // An entry list the engine, not the reading, refuses.
        (
            form(
                "/",
                &format!(
                    "Action=SendMessageBatch&QueueUrl={}&SendMessageBatchRequestEntry.x.Id=a",
                    enc(URL)
                ),
            ),
            false,
        ),
        (
            form(
                "/",
                &format!("Action=ReceiveMessage&QueueUrl={}&MaxNumberOfMessages=ten", enc(URL)),
            ),
            true,
        ),
        (form("/", &format!("Action=TagQueue&QueueUrl={}&Tag.1.Key=a", enc(URL))), true),
    ];
    // Oversize bodies, both protocols.
    let big = "x".repeat(300);
    let small = ProtocolOptions {
        max_body_bytes: 256,
        ..ProtocolOptions::default()
    };
    let oversize = [
        json(
            "SendMessage",
            &format!(r#"{{"QueueUrl":"{URL}","MessageBody":"{big}"}}"#),
        ),
        form("/", &format!("Action=SendMessage&MessageBody={big}")),
    ];
    // Signatures checked and missing or malformed, both protocols.
    let signed = ProtocolOptions {
        credentials: Some(("AKIDEXAMPLE".into(), "secret".into())),
        ..ProtocolOptions::default()
    };
    let mut bad_signature = json("ListQueues", "{}");
    bad_signature.headers.push((
        "Authorization".into(),
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00".into(),
    ));
    let unsigned = [
        json("ListQueues", "{}"),
        form("/", "Action=ListQueues"),
        bad_signature,
    ];

    let mut refused = 0;
    let mut handles: Vec<String> = Vec::new();
    for (i, (req, refuses)) in steps.drain(..).enumerate() {
        now += 1_000;
        let id = format!("req-{i}");
        let a = handle(&mut whole, now, &req, &opts, &id);
        let b = split(&mut parts, now, &req, &opts, &id);
        assert_eq!(b.is_err(), refuses, "step {i}: {}", text(&a));
        refused += usize::from(b.is_err());
        let b = b.unwrap_or_else(|r| r);
        assert_eq!(a, b, "step {i}:\n{}\n{}", text(&a), text(&b));
        handles.extend(handles_in(&text(&a)));
    }
    for (i, (req, o)) in oversize
        .iter()
        .map(|r| (r, &small))
        .chain(unsigned.iter().map(|r| (r, &signed)))
        .enumerate()
    {
        let id = format!("refused-{i}");
        let a = handle(&mut whole, now, req, o, &id);
        let b = split(&mut parts, now, req, o, &id).expect_err("refused by admit");
        assert_ne!(a.status, 200, "{}", text(&a));
        assert_eq!(a, b, "refusal {i}:\n{}\n{}", text(&a), text(&b));
        refused += 1;
    }
    assert_eq!(refused, 9 + oversize.len() + unsigned.len());

    // Later steps use what earlier ones answered: receipt handles through both protocols.
    assert!(handles.len() >= 2, "{handles:?}");
    let later = [
        json(
            "ChangeMessageVisibility",
            &format!(
                r#"{{"QueueUrl":"{URL}","ReceiptHandle":"{}","VisibilityTimeout":0}}"#,
                handles[0]
            ),
        ),
        form(
            "/000000000000/parsed",
            &format!("Action=DeleteMessage&ReceiptHandle={}", enc(&handles[1])),
        ),
        json(
            "DeleteMessageBatch",
            &format!(
                r#"{{"QueueUrl":"{URL}","Entries":[{{"Id":"a","ReceiptHandle":"{}"}},{{"Id":"b","ReceiptHandle":"nope"}}]}}"#,
                handles[0]
            ),
        ),
        json("PurgeQueue", &format!(r#"{{"QueueUrl":"{URL}"}}"#)),
        form("/", &format!("Action=DeleteQueue&QueueUrl={}", enc(FIFO))),
    ];
    for (i, req) in later.iter().enumerate() {
        now += 1_000;
        let id = format!("later-{i}");
        let a = handle(&mut whole, now, req, &opts, &id);
        let b = split(&mut parts, now, req, &opts, &id).expect("admitted");
        assert_eq!(a, b, "later {i}:\n{}\n{}", text(&a), text(&b));
    }
    // Both services hold the same state at the end.
    let list = json("ListQueues", "{}");
    assert_eq!(
        handle(&mut whole, now, &list, &opts, "end"),
        handle(&mut parts, now, &list, &opts, "end")
    );
}

#[test]
fn a_carried_form_that_names_no_action_or_bad_params_is_answered_in_its_protocol() {
    use wasq::protocol::Protocol;
    let ctx = wasq::CallContext::default();
    let unknown = Parsed::from_text(Protocol::Json, "Nope", "{}".into(), ctx.clone())
        .expect_err("unknown action");
    let r = error_response(Protocol::Json, &unknown, "id");
    assert_eq!(r.status, 400);
    assert!(
        text(&r).contains("is not valid for this endpoint"),
        "{}",
        text(&r)
    );
    let bad = Parsed::from_text(Protocol::Query, "ListQueues", "[".into(), ctx)
        .expect_err("unreadable parameters");
    let r = error_response(Protocol::Query, &bad, "id");
    assert!(
        text(&r).starts_with("<?xml") || text(&r).contains("<ErrorResponse"),
        "{}",
        text(&r)
    );
}
