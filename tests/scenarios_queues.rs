//! Queue lifecycle and configuration: CreateQueue rules and idempotency, delete/recreate timing,
//! GetQueueUrl, ListQueues paging, Get/SetQueueAttributes, counters, tags, purge, permissions.
//! Spec sections §2, §3, §4.1–§4.7, §4.15, §4.18.
mod common;

use common::*;
use serde_json::{json, Value};

fn list(h: &mut Sqs, params: Value) -> (Vec<String>, Option<String>) {
    let r = h.ok("ListQueues", params);
    let urls = r
        .get("QueueUrls")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().map(|u| u.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    (urls, r["NextToken"].as_str().map(str::to_string))
}

#[test]
fn standard_queue_has_the_recorded_default_attributes() {
    let mut h = Sqs::new();
    let url = h.create("q1", json!({}));
    let a = h.attrs(&url);
    let mut keys: Vec<&str> = a.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        vec![
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesDelayed",
            "ApproximateNumberOfMessagesNotVisible",
            "CreatedTimestamp",
            "DelaySeconds",
            "LastModifiedTimestamp",
            "MaximumMessageSize",
            "MessageRetentionPeriod",
            "QueueArn",
            "ReceiveMessageWaitTimeSeconds",
            "SqsManagedSseEnabled",
            "VisibilityTimeout",
        ]
    );
    assert_eq!(a["DelaySeconds"], "0");
    assert_eq!(a["MaximumMessageSize"], "1048576");
    assert_eq!(a["MessageRetentionPeriod"], "345600");
    assert_eq!(a["ReceiveMessageWaitTimeSeconds"], "0");
    assert_eq!(a["VisibilityTimeout"], "30");
    assert_eq!(a["SqsManagedSseEnabled"], "true");
    assert_eq!(a["QueueArn"], Sqs::arn("q1").as_str());
    // Timestamps are epoch seconds.
    assert_eq!(a["CreatedTimestamp"], (T0 / 1000).to_string().as_str());
    assert_eq!(a["LastModifiedTimestamp"], (T0 / 1000).to_string().as_str());
}

#[test]
fn fifo_queue_adds_fifo_attributes_with_lowercase_booleans() {
    let mut h = Sqs::new();
    // Created with "True": listed as "true" (§3.3).
    let url = h.create("q1.fifo", json!({"FifoQueue": "True"}));
    let a = h.attrs(&url);
    assert_eq!(a["FifoQueue"], "true");
    assert_eq!(a["ContentBasedDeduplication"], "false");
    assert_eq!(a["DeduplicationScope"], "queue");
    assert_eq!(a["FifoThroughputLimit"], "perQueue");
    let url2 = h.create(
        "q2.fifo",
        json!({"FifoQueue": "true", "ContentBasedDeduplication": "TRUE"}),
    );
    assert_eq!(h.attr(&url2, "ContentBasedDeduplication").unwrap(), "true");
}

#[test]
fn queue_name_rules() {
    let mut h = Sqs::new();
    let msg =
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length";
    for bad in [
        "",
        "has space",
        "dot.name",
        "x".repeat(81).as_str(),
        "q!",
        "ünïcode",
    ] {
        let e = h.err("CreateQueue", json!({"QueueName": bad}));
        assert_err(&e, "InvalidParameterValueException", msg);
    }
    h.create(&"x".repeat(80), json!({}));
    h.create("A-b_9", json!({}));
    // Names are case-sensitive: two distinct queues.
    let a = h.create("Case", json!({}));
    let b = h.create("case", json!({}));
    assert_ne!(a, b);
    // The .fifo suffix counts toward 80.
    h.create_fifo(&format!("{}.fifo", "f".repeat(75)), json!({}));
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": format!("{}.fifo", "f".repeat(76)), "Attributes": {"FifoQueue": "true"}}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    let (all, _) = list(&mut h, json!({}));
    assert_eq!(all.len(), 5);
}

#[test]
fn fifo_suffix_and_type_must_agree() {
    let mut h = Sqs::new();
    // Exact AWS texts for these two were not recorded (§2): the code is.
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "nofifo", "Attributes": {"FifoQueue": "true"}}),
    );
    assert_eq!(e.shape(), "InvalidParameterValueException");
    let e = h.err("CreateQueue", json!({"QueueName": "std.fifo"}));
    assert_eq!(e.shape(), "InvalidParameterValueException");
    assert!(list(&mut h, json!({})).0.is_empty());
}

