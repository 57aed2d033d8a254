//! Query-protocol requests: flattened form parameters converted into the action's JSON parameters.

use super::shapes::{Action, In, InMember};
use crate::error::{invalid_value, SqsError};
use crate::maps::SortedMap;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Form parameters by name. A repeated name keeps its last value.
pub type Params = SortedMap<String, String>;

/// Decode `application/x-www-form-urlencoded` text (also the URL query string) into `params`.
pub fn parse_form_into(params: &mut Params, text: &[u8]) {
    params.extend_bulk(form_urlencoded::parse(text).map(|(k, v)| (k.into_owned(), v.into_owned())));
}

/// The entries `<prefix>.<N>.<rest>` (or `<prefix>.<N>` when `rest` is empty), grouped by `N` in
/// numeric order. Non-numeric or zero indices are not part of the collection.
///
/// Grouped through a set of `(N, position)` pairs, the B-tree type the engine's indexes use,
/// rather than maps of their own: each distinct B-tree type costs kilobytes of wasm (issue #3).
fn indexed<'a>(params: &'a Params, prefix: &str) -> Vec<(u32, Entry<'a>)> {
    let mut fields: Vec<(&str, &str)> = Vec::new();
    let mut order: BTreeSet<(u64, u64)> = BTreeSet::new();
    let dotted = format!("{prefix}.");
    for (k, v) in params.range_from(dotted.as_str()) {
        let Some(tail) = k.strip_prefix(&dotted) else {
            break;
        };
        let (index, rest) = tail.split_once('.').unwrap_or((tail, ""));
        let Ok(n) = index.parse::<u32>() else {
            continue;
        };
        if n == 0 || !index.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        order.insert((u64::from(n), fields.len() as u64));
        fields.push((rest, v.as_str()));
    }
    let mut out: Vec<(u32, Entry)> = Vec::new();
    for (n, i) in order {
        let (Ok(n), Some(&field)) = (u32::try_from(n), fields.get(i as usize)) else {
            continue;
        };
        match out.last_mut() {
            Some((last, entry)) if *last == n => entry.0.push(field),
            _ => out.push((n, Entry(vec![field]))),
        }
    }
    out
}

/// The fields of one indexed entry (`rest` → value), in the order of their keys.
struct Entry<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Entry<'a> {
    /// The value of `field`: the last one, as a map would keep, when indices that differ only in
    /// leading zeros (`1`, `01`) repeat it.
    fn get(&self, field: &str) -> Option<&'a str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| *k == field)
            .map(|(_, v)| *v)
    }
}

/// A sub-view of `params`: every `<prefix>.<rest>` as `rest`.
fn sub_params(entry: &Entry) -> Params {
    entry
        .0
        .iter()
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn int(value: &str, name: &str) -> Result<Value, SqsError> {
    // AWS's Query front end rejects a non-numeric integer before the action runs; the exact text
    // was not recorded, so the standard InvalidParameterValue wording is used.
    value
        .parse::<i64>()
        .map(Value::from)
        .map_err(|_| invalid_value(value, name, "Must be an integer."))
}

fn required<'a>(entry: &Entry<'a>, field: &str, prefix: &str, n: u32) -> Result<&'a str, SqsError> {
    entry
        .get(field)
        .ok_or_else(|| SqsError::MissingParameter(format!("{prefix}.{n}.{field}")))
}

fn message_attribute(entry: &Entry) -> Value {
    let mut attr = Map::new();
    for (field, json) in [
        ("Value.DataType", "DataType"),
        ("Value.StringValue", "StringValue"),
        ("Value.BinaryValue", "BinaryValue"),
    ] {
        if let Some(v) = entry.get(field) {
            attr.insert(json.into(), Value::from(v));
        }
    }
    let params = sub_params(entry);
    for (prefix, json) in [
        ("Value.StringListValue", "StringListValues"),
        ("Value.BinaryListValue", "BinaryListValues"),
    ] {
        let list: Vec<Value> = indexed(&params, prefix)
            .iter()
            .filter_map(|(_, e)| e.get("").map(Value::from))
            .collect();
        if !list.is_empty() {
            attr.insert(json.into(), Value::Array(list));
        }
    }
    Value::Object(attr)
}

