//! The JSON of records, written and read by hand rather than through serde derives.
//!
//! The package ships every byte of wasm, and derived `Serialize`/`Deserialize` on the record
//! types cost tens of KB (one serializer, deserializer, visitor and `Option<T>` reader per type
//! and field type, plus float formatting for serde's error messages). Writing appends to one
//! buffer through the crate's JSON writer (`json_text`, shared with the AWS JSON responses);
//! reading goes through `serde_json::Value`, whose parser the protocol layer needs anyway.
//! The format is exactly what the derives produced (field names, order, omitted fields), so
//! stores written before stay readable and new ones are byte-for-byte the same.

use super::super::attributes::{QueueAttributes, RedriveAllowPolicy, RedrivePolicy};
use super::super::message::{MessageExtra, MessageState};
use super::super::move_tasks::MoveTask;
use super::super::queue::Attempt;
use crate::json_text::{string, Obj};
use crate::model::{MessageAttributeValue, MessageAttributes};
use base64::Engine as _;
use serde_json::{Map, Value};

/// A value written into a fresh buffer by `write` (the nested parts of a record).
fn json(write: impl FnOnce(&mut String)) -> String {
    let mut out = String::new();
    write(&mut out);
    out
}

fn array<I: Iterator<Item = String>>(items: I) -> String {
    let mut out = String::from("[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&item);
    }
    out.push(']');
    out
}

fn str_json(s: &str) -> String {
    json(|out| string(out, s))
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub(super) fn write_attributes(out: &mut String, attrs: &QueueAttributes) {
    let redrive = attrs.redrive_policy.as_ref().map(|r| {
        json(|out| {
            Obj::new(out)
                .str("dead_letter_target_arn", &r.dead_letter_target_arn)
                .u64("max_receive_count", r.max_receive_count.into())
                .end()
        })
    });
    let allow = attrs.redrive_allow_policy.as_ref().map(|r| {
        json(|out| {
            Obj::new(out)
                .str("permission", &r.permission)
                .raw(
                    "source_queue_arns",
                    &array(r.source_queue_arns.iter().map(|a| str_json(a))),
                )
                .end()
        })
    });
    Obj::new(out)
        .bool("fifo", attrs.fifo)
        .u64("delay_seconds", attrs.delay_seconds.into())
        .u64("maximum_message_size", attrs.maximum_message_size.into())
        .u64(
            "message_retention_period",
            attrs.message_retention_period.into(),
        )
        .u64(
            "receive_message_wait_time_seconds",
            attrs.receive_message_wait_time_seconds.into(),
        )
        .u64("visibility_timeout", attrs.visibility_timeout.into())
        .nullable("policy", attrs.policy.as_deref())
        .raw("redrive_policy", redrive.as_deref().unwrap_or("null"))
        .raw("redrive_allow_policy", allow.as_deref().unwrap_or("null"))
        .nullable("kms_master_key_id", attrs.kms_master_key_id.as_deref())
        .nullable_u64(
            "kms_data_key_reuse_period_seconds",
            attrs.kms_data_key_reuse_period_seconds.map(u64::from),
        )
        .bool("sqs_managed_sse_enabled", attrs.sqs_managed_sse_enabled)
        .bool(
            "content_based_deduplication",
            attrs.content_based_deduplication,
        )
        .str("deduplication_scope", &attrs.deduplication_scope)
        .str("fifo_throughput_limit", &attrs.fifo_throughput_limit)
        .end()
}

/// A string-keyed map, in the map's (sorted) order, each value written by `value`.
pub(super) fn write_map<'a, V: 'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'a String, V)>,
    mut value: impl FnMut(&mut String, V),
) {
    let mut o = Obj::new(out);
    for (k, v) in entries {
        value(o.key(k), v);
    }
    o.end();
}

