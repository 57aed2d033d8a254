//! A store keeps the MessageId scheme it was begun with: ids are derived again on restore, so a
//! store begun with SipHash ids keeps deriving them, and a scheme this build does not know is
//! refused.

use super::super::{Engine, EngineConfig};
use super::tests::{call, one_message_store, restore_err, store_of, Msg};
use serde_json::json;
use std::collections::BTreeMap;

/// The MessageIds of every message `e` holds, by sequence, and whether any message keeps its
/// id as an override (which costs it a boxed extra).
fn ids_held(e: &Engine) -> (Vec<(u64, u128)>, bool) {
    let mut ids = Vec::new();
    let mut overrides = false;
    for q in e.queues.values() {
        for seq in q.seqs_in_order() {
            let m = q.messages.get(&seq).unwrap();
            overrides |= m.kept_id().is_some();
            ids.push((seq, m.id(&q.keys)));
        }
    }
    ids.sort();
    (ids, overrides)
}

/// Sends to both queues of `store_of` and returns the MessageIds the answers named.
fn send_more(e: &mut Engine, tag: &str, n: usize) -> Vec<String> {
    let urls = call(e, "ListQueues", json!({}))["QueueUrls"].clone();
    let mut ids = Vec::new();
    for i in 0..n {
        for url in urls.as_array().unwrap() {
            let mut p = json!({"QueueUrl": url, "MessageBody": format!("more {i}")});
            if url.as_str().unwrap().ends_with(".fifo") {
                p["MessageGroupId"] = json!("g");
                p["MessageDeduplicationId"] = json!(format!("{tag}{i}"));
            }
            ids.push(
                call(e, "SendMessage", p)["MessageId"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    ids
}

fn apply(store: &mut BTreeMap<String, Vec<u8>>, e: &mut Engine) {
    let changes = e.take_changes();
    for k in changes.del {
        store.remove(&k);
    }
    store.extend(changes.put);
}

/// A store begun before ids were derived by rapidhash has no `ids` in its meta record: its
/// messages come back with the SipHash ids they were sent with, derived again rather than kept
/// one by one, and the messages sent after the restore are derived the same way, restart after
/// restart.
#[test]
fn a_store_begun_with_siphash_ids_keeps_deriving_them() {
    let msgs: Vec<Msg> = (0..6)
        .map(|i| Msg {
            body: format!("m{i}"),
            text_attr: None,
            binary_attr: None,
            group: "g".into(),
            delay: false,
            receive: i % 3 == 0,
        })
        .collect();
    // What an earlier build wrote: the same records, without the meta record's `ids`.
    let rapid = store_of(&msgs);
    let meta = String::from_utf8(rapid["meta"].clone()).unwrap();
    assert!(meta.contains(r#""ids":2,"#), "{meta}");
    let mut sip = Engine::new(EngineConfig {
        seed: 7,
        ..EngineConfig::default()
    });
    sip.keys.set_scheme(super::IdScheme::Sip13);
    let mut old = BTreeMap::new();
    call(&mut sip, "CreateQueue", json!({"QueueName": "s"}));
    call(
        &mut sip,
        "CreateQueue",
        json!({"QueueName": "f.fifo", "Attributes": {"FifoQueue": "true"}}),
    );
    let sent = send_more(&mut sip, "a", 3);
    apply(&mut old, &mut sip);
    let meta = String::from_utf8(old["meta"].clone()).unwrap();
    assert!(!meta.contains("ids"), "{meta}");
    // As an earlier build wrote it: format 2.
    let current = format!(r#"{{"v":{},"#, super::FORMAT_VERSION);
    assert!(meta.starts_with(&current), "{meta}");
    old.insert(
        "meta".into(),
        meta.replacen(&current, r#"{"v":2,"#, 1).into_bytes(),
    );
    let (before, _) = ids_held(&sip);

    let restore = |store: &BTreeMap<String, Vec<u8>>| {
        Engine::restore(
            EngineConfig::default(),
            store.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        )
        .unwrap()
    };
    let mut e = restore(&old);
    assert_eq!(e.keys.scheme(), super::IdScheme::Sip13);
    let (after, overrides) = ids_held(&e);
    assert_eq!(after, before);
    assert!(!overrides, "ids restored as overrides");
    let mut all: Vec<String> = sent;
    all.extend(send_more(&mut e, "b", 2));
    apply(&mut old, &mut e);
    // Rewritten in this build's format, still without `ids`: an earlier build now refuses the
    // store (format 3) rather than deriving its ids by another scheme.
    let meta = String::from_utf8(old["meta"].clone()).unwrap();
    assert!(
        meta.starts_with(&current) && !meta.contains("ids"),
        "{meta}"
    );
    let again = restore(&old);
    let (ids, overrides) = ids_held(&again);
    assert!(!overrides);
    let texts: Vec<String> = ids
        .iter()
        .map(|(_, id)| super::uuid_text(*id).to_string())
        .collect();
    let mut sorted_sent = all.clone();
    sorted_sent.sort();
    let mut sorted_held = texts;
    sorted_held.sort();
    assert_eq!(sorted_held, sorted_sent);
    // And a store begun now stays with rapidhash across restores, without overrides.
    let mut new_store = rapid.clone();
    let mut r = restore(&new_store);
    assert_eq!(r.keys.scheme(), super::IdScheme::Rapid);
    let (held, overrides) = ids_held(&r);
    assert!(!overrides);
    assert_eq!(held.len(), msgs.len());
    send_more(&mut r, "c", 1);
    apply(&mut new_store, &mut r);
    assert!(String::from_utf8_lossy(&new_store["meta"]).contains(r#""ids":2,"#));
    assert!(!ids_held(&restore(&new_store)).1);
}

#[test]
fn an_unknown_id_scheme_is_refused() {
    let mut store = one_message_store();
    let meta = String::from_utf8(store["meta"].clone()).unwrap();
    store.insert(
        "meta".into(),
        meta.replace(r#""ids":2"#, r#""ids":3"#).into_bytes(),
    );
    assert_eq!(
        restore_err(&store).map(|e| e.to_string()),
        Some(r#"corrupt store: record "meta": unknown id scheme 3"#.to_string())
    );
}
