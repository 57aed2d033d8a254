//! HTTP requests through the protocol layer: `{method, path, query, headers, body}` in,
//! `{status, headers, body}` out, with the header lists as `[name, value]` pairs.

use super::convert;
use super::error::type_error;
use crate::protocol::{HttpRequest, HttpResponse, ProtocolOptions};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

fn get(value: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(value, &JsValue::from_str(key))
}

fn string(value: &JsValue, key: &str, default: &str) -> Result<String, JsValue> {
    let v = get(value, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(default.to_string());
    }
    v.as_string()
        .ok_or_else(|| type_error(&format!("request.{key} must be a string")))
}

/// A request object from the JS handlers.
pub fn request(value: &JsValue) -> Result<HttpRequest, JsValue> {
    if !value.is_object() {
        return Err(type_error("request must be an object"));
    }
    let mut headers = Vec::new();
    let list = get(value, "headers")?;
    if !list.is_undefined() && !list.is_null() {
        let Some(iter) = js_sys::try_iter(&list)? else {
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
    }
    let body = get(value, "body")?;
    let body = if body.is_undefined() || body.is_null() {
        Vec::new()
    } else {
        convert::bytes(&body, "request.body")?
    };
    Ok(HttpRequest {
        method: string(value, "method", "POST")?,
        path: string(value, "path", "/")?,
        query: string(value, "query", "")?,
        headers,
        body,
    })
}

/// `{credentials?: {accessKeyId, secretAccessKey}, maxBodyBytes?}`.
pub fn options(value: &JsValue) -> Result<ProtocolOptions, JsValue> {
    let mut opts = ProtocolOptions::default();
    if value.is_undefined() || value.is_null() {
        return Ok(opts);
    }
    let creds = get(value, "credentials")?;
    if !creds.is_undefined() && !creds.is_null() {
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
    } else if !max.is_undefined() && !max.is_null() {
        return Err(type_error("maxBodyBytes must be a number"));
    }
    Ok(opts)
}

/// `{ status, headers: [name, value][], body: Uint8Array }`.
pub fn response(res: HttpResponse) -> Result<JsValue, JsValue> {
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
    Reflect::set(
        &out,
        &JsValue::from_str("body"),
        &Uint8Array::from(res.body.as_slice()),
    )?;
    Ok(out.into())
}