#[test]
fn fifo_only_attributes_are_rejected_on_standard_queues() {
    let mut h = Sqs::new();
    let cases = [
        ("FifoQueue", "false", "Unknown Attribute FifoQueue."),
        ("FifoQueue", "true", "Unknown Attribute FifoQueue."),
        (
            "ContentBasedDeduplication",
            "true",
            "Unknown Attribute ContentBasedDeduplication.",
        ),
        (
            "DeduplicationScope",
            "queue",
            "You can specify the DeduplicationScope only when FifoQueue is set to true.",
        ),
        (
            "FifoThroughputLimit",
            "perQueue",
            "You can specify the FifoThroughputLimit only when FifoQueue is set to true.",
        ),
    ];
    for (name, value, msg) in cases {
        if name == "FifoQueue" && value == "true" {
            continue; // FifoQueue=true on a non-.fifo name is the name/type rule above.
        }
        let e = h.err(
            "CreateQueue",
            json!({"QueueName": "std", "Attributes": {name: value}}),
        );
        assert_err(&e, "InvalidAttributeName", msg);
    }
    assert!(list(&mut h, json!({})).0.is_empty());
    let url = h.create("std", json!({}));
    for (name, value, msg) in cases {
        let e = h.err_unchanged(
            &url,
            "SetQueueAttributes",
            json!({"QueueUrl": url, "Attributes": {name: value}}),
        );
        assert_err(&e, "InvalidAttributeName", msg);
    }
}

#[test]
fn fifo_queue_type_cannot_be_changed() {
    let mut h = Sqs::new();
    let url = h.create_fifo("f.fifo", json!({}));
    h.set_attrs(&url, json!({"FifoQueue": "true"}));
    let e = h.err_unchanged(
        &url,
        "SetQueueAttributes",
        json!({"QueueUrl": url, "Attributes": {"FifoQueue": "false"}}),
    );
    assert_err(
        &e,
        "InvalidAttributeValue",
        "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
    );
    assert_eq!(h.attr(&url, "FifoQueue").unwrap(), "true");
}

#[test]
fn create_is_idempotent_comparing_only_supplied_attributes() {
    let mut h = Sqs::new();
    let attrs = json!({"ReceiveMessageWaitTimeSeconds": "1", "DelaySeconds": "1"});
    let url = h.create("idem", attrs.clone());
    // No attributes: always the existing URL.
    assert_eq!(h.create("idem", json!({})), url);
    assert_eq!(h.create("idem", json!({"DelaySeconds": "1"})), url);
    assert_eq!(h.create("idem", attrs.clone()), url);
    let msg = "A queue already exists with the same name and a different value for attribute DelaySeconds";
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "idem", "Attributes": {"ReceiveMessageWaitTimeSeconds": "1", "DelaySeconds": "2"}}),
    );
    assert_err(&e, "QueueNameExists", msg);
    assert_eq!(e.query_code(), "QueueAlreadyExists");
    assert_eq!(e.http_status(), 400);
    // Compared with the *current* values.
    h.set_attrs(&url, json!({"DelaySeconds": "2"}));
    assert_eq!(
        h.create(
            "idem",
            json!({"ReceiveMessageWaitTimeSeconds": "1", "DelaySeconds": "2"})
        ),
        url
    );
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "idem", "Attributes": attrs}),
    );
    assert_err(&e, "QueueNameExists", msg);
    // A default-valued attribute that was never set explicitly still compares equal to its default.
    assert_eq!(h.create("idem", json!({"VisibilityTimeout": "30"})), url);
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "idem", "Attributes": {"VisibilityTimeout": "31"}}),
    );
    assert_err(
        &e,
        "QueueNameExists",
        "A queue already exists with the same name and a different value for attribute VisibilityTimeout",
    );
    assert_eq!(list(&mut h, json!({})).0.len(), 1);
}

#[test]
fn create_with_tags_must_match_the_queues_tags() {
    let mut h = Sqs::new();
    let msg = "A queue already exists with the same name and different tags";
    let url = h.create("tagged", json!({}));
    // A queue without tags and supplied tags differ (Bogdanp/dramatiq_sqs#13).
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "tagged", "tags": {"team": "a"}}),
    );
    assert_err(&e, "QueueNameExists", msg);
    assert_eq!(e.query_code(), "QueueAlreadyExists");
    assert_eq!(e.http_status(), 400);
    h.ok(
        "TagQueue",
        json!({"QueueUrl": url, "Tags": {"team": "a", "env": "dev"}}),
    );
    // The whole set is compared: a subset, another value or an extra tag is a difference.
    for tags in [
        json!({"team": "a"}),
        json!({"team": "b", "env": "dev"}),
        json!({"team": "a", "env": "dev", "x": "y"}),
    ] {
        let e = h.err("CreateQueue", json!({"QueueName": "tagged", "tags": tags}));
        assert_err(&e, "QueueNameExists", msg);
    }
    let r = h.ok(
        "CreateQueue",
        json!({"QueueName": "tagged", "tags": {"env": "dev", "team": "a"}}),
    );
    assert_eq!(r["QueueUrl"], url.as_str());
    // No tags supplied: the existing URL, whatever its tags.
    assert_eq!(h.create("tagged", json!({})), url);
    let r = h.ok("ListQueueTags", json!({"QueueUrl": url}));
    assert_eq!(r["Tags"], json!({"team": "a", "env": "dev"}));
}

