//! AWS JSON 1.0 requests and responses.

use super::HttpResponse;
use crate::error::SqsError;
use serde_json::Value;

/// The content type of AWS JSON 1.0 requests and responses.
pub const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

/// The action's parameters: the body's JSON object as sent (an empty body is `{}`).
///
/// The wording of the two Serialization messages is coral's generic text; AWS's exact SQS
/// messages for a malformed body were not recorded.
pub fn params(body: &[u8]) -> Result<Value, SqsError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    // Through `from_str`, the one reader the crate instantiates (each serde_json reader is
    // another ~8 KB of wasm). Invalid UTF-8 is unreadable either way.
    let text = std::str::from_utf8(body).map_err(|_| unreadable())?;
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(Value::Array(_)) => Err(SqsError::Serialization(
            "Start of list found where not expected".into(),
        )),
        Ok(_) => Err(SqsError::Serialization(
            "Expected a JSON object as the request body".into(),
        )),
        Err(_) => Err(unreadable()),
    }
}

/// The error for a body that is not JSON at all.
pub fn unreadable() -> SqsError {
    SqsError::Serialization("Unable to parse the request body as JSON".into())
}

fn response(status: u16, request_id: &str, body: Vec<u8>) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![
            ("x-amzn-RequestId".into(), request_id.into()),
            ("Content-Type".into(), CONTENT_TYPE.into()),
        ],
        body,
    }
}

/// 200 with the action's output as JSON text (`null`, from actions without output, as `{}`).
pub fn success_text(output: String, request_id: &str) -> HttpResponse {
    let body = if output == "null" {
        b"{}".to_vec()
    } else {
        output.into_bytes()
    };
    response(200, request_id, body)
}

/// The error's status, `{"__type", "message"}` body and `x-amzn-query-error` header.
pub fn error(err: &SqsError, request_id: &str) -> HttpResponse {
    let mut body = String::new();
    crate::json_text::Obj::new(&mut body)
        .str("__type", &err.json_type())
        .str("message", &err.message())
        .end();
    let mut r = response(err.http_status(), request_id, body.into_bytes());
    r.headers.push((
        "x-amzn-query-error".into(),
        format!("{};Sender", err.query_code()),
    ));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies() {
        assert_eq!(params(b"").unwrap(), json!({}));
        assert_eq!(params(b" \n").unwrap(), json!({}));
        assert_eq!(
            params(br#"{"MaxNumberOfMessages":"x","A":[1]}"#).unwrap(),
            json!({"MaxNumberOfMessages": "x", "A": [1]})
        );
        for bad in [&b"{"[..], b"[]", b"1", b"null", b"\xff"] {
            assert!(
                matches!(params(bad), Err(SqsError::Serialization(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn error_response_matches_spec_example() {
        let r = error(&SqsError::QueueDoesNotExist, "66916324");
        assert_eq!(r.status, 400);
        assert_eq!(
            r.headers,
            vec![
                ("x-amzn-RequestId".to_string(), "66916324".to_string()),
                ("Content-Type".into(), CONTENT_TYPE.into()),
                (
                    "x-amzn-query-error".into(),
                    "AWS.SimpleQueueService.NonExistentQueue;Sender".into()
                ),
            ]
        );
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            body,
            json!({"__type": "com.amazonaws.sqs#QueueDoesNotExist",
                   "message": "The specified queue does not exist."})
        );
        assert_eq!(
            error(&SqsError::PurgeQueueInProgress("q".into()), "r").status,
            403
        );
    }

    #[test]
    fn success_bodies() {
        assert_eq!(success_text("null".into(), "r").body, b"{}");
        assert_eq!(
            success_text(r#"{"QueueUrl":"u"}"#.into(), "r").body,
            br#"{"QueueUrl":"u"}"#
        );
        assert_eq!(success_text("{}".into(), "r").status, 200);
    }
}
