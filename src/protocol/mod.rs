//! The SQS wire protocol, shared by every host: an HTTP request in, an HTTP response out.
//!
//! SDKs speak one of two protocols and never negotiate (spec §1.4), so each request is answered
//! in its own: **AWS JSON 1.0** (`X-Amz-Target: AmazonSQS.<Action>`, JSON body) or the legacy
//! **Query** protocol (`Action=<Action>` form or query string, XML response). Both are reduced
//! to one call, `Dispatch::dispatch(now, ctx, action, json_params)`, whose JSON result is then
//! written back in the request's protocol. Hosts only move bytes and supply the clock and the
//! request id. [`handle`] does it all; a host that reads a request in one place and runs it in
//! another (the edge Worker and its objects) splits it into [`admit`] and [`dispatch_parsed`],
//! the same code path.
//!
//! ```text
//!  HttpRequest ──► protocol? ──► size limit ──► CallContext ──► SigV4 (if configured)
//!                                                                   │
//!        JSON: body object as sent ◄──┬──► Query: flattened params → JSON (shapes.rs)
//!                                     ▼
//!                              Dispatch::dispatch ──► JSON body / XML (xml.rs)
//! ```

pub mod aws_json;
pub mod json;
pub mod query;
pub mod query_json;
pub mod request_id;
pub mod shapes;
pub mod sigv4;
pub mod xml;

pub use request_id::request_id;

use crate::context::CallContext;
use crate::error::SqsError;
use serde_json::Value;
use siphasher::sip128::{Hasher128, SipHasher13};
use std::borrow::Cow;
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

    /// `dispatch` for an AWS JSON 1.0 body as text, answering JSON text. The default goes through
    /// a `Value`; the service overrides it with its typed path, which builds no tree for the
    /// message actions. Both must answer alike: malformed bodies are read by [`json::params`].
    fn dispatch_json(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        body: &str,
    ) -> Result<String, SqsError> {
        let params = json::params(body.as_bytes())?;
        self.dispatch(now, ctx, action, params)
            .map(|v| crate::json_text::value_text(&v))
    }
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

    fn dispatch_json(
        &mut self,
        now: u64,
        ctx: &CallContext,
        action: &str,
        body: &str,
    ) -> Result<String, SqsError> {
        self.dispatch_json_with(now, ctx, action, body, |text| json::params(text.as_bytes()))
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

/// The queue URL a Query request addressed to a queue's path means: `/<account>/<name>`, or
/// `/queue/<region>/<account>/<name>` (the form that names its region).
fn queue_url_from_path(req: &HttpRequest, ctx: &CallContext) -> Option<String> {
    let path = queue_path(&req.path)?;
    let scheme = ctx.scheme.as_deref().unwrap_or("http");
    let host = ctx.host.as_deref().unwrap_or("localhost");
    Some(format!("{scheme}://{host}{path}"))
}

/// `path` when it is a queue's: `/<account>/<name>` or `/queue/<region>/<account>/<name>`.
pub fn queue_path(path: &str) -> Option<&str> {
    let rest = path.strip_prefix('/')?;
    let rest = match rest.strip_prefix("queue/") {
        Some(after) => {
            let (region, tail) = after.split_once('/')?;
            if region.is_empty() {
                return None;
            }
            tail
        }
        None => rest,
    };
    let mut segments = rest.split('/');
    let (account, name) = (segments.next()?, segments.next()?);
    let is_account = !account.is_empty() && account.bytes().all(|b| b.is_ascii_digit());
    if !is_account || name.is_empty() || segments.next().is_some() {
        return None;
    }
    Some(path)
}

/// Actions AWS refuses on a queue's URL: they address the service, not a queue (recorded
/// against AWS for these two, issue #33 item 4).
const SERVICE_ACTIONS: [&str; 2] = ["CreateQueue", "ListQueues"];

fn unknown_action(name: &str) -> SqsError {
    SqsError::UnknownOperation(format!("The action {name} is not valid for this endpoint."))
}

/// Everything before reading that both protocols share: size, signature, context.
fn check(now: u64, req: &HttpRequest, opts: &ProtocolOptions) -> Result<CallContext, SqsError> {
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

/// An action's parameters, in the form its protocol's dispatch takes.
#[derive(Debug, Clone, PartialEq)]
pub enum Params<'a> {
    /// The AWS JSON 1.0 body as sent, read by the typed `Dispatch::dispatch_json`.
    Json(Cow<'a, str>),
    /// The Query form, already converted to the action's AWS JSON input.
    Query(Value),
}

/// A request admitted and read, not yet run: what a host can hand to another engine (the edge
/// Worker to its objects) instead of the HTTP request, so that it is read once.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<'a> {
    /// The action named by the request.
    pub action: &'static shapes::Action,
    /// Its parameters.
    pub params: Params<'a>,
    /// The caller, as the request's headers name it.
    pub ctx: CallContext,
}

impl Parsed<'_> {
    /// The protocol the answer is written in.
    pub fn protocol(&self) -> Protocol {
        match self.params {
            Params::Json(_) => Protocol::Json,
            Params::Query(_) => Protocol::Query,
        }
    }

    /// The parameters as AWS JSON text (what [`Parsed::from_text`] reads back).
    pub fn params_text(&self) -> Cow<'_, str> {
        match &self.params {
            Params::Json(body) => Cow::Borrowed(body),
            Params::Query(v) => Cow::Owned(crate::json_text::value_text(v)),
        }
    }
}

