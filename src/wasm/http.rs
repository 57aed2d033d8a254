//! HTTP requests through the protocol layer, in one of two forms.
//!
//! - **Fields**: `{method, path, query, headers: [name, value][], body}` in, `{status, headers:
//!   [name, value][], body}` out. Readable, and what the edge Worker builds.
//! - **Packed**: `{head, body}` in, `{status, head, body}` out, where `head` is one string of
//!   NUL-separated parts (`method, path, query, name, value, name, value…` in, `name, value…`
//!   out). A server answering thousands of requests a second uses it: every value that crosses
//!   the wasm boundary is a call, and a string is a decode or encode, so one string for the whole
//!   head instead of two per header is several times cheaper. NUL cannot appear in HTTP header
//!   names or values (RFC 9110 §5.5), so it cannot be confused with the content; hosts whose
//!   headers come from elsewhere than an HTTP parser check for it and use the fields form.
//!
//! A response is in the form its request was: the core calls [`request`], then [`response`] for
//! the same request, with nothing in between that reads another request.

use super::convert;
use super::error::type_error;
use crate::context::CallContext;
use crate::protocol::{HttpRequest, HttpResponse, Parsed, Protocol, ProtocolOptions};
use js_sys::{Array, Object, Reflect, Uint8Array};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The separator of the packed head.
const SEP: char = '\0';

/// Whether the request being answered came packed. (An atomic only to be a safe static: the
/// module is single-threaded, and on wasm32 without threads these are plain loads and stores.)
static PACKED: AtomicBool = AtomicBool::new(false);

// The packed form's properties are read and written by imported getters and setters: the glue
// reads `obj.head` directly, where `Reflect::get` would first build the key as a JS string from
// wasm memory on every call. The fields form keeps `Reflect`, which costs no code per property.
#[wasm_bindgen]
extern "C" {
    type Packed;
    #[wasm_bindgen(method, getter, structural, catch)]
    fn head(this: &Packed) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, structural, catch)]
    fn body(this: &Packed) -> Result<JsValue, JsValue>;

    // Only ever called on a fresh `Object`, whose plain properties cannot refuse a write.
    #[wasm_bindgen(method, setter, structural, js_name = status)]
    fn set_status(this: &Packed, status: u16);
    #[wasm_bindgen(method, setter, structural, js_name = head)]
    fn set_head(this: &Packed, head: &str);
    #[wasm_bindgen(method, setter, structural, js_name = body)]
    fn set_body(this: &Packed, body: &Uint8Array);
}

fn get(value: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(value, &JsValue::from_str(key))
}

fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

fn string(v: JsValue, key: &str, default: &str) -> Result<String, JsValue> {
    if absent(&v) {
        return Ok(default.to_string());
    }
    v.as_string()
        .ok_or_else(|| type_error(&format!("request.{key} must be a string")))
}

/// A request object from the JS handlers, in either form.
pub fn request(value: &JsValue) -> Result<HttpRequest, JsValue> {
    PACKED.store(false, Relaxed);
    if !value.is_object() {
        return Err(type_error("request must be an object"));
    }
    let packed: &Packed = value.unchecked_ref();
    let body = packed.body()?;
    let body = if absent(&body) {
        Vec::new()
    } else {
        convert::bytes(&body, "request.body")?
    };
    let head = packed.head()?;
    if !absent(&head) {
        let head = head
            .as_string()
            .ok_or_else(|| type_error("request.head must be a string"))?;
        let req = unpack(&head, body)?;
        PACKED.store(true, Relaxed);
        return Ok(req);
    }
    Ok(HttpRequest {
        method: string(get(value, "method")?, "method", "POST")?,
        path: string(get(value, "path")?, "path", "/")?,
        query: string(get(value, "query")?, "query", "")?,
        headers: header_pairs(&get(value, "headers")?)?,
        body,
    })
}

/// `method\0path\0query(\0name\0value)*`.
fn unpack(head: &str, body: Vec<u8>) -> Result<HttpRequest, JsValue> {
    let malformed = || {
        type_error(
            "request.head must be method, path, query, then name, value pairs, NUL-separated",
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

fn header_pairs(list: &JsValue) -> Result<Vec<(String, String)>, JsValue> {
    let mut headers = Vec::new();
    if absent(list) {
        return Ok(headers);
    }
    let Some(iter) = js_sys::try_iter(list)? else {
        return Err(type_error(
            "request.headers must be an iterable of [name, value] pairs",
        ));
    };
    for entry in iter {
        let entry = entry?;
        let pair = entry
            .dyn_ref::<Array>()
            .filter(|a| a.length() == 2)
            .ok_or_else(|| type_error("each request header must be a [name, value] pair"))?;
        match (pair.get(0).as_string(), pair.get(1).as_string()) {
            (Some(name), Some(v)) => headers.push((name, v)),
            _ => return Err(type_error("header names and values must be strings")),
        }
    }
    Ok(headers)
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

/// `{status, headers: [name, value][], body: Uint8Array}`, or `{status, head, body}` when the
/// request came packed.
pub fn response(res: HttpResponse) -> Result<JsValue, JsValue> {
    let body = Uint8Array::from(res.body.as_slice());
    if PACKED.load(Relaxed) {
        let mut head = String::new();
        for (name, value) in &res.headers {
            if !head.is_empty() {
                head.push(SEP);
            }
            head.push_str(name);
            head.push(SEP);
            head.push_str(value);
        }
        let out: Packed = Object::new().unchecked_into();
        out.set_status(res.status);
        out.set_head(&head);
        out.set_body(&body);
        return Ok(out.into());
    }
    let headers = Array::new();
    for (name, value) in res.headers {
        headers.push(&Array::of2(&JsValue::from(name), &JsValue::from(value)));
    }
    let out = Object::new();
    Reflect::set(
        &out,
        &JsValue::from_str("status"),
        &JsValue::from(res.status),
    )?;
    Reflect::set(&out, &JsValue::from_str("headers"), &headers)?;
    Reflect::set(&out, &JsValue::from_str("body"), &body)?;
    Ok(out.into())
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

/// `{response}`: a request refused before anything ran, in the form its request was.
pub fn refusal(res: HttpResponse) -> Result<JsValue, JsValue> {
    let out = Object::new();
    set(&out, "response", &response(res)?)?;
    Ok(out.into())
}

/// The parts of a parsed request as [`parsed_to_js`] writes them; the answer is in the fields
/// form.
pub fn parsed(value: &JsValue) -> Result<(Protocol, String, String, CallContext), JsValue> {
    PACKED.store(false, Relaxed);
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
