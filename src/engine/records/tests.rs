//! Restore reads a store the current writer produced to the same state through the fast reader
//! (`reader.rs`) and through the general `Value` path it falls back to.

use super::super::journal::RecordKey;
use super::super::{Engine, EngineConfig};
use super::{push_key, reader};
use crate::context::CallContext;
use crate::protocol::aws_json::dispatch;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const NOW: u64 = 1_767_225_600_000;

/// The key text `collect_changes` writes for `key` (no region prefix).
fn key_string(key: &RecordKey) -> String {
    let mut out = String::new();
    push_key(&mut out, key);
    out
}

/// The record `collect_changes` would write for `key` now, or `None` when its entity is gone.
fn record_value(e: &Engine, key: &RecordKey) -> Option<Vec<u8>> {
    let mut out = String::new();
    e.write_record(key, &mut out).map(|()| out.into_bytes())
}

/// The key `key_string` wrote, back to what it names.
fn key_of(key: &str) -> RecordKey {
    let mut parts = key.split('/');
    let (kind, a, b) = (parts.next(), parts.next(), parts.next());
    let hex = |s: Option<&str>| u64::from_str_radix(s.unwrap_or_default(), 16).unwrap();
    let k = match kind {
        Some("meta") => RecordKey::Meta,
        Some("q") => RecordKey::Queue(hex(a)),
        Some("m") => RecordKey::Content(hex(a), hex(b)),
        Some("s") => RecordKey::State(hex(a), hex(b)),
        Some("d") => RecordKey::Dedup(hex(a), hex(b)),
        Some("a") => RecordKey::Attempt(hex(a), hex(b)),
        Some("x") => RecordKey::Deleted(a.unwrap().to_string()),
        Some("t") => RecordKey::Task(hex(a)),
        _ => panic!("unknown key {key}"),
    };
    assert_eq!(key_string(&k), key, "key round trip");
    k
}

/// A message to send: body, an optional string and binary attribute, FIFO group, delay (or, for
/// a FIFO message, a visibility change after receiving), and whether it is received (in flight)
/// before the store is taken.
#[derive(Debug, Clone)]
pub(super) struct Msg {
    pub(super) body: String,
    pub(super) text_attr: Option<String>,
    pub(super) binary_attr: Option<Vec<u8>>,
    pub(super) group: String,
    pub(super) delay: bool,
    pub(super) receive: bool,
}

pub(super) fn call(e: &mut Engine, action: &str, params: Value) -> Value {
    dispatch(e, NOW, &CallContext::default(), action, params)
        .unwrap_or_else(|err| panic!("{action}: {err:?}"))
}

/// The records of an engine that ran `msgs` through a standard and a FIFO queue.
pub(super) fn store_of(msgs: &[Msg]) -> BTreeMap<String, Vec<u8>> {
    let mut e = Engine::new(EngineConfig {
        seed: 7,
        ..EngineConfig::default()
    });
    let std_url = call(&mut e, "CreateQueue", json!({"QueueName": "s"}))["QueueUrl"].clone();
    let fifo_url = call(
        &mut e,
        "CreateQueue",
        json!({"QueueName": "f.fifo", "Attributes": {"FifoQueue": "true"}}),
    )["QueueUrl"]
        .clone();
    for (i, m) in msgs.iter().enumerate() {
        let mut attrs = serde_json::Map::new();
        if let Some(t) = &m.text_attr {
            attrs.insert("t".into(), json!({"DataType": "String", "StringValue": t}));
        }
        if let Some(b) = &m.binary_attr {
            let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, b);
            attrs.insert(
                "b".into(),
                json!({"DataType": "Binary", "BinaryValue": b64}),
            );
        }
        let mut p = json!({"MessageBody": m.body, "MessageAttributes": attrs});
        if i % 2 == 0 {
            p["QueueUrl"] = std_url.clone();
            if m.delay {
                p["DelaySeconds"] = json!(5);
            }
        } else {
            p["QueueUrl"] = fifo_url.clone();
            p["MessageGroupId"] = json!(m.group);
            // With the group's characters, so that some keys have JSON escapes.
            p["MessageDeduplicationId"] = json!(format!("d{i}{}", m.group));
        }
        call(&mut e, "SendMessage", p);
        if m.receive {
            let url = if i % 2 == 0 { &std_url } else { &fifo_url };
            let mut p = json!({"QueueUrl": url, "MaxNumberOfMessages": 10});
            if i % 2 == 1 {
                p["ReceiveRequestAttemptId"] = json!(format!("r{i}"));
            }
            let got = call(&mut e, "ReceiveMessage", p.clone());
            for handle in got["Messages"].as_array().into_iter().flatten() {
                if m.delay {
                    // Sets `visibility_changed`, the state record's one flag.
                    p["ReceiptHandle"] = handle["ReceiptHandle"].clone();
                    p["VisibilityTimeout"] = json!(40);
                    call(&mut e, "ChangeMessageVisibility", p.clone());
                }
            }
        }
    }
    let changes = e.take_changes();
    let mut store = BTreeMap::new();
    store.extend(changes.put);
    for k in changes.del {
        store.remove(&k);
    }
    store
}

