//! The two records every stored message has (content and state), and the FIFO deduplication
//! record (one per message sent with content-based deduplication), read straight from the bytes.
//!
//! A store of 100,000 messages is 200,000 of these. Reading each through a `serde_json::Value`
//! tree (a map, a `String` per key and per text, then dropping it all) was over a third of
//! restoring one. This reader takes only the exact shape the writer (`codec.rs`, `Obj`) produces:
//! fields in the writer's order, no whitespace, plain decimal numbers, `extra` as written. Any
//! other record — an older or hand-edited store, a field out of order, anything odd — makes it
//! answer `None`, and the caller reads that record through the general `Value` path instead,
//! which gives exactly what it gave before (values or the same error). So what this reader takes
//! is a subset of what the general path takes, read to the same values.

use super::super::ids::parse_uuid;
use super::super::message::{MessageExtra, MessageState};
use crate::model::MessageAttributes;
use std::borrow::Cow;

/// A content record; `id` stays text until the message is built (see `restore`'s errors).
pub(super) struct Content<'a> {
    pub(super) id: Result<u128, String>,
    pub(super) body: Cow<'a, str>,
    /// The body's MD5: `None` in a version 1 record, which did not keep it.
    pub(super) md5: Option<[u8; 16]>,
    pub(super) attributes: Option<MessageAttributes>,
    /// Boxed as the message keeps it, which also keeps the list of read records small.
    pub(super) extra: Option<Box<MessageExtra>>,
    pub(super) sent_at: u64,
    pub(super) enqueued_at: u64,
}

/// A state record.
pub(super) struct State {
    pub(super) state: MessageState,
    pub(super) deadline: u64,
    pub(super) receive_count: u32,
    pub(super) serial: u32,
    pub(super) first_receive_at: u64,
    pub(super) received_at: u64,
    pub(super) visibility_changed: bool,
}

/// `{"id":…,"body":…[,"md5":…][,"extra":{…}],"sent_at":…,"enqueued_at":…}` (`md5` since
/// format 2). A message with attributes (nested objects, base64) is left to the general path.
pub(super) fn content(text: &str) -> Option<Content<'_>> {
    let mut r = Cursor { text, i: 0 };
    r.lit(b"{\"id\":")?;
    let id = r.string()?;
    r.lit(b",\"body\":")?;
    let body = r.string()?;
    let md5 = if r.lit(b",\"md5\":").is_some() {
        Some(md5(&r.string()?)?)
    } else {
        None
    };
    let extra = if r.lit(b",\"extra\":").is_some() {
        Some(Box::new(r.extra()?))
    } else {
        None
    };
    r.lit(b",\"sent_at\":")?;
    let sent_at = r.u64()?;
    r.lit(b",\"enqueued_at\":")?;
    let enqueued_at = r.u64()?;
    r.end()?;
    Some(Content {
        id: uuid(&id).ok_or_else(|| id.into_owned()),
        body,
        md5,
        attributes: None,
        extra,
        sent_at,
        enqueued_at,
    })
}

/// `{"state":…,"deadline":…,"receive_count":…,"serial":…,"first_receive_at":…,"received_at":…,
/// "visibility_changed":…}`.
pub(super) fn state(text: &str) -> Option<State> {
    let mut r = Cursor { text, i: 0 };
    r.lit(b"{\"state\":\"")?;
    let state = if r.lit(b"Visible\"").is_some() {
        MessageState::Visible
    } else if r.lit(b"InFlight\"").is_some() {
        MessageState::InFlight
    } else {
        r.lit(b"Delayed\"")?;
        MessageState::Delayed
    };
    r.lit(b",\"deadline\":")?;
    let deadline = r.u64()?;
    r.lit(b",\"receive_count\":")?;
    let receive_count = u32::try_from(r.u64()?).ok()?;
    r.lit(b",\"serial\":")?;
    let serial = u32::try_from(r.u64()?).ok()?;
    r.lit(b",\"first_receive_at\":")?;
    let first_receive_at = r.u64()?;
    r.lit(b",\"received_at\":")?;
    let received_at = r.u64()?;
    r.lit(b",\"visibility_changed\":")?;
    let visibility_changed = r.bool()?;
    r.end()?;
    Some(State {
        state,
        deadline,
        receive_count,
        serial,
        first_receive_at,
        received_at,
        visibility_changed,
    })
}

/// A deduplication record; `message_id` stays text when it does not parse, for `restore`'s error.
pub(super) struct Dedup<'a> {
    pub(super) key: Cow<'a, str>,
    pub(super) expires_at: u64,
    pub(super) message_id: Result<u128, String>,
    pub(super) seq: u64,
}

/// `{"key":…,"expires_at":…,"message_id":…,"seq":…}`.
pub(super) fn dedup(text: &str) -> Option<Dedup<'_>> {
    let mut r = Cursor { text, i: 0 };
    r.lit(b"{\"key\":")?;
    let key = r.string()?;
    r.lit(b",\"expires_at\":")?;
    let expires_at = r.u64()?;
    r.lit(b",\"message_id\":")?;
    let id = r.string()?;
    r.lit(b",\"seq\":")?;
    let seq = r.u64()?;
    r.end()?;
    Some(Dedup {
        key,
        expires_at,
        message_id: uuid(&id).ok_or_else(|| id.into_owned()),
        seq,
    })
}