pub(super) fn write_message_attributes(out: &mut String, attrs: &MessageAttributes) {
    write_map(out, attrs.iter(), |out, a| {
        let mut o = Obj::new(out);
        o.str("DataType", &a.data_type);
        if let Some(s) = &a.string_value {
            o.str("StringValue", s);
        }
        if let Some(b) = &a.binary_value {
            o.str("BinaryValue", &b64(b));
        }
        if !a.string_list_values.is_empty() {
            o.raw(
                "StringListValues",
                &array(a.string_list_values.iter().map(|s| str_json(s))),
            );
        }
        if !a.binary_list_values.is_empty() {
            o.raw(
                "BinaryListValues",
                &array(a.binary_list_values.iter().map(|b| str_json(&b64(b)))),
            );
        }
        o.end();
    })
}

pub(super) fn write_extra(out: &mut String, e: &MessageExtra) {
    let mut o = Obj::new(out);
    let fields = [
        ("trace_header", &e.trace_header),
        ("deduplication_id", &e.deduplication_id),
        ("dead_letter_source_arn", &e.dead_letter_source_arn),
        ("sender_id", &e.sender_id),
        ("group_id", &e.group_id),
    ];
    for (key, value) in fields {
        if let Some(v) = value {
            o.str(key, v);
        }
    }
    if e.duplicate_copy {
        o.bool("duplicate_copy", true);
    }
    if let Some(v) = &e.system_attributes_md5 {
        o.str("system_attributes_md5", v);
    }
    o.end();
}

/// A message's attributes as record bytes (the internal transfers carry them too).
pub(in crate::engine) fn message_attributes_json(attrs: &MessageAttributes) -> Vec<u8> {
    json(|out| write_message_attributes(out, attrs)).into_bytes()
}

/// A message's extra fields as record bytes.
pub(in crate::engine) fn extra_json(e: &MessageExtra) -> Vec<u8> {
    json(|out| write_extra(out, e)).into_bytes()
}

pub(super) fn state_name(s: MessageState) -> &'static str {
    match s {
        MessageState::Delayed => "Delayed",
        MessageState::Visible => "Visible",
        MessageState::InFlight => "InFlight",
    }
}

pub(super) fn write_attempt(out: &mut String, a: &Attempt) {
    let deliveries = array(
        a.deliveries
            .iter()
            .map(|(seq, serial)| format!("[{seq},{serial}]")),
    );
    Obj::new(out)
        .u64("expires_at", a.expires_at)
        .raw("deliveries", &deliveries)
        .u64("n", a.n)
        .end()
}

pub(super) fn write_task(out: &mut String, t: &MoveTask) {
    Obj::new(out)
        .u64("id", t.id)
        .str("source_arn", &t.source_arn)
        .nullable("destination_arn", t.destination_arn.as_deref())
        .nullable_u64("rate", t.rate.map(u64::from))
        .str("status", &t.status)
        .u64("moved", t.moved)
        .u64("to_move", t.to_move)
        .u64("started_at", t.started_at)
        .nullable("failure_reason", t.failure_reason.as_deref())
        .u64("stepped_to", t.stepped_to)
        .end()
}

/// The fields of one record object, read with the derives' rules: unknown fields are ignored,
/// a missing `Option` field is `None`, and anything else missing or mistyped is an error.
pub(super) struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    pub(super) fn of(v: &'a Value) -> Result<Self, String> {
        v.as_object()
            .map(Fields)
            .ok_or_else(|| "expected a JSON object".to_string())
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    fn req(&self, key: &str) -> Result<&'a Value, String> {
        self.get(key)
            .ok_or_else(|| format!("missing field `{key}`"))
    }

    pub(super) fn bad(key: &str) -> String {
        format!("invalid value for field `{key}`")
    }

    pub(super) fn opt_u64(&self, key: &str) -> Result<Option<u64>, String> {
        self.get(key)
            .map(|v| v.as_u64().ok_or_else(|| Self::bad(key)))
            .transpose()
    }

    pub(super) fn u64(&self, key: &str) -> Result<u64, String> {
        self.req(key)?.as_u64().ok_or_else(|| Self::bad(key))
    }

    pub(super) fn opt_u32(&self, key: &str) -> Result<Option<u32>, String> {
        self.opt_u64(key)?
            .map(|v| u32::try_from(v).map_err(|_| Self::bad(key)))
            .transpose()
    }

    pub(super) fn u32(&self, key: &str) -> Result<u32, String> {
        self.opt_u32(key)?
            .ok_or_else(|| format!("missing field `{key}`"))
    }

    pub(super) fn bool(&self, key: &str) -> Result<bool, String> {
        self.req(key)?.as_bool().ok_or_else(|| Self::bad(key))
    }

    /// A field the derive defaulted to `false` when absent.
    pub(super) fn bool_or_false(&self, key: &str) -> Result<bool, String> {
        self.get(key)
            .map_or(Ok(false), |v| v.as_bool().ok_or_else(|| Self::bad(key)))
    }

    pub(super) fn opt_string(&self, key: &str) -> Result<Option<String>, String> {
        self.get(key)
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| Self::bad(key)))
            .transpose()
    }

    pub(super) fn string(&self, key: &str) -> Result<String, String> {
        self.opt_string(key)?
            .ok_or_else(|| format!("missing field `{key}`"))
    }

    pub(super) fn opt(&self, key: &str) -> Option<&'a Value> {
        self.get(key)
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, String> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|s| s.as_str().map(str::to_string).ok_or_else(|| Self::bad(key)))
                .collect(),
            Some(_) => Err(Self::bad(key)),
        }
    }
}

