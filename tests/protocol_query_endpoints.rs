//! Query requests as AWS routes them (recorded against AWS, issue #33 item 4): service actions
//! on a queue's URL are InvalidAction, a GET on a queue's URL without an action is 404
//! `<UnknownOperationException/>`, and `Accept: application/json` gets a JSON answer.

use serde_json::Value;
use wasq::protocol::{handle, HttpRequest, HttpResponse, ProtocolOptions};
use wasq::{EngineConfig, Service};

fn service() -> Service {
    Service::new(EngineConfig::default())
}

fn get(path: &str, query: &str, headers: &[(&str, &str)]) -> HttpRequest {
    let mut h = vec![("Host".to_string(), "localhost:9324".to_string())];
    h.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    HttpRequest {
        method: "GET".into(),
        path: path.into(),
        query: query.into(),
        headers: h,
        body: Vec::new(),
    }
}

fn run(s: &mut Service, req: &HttpRequest) -> HttpResponse {
    handle(s, 0, req, &ProtocolOptions::default(), "rid-1")
}

fn text(r: &HttpResponse) -> String {
    String::from_utf8(r.body.clone()).unwrap()
}

fn create(s: &mut Service, name: &str) -> String {
    let r = run(
        s,
        &get("/", &format!("Action=CreateQueue&QueueName={name}"), &[]),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
    let body = text(&r);
    let start = body.find("<QueueUrl>").unwrap() + "<QueueUrl>".len();
    let end = body.find("</QueueUrl>").unwrap();
    body[start..end].to_string()
}

fn path_of(url: &str) -> String {
    let after = &url[url.find("://").unwrap() + 3..];
    after[after.find('/').unwrap()..].to_string()
}

#[test]
fn service_actions_on_a_queue_url_are_invalid_action() {
    let mut s = service();
    let url = create(&mut s, "q1");
    for (action, query) in [
        ("CreateQueue", "Action=CreateQueue&QueueName=other"),
        ("ListQueues", "Action=ListQueues"),
    ] {
        let r = run(&mut s, &get(&path_of(&url), query, &[]));
        assert_eq!(r.status, 400, "{action}");
        let body = text(&r);
        assert!(body.contains("<Code>InvalidAction</Code>"), "{body}");
        assert!(
            body.contains(&format!(
                "<Message>The action {action} is not valid for this endpoint"
            )),
            "{body}"
        );
    }
    // Nothing was created.
    let list = run(&mut s, &get("/", "Action=ListQueues", &[]));
    assert!(!text(&list).contains("other"));
    // A queue action on the queue's URL still works.
    let r = run(
        &mut s,
        &get(
            &path_of(&url),
            "Action=GetQueueAttributes&AttributeName.1=All",
            &[],
        ),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
}

#[test]
fn a_get_on_a_queue_url_without_an_action_is_404_unknown_operation() {
    let mut s = service();
    let url = create(&mut s, "q1");
    let r = run(&mut s, &get(&path_of(&url), "", &[]));
    assert_eq!(r.status, 404);
    assert_eq!(text(&r), "<UnknownOperationException/>");
    // Elsewhere a missing action is still MissingParameter.
    let r = run(&mut s, &get("/", "", &[]));
    assert_eq!(r.status, 400);
    assert!(text(&r).contains("<Code>MissingParameter</Code>"));
}

#[test]
fn a_query_request_accepting_json_is_answered_in_json() {
    let mut s = service();
    let url = create(&mut s, "q1");
    let accept = [("Accept", "application/json")];
    let r = run(&mut s, &get("/", "Action=ListQueues", &accept));
    assert_eq!(r.status, 200);
    let v: Value = serde_json::from_slice(&r.body).expect("JSON");
    assert_eq!(
        v["ListQueuesResponse"]["ListQueuesResult"]["QueueUrls"][0],
        url.as_str()
    );
    assert_eq!(
        v["ListQueuesResponse"]["ResponseMetadata"]["RequestId"],
        "rid-1"
    );
    // POST too; an action without output has no Result.
    let mut post = get("/", "", &accept);
    post.method = "POST".into();
    post.headers.push((
        "Content-Type".into(),
        "application/x-www-form-urlencoded".into(),
    ));
    post.body = format!("Action=PurgeQueue&QueueUrl={url}").into_bytes();
    let r = run(&mut s, &post);
    assert_eq!(r.status, 200, "{}", text(&r));
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert!(v["PurgeQueueResponse"].get("PurgeQueueResult").is_none());
    // Errors too, with the Query code.
    let r = run(
        &mut s,
        &get("/", "Action=GetQueueUrl&QueueName=ghost", &accept),
    );
    assert_eq!(r.status, 400);
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        v["ErrorResponse"]["Error"]["Code"],
        "AWS.SimpleQueueService.NonExistentQueue"
    );
    // Without the header: XML, as before.
    let r = run(&mut s, &get("/", "Action=ListQueues", &[]));
    assert!(text(&r).starts_with("<?xml"));
}
