//! The SQS wire protocol, shared by every host: an HTTP request in, an HTTP response out.
//!
//! SDKs speak one of two protocols and never negotiate (spec §1.4), so each request is answered
//! in its own: **AWS JSON 1.0** (`X-Amz-Target: AmazonSQS.<Action>`, JSON body) or the legacy
//! **Query** protocol (`Action=<Action>` form or query string, XML response). Both are reduced
//! to one call, `Dispatch::dispatch(now, ctx, action, json_params)`, whose JSON result is then
//! written back in the request's protocol. Hosts only move bytes and supply the clock and the
//! request id.
//!
//! ```text
//!  HttpRequest ──► protocol? ──► size limit ──► CallContext ──► SigV4 (if configured)
//!                                                                   │
//!        JSON: body object as sent ◄──┬──► Query: flattened params → JSON (shapes.rs)
//!                                     ▼
//!                              Dispatch::dispatch ──► JSON body / XML (xml.rs)
//! ```

pub mod json;
pub mod query;
pub mod request_id;
pub mod shapes;
pub mod sigv4;
pub mod xml;

pub use request_id::request_id;

use crate::context::CallContext;
use crate::error::SqsError;
use serde_json::Value;
use siphasher::sip128::{Hasher128, SipHasher13};
use std::hash::Hasher;

/// An HTTP request as the host received it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path as sent (still percent-encoded), without the query string.
    pub path: String,
    /// The raw query string, without `?`.
    pub query: String,
    /// Header names and values; names are matched case-insensitively.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

/// An HTTP response for the host to send.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpResponse {
    /// The HTTP status.
    pub status: u16,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// How the protocol layer is configured by its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolOptions {
    /// `(access key id, secret access key)`. When set, every request must carry a valid SigV4
    /// signature by that key; when `None`, signatures are not checked (the credential scope is
    /// still read for the region).
    pub credentials: Option<(String, String)>,
    /// Larger bodies are refused with `RequestEntityTooLarge` (413) before being parsed.
    pub max_body_bytes: usize,
}

impl Default for ProtocolOptions {
    /// No authentication; 8 MiB bodies. SQS's largest payload is a 1 MiB batch, which JSON
    /// escaping or form encoding can grow several times, so the default stays well above it.
    fn default() -> Self {
        ProtocolOptions {
            credentials: None,
            max_body_bytes: 8 * 1024 * 1024,
        }
    }
}

/// Whatever answers SQS actions: the [`crate::Service`], or a test double.
pub trait Dispatch {
    /// Run `action` with its AWS JSON 1.0 parameters; the result is the AWS JSON 1.0 output.
    fn dispatch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params: Value,
    ) -> Result<Value, SqsError>;
}

impl Dispatch for crate::service::Service {
    fn dispatch(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        params: Value,
    ) -> Result<Value, SqsError> {
        crate::service::Service::dispatch(self, now, ctx, action, params)
    }
}

/// The first header of that name (case-insensitive).
pub fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Which protocol a request speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// AWS JSON 1.0.
    Json,
    /// Legacy Query (form in, XML out).
    Query,
}

/// Whether `text`, after any leading whitespace, starts with `prefix`, ASCII case ignored.
fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.trim_start()
        .as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// JSON when the request names a target or has a JSON content type; Query otherwise.
pub fn protocol_of(req: &HttpRequest) -> Protocol {
    if header(req, "x-amz-target").is_some()
        || header(req, "content-type")
            .is_some_and(|t| starts_with_ignore_case(t, "application/x-amz-json"))
    {
        Protocol::Json
    } else {
        Protocol::Query
    }
}

/// An AWS-like `SenderId` for an access key: `AIDA` + 17 base-32 characters, the form of an IAM
/// user's unique id, derived from the key so that one key always sends as one principal. (AWS
/// reports the IAM user id, which a host without IAM cannot know.)
pub fn sender_id_for(access_key: &str) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut h = SipHasher13::new_with_keys(0, 0);
    h.write(access_key.as_bytes());
    let mut n = h.finish128().as_u128();
    let mut id = String::from("AIDA");
    for _ in 0..17 {
        id.push(char::from(ALPHABET[(n % 32) as usize]));
        n /= 32;
    }
    id
}

/// What the request says about its caller, whether or not signatures are checked.
pub fn call_context(req: &HttpRequest) -> CallContext {
    let credential = sigv4::credential_of(req);
    let scheme = header(req, "x-forwarded-proto")
        .map(|p| p.trim().to_ascii_lowercase())
        .filter(|p| p == "http" || p == "https");
    CallContext {
        region: credential
            .as_ref()
            .map(|c| c.region.clone())
            .filter(|r| !r.is_empty()),
        host: header(req, "host")
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty()),
        trace_header: header(req, "x-amzn-trace-id").map(str::to_string),
        sender_id: credential
            .map(|c| c.access_key)
            .filter(|k| !k.is_empty())
            .map(|k| sender_id_for(&k)),
        scheme,
    }
}