fn unb64(key: &str, s: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(s.as_bytes())
        .map_err(|_| format!("invalid base64 in field `{key}`"))
}

pub(super) fn read_attributes(v: &Value) -> Result<QueueAttributes, String> {
    let f = Fields::of(v)?;
    let redrive_policy = match f.opt("redrive_policy") {
        Some(r) => {
            let r = Fields::of(r)?;
            Some(RedrivePolicy {
                dead_letter_target_arn: r.string("dead_letter_target_arn")?,
                max_receive_count: r.u32("max_receive_count")?,
            })
        }
        None => None,
    };
    let redrive_allow_policy = match f.opt("redrive_allow_policy") {
        Some(r) => {
            let r = Fields::of(r)?;
            r.req("source_queue_arns")?;
            Some(RedriveAllowPolicy {
                permission: r.string("permission")?,
                source_queue_arns: r.strings("source_queue_arns")?,
            })
        }
        None => None,
    };
    Ok(QueueAttributes {
        fifo: f.bool("fifo")?,
        delay_seconds: f.u32("delay_seconds")?,
        maximum_message_size: f.u32("maximum_message_size")?,
        message_retention_period: f.u32("message_retention_period")?,
        receive_message_wait_time_seconds: f.u32("receive_message_wait_time_seconds")?,
        visibility_timeout: f.u32("visibility_timeout")?,
        policy: f.opt_string("policy")?,
        redrive_policy,
        redrive_allow_policy,
        kms_master_key_id: f.opt_string("kms_master_key_id")?,
        kms_data_key_reuse_period_seconds: f.opt_u32("kms_data_key_reuse_period_seconds")?,
        sqs_managed_sse_enabled: f.bool("sqs_managed_sse_enabled")?,
        content_based_deduplication: f.bool("content_based_deduplication")?,
        deduplication_scope: f.string("deduplication_scope")?,
        fifo_throughput_limit: f.string("fifo_throughput_limit")?,
    })
}

pub(in crate::engine) fn read_message_attributes(v: &Value) -> Result<MessageAttributes, String> {
    let Value::Object(entries) = v else {
        return Err("attributes: expected a JSON object".into());
    };
    entries
        .iter()
        .map(|(name, a)| {
            let f = Fields::of(a)?;
            let value = MessageAttributeValue {
                data_type: f.string("DataType")?,
                string_value: f.opt_string("StringValue")?,
                binary_value: f
                    .opt_string("BinaryValue")?
                    .map(|s| unb64("BinaryValue", &s))
                    .transpose()?,
                string_list_values: f.strings("StringListValues")?,
                binary_list_values: f
                    .strings("BinaryListValues")?
                    .iter()
                    .map(|s| unb64("BinaryListValues", s))
                    .collect::<Result<_, _>>()?,
            };
            Ok((name.clone(), value))
        })
        .collect()
}

