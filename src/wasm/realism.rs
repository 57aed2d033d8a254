//! Realism settings as they cross the boundary (`WasqCore.setRealism`): JSON text, read here.
//!
//! Settings cross as JSON text, read field by field from a `serde_json::Value` rather than
//! through `Realism`'s serde derives: the package ships every byte of wasm, and the derives'
//! generated visitors cost more than these few lookups. The JS wrapper validates ranges and
//! unknown keys before calling; this layer still refuses wrong types rather than guessing.

use super::error::type_error;
use crate::engine::{Realism, Throttling};
use serde_json::{Map, Value};
use wasm_bindgen::JsValue;

/// Realism settings from their JSON text.
pub fn parse(text: &str) -> Result<Realism, JsValue> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| type_error(&format!("realism: {e}")))?;
    let Value::Object(obj) = value else {
        return Err(type_error("realism must be an object"));
    };
    let throttling = match obj.get("throttling") {
        None | Some(Value::Null) => None,
        Some(Value::Object(t)) => Some(throttling(t)?),
        Some(_) => return Err(type_error("realism.throttling must be an object or null")),
    };
    let latency = match obj.get("latency") {
        None | Some(Value::Null) => None,
        Some(Value::Array(pair)) => match pair.as_slice() {
            [min, max] => Some((u32_of(min, "latency[0]")?, u32_of(max, "latency[1]")?)),
            _ => return Err(type_error("realism.latency must be [min, max]")),
        },
        Some(_) => return Err(type_error("realism.latency must be [min, max] or null")),
    };
    Ok(Realism {
        duplicate_delivery: f64_field(&obj, "duplicateDelivery")?.unwrap_or(0.0),
        reorder: match obj.get("reorder") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(type_error("realism.reorder must be a boolean")),
        },
        short_poll_sampling: f64_field(&obj, "shortPollSampling")?.unwrap_or(0.0),
        throttling,
        latency,
    })
}

fn throttling(obj: &Map<String, Value>) -> Result<Throttling, JsValue> {
    let defaults = Throttling::default();
    let field = |key: &str, default: u32| match obj.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => u32_of(v, key),
    };
    Ok(Throttling {
        fifo_per_action: field("fifoPerAction", defaults.fifo_per_action)?,
        high_throughput_per_partition: field(
            "highThroughputPerPartition",
            defaults.high_throughput_per_partition,
        )?,
        high_throughput_partitions: field(
            "highThroughputPartitions",
            defaults.high_throughput_partitions,
        )?,
        standard_per_action: match obj.get("standardPerAction") {
            None | Some(Value::Null) => None,
            Some(v) => Some(u32_of(v, "standardPerAction")?),
        },
    })
}

fn f64_field(obj: &Map<String, Value>, key: &str) -> Result<Option<f64>, JsValue> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| type_error(&format!("realism.{key} must be a number"))),
    }
}

fn u32_of(value: &Value, what: &str) -> Result<u32, JsValue> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| type_error(&format!("realism {what} must be a non-negative integer")))
}
