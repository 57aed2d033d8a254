//! The one conversion from the crate's errors to thrown JS values.
//!
//! JS callers branch on `err.name` (the SQS shape, as the AWS SDK does) and `err.code` (the Query
//! code); a thrown string would have neither, nor a stack, so everything thrown is a real `Error`.

use crate::engine::RestoreError;
use crate::error::SqsError;
use js_sys::{Error, Reflect};
use wasm_bindgen::JsValue;

/// A real JS `Error`: `name` = SQS shape, `message`, `code` = Query code, `httpStatus`.
pub fn sqs_error(err: &SqsError) -> JsValue {
    let js = Error::new(&err.message());
    js.set_name(err.shape());
    set(&js, "code", &JsValue::from_str(err.query_code()));
    set(&js, "httpStatus", &JsValue::from(err.http_status()));
    js.into()
}

/// Storage records that cannot be read back: not an SQS error, so it gets its own name.
pub fn restore_error(err: &RestoreError) -> JsValue {
    let js = Error::new(&err.to_string());
    js.set_name("RestoreError");
    js.into()
}

/// A caller passed a value of the wrong type (a programming error, not an SQS request error).
pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// A caller passed a number outside the range the engine accepts.
pub fn range_error(message: &str) -> JsValue {
    js_sys::RangeError::new(message).into()
}

fn set(target: &Error, key: &str, value: &JsValue) {
    // Defining a property on a fresh, unfrozen Error object cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}
