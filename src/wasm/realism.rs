//! Realism mode across the boundary: `setRealism` and the settings in force.
//!
//! A setting crosses as the JSON text of the caller's value and is read and checked once, by
//! [`Realism::from_setting`]: the JS wrapper only writes the text.

use super::core::WasqCore;
use super::error::{range_error, type_error};
use crate::engine::{Realism, SettingError};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl WasqCore {
    /// Realism for the whole engine (`queue` undefined) or one queue by name, from the JSON
    /// text of a setting (`"aws"`, an object of knobs, null or false; undefined: off, or drop
    /// the queue's override). `options`: it came as `new Engine({ realism })`, which messages
    /// name `options.realism` (else `realism`); `region` defaults to the engine's. Answers the settings now in force there as JSON, or undefined for off. A
    /// refused setting throws a `TypeError` or a `RangeError` and changes nothing.
    #[wasm_bindgen(js_name = setRealism)]
    pub fn set_realism(
        &mut self,
        queue: Option<String>,
        setting: Option<String>,
        region: Option<String>,
        options: bool,
    ) -> Result<Option<String>, JsValue> {
        let what = if options {
            "options.realism"
        } else {
            "realism"
        };
        let realism = match setting {
            None => None,
            Some(text) => {
                Realism::from_setting(&text, what, queue.is_some()).map_err(|e| match e {
                    SettingError::Type(m) => type_error(&m),
                    SettingError::Range(m) => range_error(&m),
                })?
            }
        };
        let text = realism.as_ref().map(Realism::to_json);
        self.service
            .set_realism(region.as_deref(), queue.as_deref(), realism);
        Ok(text)
    }

    /// The realism settings in force for a queue (its override, else the engine's), as JSON.
    #[wasm_bindgen(js_name = realismFor)]
    pub fn realism_for(&mut self, queue: &str, region: Option<String>) -> String {
        self.service
            .engine(region.as_deref())
            .realism_for(queue)
            .to_json()
    }
}
