//! A MessageId and an MD5 as the typed responses carry them: their bits, written as SQS's text
//! when a response is serialized or a caller shows them.
//!
//! Kept as bits rather than text: a Rust caller of the typed actions mostly reads neither, so
//! the text is written only where it is needed. The JSON and Query answers write it straight
//! into their output. Like the `uuid`
//! crate's `Uuid`, each value is `Copy`, compares with its text, and shows as that text.

use super::ids::UuidText;
use crate::digest::Md5Text;
use std::fmt;

/// A MessageId: 128 bits, shown as SQS shows one (`8-4-4-4-12` lower-case hex).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MessageId(u128);

impl MessageId {
    /// The id with these bits.
    pub const fn from_bits(bits: u128) -> Self {
        MessageId(bits)
    }

    /// The id's bits.
    pub const fn bits(self) -> u128 {
        self.0
    }

    /// The id's text, inline.
    pub fn text(self) -> UuidText {
        crate::hex::uuid_text(self.0)
    }
}

/// An MD5 digest (`MD5OfMessageBody`, `MD5OfBody`), shown as 32 lower-case hex digits.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Md5Digest([u8; 16]);

impl Md5Digest {
    /// The digest with these bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Md5Digest(bytes)
    }

    /// The digest's bytes.
    pub const fn bytes(self) -> [u8; 16] {
        self.0
    }

    /// The digest's hex text, inline.
    pub fn text(self) -> Md5Text {
        crate::hex::hex16(&self.0)
    }
}

/// Display, Debug and comparison with text, for both: a test asserts `id == "…"` and reads the
/// text in a failure, not the bits.
macro_rules! shown_as_text {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.text())
            }
        }

        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.text().as_str(), f)
            }
        }

        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.text().as_str() == other
            }
        }

        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.text().as_str() == *other
            }
        }
    };
}

shown_as_text!(MessageId);
shown_as_text!(Md5Digest);

#[cfg(test)]
mod tests {
    use super::*;
    use md5::Digest as _;

    #[test]
    fn message_id_shows_as_sqs_text() {
        let id = MessageId::from_bits(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let text = "01234567-89ab-cdef-fedc-ba9876543210";
        assert_eq!(id.to_string(), text);
        assert_eq!(format!("{id:?}"), format!("{text:?}"));
        assert!(id == text);
        assert!(id != "01234567-89ab-cdef-fedc-ba9876543211");
        assert_eq!(id.bits(), 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    }

    #[test]
    fn md5_shows_as_lower_case_hex() {
        // md5("test"), spec §5.2's check recorded against AWS.
        let md5: [u8; 16] = md5::Md5::digest(b"test").into();
        let digest = Md5Digest::from_bytes(md5);
        let text = "098f6bcd4621d373cade4e832627b4f6";
        assert_eq!(digest.to_string(), text);
        assert!(digest == text);
        assert_eq!(format!("{digest:?}"), format!("{text:?}"));
        assert_eq!(digest.bytes(), md5);
    }
}
