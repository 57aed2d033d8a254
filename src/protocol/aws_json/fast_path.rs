//! Reading the message actions' requests straight from JSON text, without a `serde_json::Value`.
//!
//! This is a fast path, not a second parser with its own rules: it accepts only what it can read
//! exactly as `serde_json::from_str::<Value>` followed by `params::Params` would (well-formed
//! JSON, only the action's own members, each of the right type, integers that fit an `i64`, no
//! repeated member names). For anything else it answers `None` and the caller takes the `Value`
//! path, which produces the error (or the odd reading) itself. So both paths give the same answer
//! for every input, and the rare inputs cost what they cost before.
//!
//! Left to the `Value` path as well, to keep this small in the wasm: members the action does not
//! have (SDKs send none; and a `MessageGroupId` or `Entries` where the action has none would pick
//! the realism throttle's partition there), `MessageAttributes` / `MessageSystemAttributes`, and
//! `\u` escapes in strings. Without unknown members nesting is bounded by the request shapes: no depth limit.

use crate::engine::requests::{
    ReceiptBatchRequest, ReceiptRequest, ReceiveMessageRequest, SendMessageBatchRequest,
    SendMessageRequest,
};
use crate::json_text;
use std::borrow::Cow;

/// The most entries a batch request may carry (`TooManyEntriesInBatchRequest` beyond).
const MAX_BATCH_ENTRIES: usize = 10;

struct Reader<'a> {
    text: &'a str,
    i: usize,
}

/// Which members of one object were seen (a repeated name takes the `Value` path, where the
/// last one wins).
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn once(&mut self, bit: u32) -> Option<()> {
        let mask = 1 << bit;
        if self.0 & mask != 0 {
            return None;
        }
        self.0 |= mask;
        Some(())
    }
}

/// The readers of the request objects, one per shape, from a table of its members: each member's
/// bit in `Seen`, its name on the wire, the request's field and the `Reader` method that reads its
/// value. A macro rather than a generic reader walking a member table at run time, so that each
/// reader is still the plain `match` on names the compiler sees written out: this is the hot path
/// of every SDK call, and a table walked per member would cost it.
macro_rules! object_readers {
    ($(fn $name:ident -> $ty:ty {
        $($bit:literal $key:literal => $field:ident: $read:ident($($arg:path)?)),+ $(,)?
    })+) => {
        $(fn $name(&mut self) -> Option<$ty> {
            self.open(b'{')?;
            let mut req = <$ty>::default();
            let mut seen = Seen::default();
            let mut first = true;
            while let Some(key) = self.next_key(&mut first)? {
                match &*key {
                    $($key => {
                        seen.once($bit)?;
                        req.$field = self.$read($($arg)?)?;
                    })+
                    _ => return None,
                }
            }
            Some(req)
        })+
    };
}

