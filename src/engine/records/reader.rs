//! The two records every stored message has (content and state), and the FIFO deduplication
//! record (one per message sent with content-based deduplication), read straight from the bytes.
//!
//! A store of 100,000 messages is 200,000 of these. Reading each through a `serde_json::Value`
//! tree (a map, a `String` per key and per text, then dropping it all) would cost more than the
//! rest of restoring it. This reader takes only the exact shape the writer (`codec.rs`, `Obj`) produces:
//! fields in the writer's order, no whitespace, plain decimal numbers, `extra` as written. Any
//! other record — an older or hand-edited store, a field out of order, anything odd — makes it
//! answer `None`, and the caller reads that record through the general `Value` path instead,
//! which gives exactly what it gave before (values or the same error). So what this reader takes
//! is a subset of what the general path takes, read to the same values.

use super::super::ids::parse_uuid;
use super::super::message::{Delivery, MessageExtra, MessageState};
use crate::model::MessageAttributes;
use crate::words::word_at;
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

/// A state record: a message's delivery state.
pub(super) type State = Delivery;

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

/// A MessageId as `format_uuid` writes it (8-4-4-4-12 lower-case hex digits) read from its
/// bytes; any other text goes through `parse_uuid`, which decides what it accepts.
pub(super) fn uuid(s: &str) -> Option<u128> {
    let b = s.as_bytes();
    let fast = || {
        if b.len() != 36 || [8, 13, 18, 23].iter().any(|i| b.get(*i) != Some(&b'-')) {
            return None;
        }
        // The 4-digit groups in pairs, so that every word is eight digits.
        let hi = pair(
            hex8(word_at(b, 0)?)?,
            hex8(half(b, 9)? | half(b, 14)? << 32)?,
        );
        let lo = pair(
            hex8(half(b, 19)? | half(b, 24)? << 32)?,
            hex8(word_at(b, 28)?)?,
        );
        Some((u128::from(hi) << 64) | u128::from(lo))
    };
    fast().or_else(|| parse_uuid(s))
}

/// A stored MD5: exactly 32 lower-case hex digits, as the writer writes them. Both paths read it
/// here, so they agree on what is one.
pub(super) fn md5(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, o) in out.chunks_exact_mut(4).enumerate() {
        o.copy_from_slice(&hex8(word_at(b, 8 * i)?)?.to_be_bytes());
    }
    Some(out)
}

/// The eight bytes at `at` as one word, the first the lowest.
/// The four bytes at `at` as the low half of a word.
fn half(b: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?).into())
}

fn pair(hi: u32, lo: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

/// Eight lower-case hex digits (the bytes of `w`, the first the lowest), all at once: the digits
/// of every MessageId, MD5 and record key of a store are read here, and a restore runs mostly
/// before V8 has optimised the wasm, where a digit at a time is slow.
#[inline(never)]
pub(super) fn hex8(w: u64) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    if w & HIGH != 0 {
        return None;
    }
    // With every byte below 0x80 nothing carries into the next byte: the high bit of a byte of
    // `w + ONES * (0x80 - lo)` is set exactly when that byte is at least `lo`.
    let at_least = |lo: u8| (w + ONES * u64::from(0x80 - lo)) & HIGH;
    let digit = at_least(b'0') & !at_least(b'9' + 1);
    let letter = at_least(b'a') & !at_least(b'f' + 1);
    if digit | letter != HIGH {
        return None;
    }
    // '0'..'9' are 0..9 in their low four bits, 'a'..'f' 1..6 there, plus 9.
    let values = (w & (ONES * 0x0f)) + (letter >> 7) * 9;
    // The first digit is the lowest byte and the most significant: pairs into bytes, then the
    // four bytes in text order.
    let bytes = ((values & 0x000f_000f_000f_000f) << 4) | ((values >> 8) & 0x000f_000f_000f_000f);
    let [a, _, b, _, c, _, d, _] = bytes.to_le_bytes();
    Some(u32::from_be_bytes([a, b, c, d]))
}

/// Sixteen lower-case hex digits.
fn hex16(digits: &[u8]) -> Option<u64> {
    if digits.len() != 16 {
        return None;
    }
    Some(pair(hex8(word_at(digits, 0)?)?, hex8(word_at(digits, 8)?)?))
}

/// A record key's number: 16 lower-case hex digits, as `key_string` writes them. Anything else
/// goes through `u64::from_str_radix`, which decides what it accepts.
pub(super) fn key_hex(s: &str) -> Option<u64> {
    hex16(s.as_bytes()).or_else(|| u64::from_str_radix(s, 16).ok())
}

/// `(kind, queue, number)` of a message's or a deduplication record's key as the writer writes
/// it (`m`, `s` or `d`, then two 16-digit numbers): most keys of a store, read without splitting.
/// Any other key is left to the caller's general reading, which reads these the same.
pub(super) fn message_key(key: &str) -> Option<(&'static str, u64, u64)> {
    let b = key.as_bytes();
    let kind = match b.first()? {
        b'm' => "m",
        b's' => "s",
        b'd' => "d",
        _ => return None,
    };
    if b.len() != 35 || b.get(1) != Some(&b'/') || b.get(18) != Some(&b'/') {
        return None;
    }
    Some((kind, hex16(b.get(2..18)?)?, hex16(b.get(19..)?)?))
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