impl Parsed<'static> {
    /// A parsed request from its parts as text, as a host carried them. JSON parameters are
    /// kept as text for the typed dispatch; Query ones are read back into the action's input.
    pub fn from_text(
        protocol: Protocol,
        action: &str,
        params: String,
        ctx: CallContext,
    ) -> Result<Self, SqsError> {
        let action = shapes::action(action).ok_or_else(|| unknown_action(action))?;
        let params = match protocol {
            Protocol::Json => Params::Json(Cow::Owned(params)),
            Protocol::Query => Params::Query(json::params(params.as_bytes())?),
        };
        Ok(Parsed {
            action,
            params,
            ctx,
        })
    }
}

fn read_json(req: &HttpRequest, ctx: CallContext) -> Result<Parsed<'_>, SqsError> {
    let target = header(req, "x-amz-target").unwrap_or("").trim();
    let action = target
        .strip_prefix("AmazonSQS.")
        .and_then(shapes::action)
        .ok_or_else(|| unknown_action(target))?;
    // A body that is not UTF-8 cannot be JSON; `json::params` words that error.
    let body = std::str::from_utf8(&req.body).map_err(|_| json::unreadable())?;
    Ok(Parsed {
        action,
        params: Params::Json(Cow::Borrowed(body)),
        ctx,
    })
}

fn read_query(req: &HttpRequest, ctx: CallContext) -> Result<Parsed<'static>, SqsError> {
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
    let path_url = queue_url_from_path(req, &ctx);
    if path_url.is_some() && SERVICE_ACTIONS.contains(&action.name) {
        return Err(unknown_action(action.name));
    }
    let json_params = query::to_json(action, &params, path_url)?;
    Ok(Parsed {
        action,
        params: Params::Query(json_params),
        ctx,
    })
}

/// Admission and reading, shared by [`handle`] and [`admit`]: a JSON body is not read yet (its
/// dispatch reads it, with the same verdict as [`json::params`]).
fn read<'a>(
    now: u64,
    req: &'a HttpRequest,
    opts: &ProtocolOptions,
) -> Result<Parsed<'a>, SqsError> {
    let ctx = check(now, req, opts)?;
    match protocol_of(req) {
        Protocol::Json => read_json(req, ctx),
        Protocol::Query => read_query(req, ctx),
    }
}

/// Admit and read a request without running it. Everything [`handle`] would refuse before
/// dispatch is refused here, a malformed JSON body included (answer it with [`error_response`]
/// in the request's [`protocol_of`]); what passes runs with [`dispatch_parsed`].
pub fn admit<'a>(
    now: u64,
    req: &'a HttpRequest,
    opts: &ProtocolOptions,
) -> Result<Parsed<'a>, SqsError> {
    let parsed = read(now, req, opts)?;
    if let Params::Json(body) = &parsed.params {
        json::params(body.as_bytes())?;
    }
    Ok(parsed)
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

/// An error answered in `protocol`.
pub fn error_response(protocol: Protocol, err: &SqsError, request_id: &str) -> HttpResponse {
    match protocol {
        Protocol::Json => json::error(err, request_id),
        Protocol::Query => xml_response(err.http_status(), request_id, xml::error(err, request_id)),
    }
}

/// Run a parsed request and answer it in its protocol, as [`handle`] answers the HTTP request.
pub fn dispatch_parsed<D: Dispatch>(
    d: &mut D,
    now: u64,
    parsed: Parsed<'_>,
    request_id: &str,
) -> HttpResponse {
    let protocol = parsed.protocol();
    let (action, ctx) = (parsed.action, &parsed.ctx);
    let answer = match parsed.params {
        Params::Json(body) => d
            .dispatch_json(now, ctx, action.name, &body)
            .map(|out| json::success_text(out, request_id)),
        Params::Query(params) => d
            .dispatch(now, ctx, action.name, params)
            .map(|out| xml_response(200, request_id, xml::success(action, &out, request_id))),
    };
    answer.unwrap_or_else(|e| error_response(protocol, &e, request_id))
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
    let protocol = protocol_of(req);
    let json_answer = protocol == Protocol::Query && query_json::wants_json(req);
    match read(now, req, opts) {
        Ok(Parsed {
            action,
            params: Params::Query(params),
            ctx,
        }) if json_answer => match d.dispatch(now, &ctx, action.name, params) {
            Ok(out) => query_json::success(action, out, request_id),
            Err(e) => query_json::error(&e, request_id),
        },
        Ok(parsed) => dispatch_parsed(d, now, parsed, request_id),
        Err(SqsError::MissingParameter(p))
            if p == "Action"
                && protocol == Protocol::Query
                && req.method.eq_ignore_ascii_case("GET")
                && queue_path(&req.path).is_some() =>
        {
            no_action_on_queue_url(request_id)
        }
        Err(e) if json_answer => query_json::error(&e, request_id),
        Err(e) => error_response(protocol, &e, request_id),
    }
}

/// A GET on a queue's URL that names no action: AWS answers 404 with an empty
/// `<UnknownOperationException/>` element as the whole body (recorded, issue #33 item 4).
fn no_action_on_queue_url(request_id: &str) -> HttpResponse {
    xml_response(404, request_id, "<UnknownOperationException/>".into())
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
