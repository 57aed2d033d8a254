//! Message ids, receipt handles and sequence numbers, all derived from the engine's seed.
//!
//! Ids are a keyed hash of a counter rather than draws from a generator, so they survive a restart
//! without persisting generator state: the counters are in the records, the key is the seed.

use arrayvec::ArrayString;
use rapidhash::v3::{rapidhash_v3_nano_inline, RapidSecrets};
use siphasher::sip128::{Hasher128, SipHasher13};
use std::hash::Hasher;

/// How a MessageId is derived from its sequence. Stores begun before `Rapid` keep `Sip13`, so
/// that their messages' ids, which restore derives again, come out as they were minted (an id
/// that does not match its derivation costs its message a boxed override).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdScheme {
    /// SipHash-1-3 of the sequence: the stores of earlier builds.
    Sip13,
    /// Two rapidhash v3 (nano) words of the sequence: ~40 instructions for what SipHash did in
    /// ~200, and ids are derived on every send and every receive. An id needs to be unique
    /// and look like SQS's, not to resist an attacker: 122 bits from two independently keyed
    /// hashes collide no more often than SipHash's did.
    Rapid,
}

/// Keys derived from the seed and the region (so two regions with one seed mint distinct ids).
#[derive(Debug, Clone)]
pub(crate) struct IdKeys {
    scheme: IdScheme,
    ids: (u64, u64),
    handles: (u64, u64),
    digests: (u64, u64),
    rapid_ids: [RapidSecrets; 2],
    rapid_handles: RapidSecrets,
}

impl IdKeys {
    /// Keys for a new store: ids by `IdScheme::Rapid`.
    pub(crate) fn new(seed: u64, region: &str) -> Self {
        let mut h = SipHasher13::new_with_keys(seed, 0x7761_7371_5f6b_6579); // "wasq_key"
        h.write(region.as_bytes());
        let base = h.finish128();
        // The rapidhash secrets come from the same keyed base, so they too differ by region.
        let mut more = SipHasher13::new_with_keys(base.h1, base.h2);
        more.write_u64(4);
        let rapid = more.finish128();
        IdKeys {
            scheme: IdScheme::Rapid,
            ids: (base.h1, base.h2 ^ 1),
            handles: (base.h1 ^ 0x5a5a_5a5a, base.h2 ^ 2),
            digests: (base.h1 ^ 0x3c3c_3c3c, base.h2 ^ 3),
            rapid_ids: [RapidSecrets::seed(rapid.h1), RapidSecrets::seed(rapid.h2)],
            rapid_handles: RapidSecrets::seed(rapid.h1 ^ rapid.h2.rotate_left(32)),
        }
    }

    pub(crate) fn scheme(&self) -> IdScheme {
        self.scheme
    }

    /// Derive ids as a store begun with `scheme` did (restore).
    pub(crate) fn set_scheme(&mut self, scheme: IdScheme) {
        self.scheme = scheme;
    }

    /// The 128 bits of a MessageId for the message with this engine-wide sequence.
    pub(crate) fn message_id(&self, seq: u64) -> u128 {
        let (hi, lo) = match self.scheme {
            IdScheme::Rapid => {
                let bytes = seq.to_le_bytes();
                (
                    rapidhash_v3_nano_inline::<true, false>(&bytes, &self.rapid_ids[0]),
                    rapidhash_v3_nano_inline::<true, false>(&bytes, &self.rapid_ids[1]),
                )
            }
            IdScheme::Sip13 => {
                let mut h = SipHasher13::new_with_keys(self.ids.0, self.ids.1);
                h.write_u64(seq);
                let v = h.finish128();
                (v.h1, v.h2)
            }
        };
        let raw = ((hi as u128) << 64) | lo as u128;
        // Stamp the RFC 4122 version (4) and variant bits so the id looks like every SQS id.
        (raw & !(0xF000u128 << 64) & !(0xC000u128 << 48)) | (0x4000u128 << 64) | (0x8000u128 << 48)
    }

    /// A 128-bit keyed digest standing in for a string in an index (FIFO deduplication keys):
    /// keyed by the seed, so nobody can aim two keys at one digest. SipHash, not rapidhash:
    /// these strings come from the client.
    pub(crate) fn digest(&self, bytes: &[u8]) -> [u64; 2] {
        let mut h = SipHasher13::new_with_keys(self.digests.0, self.digests.1);
        h.write(bytes);
        let v = h.finish128();
        [v.h1, v.h2]
    }