/// Convert the members of one structure (an action's input or a batch entry).
fn structure(params: &Params, members: &[InMember]) -> Result<Map<String, Value>, SqsError> {
    let mut out = Map::new();
    for m in members {
        let value = match m.kind {
            In::Str => params.get(m.query).map(|v| Value::from(v.as_str())),
            In::Int => params.get(m.query).map(|v| int(v, m.query)).transpose()?,
            In::List => {
                let items: Vec<Value> = indexed(params, m.query)
                    .iter()
                    .filter_map(|(_, e)| e.get("").map(Value::from))
                    .collect();
                (!items.is_empty()).then_some(Value::Array(items))
            }
            In::Map { key, value } => {
                let mut map = Map::new();
                for (n, e) in indexed(params, m.query) {
                    let k = required(&e, key, m.query, n)?;
                    let v = required(&e, value, m.query, n)?;
                    map.insert(k.to_string(), Value::from(v));
                }
                (!map.is_empty()).then_some(Value::Object(map))
            }
            In::MessageAttributes => {
                let mut map = Map::new();
                for (n, e) in indexed(params, m.query) {
                    let k = required(&e, "Name", m.query, n)?;
                    map.insert(k.to_string(), message_attribute(&e));
                }
                (!map.is_empty()).then_some(Value::Object(map))
            }
            In::Entries(inner) => {
                let mut list = Vec::new();
                for (_, e) in indexed(params, m.query) {
                    list.push(Value::Object(structure(&sub_params(&e), inner)?));
                }
                // A Query batch without entries becomes an empty list, so the engine answers
                // EmptyBatchRequest (spec §4.9: 0 entries) rather than MissingParameter.
                Some(Value::Array(list))
            }
        };
        if let Some(v) = value {
            out.insert(m.json.to_string(), v);
        }
    }
    Ok(out)
}

/// The JSON parameters of `action` from its Query parameters. `queue_url` (derived from the
/// request path) fills `QueueUrl` when the action takes one and the request did not name it.
pub fn to_json(
    action: &Action,
    params: &Params,
    queue_url: Option<String>,
) -> Result<Value, SqsError> {
    let mut obj = structure(params, action.input)?;
    let takes_url = action.input.iter().any(|m| m.json == "QueueUrl");
    if let (true, Some(url)) = (takes_url, queue_url) {
        obj.entry("QueueUrl").or_insert(Value::from(url));
    }
    Ok(Value::Object(obj))
}

#[cfg(test)]
mod tests {
    use super::super::shapes::action;
    use super::*;
    use serde_json::json;

    fn convert(name: &str, form: &str) -> Result<Value, SqsError> {
        let mut p = Params::new();
        parse_form_into(&mut p, form.as_bytes());
        to_json(action(name).expect("action"), &p, None)
    }

    #[test]
    fn scalars_and_integers() {
        assert_eq!(
            convert(
                "ReceiveMessage",
                "QueueUrl=http%3A%2F%2Fh%2F1%2Fq&MaxNumberOfMessages=10&WaitTimeSeconds=-1&VisibilityTimeout=0\
                 &ReceiveRequestAttemptId=a+b&Unknown=x"
            )
            .unwrap(),
            json!({"QueueUrl": "http://h/1/q", "MaxNumberOfMessages": 10, "WaitTimeSeconds": -1,
                   "VisibilityTimeout": 0, "ReceiveRequestAttemptId": "a b"})
        );
        assert_eq!(
            convert("ListQueues", "MaxResults=5&QueueNamePrefix=p&NextToken=t").unwrap(),
            json!({"MaxResults": 5, "QueueNamePrefix": "p", "NextToken": "t"})
        );
        assert_eq!(
            convert(
                "StartMessageMoveTask",
                "SourceArn=s&MaxNumberOfMessagesPerSecond=50"
            )
            .unwrap(),
            json!({"SourceArn": "s", "MaxNumberOfMessagesPerSecond": 50})
        );
        assert_eq!(
            convert("SendMessage", "DelaySeconds=5&MessageBody=").unwrap(),
            json!({"DelaySeconds": 5, "MessageBody": ""})
        );
    }