#[test]
fn create_compares_fifo_attributes_like_any_other() {
    let mut h = Sqs::new();
    let url = h.create_fifo("cmp.fifo", json!({"ContentBasedDeduplication": "true"}));
    let same = json!({"QueueName": "cmp.fifo", "Attributes": {"FifoQueue": "true", "ContentBasedDeduplication": "true"}});
    assert_eq!(h.ok("CreateQueue", same)["QueueUrl"], url.as_str());
    for (name, value) in [
        ("ContentBasedDeduplication", "false"),
        ("DeduplicationScope", "messageGroup"),
    ] {
        let e = h.err(
            "CreateQueue",
            json!({"QueueName": "cmp.fifo", "Attributes": {"FifoQueue": "true", name: value}}),
        );
        assert_err(
            &e,
            "QueueNameExists",
            &format!("A queue already exists with the same name and a different value for attribute {name}"),
        );
    }
    // The supplied attributes are validated as a whole before they are compared.
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "cmp.fifo", "Attributes": {"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId"}}),
    );
    assert_err(
        &e,
        "InvalidAttributeValue",
        "Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId is only valid when DeduplicationScope is messageGroup.",
    );
    // Defaults that were never set compare equal to what was supplied.
    let defaults = json!({"QueueName": "cmp.fifo", "Attributes": {"FifoQueue": "true", "DeduplicationScope": "queue", "FifoThroughputLimit": "perQueue"}});
    assert_eq!(h.ok("CreateQueue", defaults)["QueueUrl"], url.as_str());
}

#[test]
fn counters_never_cause_a_create_mismatch() {
    let mut h = Sqs::new();
    let url = h.create("c", json!({"VisibilityTimeout": "40"}));
    h.send(&url, "a");
    h.send(&url, "b");
    assert_eq!(h.create("c", json!({"VisibilityTimeout": "40"})), url);
    assert_eq!(h.counts(&url), (2, 0, 0));
}

#[test]
fn recreating_within_60_seconds_of_delete_fails_then_succeeds() {
    let mut h = Sqs::new();
    let url = h.create("gone", json!({}));
    h.send(&url, "x");
    let old_handle = h.receive(&url, 1)[0]["ReceiptHandle"]
        .as_str()
        .unwrap()
        .to_string();
    h.ok("TagQueue", json!({"QueueUrl": url, "Tags": {"k": "v"}}));
    h.ok("DeleteQueue", json!({"QueueUrl": url}));
    let e = h.err("GetQueueUrl", json!({"QueueName": "gone"}));
    assert_err(
        &e,
        "QueueDoesNotExist",
        "The specified queue does not exist.",
    );
    let e = h.err("SendMessage", json!({"QueueUrl": url, "MessageBody": "x"}));
    assert_err(
        &e,
        "QueueDoesNotExist",
        "The specified queue does not exist.",
    );
    h.advance_secs(59);
    let e = h.err("CreateQueue", json!({"QueueName": "gone"}));
    assert_err(
        &e,
        "QueueDeletedRecently",
        "You must wait 60 seconds after deleting a queue before you can create another with the same name.",
    );
    assert_eq!(
        e.query_code(),
        "AWS.SimpleQueueService.QueueDeletedRecently"
    );
    // Other names are unaffected.
    h.create("other", json!({}));
    h.advance_secs(1);
    let url2 = h.create("gone", json!({}));
    assert_eq!(url2, url);
    // A fresh queue: no messages, no tags.
    assert_eq!(h.counts(&url2), (0, 0, 0));
    let r = h.ok("ListQueueTags", json!({"QueueUrl": url2}));
    assert!(r.get("Tags").is_none(), "{r}");
    // The same URL now names the new incarnation for the message actions too (the engine keeps
    // the last URL a message action resolved): sends land in it, and the old queue's handles
    // are not its own.
    h.send(&url2, "y");
    assert_eq!(h.counts(&url2), (1, 0, 0));
    let e = h.err(
        "DeleteMessage",
        json!({"QueueUrl": url2, "ReceiptHandle": old_handle}),
    );
    assert_eq!(e.shape(), "ReceiptHandleIsInvalid");
    assert_eq!(h.receive(&url2, 10).len(), 1);
}