/// A MessageId as `format_uuid` writes it (8-4-4-4-12 hex digits) read from its bytes; any other
/// text goes through `parse_uuid`, which decides what it accepts.
pub(super) fn uuid(s: &str) -> Option<u128> {
    let b = s.as_bytes();
    if b.len() != 36 {
        return parse_uuid(s);
    }
    // Two u64 halves: a u128 shift per digit is several instructions in wasm32.
    let mut halves = [0u64; 2];
    let mut digits = 0;
    for (i, c) in b.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if *c != b'-' {
                return parse_uuid(s);
            }
            continue;
        }
        let Some(d) = hex_digit(*c) else {
            return parse_uuid(s);
        };
        if let Some(h) = halves.get_mut(digits / 16) {
            *h = (*h << 4) | u64::from(d);
        }
        digits += 1;
    }
    let [hi, lo] = halves;
    Some((u128::from(hi) << 64) | u128::from(lo))
}

/// A stored MD5: exactly 32 hex digits (the writer's are lower case). Both paths read it here, so
/// they agree on what is one.
pub(super) fn md5(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        let [hi, lo] = pair else { return None };
        *o = (hex_digit(*hi)? << 4) | hex_digit(*lo)?;
    }
    Some(out)
}

#[inline(always)]
fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// A record key's number: up to 16 hex digits, as `key_string` writes them. Anything else goes
/// through `u64::from_str_radix`, which decides what it accepts.
pub(super) fn key_hex(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return u64::from_str_radix(s, 16).ok();
    }
    let mut v = 0u64;
    for c in s.bytes() {
        let Some(d) = hex_digit(c) else {
            return u64::from_str_radix(s, 16).ok();
        };
        v = (v << 4) | u64::from(d);
    }
    Some(v)
}

struct Cursor<'a> {
    text: &'a str,
    i: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a [u8] {
        self.text.as_bytes().get(self.i..).unwrap_or_default()
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.i).copied()
    }

    /// Consumes `bytes` if the text continues with them.
    fn lit(&mut self, bytes: &[u8]) -> Option<()> {
        self.rest()
            .starts_with(bytes)
            .then(|| self.i += bytes.len())
    }

    fn end(&self) -> Option<()> {
        (self.rest() == b"}").then_some(())
    }

    fn bool(&mut self) -> Option<bool> {
        if self.lit(b"true").is_some() {
            Some(true)
        } else {
            self.lit(b"false").map(|()| false)
        }
    }

    /// A JSON integer in the writer's form: digits, no sign, no leading zero, no fraction or
    /// exponent (those would make the next literal fail to match), within u64.
    fn u64(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v = 0u64;
        while let Some(d) = self.peek().filter(u8::is_ascii_digit) {
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.i += 1;
        }
        let digits = self.i - start;
        let leading_zero = digits > 1 && self.text.as_bytes().get(start) == Some(&b'0');
        (digits > 0 && !leading_zero).then_some(v)
    }

    /// A JSON string: borrowed when it has no escapes, which is how the writer writes most;
    /// one with escapes is unescaped by serde_json's `Value` reader (in the wasm anyway).
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.i;
        self.lit(b"\"")?;
        let mut escaped = false;
        loop {
            // The string's plain run in one pass, rather than a bounds-checked byte at a time.
            let run = self
                .rest()
                .iter()
                .position(|b| *b == b'"' || *b == b'\\' || *b < 0x20)?;
            self.i += run;
            match self.peek()? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.i += 2;
                }
                _ => return None,
            }
        }
        self.i += 1;
        let quoted = self.text.get(start..self.i)?;
        if escaped {
            // Through `Value`: a `String` target would bring serde's error formatting (floats
            // and all) into the wasm.
            match serde_json::from_str(quoted) {
                Ok(serde_json::Value::String(s)) => Some(Cow::Owned(s)),
                _ => None,
            }
        } else {
            quoted.get(1..quoted.len() - 1).map(Cow::Borrowed)
        }
    }

    /// The `extra` object: text fields and `duplicate_copy`, each at most once, in any order.
    fn extra(&mut self) -> Option<MessageExtra> {
        let mut e = MessageExtra::default();
        let mut seen_copy = false;
        self.lit(b"{")?;
        if self.lit(b"}").is_some() {
            return Some(e);
        }
        loop {
            let key = self.string()?;
            self.lit(b":")?;
            if key == "duplicate_copy" {
                if std::mem::replace(&mut seen_copy, true) {
                    return None;
                }
                e.duplicate_copy = self.bool()?;
            } else {
                let slot = match key.as_ref() {
                    "trace_header" => &mut e.trace_header,
                    "deduplication_id" => &mut e.deduplication_id,
                    "dead_letter_source_arn" => &mut e.dead_letter_source_arn,
                    "sender_id" => &mut e.sender_id,
                    "group_id" => &mut e.group_id,
                    "system_attributes_md5" => &mut e.system_attributes_md5,
                    _ => return None,
                };
                if slot.is_some() {
                    return None;
                }
                *slot = Some(self.string()?.into());
            }
            if self.lit(b"}").is_some() {
                return Some(e);
            }
            self.lit(b",")?;
        }
    }
}