    #[test]
    fn non_integer_is_invalid_parameter_value() {
        let err = convert("ReceiveMessage", "MaxNumberOfMessages=ten").unwrap_err();
        assert_eq!(
            err,
            SqsError::InvalidParameterValue(
                "Value ten for parameter MaxNumberOfMessages is invalid. Reason: Must be an integer."
                    .into()
            )
        );
        assert!(convert("ChangeMessageVisibility", "VisibilityTimeout=1.5").is_err());
        assert!(convert("ListQueues", "MaxResults=99999999999999999999").is_err());
        // The integer grammar is the text as sent: no spaces (a form's `+` or `%20`), no
        // other bases, nothing after the digits; a sign is part of an integer.
        for bad in ["+5+", "%205", "5%20", "0x5", "5e0", "", "5.0"] {
            let form = format!("MaxNumberOfMessages={bad}");
            assert!(convert("ReceiveMessage", &form).is_err(), "{bad:?}");
        }
        assert_eq!(
            convert(
                "ReceiveMessage",
                "MaxNumberOfMessages=-0&VisibilityTimeout=%2B7"
            )
            .unwrap(),
            json!({"MaxNumberOfMessages": 0, "VisibilityTimeout": 7})
        );
    }

    #[test]
    fn flattened_lists_in_index_order() {
        assert_eq!(
            convert(
                "ReceiveMessage",
                "AttributeName.2=SentTimestamp&AttributeName.1=All&AttributeName.10=X\
                 &MessageAttributeName.1=a&MessageSystemAttributeName.1=SenderId&AttributeName.x=bad"
            )
            .unwrap(),
            json!({"AttributeNames": ["All", "SentTimestamp", "X"], "MessageAttributeNames": ["a"],
                   "MessageSystemAttributeNames": ["SenderId"]})
        );
        assert_eq!(
            convert("GetQueueAttributes", "AttributeName.1=All").unwrap(),
            json!({"AttributeNames": ["All"]})
        );
        // Indices equal but for leading zeros are one entry; the later key ("1" after "01")
        // wins, within entries as for list items.
        assert_eq!(
            convert(
                "GetQueueAttributes",
                "AttributeName.1=B&AttributeName.01=A&AttributeName.2=C"
            )
            .unwrap(),
            json!({"AttributeNames": ["B", "C"]})
        );
        assert_eq!(
            convert(
                "TagQueue",
                "Tag.01.Key=k&Tag.1.Value=v1&Tag.01.Value=v0&Tag.2.Key=j&Tag.2.Value=w"
            )
            .unwrap(),
            json!({"Tags": {"k": "v1", "j": "w"}})
        );
        assert_eq!(
            convert("UntagQueue", "TagKey.1=a&TagKey.2=b").unwrap(),
            json!({"TagKeys": ["a", "b"]})
        );
        assert_eq!(
            convert(
                "AddPermission",
                "Label=l&AWSAccountId.1=111&AWSAccountId.2=222&ActionName.1=SendMessage"
            )
            .unwrap(),
            json!({"Label": "l", "AWSAccountIds": ["111", "222"], "Actions": ["SendMessage"]})
        );
    }

    #[test]
    fn maps() {
        assert_eq!(
            convert(
                "CreateQueue",
                "QueueName=q&Attribute.1.Name=FifoQueue&Attribute.1.Value=true\
                 &Attribute.2.Name=DelaySeconds&Attribute.2.Value=5&Tag.1.Key=team&Tag.1.Value="
            )
            .unwrap(),
            json!({"QueueName": "q", "Attributes": {"FifoQueue": "true", "DelaySeconds": "5"},
                   "tags": {"team": ""}})
        );
        assert_eq!(
            convert("TagQueue", "Tag.1.Key=a&Tag.1.Value=b").unwrap(),
            json!({"Tags": {"a": "b"}})
        );
        assert_eq!(
            convert(
                "SetQueueAttributes",
                "Attribute.1.Name=Policy&Attribute.1.Value="
            )
            .unwrap(),
            json!({"Attributes": {"Policy": ""}})
        );
        assert_eq!(
            convert("TagQueue", "Tag.1.Key=a").unwrap_err(),
            SqsError::MissingParameter("Tag.1.Value".into())
        );
        assert_eq!(
            convert("SetQueueAttributes", "Attribute.3.Value=1").unwrap_err(),
            SqsError::MissingParameter("Attribute.3.Name".into())
        );
    }