/// A deleted name is remembered only while re-creating it is refused (60 s): every name ever
/// deleted stayed in memory and in storage (an `x/<name>` record each), and each deletion moved
/// all of them (a sorted vector), so a workload of short-lived queues with fresh names grew
/// without bound and slowed down.
#[test]
fn deleted_queue_names_are_forgotten_once_they_may_be_reused() {
    let mut h = Sqs::new();
    let names = |h: &Sqs| {
        h.store
            .keys()
            .filter(|k| k.split('/').rev().nth(1) == Some("x"))
            .count()
    };
    for i in 0..50 {
        let url = h.create(&format!("old{i}"), json!({}));
        h.ok("DeleteQueue", json!({"QueueUrl": url}));
    }
    assert_eq!(names(&h), 50);
    h.advance_secs(59);
    let url = h.create("new", json!({}));
    h.ok("DeleteQueue", json!({"QueueUrl": url}));
    assert_eq!(names(&h), 51, "names deleted under 60 s ago are all kept");
    h.advance_secs(1);
    let url = h.create("newer", json!({}));
    h.ok("DeleteQueue", json!({"QueueUrl": url}));
    assert_eq!(
        names(&h),
        2,
        "only the names deleted in the last 60 s are kept"
    );
    // What is kept still refuses, before and after a restore; what was forgotten may be reused.
    let mut r = h.restored();
    for h in [&mut h, &mut r] {
        let e = h.err("CreateQueue", json!({"QueueName": "new"}));
        assert_eq!(e.shape(), "QueueDeletedRecently");
        let e = h.err("CreateQueue", json!({"QueueName": "newer"}));
        assert_eq!(e.shape(), "QueueDeletedRecently");
        h.create("old0", json!({}));
    }
}

#[test]
fn delete_queue_of_missing_queue_fails() {
    let mut h = Sqs::new();
    let e = h.err("DeleteQueue", json!({"QueueUrl": Sqs::url("nope")}));
    assert_err(
        &e,
        "QueueDoesNotExist",
        "The specified queue does not exist.",
    );
    assert_eq!(e.query_code(), "AWS.SimpleQueueService.NonExistentQueue");
}

#[test]
fn every_queue_action_rejects_a_missing_queue() {
    let mut h = Sqs::new();
    let u = Sqs::url("missing");
    let calls = [
        (
            "GetQueueAttributes",
            json!({"QueueUrl": u, "AttributeNames": ["All"]}),
        ),
        (
            "SetQueueAttributes",
            json!({"QueueUrl": u, "Attributes": {"DelaySeconds": "1"}}),
        ),
        ("SendMessage", json!({"QueueUrl": u, "MessageBody": "x"})),
        (
            "SendMessageBatch",
            json!({"QueueUrl": u, "Entries": [{"Id": "a", "MessageBody": "x"}]}),
        ),
        ("ReceiveMessage", json!({"QueueUrl": u})),
        ("PurgeQueue", json!({"QueueUrl": u})),
        ("ListQueueTags", json!({"QueueUrl": u})),
        ("TagQueue", json!({"QueueUrl": u, "Tags": {"a": "b"}})),
        ("UntagQueue", json!({"QueueUrl": u, "TagKeys": ["a"]})),
        ("ListDeadLetterSourceQueues", json!({"QueueUrl": u})),
    ];
    for (action, params) in calls {
        let e = h.err(action, params);
        assert_err(
            &e,
            "QueueDoesNotExist",
            "The specified queue does not exist.",
        );
    }
}

#[test]
fn get_queue_url() {
    let mut h = Sqs::new();
    let url = h.create("named", json!({}));
    let r = h.ok("GetQueueUrl", json!({"QueueName": "named"}));
    assert_eq!(r["QueueUrl"], url.as_str());
    let e = h.err("GetQueueUrl", json!({"QueueName": "Named"}));
    assert_err(
        &e,
        "QueueDoesNotExist",
        "The specified queue does not exist.",
    );
}

#[test]
fn queue_is_resolved_by_account_and_name_not_host() {
    let mut h = Sqs::new();
    h.create("hosty", json!({}));
    let other = format!("https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/hosty");
    h.ok(
        "SendMessage",
        json!({"QueueUrl": other, "MessageBody": "x"}),
    );
    assert_eq!(h.counts(&Sqs::url("hosty")), (1, 0, 0));
}

/// The URL forms a queue is found by (the host and scheme are skipped, the last two path
/// segments are account and name), and the ones that name no queue.
#[test]
fn queue_url_forms() {
    let mut h = Sqs::new();
    h.create("formy", json!({}));
    for url in [
        format!("http://127.0.0.1:9324/{ACCOUNT}/formy"),
        format!("https://sqs.eu-west-1.amazonaws.com/{ACCOUNT}/formy/"),
        format!("/{ACCOUNT}/formy"),
        format!("{ACCOUNT}/formy"),
        // The form that names the region, and a bare name (recorded, issue #33 item 2).
        format!("http://127.0.0.1:9324/queue/us-east-1/{ACCOUNT}/formy"),
        "formy".to_string(),
    ] {
        h.ok("SendMessage", json!({"QueueUrl": url, "MessageBody": "x"}));
    }
    assert_eq!(h.counts(&Sqs::url("formy")), (6, 0, 0));
    for url in [
        "http://localhost/111111111111/formy".to_string(),
        "http://localhost".to_string(),
        format!("http://localhost/{ACCOUNT}"),
        format!("http://localhost/queue/eu-west-1/{ACCOUNT}/formy"),
        "other".to_string(),
        String::new(),
    ] {
        let e = h.err("SendMessage", json!({"QueueUrl": url, "MessageBody": "x"}));
        assert_err(
            &e,
            "QueueDoesNotExist",
            "The specified queue does not exist.",
        );
    }
    assert_eq!(h.counts(&Sqs::url("formy")), (6, 0, 0));
}

