//! Input rules SQS enforces on names, identifiers, bodies, message attributes and tags, each
//! failing with the error code and message AWS sends (spec §2, §4.8, §4.9, §4.15, §5.1, §6.2, §8.1).
//!
//! Where AWS's exact text was recorded the message is copied verbatim; where it was not, the text
//! follows LocalStack / moto conventions and the function says so. Every check is pure and total:
//! no input can make it panic.

use crate::error::{invalid_value, SqsError};
use crate::model::{MessageAttributeValue, MessageAttributes};
use std::collections::BTreeMap;

/// The XML 1.0 `Char` production as SQS words it in its error messages.
const ALLOWED_CHARACTERS: &str =
    "#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]";

/// Upper bound on user message attributes per message (spec §5.1, §12).
const MAX_MESSAGE_ATTRIBUTES: usize = 10;
/// Upper bound on an attribute name and on an attribute DataType, in characters (spec §5.1).
const MAX_ATTRIBUTE_NAME_OR_TYPE: usize = 256;
/// Queue names and batch entry ids share this bound (spec §2).
const MAX_NAME_LEN: usize = 80;
/// MessageGroupId, MessageDeduplicationId and ReceiveRequestAttemptId (spec §2).
const MAX_TOKEN_LEN: usize = 128;
/// Tag bounds (spec §4.15).
const MAX_TAG_KEY: usize = 128;
const MAX_TAG_VALUE: usize = 256;
const FIFO_SUFFIX: &str = ".fifo";

/// Whether `c` is in the XML 1.0 `Char` production. A Rust `char` is never a surrogate, so the
/// gap between `#xD7FF` and `#xE000` needs no separate case.
fn is_allowed_char(c: char) -> bool {
    matches!(c,
        '\u{9}' | '\u{A}' | '\u{D}'
        | '\u{20}'..='\u{D7FF}'
        | '\u{E000}'..='\u{FFFD}'
        | '\u{10000}'..='\u{10FFFF}')
}

/// First char outside #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
pub fn first_invalid_char(s: &str) -> Option<char> {
    s.chars().find(|&c| !is_allowed_char(c))
}

/// InvalidMessageContents with the exact AWS message, e.g. for '\u{7}':
/// "Invalid binary character '#x7' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."
pub fn invalid_message_contents(c: char) -> SqsError {
    SqsError::InvalidMessageContents(format!(
        "Invalid binary character '#x{:X}' was found in the message body, the set of allowed characters is {ALLOWED_CHARACTERS}.",
        u32::from(c)
    ))
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Queue name rules (§2): 1-80 chars `[A-Za-z0-9_-]`, FIFO names end in ".fifo" (the suffix
/// counts toward 80), standard names must not end in ".fifo".
///
/// Texts: AWS's answers to both name/type mismatches are recorded only as `InvalidParameterValue`
/// (spec §2, `test_fifo_queue_requires_suffix`, `test_standard_queue_cannot_have_fifo_suffix`), not
/// verbatim. A standard queue gets LocalStack's text, which is also what it sends for a `.fifo`
/// name on a standard queue (the `.` is simply an illegal character there). A FIFO queue gets the
/// FIFO wording that emulators and client libraries quote for AWS; it is used for every defect of a
/// FIFO name, since that one sentence states all of the FIFO rules.
pub fn validate_queue_name(name: &str, fifo: bool) -> Result<(), SqsError> {
    let base = if fifo {
        name.strip_suffix(FIFO_SUFFIX)
    } else {
        Some(name)
    };
    let ok = base.is_some_and(|b| !b.is_empty() && b.chars().all(is_name_char))
        && name.chars().count() <= MAX_NAME_LEN;
    if ok {
        return Ok(());
    }
    Err(SqsError::InvalidParameterValue(if fifo {
        "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.".to_string()
    } else {
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
            .to_string()
    }))
}

/// MessageGroupId / MessageDeduplicationId / ReceiveRequestAttemptId: 1-128 chars of alphanumerics + ASCII punctuation.
/// `parameter` is the parameter name used in the message:
/// "Value <v> for parameter <P> is invalid. Reason: <P> can only include alphanumeric and punctuation characters. 1 to 128 in length."
pub fn validate_token(value: &str, parameter: &str) -> Result<(), SqsError> {
    let ok = !value.is_empty()
        && value.chars().count() <= MAX_TOKEN_LEN
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_punctuation());
    if ok {
        Ok(())
    } else {
        Err(invalid_value(
            value,
            parameter,
            &format!(
                "{parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length."
            ),
        ))
    }
}

/// Which value member an attribute of a given DataType must use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Number,
    Binary,
}

/// The kind named by a DataType: `String`, `Number` or `Binary`, optionally followed by `.label`.
/// Case-sensitive (`string` is rejected, spec §5.1). An empty label (`"Number."`) is not a custom
/// type by the documented form "type.label"; AWS behaviour for it was not recorded.
fn data_type_kind(data_type: &str) -> Option<Kind> {
    let (prefix, label) = match data_type.split_once('.') {
        Some((prefix, label)) => (prefix, Some(label)),
        None => (data_type, None),
    };
    if label.is_some_and(str::is_empty) {
        return None;
    }
    match prefix {
        "String" => Some(Kind::String),
        "Number" => Some(Kind::Number),
        "Binary" => Some(Kind::Binary),
        _ => None,
    }
}

