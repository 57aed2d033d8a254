//! Writing JSON straight into text: a generic writer, neither SQS's wire protocol nor the
//! engine. Its users are the AWS JSON 1.0 responses (`protocol/`), the journal's records
//! (`engine/records*`), and the engine's own JSON views (peek, events, metrics).
//!
//! The output is byte-identical to serde_json's compact output of the same value: no whitespace,
//! strings escaped as serde_json escapes them. Callers write members in the order the format
//! wants (responses: byte order of their names, as serde_json's `Map` is a `BTreeMap` here;
//! records: the field order of the serde derives they replaced); `Obj` only places the commas.
//! One writer for both keeps one escaper in the wasm.

/// An object being written: `{` on creation, `}` on `end`.
pub(crate) struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    pub(crate) fn new(out: &'a mut String) -> Self {
        ascii(out, b'{');
        Obj { out, first: true }
    }

    /// Start a member with any name (escaped) and hand back the buffer for its value.
    pub(crate) fn key(&mut self, name: &str) -> &mut String {
        if !self.first {
            ascii(self.out, b',');
        }
        self.first = false;
        string(self.out, name);
        ascii(self.out, b':');
        self.out
    }

    /// Start a member whose name is one of the format's own (plain identifiers, nothing to
    /// escape) and hand back the buffer for its value.
    pub(crate) fn member(&mut self, name: &'static str) -> &mut String {
        debug_assert!(!name.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\'));
        let out = &mut *self.out;
        out.reserve(name.len() + 4);
        if !self.first {
            ascii(out, b',');
        }
        self.first = false;
        ascii(out, b'"');
        out.push_str(name);
        ascii(out, b'"');
        ascii(out, b':');
        out
    }

    pub(crate) fn str(&mut self, name: &'static str, value: &str) -> &mut Self {
        string(self.member(name), value);
        self
    }

    /// A member whose value is a text the engine minted from a fixed alphabet (a MessageId, an
    /// MD5's hex digits, a receipt handle): none of its bytes is escaped, so it is copied without
    /// `string`'s scan. Every message of a cycle writes four such texts (~150 bytes), which were
    /// most of what the scan read.
    pub(crate) fn token(&mut self, name: &'static str, value: &str) -> &mut Self {
        debug_assert_eq!(plain_len(value.as_bytes()), value.len(), "{value}");
        let out = self.member(name);
        out.reserve(value.len() + 2);
        ascii(out, b'"');
        out.push_str(value);
        ascii(out, b'"');
        self
    }

    /// A member only when there is a value (responses omit absent members).
    pub(crate) fn opt(&mut self, name: &'static str, value: Option<&str>) -> &mut Self {
        if let Some(v) = value {
            self.str(name, v);
        }
        self
    }

    /// A member that is `null` when absent (records keep every field, as the derives did).
    pub(crate) fn nullable(&mut self, name: &'static str, value: Option<&str>) -> &mut Self {
        match value {
            Some(v) => self.str(name, v),
            None => self.raw(name, "null"),
        }
    }

    pub(crate) fn u64(&mut self, name: &'static str, v: u64) -> &mut Self {
        push_u64(self.member(name), v);
        self
    }

    pub(crate) fn nullable_u64(&mut self, name: &'static str, v: Option<u64>) -> &mut Self {
        match v {
            Some(v) => self.u64(name, v),
            None => self.raw(name, "null"),
        }
    }

    pub(crate) fn bool(&mut self, name: &'static str, v: bool) -> &mut Self {
        self.raw(name, if v { "true" } else { "false" })
    }

    /// A member whose value is already JSON text (a literal, or a nested value written apart).
    pub(crate) fn raw(&mut self, name: &'static str, json: &str) -> &mut Self {
        self.member(name).push_str(json);
        self
    }

    pub(crate) fn end(&mut self) {
        ascii(self.out, b'}');
    }
}