    /// The MAC of a handle's first 21 bytes, by the handle's version: SipHash-1-3
    /// (`SipHasher13::finish`) in version 1, rapidhash v3 nano in version 2; `None` for any
    /// other. It tells a handle this engine minted from a mistyped, truncated or foreign one;
    /// the queue, sequence and serial it names are checked against the engine's state after that.
    fn handle_mac(&self, bytes: &[u8; RAW_LEN]) -> Option<u64> {
        match bytes[0] {
            HANDLE_VERSION => Some(rapidhash_v3_nano_inline::<true, false>(
                &bytes[..21],
                &self.rapid_handles,
            )),
            SIP_HANDLE_VERSION => {
                let mut h = SipHasher13::new_with_keys(self.handles.0, self.handles.1);
                h.write(&bytes[..21]);
                Some(h.finish())
            }
            _ => None,
        }
    }

    /// A receipt handle naming the queue incarnation, the message and the delivery. Inline, not
    /// a `String`: every received message carries one, and its length never changes.
    pub(crate) fn receipt_handle(&self, receipt: Receipt) -> ReceiptHandleText {
        self.receipt_handle_of_version(receipt, HANDLE_VERSION)
    }

    fn receipt_handle_of_version(&self, receipt: Receipt, version: u8) -> ReceiptHandleText {
        let mut bytes = handle_bytes(version, receipt);
        let mac = self.handle_mac(&bytes).unwrap_or_default();
        bytes[21..29].copy_from_slice(&mac.to_be_bytes());
        let mut text = [0u8; HANDLE_LEN];
        text[..HANDLE_PREFIX.len()].copy_from_slice(HANDLE_PREFIX.as_bytes());
        crate::base64url::encode(&bytes, &mut text[HANDLE_PREFIX.len()..]);
        crate::hex::ascii_text(&text)
    }

    /// Decode a receipt handle; `None` for anything this engine did not mint. Handles of
    /// version 1, minted by earlier builds, stay valid across an upgrade.
    pub(crate) fn parse_receipt_handle(&self, handle: &str) -> Option<Receipt> {
        let b64 = handle.strip_prefix(HANDLE_PREFIX)?;
        // Refuses any other length, padding, symbols outside the URL-safe alphabet and a last
        // symbol with bits set beyond the data, so a handle has exactly one text.
        let bytes = crate::base64url::decode::<RAW_LEN>(b64.as_bytes())?;
        let mac = u64::from_be_bytes(bytes[21..29].try_into().ok()?);
        if mac != self.handle_mac(&bytes)? {
            return None;
        }
        Some(Receipt {
            queue: u64::from_be_bytes(bytes[1..9].try_into().ok()?),
            seq: u64::from_be_bytes(bytes[9..17].try_into().ok()?),
            serial: u32::from_be_bytes(bytes[17..21].try_into().ok()?),
        })
    }
}

/// A handle's first 21 bytes, before its MAC: the version, then the queue, the sequence and
/// the serial, big-endian.
fn handle_bytes(version: u8, r: Receipt) -> [u8; RAW_LEN] {
    let mut bytes = [0u8; RAW_LEN];
    bytes[0] = version;
    bytes[1..9].copy_from_slice(&r.queue.to_be_bytes());
    bytes[9..17].copy_from_slice(&r.seq.to_be_bytes());
    bytes[17..21].copy_from_slice(&r.serial.to_be_bytes());
    bytes
}

const HANDLE_PREFIX: &str = "AQEB";
/// The handles this build mints (rapidhash MAC).
const HANDLE_VERSION: u8 = 2;
/// Handles of earlier builds (SipHash MAC), still read.
const SIP_HANDLE_VERSION: u8 = 1;
const RAW_LEN: usize = 29;
/// The prefix and the unpadded base64 of RAW_LEN bytes.
const HANDLE_LEN: usize = HANDLE_PREFIX.len() + crate::base64url::encoded_len(RAW_LEN);

/// A receipt handle's text.
pub type ReceiptHandleText = ArrayString<HANDLE_LEN>;
/// A MessageId's text (`8-4-4-4-12` hex).
pub type UuidText = ArrayString<36>;

/// What a receipt handle names: which queue incarnation, which message, which delivery of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Receipt {
    pub(crate) queue: u64,
    pub(crate) seq: u64,
    pub(crate) serial: u32,
}

/// `8-4-4-4-12` lower-case hex. Written by hand, a byte (two digits) at a time: every send,
/// receive, record and event formats an id, and `format!` runs the whole formatter for it.
pub(crate) fn format_uuid(v: u128) -> String {
    // Not `to_string()`: that runs the formatter (`Display`), a call chain for a plain copy.
    uuid_text(v).as_str().to_owned()
}

