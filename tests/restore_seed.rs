//! A store keeps the seed its ids and handles came from: restoring it under another seed (a
//! host that draws one at random on every start) must not invalidate handles issued before.

use serde_json::json;
use std::collections::BTreeMap;
use wasq::{CallContext, EngineConfig, Service};

#[test]
fn receipt_handles_survive_a_restore_under_a_different_seed() {
    let ctx = CallContext::default();
    let mut store: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut svc = Service::new(EngineConfig {
        seed: 1111,
        ..Default::default()
    });
    let url = svc
        .dispatch(0, &ctx, "CreateQueue", json!({"QueueName": "q"}))
        .unwrap()["QueueUrl"]
        .as_str()
        .unwrap()
        .to_string();
    svc.dispatch(
        0,
        &ctx,
        "SendMessage",
        json!({"QueueUrl": url, "MessageBody": "x"}),
    )
    .unwrap();
    let got = svc
        .dispatch(0, &ctx, "ReceiveMessage", json!({"QueueUrl": url}))
        .unwrap();
    let handle = got["Messages"][0]["ReceiptHandle"]
        .as_str()
        .unwrap()
        .to_string();
    let changes = svc.take_changes();
    for (k, v) in changes.put {
        store.insert(k, v);
    }
    for k in changes.del {
        store.remove(&k);
    }

    let mut restored = Service::restore(
        EngineConfig {
            seed: 2222,
            ..Default::default()
        },
        store.clone(),
    )
    .unwrap();
    restored
        .dispatch(
            1,
            &ctx,
            "DeleteMessage",
            json!({"QueueUrl": url, "ReceiptHandle": handle}),
        )
        .expect("a handle issued before the restart is still valid");
    let attrs = restored
        .dispatch(
            1,
            &ctx,
            "GetQueueAttributes",
            json!({"QueueUrl": url, "AttributeNames": ["All"]}),
        )
        .unwrap();
    assert_eq!(
        attrs["Attributes"]["ApproximateNumberOfMessagesNotVisible"],
        "0"
    );
    // New ids continue from the stored seed too: a second restore of the same store under yet
    // another seed mints the same next message id.
    let send = |svc: &mut Service| {
        svc.dispatch(
            2,
            &ctx,
            "SendMessage",
            json!({"QueueUrl": url, "MessageBody": "y"}),
        )
        .unwrap()["MessageId"]
            .clone()
    };
    let a = send(&mut restored);
    let mut again = Service::restore(
        EngineConfig {
            seed: 3333,
            ..Default::default()
        },
        store,
    )
    .unwrap();
    assert_eq!(send(&mut again), a);
}
