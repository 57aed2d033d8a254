//! Values across the boundary: clock readings, constructor options, call context.

use super::error::{range_error, type_error};
use crate::context::CallContext;
use crate::engine::EngineConfig;
use js_sys::{BigInt, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// Largest integer a JS number holds exactly; larger clock readings or seeds would be silently rounded.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A number as JS shows it: Rust's f64 formatting alone is ~14 KB of wasm.
fn shown(value: f64) -> String {
    js_sys::Number::from(value)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// A clock reading (epoch ms). Fractions (e.g. from `performance.now()`-based clocks) are dropped.
pub fn now(value: f64) -> Result<u64, JsValue> {
    if !(0.0..=MAX_SAFE_INTEGER).contains(&value) {
        return Err(range_error(&format!(
            "clock reading must be a finite, non-negative number of milliseconds, got {}",
            shown(value)
        )));
    }
    // In range and finite, so the truncating cast is exact for the integer part.
    Ok(value.trunc() as u64)
}

/// `options.<key>` when `options` is an object and the key is present (not `undefined`/`null`).
fn field(options: &JsValue, key: &str) -> Result<Option<JsValue>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(type_error("options must be an object"));
    }
    let value = Reflect::get(options, &JsValue::from_str(key))?;
    Ok((!value.is_undefined() && !value.is_null()).then_some(value))
}

fn string_field(options: &JsValue, key: &str) -> Result<Option<String>, JsValue> {
    match field(options, key)? {
        None => Ok(None),
        Some(v) => v
            .as_string()
            .map(Some)
            .ok_or_else(|| type_error(&format!("options.{key} must be a string"))),
    }
}

/// A non-negative integer given as a JS number (exact) or a BigInt (for full 64-bit seeds).
fn integer_field(options: &JsValue, key: &str) -> Result<Option<u64>, JsValue> {
    let Some(value) = field(options, key)? else {
        return Ok(None);
    };
    if let Some(n) = value.as_f64() {
        if (0.0..=MAX_SAFE_INTEGER).contains(&n) && n.fract() == 0.0 {
            return Ok(Some(n as u64));
        }
        return Err(range_error(&format!(
            "options.{key} must be a non-negative safe integer (use a BigInt for larger values), got {}",
            shown(n)
        )));
    }
    if let Some(big) = value.dyn_ref::<BigInt>() {
        return u64::try_from(big.clone()).map(Some).map_err(|_| {
            range_error(&format!(
                "options.{key} must fit in an unsigned 64-bit integer"
            ))
        });
    }
    Err(type_error(&format!(
        "options.{key} must be a number or a BigInt"
    )))
}

/// The engine configuration from `{seed?, region?, accountId?, defaultHost?, standardInflightLimit?,
/// fifoInflightLimit?, persist?}`. `persist: false` is for a host with no storage: the core then
/// skips encoding every change for a commit nobody makes. With no seed, one is drawn here — never at module load, which workerd forbids.
pub fn config(options: &JsValue) -> Result<EngineConfig, JsValue> {
    let seed = match integer_field(options, "seed")? {
        Some(seed) => seed,
        None => getrandom::u64().map_err(|e| -> JsValue {
            js_sys::Error::new(&format!("could not draw a random seed: {e}")).into()
        })?,
    };
    let mut config = EngineConfig {
        seed,
        ..EngineConfig::default()
    };
    if let Some(region) = string_field(options, "region")? {
        config.region = region;
    }
    if let Some(account) = string_field(options, "accountId")? {
        config.account_id = account;
    }
    if let Some(host) = string_field(options, "defaultHost")? {
        config.default_host = host;
    }
    if let Some(limit) = integer_field(options, "standardInflightLimit")? {
        config.standard_inflight_limit = usize::try_from(limit)
            .map_err(|_| range_error("options.standardInflightLimit is too large"))?;
    }
    if let Some(limit) = integer_field(options, "fifoInflightLimit")? {
        config.fifo_inflight_limit = usize::try_from(limit)
            .map_err(|_| range_error("options.fifoInflightLimit is too large"))?;
    }
    if let Some(max) = integer_field(options, "maxStoredBytes")? {
        config.max_stored_bytes = max;
    }
    if let Some(persist) = field(options, "persist")? {
        config.persist = persist
            .as_bool()
            .ok_or_else(|| type_error("options.persist must be a boolean"))?;
    }
    Ok(config)
}

/// The per-call context `{region?, host?, scheme?, traceHeader?, senderId?}`; absent means defaults.
pub fn context(value: &JsValue) -> Result<CallContext, JsValue> {
    // Most calls have no context: one check instead of two imported calls per field.
    if value.is_undefined() {
        return Ok(CallContext::default());
    }
    Ok(CallContext {
        region: string_field(value, "region")?,
        host: string_field(value, "host")?,
        trace_header: string_field(value, "traceHeader")?,
        sender_id: string_field(value, "senderId")?,
        scheme: string_field(value, "scheme")?,
    })
}

/// The inverse of [`context`]; absent fields are left out.
pub fn context_to_js(ctx: &CallContext) -> Result<JsValue, JsValue> {
    let out = Object::new();
    let fields = [
        ("region", &ctx.region),
        ("host", &ctx.host),
        ("traceHeader", &ctx.trace_header),
        ("senderId", &ctx.sender_id),
        ("scheme", &ctx.scheme),
    ];
    for (key, value) in fields {
        if let Some(value) = value {
            Reflect::set(&out, &JsValue::from_str(key), &JsValue::from_str(value))?;
        }
    }
    Ok(out.into())
}
