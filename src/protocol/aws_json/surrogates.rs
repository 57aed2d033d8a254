//! Lone UTF-16 surrogates escaped in JSON text (`"\ud800"`).
//!
//! A JS string may hold a surrogate without its pair, and `JSON.stringify` then writes it as a
//! `\uXXXX` escape; AWS's JSON reader takes such an escape into a (UTF-16) string, and SQS's
//! character check refuses it: InvalidMessageContents naming the surrogate's code point, as for
//! any character outside the allowed set. serde_json refuses the text outright instead (a
//! SerializationException, "unexpected end of hex escape"), and a Rust string cannot hold a
//! surrogate at all. So when reading a request fails, the text is looked at for one: if the
//! surrogates were its only defect, the request runs with each written as U+FFFF, a
//! noncharacter that SQS's checks refuse wherever they refuse a surrogate (a body, a batch
//! entry's body, an attribute value), and the refusal then names the surrogate.

use crate::error::SqsError;

/// The first lone surrogate escaped in `text` (a `\uXXXX` in D800-DFFF that is not a high one
/// followed by a low one), and `text` with every lone one written as `\uffff` instead. `None`
/// when there is none.
pub fn lone_surrogates(text: &str) -> Option<(u32, String)> {
    let bytes = text.as_bytes();
    let mut first = None;
    let mut repaired = String::new();
    // Bytes of `text` copied into `repaired` so far.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // Outside strings valid JSON has no backslash, and inside one every backslash starts an
        // escape: stepping over each escape whole keeps `\\u` (a backslash, then a `u`) apart
        // from `\u`.
        let Some(unit) = escaped_unit(bytes, i) else {
            i += 2;
            continue;
        };
        if (0xD800..0xDC00).contains(&unit)
            && escaped_unit(bytes, i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low))
        {
            i += 12; // a pair: one character
            continue;
        }
        if (0xD800..0xE000).contains(&unit) {
            first.get_or_insert(unit);
            repaired.push_str(&text[copied..i]);
            repaired.push_str("\\uffff");
            copied = i + 6;
        }
        i += 6;
    }
    let unit = first?;
    repaired.push_str(&text[copied..]);
    Some((unit, repaired))
}

/// [`name_surrogate`] in the refusals that can name a character.
pub fn name_surrogate_in(text: &str, unit: u32, err: SqsError) -> SqsError {
    match err {
        SqsError::InvalidMessageContents(m) => {
            SqsError::InvalidMessageContents(name_surrogate(text, unit, m))
        }
        SqsError::InvalidParameterValue(m) => {
            SqsError::InvalidParameterValue(name_surrogate(text, unit, m))
        }
        e => e,
    }
}

/// The code unit of a `\uXXXX` escape at `at`, if one is there.
fn escaped_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let hex = bytes.get(at..at + 6)?.strip_prefix(b"\\u")?;
    let hex = std::str::from_utf8(hex).ok()?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

/// Names the surrogate `unit` where a refusal's text names the U+FFFF that stood for it, unless
/// `text` (the request) holds a U+FFFF of its own, which the refusal may be about.
pub fn name_surrogate(text: &str, unit: u32, out: String) -> String {
    if text.contains('\u{FFFF}') || text.to_ascii_lowercase().contains("\\uffff") {
        return out;
    }
    out.replace("'#xFFFF'", &format!("'#x{unit:X}'"))
}

#[cfg(test)]
mod tests {
    use super::lone_surrogates;

    #[test]
    fn finds_lone_surrogates_and_leaves_pairs_and_escaped_backslashes() {
        assert_eq!(
            lone_surrogates(r#"{"MessageBody":"a\ud800b"}"#),
            Some((0xD800, r#"{"MessageBody":"a\uffffb"}"#.to_string()))
        );
        // A low one alone, and the first of two reported.
        assert_eq!(
            lone_surrogates(r#"["\uDC01x\uD801"]"#),
            Some((0xDC01, r#"["\uffffx\uffff"]"#.to_string()))
        );
        // A high one followed by another high one: both lone.
        assert_eq!(
            lone_surrogates(r#""\ud800\ud800""#).map(|(u, _)| u),
            Some(0xD800)
        );
        assert_eq!(lone_surrogates(r#""\ud83d\ude00 \u00e9""#), None);
        // `\\ud800` is a backslash and the letters "ud800".
        assert_eq!(lone_surrogates(r#""\\ud800""#), None);
        assert_eq!(lone_surrogates(r#""\ud8""#), None);
        assert_eq!(lone_surrogates("\"é\\"), None);
    }
}