#[test]
fn list_queues_prefix_order_and_pagination() {
    let mut h = Sqs::new();
    for n in ["b2", "a1", "b1", "B3", "b10", "c"] {
        h.create(n, json!({}));
    }
    let (all, tok) = list(&mut h, json!({}));
    assert_eq!(tok, None, "no NextToken without MaxResults");
    let names: Vec<&str> = all.iter().map(|u| u.rsplit('/').next().unwrap()).collect();
    assert_eq!(names, vec!["B3", "a1", "b1", "b10", "b2", "c"]);
    // Case-sensitive prefix.
    let (bs, _) = list(&mut h, json!({"QueueNamePrefix": "b"}));
    assert_eq!(bs, vec![Sqs::url("b1"), Sqs::url("b10"), Sqs::url("b2")]);
    let (none, tok) = list(&mut h, json!({"QueueNamePrefix": "zz"}));
    assert!(none.is_empty() && tok.is_none());
    let r = h.ok("ListQueues", json!({"QueueNamePrefix": "zz"}));
    assert!(r.get("QueueUrls").is_none(), "empty list is omitted: {r}");

    // Pages of 2 over 6 queues: 3 pages, token on the first two only.
    let (p1, t1) = list(&mut h, json!({"MaxResults": 2}));
    assert_eq!(p1.len(), 2);
    let t1 = t1.expect("token after page 1");
    let (p2, t2) = list(&mut h, json!({"MaxResults": 2, "NextToken": t1}));
    let t2 = t2.expect("token after page 2");
    let (p3, t3) = list(&mut h, json!({"MaxResults": 2, "NextToken": t2}));
    assert_eq!(t3, None, "a page ending on the last queue has no token");
    let paged: Vec<String> = p1.into_iter().chain(p2).chain(p3).collect();
    assert_eq!(paged, all);
    // Prefix with paging.
    let (q1, tk) = list(&mut h, json!({"QueueNamePrefix": "b", "MaxResults": 2}));
    assert_eq!(q1, vec![Sqs::url("b1"), Sqs::url("b10")]);
    let (q2, tk2) = list(
        &mut h,
        json!({"QueueNamePrefix": "b", "MaxResults": 2, "NextToken": tk.expect("token")}),
    );
    assert_eq!((q2, tk2), (vec![Sqs::url("b2")], None));
    let (q, tk) = list(&mut h, json!({"MaxResults": 6}));
    assert_eq!((q.len(), tk), (6, None));
}

#[test]
fn list_queues_max_results_range() {
    let mut h = Sqs::new();
    h.create("a", json!({}));
    // Range 1–1000 (§4.4); exact AWS text not recorded, so only the code is asserted.
    for bad in [0, 1001] {
        let e = h.err("ListQueues", json!({"MaxResults": bad}));
        assert_eq!(e.shape(), "InvalidParameterValueException");
    }
    let (q, _) = list(&mut h, json!({"MaxResults": 1000}));
    assert_eq!(q.len(), 1);
}

#[test]
fn numeric_attribute_ranges() {
    let mut h = Sqs::new();
    let url = h.create("ranges", json!({}));
    let ranges: [(&str, i64, i64); 6] = [
        ("DelaySeconds", 0, 900),
        ("MaximumMessageSize", 1024, 1_048_576),
        ("MessageRetentionPeriod", 60, 1_209_600),
        ("ReceiveMessageWaitTimeSeconds", 0, 20),
        ("VisibilityTimeout", 0, 43_200),
        ("KmsDataKeyReusePeriodSeconds", 60, 86_400),
    ];
    for (name, lo, hi) in ranges {
        let msg = format!("Invalid value for the parameter {name}.");
        for bad in [
            (lo - 1).to_string(),
            (hi + 1).to_string(),
            "abc".into(),
            "1.5".into(),
            format!(" {lo}"),
            format!("{hi} "),
            format!("{lo}\n"),
            String::new(),
        ] {
            let e = h.err_unchanged(
                &url,
                "SetQueueAttributes",
                json!({"QueueUrl": url, "Attributes": {name: bad}}),
            );
            assert_err(&e, "InvalidAttributeValue", &msg);
            let e = h.err(
                "CreateQueue",
                json!({"QueueName": "fresh", "Attributes": {name: bad}}),
            );
            assert_err(&e, "InvalidAttributeValue", &msg);
        }
        if name == "KmsDataKeyReusePeriodSeconds" {
            continue;
        }
        for good in [lo, hi] {
            h.set_attrs(&url, json!({name: good.to_string()}));
            assert_eq!(h.attr(&url, name).unwrap(), good.to_string());
        }
    }
    assert_eq!(
        list(&mut h, json!({})).0.len(),
        1,
        "no queue created by the failures"
    );
}

