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

/// A JSON string literal, escaped exactly as serde_json does (`"`, `\`, and control characters;
/// `\b \f \n \r \t` by name, others as lower-case `\u00XX`).
pub(crate) fn string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
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
        for s in [all.as_str(), "", "plain", "a\"b\\c", "\u{7f}\u{0}x"] {
            let mut out = String::new();
            string(&mut out, s);
            assert_eq!(out, serde_json::Value::String(s.into()).to_string());
        }
    }
}