/// Restore `records`, then check the engine writes every record of `expected` back unchanged.
fn restores_to(records: &[(String, Vec<u8>)], expected: &BTreeMap<String, Vec<u8>>) {
    let config = EngineConfig::default();
    let e = Engine::restore(
        config,
        records.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
    )
    .unwrap_or_else(|err| panic!("restore: {err}"));
    for (key, value) in expected {
        let again = record_value(&e, &key_of(key));
        assert_eq!(
            again.as_deref().map(String::from_utf8_lossy),
            Some(String::from_utf8_lossy(value)),
            "record {key}"
        );
        if key.starts_with("m/") {
            // A message stored without a state record is restored to the state that has none.
            let state = state_key(key);
            let again = record_value(&e, &key_of(&state));
            assert_eq!(again, expected.get(&state).cloned(), "record {state}");
        }
    }
}

/// The records the fast reader reads: a message's content and state, and FIFO deduplication.
fn is_reader_record(key: &str) -> bool {
    key.starts_with("m/") || key.starts_with("s/") || key.starts_with("d/")
}

fn taken_by_reader(key: &str, value: &[u8]) -> bool {
    let text = std::str::from_utf8(value).unwrap();
    if key.starts_with("m/") {
        reader::content(text).is_some()
    } else if key.starts_with("d/") {
        reader::dedup(text).is_some()
    } else {
        reader::state(text).is_some()
    }
}

/// The same store in forms the fast reader refuses but JSON reads the same: a space after the
/// opening brace, or every object's fields re-ordered (sorted by `Value`'s map).
fn variants(store: &BTreeMap<String, Vec<u8>>) -> [Vec<(String, Vec<u8>)>; 2] {
    let spaced = |v: &Vec<u8>| [b"{ ".as_slice(), v.get(1..).unwrap()].concat();
    let resorted =
        |v: &Vec<u8>| serde_json::to_vec(&serde_json::from_slice::<Value>(v).unwrap()).unwrap();
    let mut out = [Vec::new(), Vec::new()];
    for (k, v) in store {
        let odd = is_reader_record(k);
        out[0].push((k.clone(), if odd { spaced(v) } else { v.clone() }));
        out[1].push((k.clone(), if odd { resorted(v) } else { v.clone() }));
    }
    out
}

/// The state record a format 1 build wrote for a message that format 2 stores none for.
const UNSTARTED_V1: &str = r#"{"state":"Visible","deadline":0,"receive_count":0,"serial":0,"first_receive_at":0,"received_at":0,"visibility_changed":false}"#;

/// The key of the state record of the message whose content record is `content_key`.
fn state_key(content_key: &str) -> String {
    format!("s{}", content_key.strip_prefix('m').unwrap())
}