/// The text of `format_uuid` without allocating: records and responses hold it inline.
pub(crate) fn uuid_text(v: u128) -> UuidText {
    crate::hex::uuid_text(v)
}

/// Parse a UUID string back into its bits (for records).
pub(crate) fn parse_uuid(s: &str) -> Option<u128> {
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 {
        return None;
    }
    u128::from_str_radix(&hex, 16).ok()
}

/// FIFO `SequenceNumber`: a 20-digit decimal that strictly increases with the engine sequence and
/// is non-consecutive, as SQS's are.
pub(crate) fn sequence_number(seq: u64) -> String {
    (10_000_000_000_000_000_000u128 + (seq as u128) * 65_536).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as BASE64;
    use base64::Engine as _;

    #[test]
    fn handles_round_trip_and_reject_forgeries() {
        let keys = IdKeys::new(42, "us-east-1");
        let r = Receipt {
            queue: 7,
            seq: 123_456,
            serial: 3,
        };
        let h = keys.receipt_handle(r);
        assert!(h.len() <= 1024);
        assert_eq!(keys.parse_receipt_handle(&h), Some(r));
        assert_eq!(keys.parse_receipt_handle("garbage"), None);
        let other = IdKeys::new(43, "us-east-1");
        assert_eq!(other.parse_receipt_handle(&h), None);
        assert_eq!(h.len(), HANDLE_LEN);
        assert!(h.starts_with(HANDLE_PREFIX));
        let mut tampered = h.to_string();
        tampered.pop();
        tampered.push(if h.ends_with('A') { 'B' } else { 'A' });
        assert_eq!(keys.parse_receipt_handle(&tampered), None);
    }

    /// A version 1 handle as first written: the SipHash MAC as one streaming write of all 21
    /// bytes.
    fn reference_handle(keys: &IdKeys, r: Receipt) -> String {
        let mut bytes = [0u8; RAW_LEN];
        bytes[0] = SIP_HANDLE_VERSION;
        bytes[1..9].copy_from_slice(&r.queue.to_be_bytes());
        bytes[9..17].copy_from_slice(&r.seq.to_be_bytes());
        bytes[17..21].copy_from_slice(&r.serial.to_be_bytes());
        let mut h = SipHasher13::new_with_keys(keys.handles.0, keys.handles.1);
        h.write(&bytes[..21]);
        bytes[21..29].copy_from_slice(&h.finish().to_be_bytes());
        let b64 = BASE64.encode(bytes);
        format!("{HANDLE_PREFIX}{b64}")
    }

    /// The MessageIds `keys` gives sequences 1, 2, … are the texts in `minted`.
    fn assert_ids_are(keys: &IdKeys, minted: [&str; 3]) {
        for (seq, text) in (1..).zip(minted) {
            assert_eq!(uuid_text(keys.message_id(seq)).as_str(), text);
        }
    }

    /// `n` receipts drawn from a fixed xorshift sequence: the same ones on every run.
    fn receipts(n: usize) -> impl Iterator<Item = Receipt> {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..n).map(move |_| Receipt {
            queue: next() % 1000,
            seq: next(),
            serial: next() as u32,
        })
    }

    /// A store begun by an earlier build derives its ids by SipHash, and handles minted before
    /// an upgrade (version 1) must still verify after it.
    #[test]
    fn handles_and_ids_are_the_texts_earlier_builds_minted() {
        let mut keys = IdKeys::new(7, "eu-west-1");
        keys.set_scheme(IdScheme::Sip13);
        // MessageIds as earlier builds minted them (seed 7, eu-west-1), as fixed texts: a
        // restored store's ids are derived again, so they must never change.
        let minted = [
            "57963c6d-677b-4e98-bb0a-a9a1449729c2",
            "40bc76c4-a915-4fdd-8462-974e9621e119",
            "6bcac9b3-a52f-41dd-a6d6-10dc3522179d",
        ];
        assert_ids_are(&keys, minted);
        for r in receipts(2_000) {
            let handle = keys.receipt_handle_of_version(r, SIP_HANDLE_VERSION);
            assert_eq!(handle.as_str(), reference_handle(&keys, r));
            assert_eq!(keys.parse_receipt_handle(&handle), Some(r));
            // The scheme of ids does not matter to a handle.
            let rapid = IdKeys::new(7, "eu-west-1");
            assert_eq!(rapid.parse_receipt_handle(&handle), Some(r));
        }
    }

    /// The ids and handles this build mints, as fixed texts: ids are derived again on restore
    /// and handles outlive a restart, so a rapidhash release must not change them.
    #[test]
    fn rapid_ids_and_handles_are_fixed_texts() {
        let keys = IdKeys::new(7, "eu-west-1");
        assert_eq!(keys.scheme(), IdScheme::Rapid);
        let minted = [
            "8f5f85bb-d9d2-4f10-9be6-453297392640",
            "e6cc1c9c-43c3-4b55-9e59-b9409871e765",
            "cd3c32a3-41ff-4535-99a4-253ad416f72a",
        ];
        assert_ids_are(&keys, minted);
        let r = Receipt {
            queue: 3,
            seq: 1,
            serial: 1,
        };
        assert_eq!(
            keys.receipt_handle(r).as_str(),
            "AQEBAgAAAAAAAAADAAAAAAAAAAEAAAABdGfq-Oi8GVo"
        );
    }

    /// Every bit of a version 2 handle is covered: flipping any one is refused.
    #[test]
    fn rapid_handles_refuse_any_single_bit_flip() {
        let keys = IdKeys::new(11, "us-east-1");
        for r in receipts(200) {
            let handle = keys.receipt_handle(r);
            assert_eq!(keys.parse_receipt_handle(&handle), Some(r));
            let b64 = &handle[HANDLE_PREFIX.len()..];
            let raw: [u8; RAW_LEN] = BASE64.decode(b64).unwrap().try_into().unwrap();
            for bit in 0..RAW_LEN * 8 {
                let mut bytes = raw;
                bytes[bit / 8] ^= 1 << (bit % 8);
                let mut text = [0u8; HANDLE_LEN];
                text[..HANDLE_PREFIX.len()].copy_from_slice(HANDLE_PREFIX.as_bytes());
                BASE64
                    .encode_slice(bytes, &mut text[HANDLE_PREFIX.len()..])
                    .unwrap();
                let flipped = std::str::from_utf8(&text).unwrap();
                assert_eq!(keys.parse_receipt_handle(flipped), None, "bit {bit}");
            }
        }
    }

    /// A handle has exactly one text: the same bytes spelled with the last symbol's two spare
    /// bits set, with padding, or in standard base64's alphabet are refused.
    #[test]
    fn handles_have_exactly_one_text() {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let keys = IdKeys::new(3, "us-east-1");
        for r in receipts(200) {
            let handle = keys.receipt_handle(r).to_string();
            assert_eq!(keys.parse_receipt_handle(&handle), Some(r));
            let last = *handle.as_bytes().last().unwrap();
            let value = ALPHABET.iter().position(|&c| c == last).unwrap();
            assert_eq!(value & 3, 0, "the spare bits of {handle}");
            for spare in 1..4 {
                let mut other = handle.clone();
                other.pop();
                other.push(char::from(ALPHABET[value | spare]));
                assert_eq!(keys.parse_receipt_handle(&other), None, "{other}");
            }
            assert_eq!(keys.parse_receipt_handle(&format!("{handle}=")), None);
            let standard = handle.replace('-', "+").replace('_', "/");
            if standard != handle {
                assert_eq!(keys.parse_receipt_handle(&standard), None);
            }
        }
    }

    /// A million consecutive sequences give a million distinct ids (both schemes).
    #[test]
    fn ids_of_consecutive_sequences_are_distinct() {
        for scheme in [IdScheme::Rapid, IdScheme::Sip13] {
            let mut keys = IdKeys::new(5, "us-east-1");
            keys.set_scheme(scheme);
            let mut seen = std::collections::HashSet::new();
            for seq in 0..1_000_000u64 {
                assert!(seen.insert(keys.message_id(seq)), "{scheme:?} seq {seq}");
            }
        }
    }

    #[test]
    fn message_ids_are_uuid_shaped_and_distinct() {
        let keys = IdKeys::new(1, "us-east-1");
        let a = format_uuid(keys.message_id(1));
        let b = format_uuid(keys.message_id(2));
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert_eq!(parse_uuid(&a), Some(keys.message_id(1)));
        assert_ne!(
            IdKeys::new(1, "eu-west-1").message_id(1),
            keys.message_id(1)
        );
    }

    #[test]
    fn uuid_formatting_matches_the_standard_layout() {
        let v = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        assert_eq!(format_uuid(v), "01234567-89ab-cdef-fedc-ba9876543210");
        assert_eq!(format_uuid(0), "00000000-0000-0000-0000-000000000000");
        assert_eq!(parse_uuid(&format_uuid(v)), Some(v));
    }

    #[test]
    fn sequence_numbers_increase_as_strings_compare() {
        let a = sequence_number(1);
        let b = sequence_number(2);
        assert_eq!(a.len(), 20);
        assert!(a < b);
    }
}
