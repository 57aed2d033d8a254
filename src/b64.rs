//! Base64 of any length: the standard alphabet with padding (binary attribute values, move-task
//! handles, records) and the URL-safe one without (ListQueues tokens).
//!
//! Byte loops rather than the `base64` crate's engine, whose chunked encoder and decoder are
//! ~4.5 KB of the wasm for inputs that are rare and short. What is accepted is exactly what the
//! crate's `STANDARD` (canonical padding required) and `URL_SAFE_NO_PAD` (no padding allowed)
//! accept, trailing bits included (they must be zero): the tests check both against the crate,
//! which stays the reference (and the serde helpers' codec).

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Standard base64, padded.
pub(crate) fn encode(bytes: &[u8]) -> String {
    encode_with(bytes, STANDARD, true)
}

/// URL-safe base64, unpadded.
pub(crate) fn encode_url(bytes: &[u8]) -> String {
    encode_with(bytes, URL_SAFE, false)
}

/// Standard base64 with canonical padding; `None` for anything else.
pub(crate) fn decode(text: &[u8]) -> Option<Vec<u8>> {
    decode_with(text, STANDARD, true)
}

/// URL-safe base64 without padding; `None` for anything else.
pub(crate) fn decode_url(text: &[u8]) -> Option<Vec<u8>> {
    decode_with(text, URL_SAFE, false)
}

fn encode_with(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    let symbol = |v: u32| alphabet.get((v & 63) as usize).copied().unwrap_or(b'A');
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        // 2, 3 or 4 symbols for 1, 2 or 3 bytes.
        for i in 0..=group.len() {
            out.push(symbol(n >> (18 - 6 * i)));
        }
        if pad {
            out.extend_from_slice(b"==".get(group.len() - 1..).unwrap_or_default());
        }
    }
    // Only alphabet symbols and `=` were written.
    String::from_utf8(out).unwrap_or_default()
}

fn decode_with(text: &[u8], alphabet: &[u8; 64], padded: bool) -> Option<Vec<u8>> {
    let pads = text.iter().rev().take_while(|&&b| b == b'=').count();
    let symbols = text.len() - pads;
    let wanted_pads = match symbols % 4 {
        0 => 0,
        1 => return None,
        r => 4 - r,
    };
    if pads != if padded { wanted_pads } else { 0 } {
        return None;
    }
    let value = |c: u8| alphabet.iter().position(|&a| a == c).map(|v| v as u32);
    let mut out = Vec::with_capacity(symbols * 3 / 4);
    for group in text.get(..symbols)?.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in group.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = group.len() - 1;
        // The bits below the last whole byte must be zero (no trailing bits).
        if n & ((1 << (24 - 8 * bytes)) - 1) != 0 {
            return None;
        }
        for i in 0..bytes {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use proptest::prelude::*;

    const CRATE: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
    const CRATE_URL: base64::engine::GeneralPurpose =
        base64::engine::general_purpose::URL_SAFE_NO_PAD;

    #[test]
    fn edge_cases_are_decided_as_the_crate_decides_them() {
        let cases = [
            "",
            "=",
            "==",
            "===",
            "====",
            "A",
            "A=",
            "A==",
            "A===",
            "AA",
            "AA=",
            "AA==",
            "AA===",
            "AB==",
            "AAA",
            "AAA=",
            "AAB=",
            "AAAA",
            "AAAA=",
            "AAAA==",
            "AA==AA==",
            "AAAA====",
            "QUJD",
            "QUJDRA",
            "QUJDRA==",
            "QUJDRA=",
            "QUJDRE==",
            "-_-_",
            "+/+/",
            "ab\ncd",
            " AAA",
            "AA\u{e9}A",
        ];
        for c in cases {
            assert_eq!(decode(c.as_bytes()), CRATE.decode(c).ok(), "{c:?}");
            assert_eq!(
                decode_url(c.as_bytes()),
                CRATE_URL.decode(c).ok(),
                "url {c:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn encodes_as_the_crate_does(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(encode(&bytes), CRATE.encode(&bytes));
            prop_assert_eq!(encode_url(&bytes), CRATE_URL.encode(&bytes));
            prop_assert_eq!(decode(encode(&bytes).as_bytes()), Some(bytes.clone()));
            prop_assert_eq!(decode_url(encode_url(&bytes).as_bytes()), Some(bytes));
        }

        /// Any text over both alphabets and `=`: accepted exactly when the crate accepts it,
        /// with the same bytes.
        #[test]
        fn decodes_as_the_crate_does(text in "[A-Za-z0-9+/_=-]{0,24}|[AQgw=]{0,12}|[A-D+/=]{0,9}") {
            prop_assert_eq!(decode(text.as_bytes()), CRATE.decode(&text).ok());
            prop_assert_eq!(decode_url(text.as_bytes()), CRATE_URL.decode(&text).ok());
        }
    }
}