#[test]
fn unknown_and_read_only_attribute_names() {
    let mut h = Sqs::new();
    let url = h.create("names", json!({}));
    let e = h.err_unchanged(
        &url,
        "SetQueueAttributes",
        json!({"QueueUrl": url, "Attributes": {"Bogus": "1"}}),
    );
    assert_err(&e, "InvalidAttributeName", "Unknown Attribute Bogus.");
    let e = h.err(
        "CreateQueue",
        json!({"QueueName": "n2", "Attributes": {"Bogus": "1"}}),
    );
    assert_err(&e, "InvalidAttributeName", "Unknown Attribute Bogus.");
    let e = h.err(
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": ["Bogus"]}),
    );
    assert_err(&e, "InvalidAttributeName", "Unknown Attribute Bogus.");
    // Read-only attributes are refused by Set (§3.2); the exact text was not recorded.
    for ro in [
        "ApproximateNumberOfMessages",
        "QueueArn",
        "CreatedTimestamp",
    ] {
        let e = h.err_unchanged(
            &url,
            "SetQueueAttributes",
            json!({"QueueUrl": url, "Attributes": {ro: "1"}}),
        );
        assert_eq!(e.shape(), "InvalidAttributeName");
    }
    // A failed Set with one good and one bad attribute applies neither.
    let e = h.err(
        "SetQueueAttributes",
        json!({"QueueUrl": url, "Attributes": {"DelaySeconds": "5", "VisibilityTimeout": "-1"}}),
    );
    assert_eq!(e.shape(), "InvalidAttributeValue");
    assert_eq!(h.attr(&url, "DelaySeconds").unwrap(), "0");
}

#[test]
fn get_queue_attributes_selection() {
    let mut h = Sqs::new();
    let url = h.create("sel", json!({}));
    let r = h.ok("GetQueueAttributes", json!({"QueueUrl": url}));
    assert!(r.get("Attributes").is_none(), "{r}");
    let r = h.ok(
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": []}),
    );
    assert!(r.get("Attributes").is_none(), "{r}");
    let r = h.ok(
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": ["VisibilityTimeout", "DelaySeconds"]}),
    );
    assert_eq!(
        r["Attributes"],
        json!({"VisibilityTimeout": "30", "DelaySeconds": "0"})
    );
    // Unset optional attributes are omitted even when asked for by name.
    let r = h.ok(
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": ["KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled", "Policy", "RedrivePolicy"]}),
    );
    assert_eq!(r["Attributes"], json!({"SqsManagedSseEnabled": "true"}));
}

#[test]
fn set_queue_attributes_updates_last_modified_and_values() {
    let mut h = Sqs::new();
    let url = h.create("mod", json!({}));
    h.advance_secs(10);
    h.set_attrs(
        &url,
        json!({"VisibilityTimeout": "45", "DelaySeconds": "3", "ReceiveMessageWaitTimeSeconds": "2", "MessageRetentionPeriod": "120", "MaximumMessageSize": "2048"}),
    );
    let a = h.attrs(&url);
    assert_eq!(a["VisibilityTimeout"], "45");
    assert_eq!(a["DelaySeconds"], "3");
    assert_eq!(a["ReceiveMessageWaitTimeSeconds"], "2");
    assert_eq!(a["MessageRetentionPeriod"], "120");
    assert_eq!(a["MaximumMessageSize"], "2048");
    assert_eq!(a["CreatedTimestamp"], (T0 / 1000).to_string().as_str());
    assert_eq!(
        a["LastModifiedTimestamp"],
        (T0 / 1000 + 10).to_string().as_str()
    );
}

