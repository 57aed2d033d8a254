//! FIFO: ready message groups are served in the order in which they became ready, and a group
//! whose lock ends joins the back. Recorded against AWS, issue #33 item 1 (four recorded cases:
//! the lock expiring, a receive with VisibilityTimeout=0, ChangeMessageVisibility to 0 after a
//! receive, and the lock ending after the visibility timeout of a later receive).
mod common;

use common::*;
use serde_json::json;

fn fifo_with_six() -> (Sqs, String) {
    let mut h = Sqs::new();
    let url = h.create_fifo("order.fifo", json!({ "VisibilityTimeout": "1" }));
    for (g, body) in [
        ("g1", "g1-m1"),
        ("g1", "g1-m2"),
        ("g1", "g1-m3"),
        ("g1", "g1-m4"),
        ("g2", "g2-m1"),
        ("g3", "g3-m1"),
    ] {
        h.send_fifo(&url, g, body, body);
    }
    (h, url)
}

#[test]
fn a_group_whose_lock_expires_joins_the_back() {
    // The recorded case, step by step.
    let (mut h, url) = fifo_with_six();
    let first = h.receive(&url, 2);
    assert_eq!(bodies(&first), ["g1-m1", "g1-m2"]);
    let second = h.receive(&url, 1);
    assert_eq!(bodies(&second), ["g2-m1"]);
    h.advance_secs(2);
    let all = h.receive_with(
        &url,
        json!({ "MaxNumberOfMessages": 10, "VisibilityTimeout": 0 }),
    );
    assert_eq!(
        bodies(&all),
        ["g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1"]
    );
}

#[test]
fn a_receive_with_visibility_timeout_zero_sends_the_group_to_the_back() {
    let (mut h, url) = fifo_with_six();
    let first = h.receive_with(
        &url,
        json!({ "MaxNumberOfMessages": 1, "VisibilityTimeout": 0 }),
    );
    assert_eq!(bodies(&first), ["g1-m1"]);
    h.advance(1);
    let next = h.receive_with(
        &url,
        json!({ "MaxNumberOfMessages": 10, "VisibilityTimeout": 0 }),
    );
    assert_eq!(
        bodies(&next),
        ["g2-m1", "g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4"]
    );
}

#[test]
fn change_visibility_to_zero_sends_the_group_to_the_back() {
    let (mut h, url) = fifo_with_six();
    let first = h.receive(&url, 1);
    assert_eq!(bodies(&first), ["g1-m1"]);
    h.change_visibility(&url, &handle(&first[0]), 0).unwrap();
    let next = h.receive_with(
        &url,
        json!({ "MaxNumberOfMessages": 10, "VisibilityTimeout": 0 }),
    );
    assert_eq!(
        bodies(&next),
        ["g2-m1", "g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4"]
    );
}

#[test]
fn a_group_that_stays_ready_keeps_its_place_and_locks_end_in_deadline_order() {
    let (mut h, url) = fifo_with_six();
    // g2 locked first, g1 second: g2's lock ends first, so g2 is back before g1.
    let g1 = h.receive(&url, 1);
    assert_eq!(bodies(&g1), ["g1-m1"]);
    h.change_visibility(&url, &handle(&g1[0]), 5).unwrap();
    let g2 = h.receive(&url, 1);
    assert_eq!(bodies(&g2), ["g2-m1"]);
    h.change_visibility(&url, &handle(&g2[0]), 3).unwrap();
    // g3 stays ready throughout and is served first.
    h.advance_secs(6);
    let all = h.receive_with(
        &url,
        json!({ "MaxNumberOfMessages": 10, "VisibilityTimeout": 0 }),
    );
    assert_eq!(
        bodies(&all),
        ["g3-m1", "g2-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4"]
    );
}

#[test]
fn a_group_emptied_and_sent_to_again_joins_the_back() {
    let mut h = Sqs::new();
    let url = h.create_fifo("again.fifo", json!({}));
    h.send_fifo(&url, "a", "a1", "a1");
    h.send_fifo(&url, "b", "b1", "b1");
    let a = h.receive(&url, 1);
    assert_eq!(bodies(&a), ["a1"]);
    h.delete(&url, &handle(&a[0]));
    h.send_fifo(&url, "a", "a2", "a2");
    let rest = h.receive(&url, 10);
    assert_eq!(bodies(&rest), ["b1", "a2"]);
}
