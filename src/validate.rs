//! Input rules SQS enforces on names, identifiers, bodies, message attributes and tags, each
//! failing with the error code and message AWS sends (spec §2, §4.8, §4.9, §4.15, §5.1, §6.2, §8.1).
//!
//! Where AWS's exact text was recorded the message is copied verbatim; where it was not, the text
//! follows LocalStack / moto conventions and the function says so. Every check is pure and total:
//! no input can make it panic.

use crate::error::{invalid_value, SqsError};
use crate::maps::SortedMap;
use crate::model::{MessageAttributeValue, MessageAttributes};

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
    // ASCII from space up, tab, LF and CR are all allowed: a byte test settles most bodies
    // without decoding characters, and a word test most of those without a loop per byte.
    if printable_ascii(s.as_bytes())
        || s.bytes()
            .all(|b| (0x20..0x80).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r'))
    {
        return None;
    }
    s.chars().find(|&c| !is_allowed_char(c))
}

/// Is every byte in 0x20..0x80, eight bytes at a time? Subtracting 0x20 from each byte sets
/// its top bit when it is below 0x20 (a borrow into the next byte only follows such a byte, so
/// the answer for the word is exact); `| w` adds the bytes from 0x80 up.
fn printable_ascii(bytes: &[u8]) -> bool {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    const TOP_BITS: u64 = 0x8080_8080_8080_8080;
    let outside = |w: u64| (w.wrapping_sub(SPACES) | w) & TOP_BITS != 0;
    let printable = |w: Option<u64>| w.is_some_and(|w| !outside(w));
    let Some(last) = bytes.len().checked_sub(8) else {
        return bytes.iter().all(|b| (0x20..0x80).contains(b));
    };
    let mut words = bytes.chunks_exact(8);
    for chunk in &mut words {
        if !printable(crate::words::le_word(chunk)) {
            return false;
        }
    }
    // A partial last word is tested as the last eight bytes, overlapping bytes already seen:
    // padding it was a copy of variable length (a `memcpy` call natively, `memory.copy` in
    // the wasm) for every body whose length is not a multiple of eight.
    words.remainder().is_empty() || printable(crate::words::word_at(bytes, last))
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
    // ASCII case folding: no character outside ASCII lowercases to the letters of these
    // prefixes, and `to_lowercase` would bring Unicode's case tables into the wasm (~10 KB).
    let starts_with = |prefix: &str| {
        name.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    if starts_with("aws.") || starts_with("amazon.") || name.starts_with('.') || name.ends_with('.')
    {
        return fail(
            "You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use. Additionally, they cannot start or end with '.'.",
        );
    }
    // Two bytes compared in a loop: `contains("..")` links the two-way substring searcher (its
    // only user, 1.5 KB of wasm).
    if name.as_bytes().windows(2).any(|w| w == b"..") {
        return fail("Message (user) attribute names can not have successive '.' characters.");
    }
    Ok(())
}

/// Whether `s` is a decimal number as SQS's `Number` type accepts it: an optional sign, digits with
/// an optional fraction (either side of the point may be empty, not both), and an optional
/// exponent (the grammar of Java's `BigDecimal`), within the documented limits (spec §5.1: "up
/// to 38 digits of precision, range 10^-128 … 10^+126"). AWS's answer at those edges was not
/// recorded; the documented limits are enforced with the same error as a value that does not
/// parse, since SQS could not store it as its Number type either way.
fn is_number(s: &str) -> bool {
    is_number_text(s) && number_within_limits(s)
}

/// The documented precision and range of SQS's Number: at most 38 significant digits once
/// leading and trailing zeroes are removed ("Amazon SQS removes leading and trailing zeroes"),
/// and a magnitude of zero or between 10^-128 and 10^126 inclusive. `s` already parses.
fn number_within_limits(s: &str) -> bool {
    const MAX_DIGITS: usize = 38;
    let s = s.strip_prefix(['+', '-']).unwrap_or(s).as_bytes();
    let (mantissa, exponent) = match s.iter().position(|&b| b == b'e' || b == b'E') {
        Some(at) => (&s[..at], &s[at + 1..]),
        None => (s, &b"0"[..]),
    };
    // Bytes, not `str` patterns or a joined `String`: the same walk in the wasm is smaller.
    let point = mantissa.iter().position(|&b| b == b'.');
    // The first and last non-zero digits, counted among the digits (the point skipped).
    let (mut seen, mut first, mut last, mut leading) = (0usize, None, 0usize, 0u8);
    for &b in mantissa.iter().filter(|&&b| b != b'.') {
        if b != b'0' {
            if first.is_none() {
                first = Some(seen);
                leading = b;
            }
            last = seen;
        }
        seen += 1;
    }
    let Some(first) = first else {
        return true; // zero, however it is written
    };
    if last - first + 1 > MAX_DIGITS {
        return false;
    }
    // An exponent too long for i64 is far outside the range in either direction.
    let Some(exponent) = std::str::from_utf8(exponent)
        .ok()
        .and_then(|e| e.parse::<i64>().ok())
    else {
        return false;
    };
    // The power of ten of the first significant digit: the value lies in [10^lead, 10^(lead+1)).
    let int_len = point.unwrap_or(mantissa.len());
    let Some(lead) = i64::try_from(int_len)
        .ok()
        .zip(i64::try_from(first).ok())
        .and_then(|(n, f)| (n - 1 - f).checked_add(exponent))
    else {
        return false;
    };
    let significant_is_one = last == first && leading == b'1';
    match lead {
        l if l < -128 => false,
        l if l < 126 => true,
        126 => significant_is_one, // exactly 10^126
        _ => false,
    }
}

fn is_number_text(s: &str) -> bool {
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
    // Bytes, not chars: every allowed character is ASCII, and no byte of a longer character
    // is an ASCII letter, digit, '-' or '_', so both tests refuse the same ids.
    let name_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    if !id.is_empty() && id.len() <= MAX_NAME_LEN && id.bytes().all(name_byte) {
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
pub fn validate_tags(tags: &SortedMap<String, String>) -> Result<(), SqsError> {
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
mod tests;