#[test]
fn policy_and_kms_attributes() {
    let mut h = Sqs::new();
    let url = h.create("pol", json!({}));
    let policy = r#"{"Version":"2012-10-17","Statement":[]}"#;
    h.set_attrs(&url, json!({"Policy": policy}));
    assert_eq!(h.attr(&url, "Policy").unwrap(), policy);
    h.set_attrs(&url, json!({"Policy": ""}));
    assert!(!h.attrs(&url).contains_key("Policy"));

    let e = h.err_unchanged(
        &url,
        "SetQueueAttributes",
        json!({"QueueUrl": url, "Attributes": {"KmsMasterKeyId": "alias/aws/sqs", "SqsManagedSseEnabled": "true"}}),
    );
    assert_err(
        &e,
        "InvalidAttributeName",
        "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE.",
    );
    h.set_attrs(&url, json!({"KmsMasterKeyId": "alias/aws/sqs"}));
    let a = h.attrs(&url);
    assert_eq!(a["KmsMasterKeyId"], "alias/aws/sqs");
    assert_eq!(a["SqsManagedSseEnabled"], "false");
    assert_eq!(a["KmsDataKeyReusePeriodSeconds"], "300");
    h.set_attrs(&url, json!({"KmsMasterKeyId": ""}));
    let a = h.attrs(&url);
    assert!(!a.contains_key("KmsMasterKeyId"));
    assert_eq!(a["SqsManagedSseEnabled"], "false");
}

#[test]
fn message_counters_standard() {
    let mut h = Sqs::new();
    let url = h.create("cnt", json!({}));
    for i in 0..6 {
        h.send(&url, &format!("m{i}"));
    }
    h.send_with(&url, "late", json!({"DelaySeconds": 100}));
    assert_eq!(h.counts(&url), (6, 0, 1));
    assert_eq!(h.receive(&url, 1).len(), 1);
    assert_eq!(h.counts(&url), (5, 1, 1));
    h.advance_secs(30);
    assert_eq!(h.counts(&url), (6, 0, 1));
    h.advance_secs(70);
    assert_eq!(h.counts(&url), (7, 0, 0));
}

#[test]
fn message_counters_fifo_count_blocked_messages_as_visible() {
    let mut h = Sqs::new();
    let url = h.create_fifo("cnt.fifo", json!({}));
    for (i, g) in ["1", "1", "2", "2", "3", "3"].iter().enumerate() {
        h.send_fifo(&url, g, &format!("d{i}"), &format!("m{i}"));
    }
    let first = h.receive_with(&url, json!({"MaxNumberOfMessages": 1}));
    assert_eq!(sys_attr(&first[0], "MessageGroupId").unwrap(), "1");
    // Receive one more from a different group: group 1 is locked so it comes from 2 or 3.
    let second = h.receive_with(&url, json!({"MaxNumberOfMessages": 1}));
    assert_ne!(sys_attr(&second[0], "MessageGroupId").unwrap(), "1");
    assert_eq!(h.counts(&url), (4, 2, 0));
}

#[test]
fn tags_lifecycle() {
    let mut h = Sqs::new();
    let r = h.ok(
        "CreateQueue",
        json!({"QueueName": "tagged", "tags": {"team": "a", "Env": "x"}}),
    );
    let url = r["QueueUrl"].as_str().unwrap().to_string();
    let r = h.ok("ListQueueTags", json!({"QueueUrl": url}));
    assert_eq!(r["Tags"], json!({"team": "a", "Env": "x"}));
    // Overwrite, case-sensitive keys, empty value.
    h.ok(
        "TagQueue",
        json!({"QueueUrl": url, "Tags": {"team": "b", "env": "y", "empty": ""}}),
    );
    let r = h.ok("ListQueueTags", json!({"QueueUrl": url}));
    assert_eq!(
        r["Tags"],
        json!({"team": "b", "Env": "x", "env": "y", "empty": ""})
    );
    h.ok(
        "UntagQueue",
        json!({"QueueUrl": url, "TagKeys": ["Env", "nonexistent"]}),
    );
    let r = h.ok("ListQueueTags", json!({"QueueUrl": url}));
    assert_eq!(r["Tags"], json!({"team": "b", "env": "y", "empty": ""}));
    h.ok(
        "UntagQueue",
        json!({"QueueUrl": url, "TagKeys": ["team", "env", "empty"]}),
    );
    let r = h.ok("ListQueueTags", json!({"QueueUrl": url}));
    assert!(r.get("Tags").is_none(), "no tags → no Tags key: {r}");
}

#[test]
fn purge_removes_visible_inflight_and_delayed_messages() {
    let mut h = Sqs::new();
    let url = h.create("purge", json!({}));
    h.send(&url, "visible");
    h.send(&url, "inflight");
    h.send_with(&url, "delayed", json!({"DelaySeconds": 60}));
    // Receive exactly one so one is in flight and one stays visible.
    let got = h.receive(&url, 1);
    assert_eq!(got.len(), 1);
    assert_eq!(h.counts(&url), (1, 1, 1));
    h.ok("PurgeQueue", json!({"QueueUrl": url}));
    assert_eq!(h.counts(&url), (0, 0, 0));
    assert_eq!(h.peek_state(&url, "purged").len(), 3);
    h.advance_secs(120);
    assert!(h.receive(&url, 10).is_empty());
    // Sent after the purge: receivable.
    h.send(&url, "after");
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["after"]);
}