/// Append one ASCII byte. `String::push` stays a call at the wasm's opt-level z, and encodes
/// the char as UTF-8 in another; the braces, commas, colons and quotes are a large share of what
/// this writer writes.
///
/// `Vec::push` stays a call too: with room in the buffer, which the writer reserves ahead, the
/// byte is stored in place and only a full buffer calls out.
#[inline(always)]
fn ascii(out: &mut String, b: u8) {
    if !b.is_ascii() {
        out.push(char::from(b));
        return;
    }
    // SAFETY: an ASCII byte appended to valid UTF-8 leaves it valid UTF-8.
    let v = unsafe { out.as_mut_vec() };
    let len = v.len();
    if len < v.capacity() {
        // SAFETY: `len < capacity`, so the slot is allocated; it is written before `set_len`
        // counts it.
        unsafe {
            v.as_mut_ptr().add(len).write(b);
            v.set_len(len + 1);
        }
    } else {
        v.push(b);
    }
}

/// A `Value` as compact JSON text, exactly what its `to_string()` (or `serde_json::to_string`)
/// gives, through this writer: serde_json's serializer (and `Value`'s `Display`, which carries a
/// second one with a pretty formatter) then has no caller in the wasm.
pub(crate) fn value_text(v: &serde_json::Value) -> String {
    let mut out = String::new();
    value(&mut out, v);
    out
}

/// A `Value` written as serde_json writes it: an object's members in the map's order (byte
/// order of the names, as serde_json's `Map` is a `BTreeMap` here), a number as its `Display`
/// gives it, which is what serde_json's serializer writes too (itoa for integers, zmij for
/// floats, which a `Value` holds only finite).
fn value(out: &mut String, v: &serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            use std::fmt::Write;
            // Writing into a `String` cannot fail.
            let _ = write!(out, "{n}");
        }
        Value::String(s) => string(out, s),
        Value::Array(items) => list(out, items, value),
        Value::Object(members) => {
            let mut o = Obj::new(out);
            for (k, v) in members {
                value(o.key(k), v);
            }
            o.end();
        }
    }
}

/// A map of strings as a JSON object, in the order given (a sorted map's: byte order of the
/// names, as serde_json's `Map` writes them).
pub(crate) fn str_map<'a>(out: &mut String, pairs: impl Iterator<Item = (&'a String, &'a String)>) {
    let mut o = Obj::new(out);
    for (k, v) in pairs {
        string(o.key(k), v);
    }
    o.end();
}

/// Decimal digits, as serde_json writes an unsigned integer.
pub(crate) fn push_u64(out: &mut String, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        if let Some(d) = digits.get_mut(i) {
            *d = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(digits.get(i..).unwrap_or_default()).unwrap_or_default());
}

/// A list of strings. One instantiation of `list` for every list of strings the crate writes:
/// each closure passed to `list` is code of its own in the wasm.
pub(crate) fn str_list(out: &mut String, items: &[String]) {
    list(out, items, |out, s| string(out, s));
}

/// A list of items each written by `item`.
pub(crate) fn list<T>(out: &mut String, items: &[T], mut item: impl FnMut(&mut String, &T)) {
    ascii(out, b'[');
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            ascii(out, b',');
        }
        item(out, it);
    }
    ascii(out, b']');
}

/// The bytes of `w` that need escaping in a JSON string (below 0x20, `"` or a backslash), each
/// marked by its high bit: the classic "has a byte less than n / equal to c" word tricks. The
/// lowest marked byte is always a true one (a false mark needs a borrow from a true one below
/// it), so `trailing_zeros` finds the first byte to stop at.
// Inlined: a dozen arithmetic instructions, which stayed a call per word at opt-level z.
#[inline(always)]
fn escape_marks(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (below_space | quote | backslash) & HIGH
}