/// The queue URL a Query request addressed to `/<account>/<name>` means.
fn queue_url_from_path(req: &HttpRequest, ctx: &CallContext) -> Option<String> {
    let mut segments = req.path.strip_prefix('/')?.split('/');
    let (account, name) = (segments.next()?, segments.next()?);
    let is_account = !account.is_empty() && account.bytes().all(|b| b.is_ascii_digit());
    if !is_account || name.is_empty() || segments.next().is_some() {
        return None;
    }
    let scheme = ctx.scheme.as_deref().unwrap_or("http");
    let host = ctx.host.as_deref().unwrap_or("localhost");
    Some(format!("{scheme}://{host}/{account}/{name}"))
}

fn unknown_action(name: &str) -> SqsError {
    SqsError::UnknownOperation(format!("The action {name} is not valid for this endpoint."))
}

/// Everything before dispatch that both protocols share: size, context, signature.
fn admit(now: u64, req: &HttpRequest, opts: &ProtocolOptions) -> Result<CallContext, SqsError> {
    if req.body.len() > opts.max_body_bytes {
        // No byte count: a host stops reading at the limit, so the length it hands over is not
        // the size the client sent.
        return Err(SqsError::RequestEntityTooLarge(format!(
            "Request body exceeds the limit of {} bytes.",
            opts.max_body_bytes
        )));
    }
    if let Some((key, secret)) = &opts.credentials {
        sigv4::verify(req, key, secret, now)?;
    }
    Ok(call_context(req))
}

fn run_json<D: Dispatch>(
    d: &mut D,
    now: u64,
    req: &HttpRequest,
    opts: &ProtocolOptions,
) -> Result<Value, SqsError> {
    let ctx = admit(now, req, opts)?;
    let target = header(req, "x-amz-target").unwrap_or("").trim();
    let action = target
        .strip_prefix("AmazonSQS.")
        .and_then(shapes::action)
        .ok_or_else(|| unknown_action(target))?;
    let params = json::params(&req.body)?;
    d.dispatch(now, &ctx, action.name, params)
}

fn run_query<D: Dispatch>(
    d: &mut D,
    now: u64,
    req: &HttpRequest,
    opts: &ProtocolOptions,
) -> Result<(&'static shapes::Action, Value), SqsError> {
    let ctx = admit(now, req, opts)?;
    let mut params = query::Params::new();
    query::parse_form_into(&mut params, req.query.as_bytes());
    let form_body = header(req, "content-type")
        .is_none_or(|t| starts_with_ignore_case(t, "application/x-www-form-urlencoded"));
    if form_body && !req.method.eq_ignore_ascii_case("GET") {
        query::parse_form_into(&mut params, &req.body);
    }
    let name = params
        .get("Action")
        .ok_or_else(|| SqsError::MissingParameter("Action".into()))?;
    let action = shapes::action(name).ok_or_else(|| unknown_action(name))?;
    let json_params = query::to_json(action, &params, queue_url_from_path(req, &ctx))?;
    let out = d.dispatch(now, &ctx, action.name, json_params)?;
    Ok((action, out))
}

fn xml_response(status: u16, request_id: &str, body: String) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![
            ("x-amzn-RequestId".into(), request_id.into()),
            ("Content-Type".into(), "text/xml".into()),
        ],
        body: body.into_bytes(),
    }
}

/// Answer one HTTP request. `now` is epoch milliseconds (for SigV4 and the engine);
/// `request_id` is the host's id for this request, echoed in the response. Never panics.
pub fn handle<D: Dispatch>(
    d: &mut D,
    now: u64,
    req: &HttpRequest,
    opts: &ProtocolOptions,
    request_id: &str,
) -> HttpResponse {
    match protocol_of(req) {
        Protocol::Json => match run_json(d, now, req, opts) {
            Ok(out) => json::success(&out, request_id),
            Err(e) => json::error(&e, request_id),
        },
        Protocol::Query => match run_query(d, now, req, opts) {
            Ok((action, out)) => {
                xml_response(200, request_id, xml::success(action, &out, request_id))
            }
            Err(e) => xml_response(e.http_status(), request_id, xml::error(&e, request_id)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_type(content_type: &str) -> HttpRequest {
        HttpRequest {
            headers: vec![("Content-Type".into(), content_type.into())],
            ..HttpRequest::default()
        }
    }

    #[test]
    fn content_type_decides_the_protocol_in_any_case_and_leading_space() {
        for json in [
            "application/x-amz-json-1.0",
            "  Application/X-Amz-JSON-1.0; charset=utf-8",
        ] {
            assert_eq!(protocol_of(&with_type(json)), Protocol::Json, "{json}");
        }
        for query in [
            "application/x-www-form-urlencoded",
            "application/x-amz-jso",
            "",
            "é",
        ] {
            assert_eq!(protocol_of(&with_type(query)), Protocol::Query, "{query}");
        }
        assert!(starts_with_ignore_case(" A/B", "a/b"));
        assert!(!starts_with_ignore_case("a", "a/b"));
    }
}
