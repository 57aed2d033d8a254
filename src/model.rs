//! Wire-shaped values shared by the engine, the digests and the protocol layer.

use crate::maps::SortedMap;
use serde::{Deserialize, Serialize};

/// SQS `MessageAttributeValue`: a typed user (or system) attribute of a message.
///
/// `BinaryValue` travels as base64 in both protocols; here it is held decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct MessageAttributeValue {
    /// `String`, `Number` or `Binary`, optionally with a `.custom` suffix.
    pub data_type: String,
    /// The value of `String`/`Number` attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_value: Option<String>,
    /// The decoded bytes of `Binary` attributes.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::model::base64_opt"
    )]
    pub binary_value: Option<Vec<u8>>,
    /// Reserved by SQS ("not implemented"); accepted and ignored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub string_list_values: Vec<String>,
    /// Reserved by SQS ("not implemented"); accepted and ignored.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "crate::model::base64_vec"
    )]
    pub binary_list_values: Vec<Vec<u8>>,
}

/// Message attributes by name; a sorted map so iteration (and so the MD5) is in name order.
pub type MessageAttributes = SortedMap<String, MessageAttributeValue>;

/// Serde helpers: `Option<Vec<u8>>` as an optional base64 string.
pub mod base64_opt {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as standard base64.
    pub fn serialize<S: Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(bytes) => {
                s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
            }
            None => s.serialize_none(),
        }
    }

    /// Deserialize from standard base64; malformed base64 is a serialization error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let s: Option<String> = Option::deserialize(d)?;
        s.map(|s| {
            base64::engine::general_purpose::STANDARD
                .decode(s.as_bytes())
                .map_err(serde::de::Error::custom)
        })
        .transpose()
    }
}

/// Serde helpers: `Vec<Vec<u8>>` as a list of base64 strings.
pub mod base64_vec {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as a list of standard base64 strings.
    pub fn serialize<S: Serializer>(v: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        let b64 = &base64::engine::general_purpose::STANDARD;
        s.collect_seq(v.iter().map(|b| b64.encode(b)))
    }

    /// Deserialize from a list of standard base64 strings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let v: Vec<String> = Vec::deserialize(d)?;
        v.iter()
            .map(|s| {
                base64::engine::general_purpose::STANDARD
                    .decode(s.as_bytes())
                    .map_err(serde::de::Error::custom)
            })
            .collect()
    }
}