/// The same store as a format 1 build wrote it: content records without `md5`, a state record
/// for every message, meta at version 1 (the only differences between the two writers).
fn as_version_1(store: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    let meta = format!(r#"{{"v":{},"#, super::FORMAT_VERSION);
    let unstarted = store
        .keys()
        .filter(|k| k.starts_with("m/") && !store.contains_key(&state_key(k)))
        .map(|k| (state_key(k), UNSTARTED_V1.as_bytes().to_vec()));
    store
        .iter()
        .map(|(k, v)| {
            let text = String::from_utf8(v.clone()).unwrap();
            let old = if k == "meta" {
                assert!(text.starts_with(&meta), "{text}");
                text.replacen(&meta, r#"{"v":1,"#, 1)
            } else if k.starts_with("m/") {
                let at = text
                    .find(r#","md5":""#)
                    .expect("content record without md5");
                let end = at + r#","md5":""#.len() + 33;
                assert_eq!(text.as_bytes()[end - 1], b'"', "{text}");
                format!("{}{}", &text[..at], &text[end..])
            } else {
                text
            };
            (k.clone(), old.into_bytes())
        })
        .chain(unstarted)
        .collect()
}

fn body() -> impl Strategy<Value = String> {
    // What SQS accepts in a body, weighted towards JSON's special characters.
    prop_oneof![
        "[\t\n\r -\u{D7FF}\u{E000}-\u{FFFD}\u{10000}-\u{10FFFF}]{1,40}",
        "[a\"\\\\/\n\t\ré😀]{1,12}",
    ]
}

fn msg() -> impl Strategy<Value = Msg> {
    (
        body(),
        proptest::option::of("[ -~é\"\\\\]{1,10}"),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 1..8)),
        "[a-zA-Z0-9!\"#\\\\_-]{1,8}",
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(body, text_attr, binary_attr, group, delay, receive)| Msg {
                body,
                text_attr,
                binary_attr,
                group,
                delay,
                receive,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_store_restores_identically_through_the_reader_and_the_fallback(
        msgs in proptest::collection::vec(msg(), 2..12)
    ) {
        let store = store_of(&msgs);
        prop_assert!(store.keys().any(|k| k.starts_with("m/")));
        prop_assert!(store.keys().any(|k| k.starts_with("d/")));
        // Every message and deduplication record the writer made is one the fast reader takes,
        // but for messages with attributes, which it leaves to the general path.
        for (k, v) in store.iter().filter(|(k, _)| is_reader_record(k)) {
            let with_attributes = String::from_utf8_lossy(v).contains(r#","attributes":{"#);
            prop_assert!(
                taken_by_reader(k, v) != with_attributes,
                "reader refused {} {}", k, String::from_utf8_lossy(v)
            );
        }
        let mut records: Vec<(String, Vec<u8>)> = store.clone().into_iter().collect();
        restores_to(&records, &store);
        // Records in another order than the sorted one adapters return them in.
        records.reverse();
        restores_to(&records, &store);
        for variant in variants(&store) {
            for (k, v) in variant.iter().filter(|(k, _)| is_reader_record(k)) {
                prop_assert!(!taken_by_reader(k, v), "reader took {} {}", k, String::from_utf8_lossy(v));
            }
            restores_to(&variant, &store);
        }
        // A version 1 store (no MD5s kept) restores to the same engine, through the reader and
        // through the fallback: every MD5 recomputed is the one the current writer stored.
        let v1 = as_version_1(&store);
        for (k, v) in v1.iter().filter(|(k, _)| is_reader_record(k)) {
            let with_attributes = String::from_utf8_lossy(v).contains(r#","attributes":{"#);
            prop_assert!(taken_by_reader(k, v) != with_attributes, "reader refused {}", k);
        }
        restores_to(&v1.clone().into_iter().collect::<Vec<_>>(), &store);
        for variant in variants(&v1) {
            restores_to(&variant, &store);
        }
    }
}

/// A one-message store from the current writer.
pub(super) fn one_message_store() -> BTreeMap<String, Vec<u8>> {
    store_of(&[Msg {
        body: "hello".into(),
        text_attr: None,
        binary_attr: None,
        group: "g".into(),
        delay: false,
        receive: false,
    }])
}

pub(super) fn restore_err(store: &BTreeMap<String, Vec<u8>>) -> Option<super::RestoreError> {
    Engine::restore(
        EngineConfig::default(),
        store.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
    )
    .err()
}

#[test]
fn a_store_of_a_newer_format_is_refused_with_its_version() {
    let mut store = one_message_store();
    let meta = String::from_utf8(store["meta"].clone()).unwrap();
    let newer = super::FORMAT_VERSION + 1;
    let prefix = format!(r#"{{"v":{},"#, super::FORMAT_VERSION);
    store.insert(
        "meta".into(),
        meta.replacen(&prefix, &format!(r#"{{"v":{newer},"#), 1)
            .into_bytes(),
    );
    let err = restore_err(&store).expect("a newer store restored");
    assert_eq!(
        err,
        super::RestoreError::UnsupportedVersion {
            found: newer,
            supported: super::FORMAT_VERSION,
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "this store has format version {newer}, newer than this build of wasq reads ({}); \
             upgrade wasq to open it",
            super::FORMAT_VERSION
        )
    );
    // Version 1 is older, so it is read (the proptest checks it reads the same).
    assert!(restore_err(&as_version_1(&one_message_store())).is_none());
}

/// Only a format 2 store may leave a message's state record out, and no store may have a state
/// record without its message.
#[test]
fn state_records_pair_up_with_their_messages() {
    let store = one_message_store();
    let content = store.keys().find(|k| k.starts_with("m/")).unwrap().clone();
    assert!(
        !store.contains_key(&state_key(&content)),
        "an unstarted message has no state"
    );
    assert!(restore_err(&store).is_none());
    let unpaired = Some(super::RestoreError::Corrupt(
        "message content and state records do not pair up".into(),
    ));
    let mut v1 = as_version_1(&store);
    assert!(restore_err(&v1).is_none());
    v1.remove(&state_key(&content));
    assert_eq!(restore_err(&v1), unpaired);
    for other in [
        "s/0000000000000001/0000000000000000",
        "s/0000000000000fff/0000000000000fff",
    ] {
        let mut orphan = store.clone();
        orphan.insert(other.into(), UNSTARTED_V1.as_bytes().to_vec());
        assert_eq!(restore_err(&orphan), unpaired, "{other}");
    }
}

/// A version 1 store opened by this build is marked version 2 by the first commit after it, with
/// the records of that commit: a delay that ends deletes a state record, which a version 1 store
/// must not lack.
#[test]
fn a_version_1_store_is_marked_version_2_by_its_next_commit() {
    let delayed = Msg {
        body: "later".into(),
        text_attr: None,
        binary_attr: None,
        group: "g".into(),
        delay: true,
        receive: false,
    };
    let mut store = as_version_1(&store_of(&[delayed]));
    assert!(store["meta"].starts_with(br#"{"v":1,"#));
    let (mut e, url) = restored_standard(&store);
    // Past the delay (`store_of` delays by 5 s): the message becomes unstarted.
    dispatch(
        &mut e,
        NOW + 6_000,
        &CallContext::default(),
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": ["All"]}),
    )
    .unwrap();
    let changes = e.take_changes();
    assert!(
        changes.del.iter().any(|k| k.starts_with("s/")),
        "{:?}",
        changes.del
    );
    let meta = changes
        .put
        .iter()
        .find(|(k, _)| k == "meta")
        .expect("meta rewritten");
    let v2 = format!(r#"{{"v":{},"#, super::FORMAT_VERSION);
    assert!(String::from_utf8_lossy(&meta.1).starts_with(&v2));
    for k in changes.del {
        store.remove(&k);
    }
    store.extend(changes.put);
    let got = receive_after_restore(&store, &url);
    assert_eq!(got["Messages"][0]["Body"], json!("later"));
}

/// `store` restored, and the URL of its standard queue (the one `store_of` sends the first
/// message to).
fn restored_standard(store: &BTreeMap<String, Vec<u8>>) -> (Engine, Value) {
    let mut e = Engine::restore(
        EngineConfig::default(),
        store.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
    )
    .unwrap();
    let urls = call(&mut e, "ListQueues", json!({}));
    let url = urls["QueueUrls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| !u.as_str().unwrap().ends_with(".fifo"))
        .unwrap()
        .clone();
    (e, url)
}

/// Restore `store` into a fresh engine and receive from `url` once its delays are over.
fn receive_after_restore(store: &BTreeMap<String, Vec<u8>>, url: &Value) -> Value {
    let mut back = Engine::restore(
        EngineConfig::default(),
        store.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
    )
    .unwrap_or_else(|err| panic!("restore after the commit: {err}"));
    dispatch(
        &mut back,
        NOW + 6_000,
        &CallContext::default(),
        "ReceiveMessage",
        json!({"QueueUrl": url}),
    )
    .unwrap()
}

/// A delayed message has a state record until its delay ends; then the record is deleted, and the
/// store restores it visible.
#[test]
fn a_state_record_is_deleted_when_the_message_is_unstarted_again() {
    let mut e = Engine::new(EngineConfig::default());
    let url = call(&mut e, "CreateQueue", json!({"QueueName": "q"}))["QueueUrl"].clone();
    call(
        &mut e,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "b", "DelaySeconds": 5}),
    );
    let sent = e.take_changes();
    let state = sent
        .put
        .iter()
        .find(|(k, _)| k.starts_with("s/"))
        .map(|(k, _)| k.clone())
        .expect("a delayed message has a state record");
    let mut store: BTreeMap<String, Vec<u8>> = sent.put.into_iter().collect();
    let later = dispatch(
        &mut e,
        NOW + 6_000,
        &CallContext::default(),
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]}),
    )
    .unwrap();
    assert_eq!(
        later["Attributes"]["ApproximateNumberOfMessages"],
        json!("1")
    );
    let ended = e.take_changes();
    assert!(ended.del.contains(&state), "{:?}", ended.del);
    for k in ended.del {
        store.remove(&k);
    }
    store.extend(ended.put);
    assert!(!store.keys().any(|k| k.starts_with("s/")));
    let got = receive_after_restore(&store, &url);
    assert_eq!(got["Messages"][0]["Body"], json!("b"));
}

/// The MD5 a receive answers with is the one the content record keeps, not one recomputed
/// (which is what restore saves); a malformed one is damage, through both readers.
#[test]
fn the_stored_body_md5_is_used_and_checked() {
    let store = one_message_store();
    let (key, value) = store.iter().find(|(k, _)| k.starts_with("m/")).unwrap();
    let text = String::from_utf8(value.clone()).unwrap();
    let real = crate::digest::md5_hex(b"hello");
    assert!(text.contains(&format!(r#","md5":"{real}""#)), "{text}");
    let other = "0123456789abcdef0123456789abcdef";
    let mut changed = store.clone();
    changed.insert(key.clone(), text.replace(&real, other).into_bytes());
    let (mut e, url) = restored_standard(&changed);
    let got = call(&mut e, "ReceiveMessage", json!({"QueueUrl": url}));
    assert_eq!(got["Messages"][0]["MD5OfBody"], json!(other));

    for bad in [
        &real[..31],
        "0123456789abcdef0123456789abcdeg",
        "0123456789ABCDEF0123456789abcdef",
        "",
    ] {
        for spaced in [false, true] {
            let mut broken = text.replace(&real, bad);
            if spaced {
                // Past the fast reader, so the general path's answer is checked too.
                broken = broken.replacen('{', "{ ", 1);
            }
            assert!(reader::content(&broken).is_none(), "{broken}");
            let mut damaged = store.clone();
            damaged.insert(key.clone(), broken.into_bytes());
            assert_eq!(
                restore_err(&damaged),
                Some(super::RestoreError::Corrupt(format!(
                    "record {key:?}: invalid value for field `md5`"
                ))),
            );
        }
    }
}

#[test]
fn the_reader_leaves_what_it_does_not_write_to_the_general_path() {
    let state = |s: &str| reader::state(s).map(|r| (r.deadline, r.receive_count));
    let ok = r#"{"state":"InFlight","deadline":5,"receive_count":1,"serial":2,"first_receive_at":3,"received_at":4,"visibility_changed":false}"#;
    assert_eq!(state(ok), Some((5, 1)));
    for odd in [
        ok.replace("\"deadline\":5", "\"deadline\":05"),
        ok.replace("\"deadline\":5", "\"deadline\":5.0"),
        ok.replace("\"deadline\":5", "\"deadline\":-5"),
        ok.replace("\"deadline\":5", "\"deadline\":18446744073709551616"),
        ok.replace("\"receive_count\":1", "\"receive_count\":4294967296"),
        ok.replace("InFlight", "Gone"),
        ok.replace("false}", "false} "),
        ok.replace("false}", "false,\"x\":1}"),
        ok.replace("false", "null"),
    ] {
        assert!(state(&odd).is_none(), "{odd}");
    }
    let id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let content =
        |body: &str| format!(r#"{{"id":"{id}","body":{body},"sent_at":1,"enqueued_at":1}}"#);
    let body_of = |text: &str| reader::content(text).map(|c| c.body.into_owned());
    assert_eq!(body_of(&content(r#""plain""#)).as_deref(), Some("plain"));
    assert_eq!(
        body_of(&content(r#""a\"b\\c\u00e9\ud83d\ude00\n""#)).as_deref(),
        Some("a\"b\\cé😀\n")
    );
    // A lone surrogate and a raw control character are errors for serde_json: the general path's.
    assert_eq!(body_of(&content(r#""\ud83d""#)), None);
    assert_eq!(body_of(&content("\"a\u{1}b\"")), None);
    assert_eq!(body_of(&content("null")), None);
    // A MessageId in another form goes through `parse_uuid`, the general path's id reader.
    let upper = content(r#""x""#).replace(id, &id.to_uppercase());
    assert_eq!(
        reader::content(&upper).and_then(|c| c.id.ok()),
        Some(0x0f8fad5b_d9cb_469f_a165_70867728950e)
    );
    let bare = content(r#""x""#).replace(id, &id.replace('-', ""));
    assert_eq!(
        reader::content(&bare).and_then(|c| c.id.ok()),
        Some(0x0f8fad5b_d9cb_469f_a165_70867728950e)
    );
    let dedup = r#"{"key":"k\"1","expires_at":9,"message_id":"0f8fad5b-d9cb-469f-a165-70867728950e","seq":3}"#;
    let read =
        reader::dedup(dedup).map(|d| (d.key.into_owned(), d.expires_at, d.message_id, d.seq));
    assert_eq!(
        read,
        Some((
            "k\"1".to_string(),
            9,
            Ok(0x0f8fad5b_d9cb_469f_a165_70867728950e),
            3
        ))
    );
    // A MessageId that does not parse is kept as text for restore's error, as the general path does.
    let bad_id = dedup.replace(id, "nope");
    assert_eq!(
        reader::dedup(&bad_id).map(|d| d.message_id),
        Some(Err("nope".to_string()))
    );
    for odd in [
        dedup.replace("\"seq\":3", "\"seq\":3.0"),
        dedup.replace("\"expires_at\":9,", ""),
        dedup.replace("{\"key\"", "{ \"key\""),
        dedup.replace("3}", "3,\"x\":1}"),
        dedup.replace("\"k\\\"1\"", "null"),
    ] {
        assert!(reader::dedup(&odd).is_none(), "{odd}");
    }
    assert_eq!(reader::key_hex("00000000000000ff"), Some(255));
    assert_eq!(reader::key_hex("00000000000000FF"), Some(255));
    assert_eq!(reader::key_hex("+ff"), u64::from_str_radix("+ff", 16).ok());
    assert_eq!(reader::key_hex("0000000000000000ff"), Some(255));
    assert_eq!(reader::key_hex(""), None);
}

proptest! {
    /// Eight digits at a time read exactly what one at a time reads (lower case only), for text
    /// weighted towards the characters either side of each digit range.
    #[test]
    fn hex8_reads_lower_case_hex_digits_and_nothing_else(
        text in proptest::collection::vec(
            prop_oneof![
                Just(b'/'), Just(b'0'), Just(b'9'), Just(b':'), Just(b'`'), Just(b'a'),
                Just(b'f'), Just(b'g'), Just(b'A'), Just(b'F'), Just(b'@'),
                0x30u8..0x3a, 0x61u8..0x67, any::<u8>(),
            ],
            8,
        )
    ) {
        let expected = text
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
            .then(|| u32::from_str_radix(std::str::from_utf8(&text).unwrap(), 16).unwrap());
        prop_assert_eq!(reader::hex8(u64::from_le_bytes(text.try_into().unwrap())), expected);
    }

    /// A message or deduplication key read by its bytes names what its parts name.
    #[test]
    fn message_keys_read_by_their_bytes_as_by_their_parts(
        kind in prop_oneof![Just("m"), Just("s"), Just("d"), Just("q"), Just("a")],
        q in any::<u64>(),
        n in any::<u64>(),
        upper in any::<bool>(),
    ) {
        let mut key = format!("{kind}/{q:016x}/{n:016x}");
        if upper {
            key = key.to_uppercase();
        }
        let fast = reader::message_key(&key);
        if ["m", "s", "d"].contains(&kind) && !upper {
            prop_assert_eq!(fast, Some((kind, q, n)));
        } else {
            prop_assert_eq!(fast, None);
        }
        let parts: Vec<&str> = key.split('/').collect();
        prop_assert_eq!(reader::key_hex(parts[1]), Some(q));
        prop_assert_eq!(reader::key_hex(parts[2]), Some(n));
    }
}

/// A new message is in the state that needs no record: otherwise a fresh message would be
/// stored with a state record (or, were the two to drift, a started one without).
#[test]
fn a_new_message_is_unstarted() {
    let m = crate::engine::message::Message::new(1, "b".into(), [0; 16], None, None, 0, 5);
    assert!(super::unstarted(&m));
}

/// Deleted-name records touched many times between two drains (a host that drains after a run
/// of calls) come out once each, in name order, as a put (the name is held) or a delete.
#[test]
fn deleted_names_touched_between_drains_come_out_once_each_in_order() {
    let mut e = Engine::new(EngineConfig::default());
    let names = ["q3", "q1", "q2"];
    for name in names {
        call(&mut e, "CreateQueue", json!({"QueueName": name}));
    }
    e.take_changes();
    let url = |name: &str| format!("http://localhost:9324/000000000000/{name}");
    for name in names {
        call(&mut e, "DeleteQueue", json!({"QueueUrl": url(name)}));
    }
    // q2 again after the 60-second rule: its name record is touched a second time, and gone.
    dispatch(
        &mut e,
        NOW + 61_000,
        &CallContext::default(),
        "CreateQueue",
        json!({"QueueName": "q2"}),
    )
    .unwrap();
    let changes = e.take_changes();
    let held: Vec<&str> = changes
        .put
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| k.starts_with("x/"))
        .collect();
    let gone: Vec<&str> = changes
        .del
        .iter()
        .map(String::as_str)
        .filter(|k| k.starts_with("x/"))
        .collect();
    assert_eq!(held, ["x/q1", "x/q3"]);
    assert_eq!(gone, ["x/q2"]);
}
