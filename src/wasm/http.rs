//! HTTP requests and responses as they cross the boundary: one form each way.
//!
//! - A request is two arguments: its **head**, one string of NUL-separated parts (`method, path,
//!   query, name, value, name, value…`), and its **body**, bytes.
//! - A response is `{status, head, body}`, its head in the same form (`name, value…`).
//!
//! One string for the whole head, because every value that crosses the wasm boundary is a call
//! and every string an encode or decode: two strings per header in an array of pairs cost several
//! times more per request (`wasq serve` answers thousands a second). NUL cannot appear in HTTP
//! header names or values (RFC 9110 §5.5), nor in a method, path or query; the JS handlers refuse
//! a part holding one before it crosses, as Node's HTTP client does (`src/http-head.js`).

use super::convert;
use super::error::type_error;
use crate::context::CallContext;
use crate::protocol::{HttpRequest, HttpResponse, Parsed, Protocol, ProtocolOptions};
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The separator of a head's parts.
const SEP: char = '\0';

// The response's properties are written by imported setters: the glue writes `obj.head`
// directly, where `Reflect::set` would first build the key as a JS string from wasm memory on
// every call. Only ever called on a fresh `Object`, whose plain properties cannot refuse a write.
#[wasm_bindgen]
extern "C" {
    type Response;
    #[wasm_bindgen(method, setter, structural, js_name = status)]
    fn set_status(this: &Response, status: u16);
    #[wasm_bindgen(method, setter, structural, js_name = head)]
    fn set_head(this: &Response, head: &str);
    #[wasm_bindgen(method, setter, structural, js_name = body)]
    fn set_body(this: &Response, body: &Uint8Array);
}

fn get(value: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(value, &JsValue::from_str(key))
}

fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// The request of a head (`method\0path\0query(\0name\0value)*`) and a body.
pub fn request(head: &str, body: Vec<u8>) -> Result<HttpRequest, JsValue> {
    let malformed = || {
        type_error(
            "the request head must be method, path, query, then name, value pairs, NUL-separated",
        )
    };
    let mut parts = head.split(SEP);
    let (Some(method), Some(path), Some(query)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(malformed());
    };
    let mut headers = Vec::new();
    while let Some(name) = parts.next() {
        let value = parts.next().ok_or_else(malformed)?;
        headers.push((name.to_string(), value.to_string()));
    }
    Ok(HttpRequest {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body,
    })
}

/// `{credentials?: {accessKeyId, secretAccessKey}, maxBodyBytes?}`; hosts with neither pass
/// nothing, which costs no property reads.
pub fn options(value: &JsValue) -> Result<ProtocolOptions, JsValue> {
    let mut opts = ProtocolOptions::default();
    if absent(value) {
        return Ok(opts);
    }
    let creds = get(value, "credentials")?;
    if !absent(&creds) {
        let key = get(&creds, "accessKeyId")?.as_string();
        let secret = get(&creds, "secretAccessKey")?.as_string();
        match (key, secret) {
            (Some(k), Some(s)) => opts.credentials = Some((k, s)),
            _ => {
                return Err(type_error(
                    "credentials must be { accessKeyId: string, secretAccessKey: string }",
                ))
            }
        }
    }
    let max = get(value, "maxBodyBytes")?;
    if let Some(n) = max.as_f64() {
        if !((0.0..=9_007_199_254_740_991.0).contains(&n) && n.fract() == 0.0) {
            return Err(super::error::range_error(
                "maxBodyBytes must be a non-negative integer",
            ));
        }
        opts.max_body_bytes = usize::try_from(n as u64)
            .map_err(|_| super::error::range_error("maxBodyBytes is too large"))?;
    } else if !absent(&max) {
        return Err(type_error("maxBodyBytes must be a number"));
    }
    Ok(opts)
}

/// `{status, head, body: Uint8Array}`.
pub fn response(res: HttpResponse) -> JsValue {
    let mut head = String::new();
    for (name, value) in &res.headers {
        if !head.is_empty() {
            head.push(SEP);
        }
        head.push_str(name);
        head.push(SEP);
        head.push_str(value);
    }
    let out: Response = Object::new().unchecked_into();
    out.set_status(res.status);
    out.set_head(&head);
    out.set_body(&Uint8Array::from(res.body.as_slice()));
    out.into()
}

fn set(obj: &Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(obj, &JsValue::from_str(key), value).map(drop)
}

/// `{protocol: "json" | "query", action, params (AWS JSON text), context}`.
pub fn parsed_to_js(parsed: &Parsed<'_>) -> Result<JsValue, JsValue> {
    let protocol = match parsed.protocol() {
        Protocol::Json => "json",
        Protocol::Query => "query",
    };
    let out = Object::new();
    set(&out, "protocol", &JsValue::from_str(protocol))?;
    set(&out, "action", &JsValue::from_str(parsed.action.name))?;
    set(&out, "params", &JsValue::from_str(&parsed.params_text()))?;
    set(&out, "context", &convert::context_to_js(&parsed.ctx)?)?;
    Ok(out.into())
}

/// `{response}`: a request refused before anything ran.
pub fn refusal(res: HttpResponse) -> Result<JsValue, JsValue> {
    let out = Object::new();
    set(&out, "response", &response(res))?;
    Ok(out.into())
}

/// The parts of a parsed request as [`parsed_to_js`] writes them.
pub fn parsed(value: &JsValue) -> Result<(Protocol, String, String, CallContext), JsValue> {
    let text = |key: &str| {
        get(value, key)?
            .as_string()
            .ok_or_else(|| type_error(&format!("parsed.{key} must be a string")))
    };
    let protocol = match text("protocol")?.as_str() {
        "json" => Protocol::Json,
        "query" => Protocol::Query,
        _ => return Err(type_error("parsed.protocol must be \"json\" or \"query\"")),
    };
    let ctx = convert::context(&get(value, "context")?)?;
    Ok((protocol, text("action")?, text("params")?, ctx))
}
