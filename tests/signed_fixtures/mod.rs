//! Requests signed by botocore, as the fixture scripts write them (tests/protocol_sigv4*_fixtures.py):
//! the key pair, the time they were signed at, and each request with its own fields.

use serde_json::Value;
use wasq::protocol::{HttpRequest, ProtocolOptions};

pub struct Signed {
    pub key: String,
    pub secret: String,
    pub now: u64,
    /// Each request's fixture entry (its name and whatever else the script records) and the request.
    pub requests: Vec<(Value, HttpRequest)>,
}

impl Signed {
    pub fn parse(text: &str) -> Signed {
        let v: Value = serde_json::from_str(text).expect("fixture file is JSON");
        let s = |v: &Value| v.as_str().expect("string").to_string();
        let requests = v["requests"]
            .as_array()
            .expect("requests")
            .iter()
            .map(|r| {
                let headers = r["headers"]
                    .as_array()
                    .expect("headers")
                    .iter()
                    .map(|h| (s(&h[0]), s(&h[1])))
                    .collect();
                let req = HttpRequest {
                    method: s(&r["method"]),
                    path: s(&r["path"]),
                    query: s(&r["query"]),
                    headers,
                    body: s(&r["body"]).into_bytes(),
                };
                (r.clone(), req)
            })
            .collect();
        Signed {
            key: s(&v["access_key"]),
            secret: s(&v["secret"]),
            now: v["now_ms"].as_u64().expect("now"),
            requests,
        }
    }

    /// A host configured with the fixtures' key pair.
    pub fn options(&self) -> ProtocolOptions {
        ProtocolOptions {
            credentials: Some((self.key.clone(), self.secret.clone())),
            ..ProtocolOptions::default()
        }
    }
}