/// Checks an attribute name (spec §5.1). Letters and digits are Unicode-aware because AWS accepted
/// `attr.1øßä` while rejecting `§` (✔ AWS-recorded). The texts are not AWS-recorded: the character
/// and prefix texts are LocalStack's, the others follow the same wording.
fn check_attribute_name(name: &str) -> Result<(), SqsError> {
    let fail = |m: &str| Err(SqsError::InvalidParameterValue(m.to_string()));
    if name.is_empty() {
        return fail("The request must contain non-empty message (user) attribute names.");
    }
    if name.chars().count() > MAX_ATTRIBUTE_NAME_OR_TYPE {
        return fail("Message (user) attribute names must be at most 256 characters long.");
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return fail(
            "Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. ",
        );
    }
    let lower = name.to_lowercase();
    if lower.starts_with("aws.")
        || lower.starts_with("amazon.")
        || name.starts_with('.')
        || name.ends_with('.')
    {
        return fail(
            "You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use. Additionally, they cannot start or end with '.'.",
        );
    }
    if name.contains("..") {
        return fail("Message (user) attribute names can not have successive '.' characters.");
    }
    Ok(())
}

/// Whether `s` is a decimal number as SQS's `Number` type accepts it: an optional sign, digits with
/// an optional fraction (either side of the point may be empty, not both), and an optional
/// exponent. This is the grammar of Java's `BigDecimal`, which the SQS docs describe the type by
/// (38 digits, 10^-128..10^+126); the precision and range limits are not enforced because AWS's
/// behaviour at those edges was not recorded.
fn is_number(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = match exponent {
        None => true,
        Some(e) => {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            !e.is_empty() && digits(e)
        }
    };
    mantissa_ok && exponent_ok
}

/// Checks one attribute's DataType and value. `owner` is "user" or "system", as in AWS's
/// "Message (user) attribute" wording.
fn check_attribute_value(
    name: &str,
    value: &MessageAttributeValue,
    owner: &str,
) -> Result<(), SqsError> {
    let fail = |m: String| Err(SqsError::InvalidParameterValue(m));
    let data_type = value.data_type.as_str();
    if data_type.is_empty() {
        // Not AWS-recorded; the SDKs normally refuse a missing DataType before sending.
        return fail(format!(
            "The message attribute '{name}' must contain non-empty message attribute type."
        ));
    }
    // Spec §5.1, quoting AWS (boto/boto3#362).
    let Some(kind) = data_type_kind(data_type) else {
        return fail(format!(
            "The message attribute '{name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."
        ));
    };
    if data_type.chars().count() > MAX_ATTRIBUTE_NAME_OR_TYPE {
        // Not AWS-recorded (AWS rejects `Number.` + 256 chars, text unknown).
        return fail(format!(
            "Message ({owner}) attribute '{name}' type must be at most 256 characters long."
        ));
    }
    let field = if kind == Kind::Binary {
        "Binary"
    } else {
        "String"
    };
    match (&value.string_value, &value.binary_value) {
        // Not AWS-recorded: texts of LocalStack's SNS provider, which shares SQS's validator.
        (Some(_), Some(_)) => {
            return fail(format!(
                "Message ({owner}) attribute '{name}' must have a single value."
            ))
        }
        (Some(_), None) if kind == Kind::Binary => {
            return fail(format!(
                "The message attribute '{name}' with type '{data_type}' must use field '{field}'."
            ))
        }
        (None, Some(_)) if kind != Kind::Binary => {
            return fail(format!(
                "The message attribute '{name}' with type '{data_type}' must use field '{field}'."
            ))
        }
        _ => {}
    }
    if kind == Kind::Binary {
        if value.binary_value.as_ref().map_or(0, Vec::len) == 0 {
            // Spec §5.1, quoting AWS (aws/aws-sdk-java#633).
            return fail(format!(
                "The message attribute '{name}' must contain non-empty message attribute value for message attribute type '{data_type}'."
            ));
        }
        return Ok(());
    }
    let text = value.string_value.as_deref().unwrap_or_default();
    if text.is_empty() {
        // ✔ AWS-recorded for `String`; the same wording is assumed for `Number` and custom types.
        return fail(format!(
            "Message ({owner}) attribute '{name}' must contain a non-empty value of type '{data_type}'."
        ));
    }
    if let Some(c) = first_invalid_char(text) {
        // AWS answers InvalidParameterValue here, not InvalidMessageContents (spec §5.1); its text
        // was not recorded, so the body's wording is adapted to name the attribute.
        return fail(format!(
            "Invalid binary character '#x{:X}' was found in the value of message ({owner}) attribute '{name}', the set of allowed characters is {ALLOWED_CHARACTERS}.",
            u32::from(c)
        ));
    }
    if kind == Kind::Number && !is_number(text) {
        // A real-AWS capture quoted by another emulator (and reproduced by local-aws-sqs).
        return fail(format!(
            "Can't cast the value of message ({owner}) attribute '{name}' to a number."
        ));
    }
    Ok(())
}

