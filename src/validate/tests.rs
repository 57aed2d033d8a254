//! The input rules of `validate`, each asserting the exact SQS error.
use super::*;

fn ipv(r: Result<(), SqsError>) -> String {
    match r {
        Err(SqsError::InvalidParameterValue(m)) => m,
        other => panic!("expected InvalidParameterValue, got {other:?}"),
    }
}

fn s(data_type: &str, v: &str) -> MessageAttributeValue {
    MessageAttributeValue {
        data_type: data_type.into(),
        string_value: Some(v.into()),
        ..Default::default()
    }
}

fn b(data_type: &str, v: &[u8]) -> MessageAttributeValue {
    MessageAttributeValue {
        data_type: data_type.into(),
        binary_value: Some(v.to_vec()),
        ..Default::default()
    }
}

fn one(name: &str, v: MessageAttributeValue) -> MessageAttributes {
    MessageAttributes::from([(name.to_string(), v)])
}

#[test]
fn body_characters_follow_the_xml_char_production() {
    assert_eq!(first_invalid_char("hello\t\n\r world"), None);
    assert_eq!(
        first_invalid_char("\u{D7FF}\u{E000}\u{FFFD}\u{10000}\u{10FFFF}"),
        None
    );
    assert_eq!(first_invalid_char("a\u{7}b\u{0}"), Some('\u{7}'));
    assert_eq!(first_invalid_char("\u{1F}"), Some('\u{1F}'));
    assert_eq!(first_invalid_char("x\u{FFFE}"), Some('\u{FFFE}'));
    assert_eq!(first_invalid_char("x\u{FFFF}"), Some('\u{FFFF}'));
    assert_eq!(first_invalid_char("\u{B}"), Some('\u{B}'));
}

#[test]
fn invalid_contents_message_is_aws_text() {
    let e = invalid_message_contents('\u{7}');
    assert_eq!(e.shape(), "InvalidMessageContents");
    assert_eq!(
        e.message(),
        "Invalid binary character '#x7' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."
    );
    // Upper-case hex, as in AWS's `#xD7FF`.
    assert!(invalid_message_contents('\u{FFFF}')
        .message()
        .starts_with("Invalid binary character '#xFFFF' was found"));
}

const STD_TEXT: &str =
    "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length";
const FIFO_TEXT: &str = "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.";

#[test]
fn standard_queue_names() {
    assert_eq!(validate_queue_name("my-queue_1", false), Ok(()));
    assert_eq!(validate_queue_name(&"a".repeat(80), false), Ok(()));
    for bad in [
        "",
        "has space",
        "dot.name",
        "q.fifo",
        "ünïcode",
        &"a".repeat(81),
    ] {
        assert_eq!(ipv(validate_queue_name(bad, false)), STD_TEXT, "{bad:?}");
    }
}

#[test]
fn fifo_queue_names() {
    assert_eq!(validate_queue_name("orders.fifo", true), Ok(()));
    // The suffix counts toward 80.
    let max = format!("{}.fifo", "a".repeat(75));
    assert_eq!(validate_queue_name(&max, true), Ok(()));
    let too_long = format!("{}.fifo", "a".repeat(76));
    for bad in [
        "orders",
        ".fifo",
        "or.ders.fifo",
        "orders.FIFO",
        too_long.as_str(),
    ] {
        assert_eq!(ipv(validate_queue_name(bad, true)), FIFO_TEXT, "{bad:?}");
    }
}

#[test]
fn group_and_dedup_ids() {
    assert_eq!(validate_token("group-1", "MessageGroupId"), Ok(()));
    assert_eq!(
        validate_token("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~aZ9", "MessageGroupId"),
        Ok(())
    );
    assert_eq!(
        validate_token(&"x".repeat(128), "MessageDeduplicationId"),
        Ok(())
    );
    assert_eq!(
        ipv(validate_token("has space", "MessageGroupId")),
        "Value has space for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."
    );
    assert_eq!(
        ipv(validate_token("", "MessageDeduplicationId")),
        "Value  for parameter MessageDeduplicationId is invalid. Reason: MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to 128 in length."
    );
    for bad in [
        "x".repeat(129),
        "tab\t".into(),
        "é".into(),
        "ctl\u{8}".into(),
    ] {
        assert!(
            validate_token(&bad, "ReceiveRequestAttemptId").is_err(),
            "{bad:?}"
        );
    }
}