pub(in crate::engine) fn read_extra(v: &Value) -> Result<MessageExtra, String> {
    let f = Fields::of(v)?;
    Ok(MessageExtra {
        trace_header: f.opt_string("trace_header")?.map(Into::into),
        deduplication_id: f.opt_string("deduplication_id")?.map(Into::into),
        dead_letter_source_arn: f.opt_string("dead_letter_source_arn")?.map(Into::into),
        sender_id: f.opt_string("sender_id")?.map(Into::into),
        group_id: f.opt_string("group_id")?.map(Into::into),
        duplicate_copy: f.bool_or_false("duplicate_copy")?,
        system_attributes_md5: f.opt_string("system_attributes_md5")?.map(Into::into),
        id: None,
    })
}

pub(super) fn read_state(f: &Fields) -> Result<MessageState, String> {
    match f.string("state")?.as_str() {
        "Delayed" => Ok(MessageState::Delayed),
        "Visible" => Ok(MessageState::Visible),
        "InFlight" => Ok(MessageState::InFlight),
        _ => Err(Fields::bad("state")),
    }
}

pub(super) fn read_attempt(v: &Value) -> Result<Attempt, String> {
    let f = Fields::of(v)?;
    let Some(Value::Array(items)) = f.opt("deliveries") else {
        return Err(Fields::bad("deliveries"));
    };
    let deliveries = items
        .iter()
        .map(|d| match d.as_array().map(Vec::as_slice) {
            Some([seq, serial]) => seq
                .as_u64()
                .zip(serial.as_u64().and_then(|s| u32::try_from(s).ok()))
                .ok_or_else(|| Fields::bad("deliveries")),
            _ => Err(Fields::bad("deliveries")),
        })
        .collect::<Result<_, _>>()?;
    Ok(Attempt {
        expires_at: f.u64("expires_at")?,
        deliveries,
        n: f.u64("n")?,
    })
}