impl<'a> Reader<'a> {
    // Inlined: at the wasm's opt-level z these stayed calls, one or more per byte read.
    #[inline(always)]
    fn byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.i).copied()
    }

    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.byte() {
            self.i += 1;
        }
        self.byte()
    }

    #[inline(always)]
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn word(&mut self, w: &str) -> bool {
        self.peek();
        let hit = self
            .text
            .as_bytes()
            .get(self.i..)
            .is_some_and(|rest| rest.starts_with(w.as_bytes()));
        if hit {
            self.i += w.len();
        }
        hit
    }

    fn string(&mut self) -> Option<Cow<'a, str>> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        let rest = self.text.as_bytes().get(start..)?;
        // Stops only on ASCII bytes, so the slice ends on a character boundary.
        self.i = start + json_text::plain_len(rest);
        match self.byte()? {
            b'"' => {
                let s = self.text.get(start..self.i)?;
                self.i += 1;
                Some(Cow::Borrowed(s))
            }
            b'\\' => self.escaped(start).map(Cow::Owned),
            // A control byte.
            _ => None,
        }
    }

    fn escaped(&mut self, start: usize) -> Option<String> {
        let mut out = String::from(self.text.get(start..self.i)?);
        loop {
            match self.byte()? {
                b'"' => {
                    self.i += 1;
                    return Some(out);
                }
                b'\\' => {
                    self.i += 1;
                    let e = self.byte()?;
                    self.i += 1;
                    out.push(match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        // `\u` escapes (JSON.stringify writes them only for rare control
                        // characters) are left to the `Value` path: less code in the wasm.
                        _ => return None,
                    });
                }
                c if c < 0x20 => return None,
                _ => {
                    let run = self.i;
                    while self
                        .byte()
                        .is_some_and(|c| c >= 0x20 && c != b'"' && c != b'\\')
                    {
                        self.i += 1;
                    }
                    out.push_str(self.text.get(run..self.i)?);
                }
            }
        }
    }

    /// An integer as serde_json reads one into an `i64`-representable number. Fractions,
    /// exponents, `-0` (a float to serde_json) and anything out of range are not taken.
    fn int(&mut self) -> Option<i64> {
        self.peek();
        let neg = self.byte() == Some(b'-');
        if neg {
            self.i += 1;
        }
        let start = self.i;
        let mut v: i64 = 0;
        while let Some(c @ b'0'..=b'9') = self.byte() {
            let d = i64::from(c - b'0');
            v = v.checked_mul(10)?;
            v = if neg {
                v.checked_sub(d)?
            } else {
                v.checked_add(d)?
            };
            self.i += 1;
        }
        let digits = self.i - start;
        let leading_zero = self.text.as_bytes().get(start) == Some(&b'0');
        if digits == 0
            || (leading_zero && (digits > 1 || neg))
            || matches!(self.byte(), Some(b'.' | b'e' | b'E'))
        {
            return None;
        }
        Some(v)
    }

    fn open(&mut self, c: u8) -> Option<()> {
        self.eat(c).then_some(())
    }

    /// The next member name of an object opened with `open(b'{')`, or `None` inside the `Some`
    /// at its end.
    fn next_key(&mut self, first: &mut bool) -> Option<Option<Cow<'a, str>>> {
        if self.eat(b'}') {
            return Some(None);
        }
        if !std::mem::take(first) && !self.eat(b',') {
            return None;
        }
        let key = self.string()?;
        self.eat(b':').then_some(Some(key))
    }

    /// Whether another item follows in a list opened with `open(b'[')`.
    fn next_item(&mut self, first: &mut bool) -> Option<bool> {
        if self.eat(b']') {
            return Some(false);
        }
        if !std::mem::take(first) && !self.eat(b',') {
            return None;
        }
        Some(true)
    }

    // The `opt_*` readers: `null` is an absent member, as `Params` reads it.

    /// A string lent from the request text (copied only when it holds an escape).
    fn opt_str(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.word("null") {
            return Some(None);
        }
        self.string().map(Some)
    }

    fn opt_string(&mut self) -> Option<Option<String>> {
        self.opt_str().map(|s| s.map(Cow::into_owned))
    }

    fn opt_int(&mut self) -> Option<Option<i64>> {
        if self.word("null") {
            return Some(None);
        }
        self.int().map(Some)
    }

    fn opt_str_list(&mut self) -> Option<Option<Vec<String>>> {
        if self.word("null") {
            return Some(None);
        }
        self.open(b'[')?;
        let mut out = Vec::new();
        let mut first = true;
        while self.next_item(&mut first)? {
            out.push(self.string()?.into_owned());
        }
        Some(Some(out))
    }

    /// The entries of a batch (`null`: absent), each read by `entry`. Generic over the reader
    /// (a function item, so each call is static) and inlined into the two batch readers, so
    /// that they compile as when each wrote this loop out.
    #[inline(always)]
    fn entries<T>(&mut self, entry: impl Fn(&mut Self) -> Option<T>) -> Option<Option<Vec<T>>> {
        if self.word("null") {
            return Some(None);
        }
        self.open(b'[')?;
        // Sized for SQS's most entries a batch (more are refused later, with their count):
        // growing 4 → 8 → 16 moved the large entries twice.
        let mut entries = Vec::with_capacity(MAX_BATCH_ENTRIES);
        let mut first = true;
        while self.next_item(&mut first)? {
            entries.push(entry(self)?);
        }
        Some(Some(entries))
    }

    object_readers! {
        fn send -> SendMessageRequest<'a> {
            0 "QueueUrl" => queue_url: opt_str(),
            1 "Id" => id: opt_str(),
            2 "MessageBody" => message_body: opt_str(),
            3 "DelaySeconds" => delay_seconds: opt_int(),
            6 "MessageDeduplicationId" => message_deduplication_id: opt_str(),
            7 "MessageGroupId" => message_group_id: opt_str(),
        }
        fn send_batch -> SendMessageBatchRequest<'a> {
            0 "QueueUrl" => queue_url: opt_str(),
            1 "Entries" => entries: entries(Self::send),
        }
        fn receive -> ReceiveMessageRequest {
            0 "QueueUrl" => queue_url: opt_string(),
            1 "AttributeNames" => attribute_names: opt_str_list(),
            2 "MessageSystemAttributeNames" => message_system_attribute_names: opt_str_list(),
            3 "MessageAttributeNames" => message_attribute_names: opt_str_list(),
            4 "MaxNumberOfMessages" => max_number_of_messages: opt_int(),
            5 "VisibilityTimeout" => visibility_timeout: opt_int(),
            6 "WaitTimeSeconds" => wait_time_seconds: opt_int(),
            7 "ReceiveRequestAttemptId" => receive_request_attempt_id: opt_string(),
        }
        fn receipt -> ReceiptRequest<'a> {
            0 "QueueUrl" => queue_url: opt_str(),
            1 "Id" => id: opt_str(),
            2 "ReceiptHandle" => receipt_handle: opt_str(),
            3 "VisibilityTimeout" => visibility_timeout: opt_int(),
        }
        fn receipt_batch -> ReceiptBatchRequest<'a> {
            0 "QueueUrl" => queue_url: opt_str(),
            1 "Entries" => entries: entries(Self::receipt),
        }
    }
}

/// A message action's request read from its JSON text; `None`: take the `Value` path.
pub(crate) enum Request<'a> {
    Send(SendMessageRequest<'a>),
    SendBatch(SendMessageBatchRequest<'a>),
    Receive(ReceiveMessageRequest),
    Delete(ReceiptRequest<'a>),
    DeleteBatch(ReceiptBatchRequest<'a>),
    ChangeVisibility(ReceiptRequest<'a>),
    ChangeVisibilityBatch(ReceiptBatchRequest<'a>),
}

pub(crate) fn read<'a>(action: &str, text: &'a str) -> Option<Request<'a>> {
    let mut r = Reader { text, i: 0 };
    // One reader call per action and no generic helper around them: in the wasm, every
    // instantiation is code shipped.
    let req = match action {
        "SendMessage" => Request::Send(r.send()?),
        "SendMessageBatch" => Request::SendBatch(r.send_batch()?),
        "ReceiveMessage" => Request::Receive(r.receive()?),
        "DeleteMessage" => Request::Delete(r.receipt()?),
        "DeleteMessageBatch" => Request::DeleteBatch(r.receipt_batch()?),
        "ChangeMessageVisibility" => Request::ChangeVisibility(r.receipt()?),
        "ChangeMessageVisibilityBatch" => Request::ChangeVisibilityBatch(r.receipt_batch()?),
        _ => return None,
    };
    // Only whitespace may follow the object.
    r.peek().is_none().then_some(req)
}
