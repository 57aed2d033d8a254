//! Writing AWS JSON 1.0 responses straight into text.
//!
//! The output is byte-identical to `serde_json::Value::to_string()` of the same response: no
//! whitespace, members in byte order of their names (serde_json's `Map` is a `BTreeMap` here, as
//! the crate does not enable `preserve_order`), strings escaped as serde_json escapes them.
//! Callers write members in sorted order themselves; `Obj` only places the commas.

/// An object being written: `{` on creation, `}` on `end`.
pub(crate) struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    pub(crate) fn new(out: &'a mut String) -> Self {
        out.push('{');
        Obj { out, first: true }
    }

    /// Start a member and hand back the buffer for its value.
    pub(crate) fn key(&mut self, name: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        string(self.out, name);
        self.out.push(':');
        self.out
    }

    pub(crate) fn str(&mut self, name: &str, value: &str) {
        string(self.key(name), value);
    }

    pub(crate) fn opt(&mut self, name: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.str(name, v);
        }
    }

    pub(crate) fn end(self) {
        self.out.push('}');
    }
}

/// A list of items each written by `item`.
pub(crate) fn list<T>(out: &mut String, items: &[T], mut item: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(out, it);
    }
    out.push(']');
}

/// Does any of these eight bytes need escaping (below 0x20, `"` or a backslash)? The classic
/// "has a byte less than n / equal to c" word tricks, exact as a yes/no answer.
fn word_needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (below_space | quote | backslash) & HIGH != 0
}

/// A JSON string literal, escaped exactly as serde_json does (`"`, `\`, and control characters;
/// `\b \f \n \r \t` by name, others as lower-case `\u00XX`).
pub(crate) fn string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    // Whole words first: ids, handles, digests and most bodies need no escaping at all.
    let mut clean = 0;
    for chunk in bytes.chunks_exact(8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        if word_needs_escape(u64::from_le_bytes(w)) {
            break;
        }
        clean += 8;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate().skip(clean) {
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
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xf) as usize] as char);
            }
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
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
}