#[test]
fn valid_attributes_pass() {
    let mut attrs = MessageAttributes::new();
    attrs.insert("attr.1øßä".into(), s("String", "Valida"));
    attrs.insert("n".into(), s("Number.int", "-1.5e+10"));
    attrs.insert("bin".into(), b("Binary.png", &[0, 1, 2]));
    attrs.insert("j".into(), s("String.json", "{\"a\":1}"));
    attrs.insert("L".repeat(256), s("String", "v"));
    assert_eq!(validate_message_attributes(&attrs), Ok(()));
    assert_eq!(
        validate_message_attributes(&MessageAttributes::new()),
        Ok(())
    );
}

#[test]
fn at_most_ten_attributes() {
    let ten: MessageAttributes = (0..10)
        .map(|i| (format!("a{i}"), s("String", "v")))
        .collect();
    assert_eq!(validate_message_attributes(&ten), Ok(()));
    let mut eleven = ten;
    eleven.insert("a10".into(), s("String", "v"));
    assert_eq!(
        ipv(validate_message_attributes(&eleven)),
        "Number of message attributes [11] exceeds the allowed maximum [10]."
    );
}

#[test]
fn attribute_name_rules() {
    const CHARS: &str = "Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. ";
    const PREFIX: &str = "You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use. Additionally, they cannot start or end with '.'.";
    let check = |name: &str| {
        ipv(validate_message_attributes(&one(
            name,
            s("String", "Valid"),
        )))
    };
    for c in ["!", "\"", "§", "(", "?", " "] {
        assert_eq!(check(&format!("Invalid-{c}-attr")), CHARS, "{c:?}");
    }
    for p in ["aWs.", "AMAZON.", "."] {
        assert_eq!(check(&format!("{p}-Invalid-attr")), PREFIX, "{p:?}");
    }
    assert_eq!(check("Invalid."), PREFIX);
    // The prefix check folds ASCII case only; it agrees with Unicode lowercasing, since no
    // other character lowercases to these letters (the Kelvin sign lowercases to `k`, the
    // dotted capital I to `i` and a combining dot).
    for name in [
        "ÄWS.x",
        "\u{212A}aws.x",
        "\u{130}x",
        "AMAZON\u{212A}.x",
        "aws-x",
        "Åmazon.x",
    ] {
        let lower = name.to_lowercase();
        let reserved = lower.starts_with("aws.") || lower.starts_with("amazon.");
        let accepted = validate_message_attributes(&one(name, s("String", "v"))).is_ok();
        assert_eq!(accepted, !reserved, "{name:?}");
    }
    // Only the dotted prefix is reserved.
    assert_eq!(
        validate_message_attributes(&one("AWSome", s("String", "v"))),
        Ok(())
    );
    assert_eq!(
        check("Invalid..Name"),
        "Message (user) attribute names can not have successive '.' characters."
    );
    assert_eq!(
        check(&"L".repeat(257)),
        "Message (user) attribute names must be at most 256 characters long."
    );
    assert_eq!(
        check(""),
        "The request must contain non-empty message (user) attribute names."
    );
}

#[test]
fn attribute_data_type_rules() {
    const BAD_TYPE: &str = "The message attribute 'Attribute_name' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.";
    let check = |t: &str| {
        ipv(validate_message_attributes(&one(
            "Attribute_name",
            s(t, "1"),
        )))
    };
    for t in [
        "Invalid",
        "string",
        "STRING",
        "Strings",
        "Number.",
        "Foo.String",
    ] {
        assert_eq!(check(t), BAD_TYPE, "{t:?}");
    }
    assert_eq!(
        check(&format!("Number.{}", "L".repeat(256))),
        "Message (user) attribute 'Attribute_name' type must be at most 256 characters long."
    );
    assert_eq!(
        validate_message_attributes(&one("a", s(&format!("Number.{}", "L".repeat(249)), "1"))),
        Ok(())
    );
    assert_eq!(
        check(""),
        "The message attribute 'Attribute_name' must contain non-empty message attribute type."
    );
}

