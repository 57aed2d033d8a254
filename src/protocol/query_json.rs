//! Query requests that ask for JSON (`Accept: application/json`, GET or POST). AWS answers them
//! in JSON rather than XML, `{"ListQueuesResponse": {…}}` (recorded against AWS, issue #33 item
//! 4). Inside, this mirrors the XML answer: `<Action>Result` holding the action's output as the
//! JSON protocol writes it (left out, as in XML, for actions without output) and
//! `ResponseMetadata.RequestId`; an error is `{"ErrorResponse": {"Error": {Type, Code, Message},
//! "RequestId"}}`, the XML error's fields. Only the outer key was recorded; the inside is chosen
//! to match the XML (docs/compatibility.md).

use super::shapes::Action;
use super::{header, HttpRequest, HttpResponse};
use crate::error::SqsError;
use crate::json_text::{value_text, Obj};
use serde_json::Value;

/// Whether a Query request's `Accept` header asks for JSON.
pub fn wants_json(req: &HttpRequest) -> bool {
    header(req, "accept").is_some_and(|accept| {
        accept.split(',').any(|kind| {
            kind.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
        })
    })
}

fn response(status: u16, request_id: &str, body: String) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![
            ("x-amzn-RequestId".into(), request_id.into()),
            ("Content-Type".into(), "application/json".into()),
        ],
        body: body.into_bytes(),
    }
}

/// 200 with the action's output wrapped as the XML answer is. Written with the crate's own JSON
/// writer: building `Value`s with `json!` instantiated a serializer per member type (kilobytes
/// of wasm).
pub fn success(action: &Action, output: Value, request_id: &str) -> HttpResponse {
    let mut body = String::new();
    let mut outer = Obj::new(&mut body);
    let mut inner = Obj::new(outer.key(&format!("{}Response", action.name)));
    if action.output.is_some() {
        let result = match &output {
            Value::Object(_) => value_text(&output),
            _ => "{}".to_string(),
        };
        inner
            .key(&format!("{}Result", action.name))
            .push_str(&result);
    }
    Obj::new(inner.member("ResponseMetadata"))
        .str("RequestId", request_id)
        .end();
    inner.end();
    outer.end();
    response(200, request_id, body)
}

/// The error with the XML error's fields, at its status.
pub fn error(err: &SqsError, request_id: &str) -> HttpResponse {
    let mut body = String::new();
    let mut outer = Obj::new(&mut body);
    let mut inner = Obj::new(outer.member("ErrorResponse"));
    Obj::new(inner.member("Error"))
        .str("Type", "Sender")
        .str("Code", err.query_code())
        .str("Message", &err.query_message())
        .end();
    inner.str("RequestId", request_id).end();
    outer.end();
    response(err.http_status(), request_id, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepting(accept: &str) -> HttpRequest {
        HttpRequest {
            headers: vec![("Accept".into(), accept.into())],
            ..HttpRequest::default()
        }
    }

    #[test]
    fn only_an_accept_naming_application_json_asks_for_json() {
        for yes in [
            "application/json",
            "text/xml, Application/JSON;q=0.9",
            " application/json ",
        ] {
            assert!(wants_json(&accepting(yes)), "{yes}");
        }
        for no in [
            "",
            "*/*",
            "text/xml",
            "application/jsonx",
            "application/x-amz-json-1.0",
        ] {
            assert!(!wants_json(&accepting(no)), "{no}");
        }
        assert!(!wants_json(&HttpRequest::default()));
    }
}