#[test]
fn second_purge_within_60_seconds_is_refused_with_403() {
    let mut h = Sqs::new();
    let url = h.create("pq", json!({}));
    h.ok("PurgeQueue", json!({"QueueUrl": url}));
    h.send(&url, "kept");
    h.advance_secs(59);
    let e = h.err_unchanged(&url, "PurgeQueue", json!({"QueueUrl": url}));
    assert_err(
        &e,
        "PurgeQueueInProgress",
        "Only one PurgeQueue operation on pq is allowed every 60 seconds.",
    );
    assert_eq!(e.http_status(), 403);
    assert_eq!(
        e.query_code(),
        "AWS.SimpleQueueService.PurgeQueueInProgress"
    );
    assert_eq!(h.counts(&url), (1, 0, 0));
    h.advance_secs(1);
    h.ok("PurgeQueue", json!({"QueueUrl": url}));
    assert_eq!(h.counts(&url), (0, 0, 0));
}

#[test]
fn purge_clears_fifo_deduplication_history() {
    let mut h = Sqs::new();
    let url = h.create_fifo("pd.fifo", json!({}));
    h.send_fifo(&url, "g", "same", "one");
    h.ok("PurgeQueue", json!({"QueueUrl": url}));
    h.send_fifo(&url, "g", "same", "two");
    assert_eq!(bodies(&h.receive(&url, 10)), vec!["two"]);
}

#[test]
fn add_and_remove_permission() {
    let mut h = Sqs::new();
    let url = h.create("perm", json!({}));
    h.ok(
        "AddPermission",
        json!({"QueueUrl": url, "Label": "l1", "AWSAccountIds": ["111111111111"], "Actions": ["ReceiveMessage"]}),
    );
    let policy: serde_json::Value =
        serde_json::from_str(&h.attr(&url, "Policy").expect("Policy set")).unwrap();
    let arn = Sqs::arn("perm");
    assert_eq!(
        policy,
        json!({"Version": "2008-10-17", "Id": format!("{arn}/SQSDefaultPolicy"),
            "Statement": [{"Sid": "l1", "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::111111111111:root"},
                "Action": "SQS:ReceiveMessage", "Resource": arn}]})
    );
    h.ok(
        "AddPermission",
        json!({"QueueUrl": url, "Label": "l2", "AWSAccountIds": ["111111111111", "222222222222"], "Actions": ["SendMessage", "DeleteMessage"]}),
    );
    let policy: serde_json::Value = serde_json::from_str(&h.attr(&url, "Policy").unwrap()).unwrap();
    let st = &policy["Statement"][1];
    assert_eq!(st["Sid"], "l2");
    assert_eq!(
        st["Principal"]["AWS"],
        json!([
            "arn:aws:iam::111111111111:root",
            "arn:aws:iam::222222222222:root"
        ])
    );
    assert_eq!(
        st["Action"],
        json!(["SQS:SendMessage", "SQS:DeleteMessage"])
    );

    let e = h.err_unchanged(
        &url,
        "AddPermission",
        json!({"QueueUrl": url, "Label": "l1", "AWSAccountIds": ["111111111111"], "Actions": ["SendMessage"]}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value l1 for parameter Label is invalid. Reason: Already exists.",
    );
    let e = h.err_unchanged(
        &url,
        "RemovePermission",
        json!({"QueueUrl": url, "Label": "nope"}),
    );
    assert_err(
        &e,
        "InvalidParameterValueException",
        "Value nope for parameter Label is invalid. Reason: can't find label.",
    );
    h.ok("RemovePermission", json!({"QueueUrl": url, "Label": "l1"}));
    let policy: serde_json::Value = serde_json::from_str(&h.attr(&url, "Policy").unwrap()).unwrap();
    assert_eq!(policy["Statement"].as_array().unwrap().len(), 1);
    h.ok("RemovePermission", json!({"QueueUrl": url, "Label": "l2"}));
    assert!(
        !h.attrs(&url).contains_key("Policy"),
        "last statement removes Policy"
    );
}

#[test]
fn add_permission_with_more_than_seven_actions_is_over_limit() {
    let mut h = Sqs::new();
    let url = h.create("perm8", json!({}));
    let actions = GRANTABLE_ACTIONS;
    let e = h.err_unchanged(
        &url,
        "AddPermission",
        json!({"QueueUrl": url, "Label": "big", "AWSAccountIds": ["111111111111"], "Actions": actions}),
    );
    // The message is moto's, not AWS-recorded (§4.18): assert the code and status only.
    assert_eq!(e.shape(), "OverLimit");
    assert_eq!(e.http_status(), 403);
    h.ok(
        "AddPermission",
        json!({"QueueUrl": url, "Label": "seven", "AWSAccountIds": ["111111111111"], "Actions": &actions[..7]}),
    );
}
