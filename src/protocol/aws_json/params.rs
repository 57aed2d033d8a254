//! Reading AWS JSON 1.0 parameters by hand.
//!
//! Requests are read through these few non-generic accessors rather than a derived
//! `Deserialize` per request type: each derive instantiates a visitor for every deserializer it
//! meets, and in the wasm package that code was most of the binary. A member of the wrong JSON
//! type is a `SerializationException`, as AWS's JSON protocol reports it.

use crate::error::SqsError;
use crate::maps::SortedMap;
use crate::model::{MessageAttributeValue, MessageAttributes};
use base64::Engine as _;
use serde_json::{Map, Value};

/// The parameters of one call.
#[derive(Clone, Copy)]
pub(crate) struct Params<'a>(pub(crate) &'a Map<String, Value>);

fn wrong_type(key: &str, expected: &str) -> SqsError {
    SqsError::Serialization(format!("Member {key} must be {expected}."))
}

fn as_str<'v>(v: &'v Value, key: &str) -> Result<&'v str, SqsError> {
    v.as_str().ok_or_else(|| wrong_type(key, "a string"))
}

fn as_map<'v>(v: &'v Value, key: &str) -> Result<&'v Map<String, Value>, SqsError> {
    v.as_object().ok_or_else(|| wrong_type(key, "an object"))
}

impl<'a> Params<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    pub(crate) fn str(&self, key: &str) -> Result<Option<String>, SqsError> {
        self.get(key)
            .map(|v| as_str(v, key).map(str::to_string))
            .transpose()
    }

    pub(crate) fn int(&self, key: &str) -> Result<Option<i64>, SqsError> {
        self.get(key)
            .map(|v| v.as_i64().ok_or_else(|| wrong_type(key, "an integer")))
            .transpose()
    }

    pub(crate) fn str_list(&self, key: &str) -> Result<Option<Vec<String>>, SqsError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let items = v.as_array().ok_or_else(|| wrong_type(key, "a list"))?;
        items
            .iter()
            .map(|i| as_str(i, key).map(str::to_string))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    pub(crate) fn str_map(&self, key: &str) -> Result<Option<SortedMap<String, String>>, SqsError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        as_map(v, key)?
            .iter()
            .map(|(k, v)| as_str(v, key).map(|s| (k.clone(), s.to_string())))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// A list of structures (batch entries).
    pub(crate) fn entries(&self, key: &str) -> Result<Option<Vec<Params<'a>>>, SqsError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let items = v.as_array().ok_or_else(|| wrong_type(key, "a list"))?;
        items
            .iter()
            .map(|i| as_map(i, key).map(Params))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// A `MessageAttributeValue` map (BinaryValue as base64).
    pub(crate) fn attributes(&self, key: &str) -> Result<Option<MessageAttributes>, SqsError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let b64 = &base64::engine::general_purpose::STANDARD;
        let decode = |s: &str| {
            b64.decode(s.as_bytes())
                .map_err(|_| wrong_type(key, "base64-encoded binary"))
        };
        let mut out = MessageAttributes::new();
        for (name, value) in as_map(v, key)? {
            let p = Params(as_map(value, key)?);
            let binary_list = p
                .str_list("BinaryListValues")?
                .unwrap_or_default()
                .iter()
                .map(|s| decode(s))
                .collect::<Result<_, _>>()?;
            out.insert(
                name.clone(),
                MessageAttributeValue {
                    data_type: p.str("DataType")?.unwrap_or_default(),
                    string_value: p.str("StringValue")?,
                    binary_value: p.str("BinaryValue")?.map(|s| decode(&s)).transpose()?,
                    string_list_values: p.str_list("StringListValues")?.unwrap_or_default(),
                    binary_list_values: binary_list,
                },
            );
        }
        Ok(Some(out))
    }
}

/// A request read from parameters.
pub(crate) trait FromParams: Sized {
    fn from_params(p: Params<'_>) -> Result<Self, SqsError>;
}

/// Read an action's request from its JSON parameters (an object; checked by the caller).
pub(crate) fn parse<T: FromParams>(params: &Map<String, Value>) -> Result<T, SqsError> {
    T::from_params(Params(params))
}