#[test]
fn attribute_value_presence_rules() {
    let check =
        |v: MessageAttributeValue| ipv(validate_message_attributes(&one("ErrorDetails", v)));
    // ✔ AWS-recorded text.
    assert_eq!(
        check(s("String", "")),
        "Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'String'."
    );
    assert_eq!(
        check(MessageAttributeValue {
            data_type: "Number".into(),
            ..Default::default()
        }),
        "Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'Number'."
    );
    assert_eq!(
        check(b("Binary", b"")),
        "The message attribute 'ErrorDetails' must contain non-empty message attribute value for message attribute type 'Binary'."
    );
    assert_eq!(
        check(b("String", b"x")),
        "The message attribute 'ErrorDetails' with type 'String' must use field 'String'."
    );
    assert_eq!(
        check(s("Binary.gif", "x")),
        "The message attribute 'ErrorDetails' with type 'Binary.gif' must use field 'Binary'."
    );
    let both = MessageAttributeValue {
        data_type: "String".into(),
        string_value: Some("x".into()),
        binary_value: Some(vec![1]),
        ..Default::default()
    };
    assert_eq!(
        check(both),
        "Message (user) attribute 'ErrorDetails' must have a single value."
    );
}

#[test]
fn string_values_use_the_body_character_set_but_invalid_parameter_value() {
    let r = validate_message_attributes(&one("attr1", s("String", "Invalid-\u{8},\u{B}")));
    assert_eq!(
        ipv(r),
        "Invalid binary character '#x8' was found in the value of message (user) attribute 'attr1', the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."
    );
    assert!(validate_message_attributes(&one("n", s("Number", "1\u{0}"))).is_err());
}

#[test]
fn number_values_must_parse() {
    for ok in [
        "0", "-1", "+2", "1.5", ".5", "5.", "1e10", "1E-10", "-3.25e+2", "007",
    ] {
        assert_eq!(
            validate_message_attributes(&one("Age", s("Number", ok))),
            Ok(()),
            "{ok:?}"
        );
    }
    for bad in [
        "Hello", "1.2.3", ".", "e5", "1e", "1e+", "--1", " 1", "1 ", "NaN", "Infinity", "0x10",
        "1_000",
    ] {
        assert_eq!(
            ipv(validate_message_attributes(&one("Age", s("Number", bad)))),
            "Can't cast the value of message (user) attribute 'Age' to a number.",
            "{bad:?}"
        );
    }
    // The documented limits (spec §5.1): 38 significant digits, 10^-128 ..= 10^126.
    let digits38 = "1".repeat(38);
    for ok in [
        digits38.clone(),
        format!("000{digits38}000"),
        format!("0.000{digits38}"),
        format!("-{digits38}"),
        "1e126".into(),
        "-1E+126".into(),
        "1e-128".into(),
        "0.01e-126".into(),
        "9.99e125".into(),
        "0e999999999999999999999".into(),
        "0.000".into(),
    ] {
        assert_eq!(
            validate_message_attributes(&one("Age", s("Number", &ok))),
            Ok(()),
            "{ok:?}"
        );
    }
    for bad in [
        "1".repeat(39),
        format!("{digits38}.1"),
        "1.1e126".into(),
        "1e127".into(),
        "2e126".into(),
        "9e-129".into(),
        "0.001e-126".into(),
        "1e99999999999999999999".into(),
        "1e-99999999999999999999".into(),
        "1e9223372036854775807".into(),
    ] {
        assert_eq!(
            ipv(validate_message_attributes(&one("Age", s("Number", &bad)))),
            "Can't cast the value of message (user) attribute 'Age' to a number.",
            "{bad:?}"
        );
    }
    // Custom Number types parse too; custom String types do not.
    assert!(validate_message_attributes(&one("Age", s("Number.int", "abc"))).is_err());
    assert_eq!(
        validate_message_attributes(&one("Age", s("String.int", "abc"))),
        Ok(())
    );
}

#[test]
fn attribute_size_counts_name_type_and_value_bytes() {
    let mut attrs = MessageAttributes::new();
    attrs.insert("ab".into(), s("String", "héllo")); // 2 + 6 + 6
    attrs.insert("c".into(), b("Binary", &[1, 2, 3])); // 1 + 6 + 3
    assert_eq!(message_attributes_size(&attrs), 14 + 10);
    assert_eq!(message_attributes_size(&MessageAttributes::new()), 0);
}

