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
use serde_json::{json, Map, Value};

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

fn response(status: u16, request_id: &str, body: Value) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![
            ("x-amzn-RequestId".into(), request_id.into()),
            ("Content-Type".into(), "application/json".into()),
        ],
        body: crate::engine::json_out::value_text(&body).into_bytes(),
    }
}

/// 200 with the action's output wrapped as the XML answer is.
pub fn success(action: &Action, output: Value, request_id: &str) -> HttpResponse {
    let mut inner = Map::new();
    if action.output.is_some() {
        let result = match output {
            Value::Object(o) => Value::Object(o),
            _ => Value::Object(Map::new()),
        };
        inner.insert(format!("{}Result", action.name), result);
    }
    inner.insert(
        "ResponseMetadata".into(),
        json!({ "RequestId": request_id }),
    );
    let mut outer = Map::new();
    outer.insert(format!("{}Response", action.name), Value::Object(inner));
    response(200, request_id, Value::Object(outer))
}

/// The error with the XML error's fields, at its status.
pub fn error(err: &SqsError, request_id: &str) -> HttpResponse {
    let body = json!({
        "ErrorResponse": {
            "Error": { "Type": "Sender", "Code": err.query_code(), "Message": err.query_message() },
            "RequestId": request_id,
        }
    });
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