/// User message attributes (§5.1): at most 10, name rules, DataType rules, exactly one non-empty
/// value of the right kind, string values in the body character set, Number values that parse.
/// All failures are `InvalidParameterValue`; see the helpers for which texts are AWS-recorded.
/// Attributes are checked in name order, so the first failure reported is deterministic.
pub fn validate_message_attributes(attrs: &MessageAttributes) -> Result<(), SqsError> {
    if attrs.len() > MAX_MESSAGE_ATTRIBUTES {
        return Err(SqsError::InvalidParameterValue(format!(
            "Number of message attributes [{}] exceeds the allowed maximum [{MAX_MESSAGE_ATTRIBUTES}].",
            attrs.len()
        )));
    }
    for (name, value) in attrs {
        check_attribute_name(name)?;
        check_attribute_value(name, value, "user")?;
    }
    Ok(())
}

/// Bytes counted toward MaximumMessageSize: Σ name + DataType + value bytes (binary: decoded bytes).
pub fn message_attributes_size(attrs: &MessageAttributes) -> usize {
    attrs
        .iter()
        .map(|(name, v)| {
            name.len()
                + v.data_type.len()
                + v.string_value.as_ref().map_or(0, String::len)
                + v.binary_value.as_ref().map_or(0, Vec::len)
        })
        .fold(0usize, usize::saturating_add)
}

/// MessageSystemAttributes on send: only "AWSTraceHeader", DataType "String", non-empty
/// StringValue ([MODEL] `MessageSystemAttributeNameForSends`). Texts are not AWS-recorded.
pub fn validate_system_attributes(attrs: &MessageAttributes) -> Result<(), SqsError> {
    for (name, value) in attrs {
        if name != "AWSTraceHeader" {
            return Err(SqsError::InvalidParameterValue(format!(
                "Message system attribute name '{name}' is invalid."
            )));
        }
        if value.data_type != "String" {
            return Err(SqsError::InvalidParameterValue(format!(
                "Message (system) attribute '{name}' must be of type 'String'."
            )));
        }
        check_attribute_value(name, value, "system")?;
    }
    Ok(())
}

/// Batch entry Id: 1-80 chars [A-Za-z0-9_-] else SqsError::InvalidBatchEntryId.
pub fn validate_batch_entry_id(id: &str) -> Result<(), SqsError> {
    if !id.is_empty() && id.len() <= MAX_NAME_LEN && id.chars().all(is_name_char) {
        Ok(())
    } else {
        Err(SqsError::InvalidBatchEntryId)
    }
}

/// Does a ReceiveMessage MessageAttributeNames filter list select this attribute name? ("All", ".*", "*" select all;
/// "Prefix.*" selects names starting with "Prefix"; exact names; illegal filters match nothing, never error.)
pub fn attribute_filter_selects(filters: &[String], name: &str) -> bool {
    filters.iter().any(|f| match f.as_str() {
        "All" | ".*" | "*" => true,
        f if f == name => true,
        // `Hel.*` selects both `Hello` and `Help.Me` (✔ AWS-recorded): the prefix is raw text, not
        // a dotted path component. An empty prefix is the `.*` case above.
        f => f
            .strip_suffix(".*")
            .is_some_and(|prefix| !prefix.is_empty() && name.starts_with(prefix)),
    })
}

/// Queue tags (§4.15): key 1-128 chars, value ≤256 chars, no `aws:` prefix.
///
/// The key-length text is moto's; the value-length and `aws:` texts are not recorded anywhere
/// examined and follow its wording. The documented character set and the 50-tag recommendation
/// are not enforced: AWS's enforcement of either was not recorded, and refusing a tag AWS accepts
/// would break a working client.
pub fn validate_tags(tags: &BTreeMap<String, String>) -> Result<(), SqsError> {
    for (key, value) in tags {
        let key_len = key.chars().count();
        if key_len == 0 || key_len > MAX_TAG_KEY {
            return Err(SqsError::InvalidParameterValue(
                "Tag keys must be between 1 and 128 characters in length.".to_string(),
            ));
        }
        if key.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("aws:")) {
            return Err(SqsError::InvalidParameterValue(
                "Tag keys must not start with 'aws:'. This prefix is reserved for AWS use."
                    .to_string(),
            ));
        }
        if value.chars().count() > MAX_TAG_VALUE {
            return Err(SqsError::InvalidParameterValue(
                "Tag values must be between 0 and 256 characters in length.".to_string(),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
            check(MessageAttributeValue { data_type: "Number".into(), ..Default::default() }),
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
        let t = |k: &str, v: &str| BTreeMap::from([(k.to_string(), v.to_string())]);
        assert_eq!(validate_tags(&t("team", "")), Ok(()));
        assert_eq!(
            validate_tags(&t(&"k".repeat(128), &"v".repeat(256))),
            Ok(())
        );
        assert_eq!(validate_tags(&t("awsome", "x")), Ok(()));
        assert_eq!(validate_tags(&BTreeMap::new()), Ok(()));
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
}