/// How many leading bytes need no escaping: the index of the first `"`, backslash or control
/// byte, or the length if there is none. A word at a time, the last (short) one padded with
/// bytes that need none; the first marked byte of a word is found without a byte loop (ids,
/// handles and JSON member names end in the first or second word).
#[inline]
pub(crate) fn plain_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    for chunk in bytes.chunks_exact(8) {
        let marks = crate::words::le_word(chunk).map_or(0, escape_marks);
        if marks != 0 {
            return at + (marks.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let mut last = [b'a'; 8];
    for (d, b) in last.iter_mut().zip(bytes.get(at..).unwrap_or_default()) {
        *d = *b;
    }
    match escape_marks(u64::from_le_bytes(last)) {
        0 => bytes.len(),
        marks => at + (marks.trailing_zeros() / 8) as usize,
    }
}

/// A JSON string literal, escaped exactly as serde_json does (`"`, `\`, and control characters;
/// `\b \f \n \r \t` by name, others as lower-case `\u00XX`).
pub(crate) fn string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    ascii(out, b'"');
    // Ids, handles, digests, names and most bodies need no escaping: one copy after a scan
    // word by word.
    let clean = plain_len(s.as_bytes());
    if clean == s.len() {
        out.push_str(s);
    } else {
        escape(out, s, clean);
    }
    ascii(out, b'"');
}

/// The body of a string literal whose first byte to escape is byte `clean`.
fn escape(out: &mut String, s: &str, clean: usize) {
    let mut start = 0;
    for (i, &b) in s.as_bytes().iter().enumerate().skip(clean) {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        // Byte `i` is ASCII, so both slices end on character boundaries.
        out.push_str(s.get(start..i).unwrap_or_default());
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                for digit in crate::hex::pair(b) {
                    ascii(out, digit);
                }
            }
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_as_serde_json_does() {
        let mut all = String::new();
        for c in (0u32..0x80).chain([0xe9, 0x2028, 0x1f600]) {
            all.push(char::from_u32(c).unwrap_or('?'));
        }
        let long = format!("{all}{all}0123456789abcdef\"0123456789\n{all}");
        let samples = [
            all.as_str(),
            long.as_str(),
            "",
            "plain",
            "exactly8",
            "sixteen-bytes-ok",
            "a\"b\\c",
            "\u{7f}\u{0}x",
            "seven b\u{1f}",
            "ééééééééé\\",
        ];
        for s in samples {
            let mut out = String::new();
            string(&mut out, s);
            assert_eq!(out, serde_json::Value::String(s.into()).to_string());
        }
    }

    #[test]
    fn value_text_is_what_display_writes() {
        let values = [
            serde_json::json!({}),
            serde_json::json!({"Version": "2012-10-17", "Statement": [{"Sid": "a\"b\\c\n", "Effect": "Allow"}]}),
            serde_json::json!([1, -2, 3.5, 1e300, null, true, "é😀\u{1}"]),
            serde_json::json!({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq", "maxReceiveCount": 5}),
            serde_json::json!("plain"),
            serde_json::json!(u64::MAX),
        ];
        for v in values {
            assert_eq!(value_text(&v), v.to_string());
            assert_eq!(value_text(&v), serde_json::to_string(&v).unwrap());
        }
    }

    /// Any JSON value: strings, integers of both signs, floats over the whole range, nesting.
    fn any_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            "\\PC{0,12}|[\\x00-\\x7f]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::btree_map("\\PC{0,8}", inner, 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn plain_len_byte_by_byte(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
            .unwrap_or(bytes.len())
    }

    proptest::proptest! {
        /// The word tricks stop exactly where a byte loop would: every byte value, at every
        /// offset within a word and across the short last word.
        #[test]
        fn plain_len_finds_the_first_byte_to_escape(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    0x20u8..=0xff,
                    proptest::sample::select(vec![b'"', b'\\', 0x00, 0x1f, 0x0a]),
                ],
                0..40,
            ),
        ) {
            proptest::prop_assert_eq!(plain_len(&bytes), plain_len_byte_by_byte(&bytes));
        }

        /// Any value is written as serde_json writes it.
        #[test]
        fn any_value_is_written_as_serde_json_writes_it(v in any_value()) {
            proptest::prop_assert_eq!(value_text(&v), serde_json::to_string(&v).unwrap());
        }

        /// Any string, escaped, reads back as serde_json reads it.
        #[test]
        fn any_string_escapes_as_serde_json_does(s in "\\PC{0,40}|[\\x00-\\x7f]{0,40}") {
            let mut out = String::new();
            string(&mut out, &s);
            proptest::prop_assert_eq!(out, serde_json::Value::String(s.clone()).to_string());
        }
    }
}