    #[test]
    fn message_attributes_and_system_attributes() {
        assert_eq!(
            convert(
                "SendMessage",
                "MessageBody=hi&MessageAttribute.1.Name=s&MessageAttribute.1.Value.DataType=String\
                 &MessageAttribute.1.Value.StringValue=x&MessageAttribute.2.Name=b\
                 &MessageAttribute.2.Value.DataType=Binary&MessageAttribute.2.Value.BinaryValue=AAE%3D\
                 &MessageAttribute.3.Name=l&MessageAttribute.3.Value.DataType=String\
                 &MessageAttribute.3.Value.StringListValue.1=p&MessageAttribute.3.Value.StringListValue.2=q\
                 &MessageSystemAttribute.1.Name=AWSTraceHeader&MessageSystemAttribute.1.Value.DataType=String\
                 &MessageSystemAttribute.1.Value.StringValue=Root%3D1"
            )
            .unwrap(),
            json!({"MessageBody": "hi",
                   "MessageAttributes": {
                       "s": {"DataType": "String", "StringValue": "x"},
                       "b": {"DataType": "Binary", "BinaryValue": "AAE="},
                       "l": {"DataType": "String", "StringListValues": ["p", "q"]}},
                   "MessageSystemAttributes": {
                       "AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1"}}})
        );
        assert_eq!(
            convert("SendMessage", "MessageAttribute.1.Value.DataType=String").unwrap_err(),
            SqsError::MissingParameter("MessageAttribute.1.Name".into())
        );
    }

    #[test]
    fn batch_entries() {
        assert_eq!(
            convert(
                "SendMessageBatch",
                "SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=x\
                 &SendMessageBatchRequestEntry.1.DelaySeconds=3\
                 &SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=k\
                 &SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType=Number\
                 &SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue=1\
                 &SendMessageBatchRequestEntry.2.Id=b&SendMessageBatchRequestEntry.2.MessageBody=y\
                 &SendMessageBatchRequestEntry.2.MessageGroupId=g\
                 &SendMessageBatchRequestEntry.2.MessageDeduplicationId=d"
            )
            .unwrap(),
            json!({"Entries": [
                {"Id": "a", "MessageBody": "x", "DelaySeconds": 3,
                 "MessageAttributes": {"k": {"DataType": "Number", "StringValue": "1"}}},
                {"Id": "b", "MessageBody": "y", "MessageGroupId": "g", "MessageDeduplicationId": "d"}]})
        );
        assert_eq!(
            convert(
                "DeleteMessageBatch",
                "DeleteMessageBatchRequestEntry.1.Id=a&DeleteMessageBatchRequestEntry.1.ReceiptHandle=r"
            )
            .unwrap(),
            json!({"Entries": [{"Id": "a", "ReceiptHandle": "r"}]})
        );
        assert_eq!(
            convert(
                "ChangeMessageVisibilityBatch",
                "ChangeMessageVisibilityBatchRequestEntry.1.Id=a\
                 &ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle=r\
                 &ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout=60"
            )
            .unwrap(),
            json!({"Entries": [{"Id": "a", "ReceiptHandle": "r", "VisibilityTimeout": 60}]})
        );
        assert_eq!(
            convert("DeleteMessageBatch", "").unwrap(),
            json!({"Entries": []})
        );
        assert!(convert(
            "ChangeMessageVisibilityBatch",
            "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout=x"
        )
        .is_err());
    }

    #[test]
    fn queue_url_from_path_only_when_absent() {
        let a = action("PurgeQueue").expect("action");
        let p = Params::new();
        assert_eq!(
            to_json(a, &p, Some("http://h/1/q".into())).unwrap(),
            json!({"QueueUrl": "http://h/1/q"})
        );
        let mut p = Params::new();
        p.insert("QueueUrl".into(), "given".into());
        assert_eq!(
            to_json(a, &p, Some("http://h/1/q".into())).unwrap(),
            json!({"QueueUrl": "given"})
        );
        let create = action("CreateQueue").expect("action");
        assert_eq!(
            to_json(create, &Params::new(), Some("u".into())).unwrap(),
            json!({})
        );
    }
}