#[test]
fn system_attributes() {
    let trace = s(
        "String",
        "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1",
    );
    assert_eq!(
        validate_system_attributes(&one("AWSTraceHeader", trace)),
        Ok(())
    );
    assert_eq!(
        validate_system_attributes(&MessageAttributes::new()),
        Ok(())
    );
    assert_eq!(
        ipv(validate_system_attributes(&one(
            "SenderId",
            s("String", "x")
        ))),
        "Message system attribute name 'SenderId' is invalid."
    );
    assert_eq!(
        ipv(validate_system_attributes(&one(
            "AWSTraceHeader",
            s("String.x", "x")
        ))),
        "Message (system) attribute 'AWSTraceHeader' must be of type 'String'."
    );
    assert_eq!(
        ipv(validate_system_attributes(&one(
            "AWSTraceHeader",
            b("Binary", b"x")
        ))),
        "Message (system) attribute 'AWSTraceHeader' must be of type 'String'."
    );
    assert_eq!(
        ipv(validate_system_attributes(&one("AWSTraceHeader", s("String", "")))),
        "Message (system) attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'."
    );
}

#[test]
fn batch_entry_ids() {
    assert_eq!(validate_batch_entry_id("msg-1_A"), Ok(()));
    assert_eq!(validate_batch_entry_id(&"a".repeat(80)), Ok(()));
    for bad in [
        "",
        "invalid:id",
        "a b",
        "ü",
        &"a".repeat(81),
        &"a".repeat(100),
    ] {
        assert_eq!(
            validate_batch_entry_id(bad),
            Err(SqsError::InvalidBatchEntryId),
            "{bad:?}"
        );
    }
    assert_eq!(
        SqsError::InvalidBatchEntryId.message(),
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long."
    );
}

#[test]
fn attribute_filters() {
    let f = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for all in ["All", ".*", "*"] {
        assert!(attribute_filter_selects(&f(&[all]), "anything"));
    }
    let hel = f(&["Hel.*"]);
    assert!(attribute_filter_selects(&hel, "Hello"));
    assert!(attribute_filter_selects(&hel, "Help.Me"));
    assert!(!attribute_filter_selects(&hel, "General"));
    let exact = f(&["Hello", "General"]);
    assert!(attribute_filter_selects(&exact, "General"));
    assert!(!attribute_filter_selects(&exact, "Help.Me"));
    assert!(!attribute_filter_selects(&f(&["hello"]), "Hello"));
    assert!(!attribute_filter_selects(&f(&["all"]), "Hello"));
    for illegal in ["AWS.", "..foo", "", "Hel*"] {
        assert!(
            !attribute_filter_selects(&f(&[illegal]), "Hello"),
            "{illegal:?}"
        );
    }
    assert!(!attribute_filter_selects(&[], "Hello"));
}

#[test]
fn tags() {
    let t = |k: &str, v: &str| SortedMap::from([(k.to_string(), v.to_string())]);
    assert_eq!(validate_tags(&t("team", "")), Ok(()));
    assert_eq!(
        validate_tags(&t(&"k".repeat(128), &"v".repeat(256))),
        Ok(())
    );
    assert_eq!(validate_tags(&t("awsome", "x")), Ok(()));
    assert_eq!(validate_tags(&SortedMap::new()), Ok(()));
    assert_eq!(
        ipv(validate_tags(&t("", "x"))),
        "Tag keys must be between 1 and 128 characters in length."
    );
    assert_eq!(
        ipv(validate_tags(&t(&"k".repeat(129), "x"))),
        "Tag keys must be between 1 and 128 characters in length."
    );
    for k in ["aws:x", "AWS:cost", "Aws:"] {
        assert_eq!(
            ipv(validate_tags(&t(k, "x"))),
            "Tag keys must not start with 'aws:'. This prefix is reserved for AWS use.",
            "{k:?}"
        );
    }
    assert_eq!(
        ipv(validate_tags(&t("k", &"v".repeat(257)))),
        "Tag values must be between 0 and 256 characters in length."
    );
    // A multi-byte first character must not trip the prefix check.
    assert_eq!(validate_tags(&t("ñaws:", "x")), Ok(()));
}

#[test]
fn the_word_test_agrees_with_the_byte_test() {
    let byte_test = |s: &[u8]| s.iter().all(|b| (0x20..0x80).contains(b));
    for len in 0..20 {
        for at in 0..len {
            for b in 0..=255u8 {
                let mut s = vec![b'a'; len];
                s[at] = b;
                assert_eq!(super::printable_ascii(&s), byte_test(&s), "{s:?}");
            }
        }
    }
}
