//! Panics that speak.
//!
//! The wasm is built with `panic = "abort"`: a panic ends in a trap (`RuntimeError: unreachable`),
//! which says nothing of why, and leaves the instance's memory as it was mid-call. The hook set
//! here runs first and throws a JS `Error` named `WasqInternalError` instead, with the panic's
//! message and source location; the exception leaves the wasm the way a trap does (no Rust code
//! runs after it), so the instance is just as unusable, and the JS wrapper (src/engine.js)
//! recognises both, refuses the engine from then on and starts a fresh instance
//! (src/bindings.js). The hook is set at every instantiation (the fresh ones too), by `start`.

use js_sys::{Error, Reflect};
use std::panic::PanicHookInfo;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn set_panic_hook() {
    std::panic::set_hook(Box::new(throw_internal_error));
}

fn throw_internal_error(info: &PanicHookInfo<'_>) {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message");
    let location = info.location().map_or_else(
        || "an unknown location".to_string(),
        |l| format!("{}:{}:{}", l.file(), l.line(), l.column()),
    );
    let err = Error::new(&format!(
        "wasq internal error (a bug in wasq): {message}, at {location}"
    ));
    err.set_name("WasqInternalError");
    // What the wrapper and a bug report need, apart from the sentence.
    let _ = Reflect::set(&err, &"panicMessage".into(), &message.into());
    let _ = Reflect::set(&err, &"panicLocation".into(), &location.into());
    wasm_bindgen::throw_val(err.into());
}
