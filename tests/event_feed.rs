//! The event feed can be switched off (a JS host with no `event` listener) without touching
//! anything else: `peek` still shows recently deleted messages, and switching it back on resumes
//! the feed from that point, with nothing buffered while it was off.

mod common;

use common::Sqs;
use serde_json::json;

#[test]
fn muted_feed_collects_nothing_and_peek_still_shows_deletions() {
    let mut h = Sqs::new();
    let url = h.create("feed", json!({}));
    h.svc.take_events();
    h.svc.set_event_feed(false);
    h.send(&url, "one");
    let handle = h.receive(&url, 1)[0]["ReceiptHandle"]
        .as_str()
        .expect("a receipt handle")
        .to_string();
    h.delete(&url, &handle);
    assert!(h.svc.take_events().is_empty(), "no events while muted");
    let peek = h.peek(&url);
    let text = peek.to_string();
    assert!(
        text.contains("\"deleted\"") && text.contains("\"one\""),
        "peek keeps its removed tail while the feed is muted: {text}"
    );

    h.svc.set_event_feed(true);
    h.send(&url, "two");
    let events = h.svc.take_events();
    assert_eq!(events.len(), 1, "only the send after unmuting: {events:?}");
}

#[test]
fn a_region_first_used_while_muted_is_muted_too() {
    let mut h = Sqs::new();
    h.svc.set_event_feed(false);
    h.ctx.region = Some("eu-west-1".into());
    let url = h.create("feed", json!({}));
    h.send(&url, "one");
    assert!(h.svc.take_events().is_empty());
}