pub(super) fn read_task(v: &Value) -> Result<MoveTask, String> {
    let f = Fields::of(v)?;
    Ok(MoveTask {
        id: f.u64("id")?,
        source_arn: f.string("source_arn")?,
        destination_arn: f.opt_string("destination_arn")?,
        rate: f.opt_u32("rate")?,
        status: f.string("status")?,
        moved: f.u64("moved")?,
        to_move: f.u64("to_move")?,
        started_at: f.u64("started_at")?,
        failure_reason: f.opt_string("failure_reason")?,
        stepped_to: f.u64("stepped_to")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The records' bytes, as `take_changes` hands them over.
    fn attributes_json(a: &QueueAttributes) -> Vec<u8> {
        json(|out| write_attributes(out, a)).into_bytes()
    }
    fn attempt_json(a: &Attempt) -> Vec<u8> {
        json(|out| write_attempt(out, a)).into_bytes()
    }
    fn task_json(t: &MoveTask) -> Vec<u8> {
        json(|out| write_task(out, t)).into_bytes()
    }

    fn full_attributes() -> QueueAttributes {
        let mut a = QueueAttributes::new(true);
        a.policy = Some("{\"Version\":\"2012-10-17\"}".into());
        a.redrive_policy = Some(RedrivePolicy {
            dead_letter_target_arn: "arn:aws:sqs:us-east-1:000000000000:dlq.fifo".into(),
            max_receive_count: 5,
        });
        a.redrive_allow_policy = Some(RedriveAllowPolicy {
            permission: "byQueue".into(),
            source_queue_arns: vec!["arn:a".into(), "arn:\"b\"".into()],
        });
        a.kms_master_key_id = Some("alias/aws/sqs".into());
        a.kms_data_key_reuse_period_seconds = Some(300);
        a
    }

    // The derives still exist on these types (unused in the wasm, so free there): the hand-written
    // JSON must be byte-for-byte what they wrote, and read back to the same value.
    #[test]
    fn queue_attributes_match_the_derived_format() {
        for attrs in [QueueAttributes::new(false), full_attributes()] {
            let json = attributes_json(&attrs);
            assert_eq!(json, serde_json::to_vec(&attrs).unwrap());
            let back = read_attributes(&serde_json::from_slice(&json).unwrap()).unwrap();
            assert_eq!(back, attrs);
        }
    }

    #[test]
    fn message_parts_match_the_derived_format() {
        let mut attrs = MessageAttributes::new();
        attrs.insert(
            "b\u{e9}".into(),
            MessageAttributeValue {
                data_type: "Binary".into(),
                binary_value: Some(vec![0, 159, 255]),
                binary_list_values: vec![vec![1], vec![]],
                ..Default::default()
            },
        );
        attrs.insert(
            "s".into(),
            MessageAttributeValue {
                data_type: "String.custom".into(),
                string_value: Some("line\nbreak".into()),
                string_list_values: vec!["x".into()],
                ..Default::default()
            },
        );
        let json = message_attributes_json(&attrs);
        assert_eq!(json, serde_json::to_vec(&attrs).unwrap());
        let back = read_message_attributes(&serde_json::from_slice(&json).unwrap()).unwrap();
        assert_eq!(back, attrs);

        let sparse = MessageExtra {
            group_id: Some("g".into()),
            ..Default::default()
        };
        let full = MessageExtra {
            trace_header: Some("Root=1".into()),
            deduplication_id: Some("d".into()),
            dead_letter_source_arn: Some("arn:src".into()),
            sender_id: Some("AIDA".into()),
            group_id: Some("g".into()),
            duplicate_copy: true,
            system_attributes_md5: Some("abc".into()),
            id: None,
        };
        for extra in [MessageExtra::default(), sparse, full] {
            let json = extra_json(&extra);
            assert_eq!(json, serde_json::to_vec(&extra).unwrap());
            assert_eq!(
                read_extra(&serde_json::from_slice(&json).unwrap()).unwrap(),
                extra
            );
        }
    }

    #[test]
    fn attempts_and_tasks_match_the_derived_format() {
        let attempt = Attempt {
            expires_at: 300_000,
            deliveries: vec![(1, 2), (u64::MAX, u32::MAX)],
            n: 7,
        };
        let json = attempt_json(&attempt);
        assert_eq!(json, serde_json::to_vec(&attempt).unwrap());
        let back = read_attempt(&serde_json::from_slice(&json).unwrap()).unwrap();
        assert_eq!(back.deliveries, attempt.deliveries);
        assert_eq!((back.expires_at, back.n), (attempt.expires_at, attempt.n));

        let mut task = MoveTask {
            id: 3,
            source_arn: "arn:src".into(),
            destination_arn: None,
            rate: None,
            status: "RUNNING".into(),
            moved: 10,
            to_move: 20,
            started_at: 1_000,
            failure_reason: None,
            stepped_to: 2_000,
        };
        for _ in 0..2 {
            let json = task_json(&task);
            assert_eq!(json, serde_json::to_vec(&task).unwrap());
            assert_eq!(
                read_task(&serde_json::from_slice(&json).unwrap()).unwrap(),
                task
            );
            task.destination_arn = Some("arn:dst".into());
            task.rate = Some(50);
            task.failure_reason = Some("gone".into());
        }
    }

    #[test]
    fn mistyped_or_missing_fields_are_errors_not_defaults() {
        let read = |text: &str| read_task(&serde_json::from_str(text).unwrap());
        let good = String::from_utf8(task_json(&MoveTask {
            id: 1,
            source_arn: "a".into(),
            destination_arn: None,
            rate: Some(5),
            status: "RUNNING".into(),
            moved: 0,
            to_move: 0,
            started_at: 0,
            failure_reason: None,
            stepped_to: 0,
        }))
        .unwrap();
        assert!(read(&good).is_ok());
        assert!(read(&good.replace("\"moved\":0,", "")).is_err());
        assert!(read(&good.replace("\"moved\":0", "\"moved\":\"0\"")).is_err());
        assert!(read(&good.replace("\"rate\":5", "\"rate\":4294967296")).is_err());
        // A missing Option field reads as None, as the derive did.
        assert_eq!(read(&good.replace("\"rate\":5,", "")).unwrap().rate, None);
        let bad_state = serde_json::json!({"state": "Gone"});
        assert!(read_state(&Fields::of(&bad_state).unwrap()).is_err());
    }
}
