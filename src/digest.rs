//! The digests SQS returns and SDKs verify (spec §5.2–5.4), and the content-based deduplication id
//! (spec §8.1).
//!
//! SDKs (Java, PHP, Go, Ruby, JS v3) recompute `MD5OfMessageBody` and `MD5OfMessageAttributes` and
//! throw on a mismatch, so these must be bit-exact with AWS: every test vector below was returned
//! by AWS or by a published library that AWS's clients agree with.

use crate::model::MessageAttributeValue;
use md5::{Digest as _, Md5};
use sha2::Sha256;

/// Transport-type byte for attributes carried as `StringValue` (`String`, `Number` and their
/// custom subtypes). Bytes 3 and 4 are reserved by SQS for the unimplemented list values.
const TRANSPORT_STRING: u8 = 1;
/// Transport-type byte for attributes carried as `BinaryValue`.
const TRANSPORT_BINARY: u8 = 2;

/// Lower-case hex MD5 of `data`: `MD5OfMessageBody` / `MD5OfBody` when given the body's UTF-8 bytes.
pub fn md5_hex(data: &[u8]) -> String {
    format!("{:x}", Md5::digest(data))
}

/// Lower-case hex of a 16-byte digest (a stored MD5), inline: it is written twice for every
/// message of a send → receive cycle, and a heap string for each was a visible share of it.
pub type Md5Text = arrayvec::ArrayString<32>;

/// `hex16` of a stored MD5, through one buffer rather than a push per digit.
pub(crate) fn hex16(bytes: &[u8; 16]) -> Md5Text {
    crate::hex::hex16(bytes)
}

/// Lower-case hex SHA-256 of `data`: the content-based deduplication id when given the body's
/// UTF-8 bytes (attributes are not part of it, spec §8.1).
pub fn sha256_hex(data: &[u8]) -> String {
    format!("{:x}", Sha256::digest(data))
}

/// MD5OfMessageAttributes / MD5OfMessageSystemAttributes per spec §5.3. Sorts by name itself
/// (byte order). Returns None when the iterator is empty (SQS omits the digest then).
pub fn md5_of_attributes<'a, I>(attrs: I) -> Option<String>
where
    I: IntoIterator<Item = (&'a str, &'a MessageAttributeValue)>,
{
    digest_attributes(attrs.into_iter().collect())
}

/// The body of [`md5_of_attributes`], not generic, so that every caller shares one copy of the
/// sort (a sort is kilobytes of wasm per instantiation; issue #3).
fn digest_attributes(mut sorted: Vec<(&str, &MessageAttributeValue)>) -> Option<String> {
    if sorted.is_empty() {
        return None;
    }
    // `str`'s ordering is byte order of the UTF-8, which is what AWS sorts by.
    sorted.sort_by(|a, b| a.0.cmp(b.0));

    let mut hasher = Md5::new();
    for (name, value) in sorted {
        update_prefixed(&mut hasher, name.as_bytes());
        update_prefixed(&mut hasher, value.data_type.as_bytes());
        // An attribute is hashed by how it travels, not by its declared type: a value that arrived
        // as StringValue is a string even if validation would have refused it. Validation runs
        // before any digest, so the fallback to an empty binary value is never reached with
        // accepted input; it only keeps this function total.
        match (&value.string_value, &value.binary_value) {
            (Some(s), _) => {
                hasher.update([TRANSPORT_STRING]);
                update_prefixed(&mut hasher, s.as_bytes());
            }
            (None, bytes) => {
                hasher.update([TRANSPORT_BINARY]);
                update_prefixed(&mut hasher, bytes.as_deref().unwrap_or_default());
            }
        }
    }
    Some(format!("{:x}", hasher.finalize()))
}

/// Feeds `bytes` preceded by its length as a big-endian u32, the framing of every field in §5.3.
fn update_prefixed(hasher: &mut Md5, bytes: &[u8]) {
    // Attribute names, types and values are bounded far below 4 GiB by the message-size limit;
    // saturating keeps the function total without a panic path.
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    hasher.update(len.to_be_bytes());
    hasher.update(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MessageAttributes;
    use proptest::prelude::*;

    fn string(data_type: &str, v: &str) -> MessageAttributeValue {
        MessageAttributeValue {
            data_type: data_type.to_string(),
            string_value: Some(v.to_string()),
            ..Default::default()
        }
    }

    fn binary(data_type: &str, v: &[u8]) -> MessageAttributeValue {
        MessageAttributeValue {
            data_type: data_type.to_string(),
            binary_value: Some(v.to_vec()),
            ..Default::default()
        }
    }

    fn digest_of(attrs: &[(&str, MessageAttributeValue)]) -> Option<String> {
        md5_of_attributes(attrs.iter().map(|(n, v)| (*n, v)))
    }

    #[test]
    fn body_md5_matches_aws() {
        assert_eq!(md5_hex(b"test"), "098f6bcd4621d373cade4e832627b4f6");
        assert_eq!(md5_hex(b"message"), "78e731027d8fd50ed642340b7c9a63b3");
    }

    #[test]
    fn sha256_is_lower_hex_of_the_bytes() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn no_attributes_means_no_digest() {
        assert_eq!(digest_of(&[]), None);
        let empty = MessageAttributes::new();
        assert_eq!(
            md5_of_attributes(empty.iter().map(|(k, v)| (k.as_str(), v))),
            None
        );
    }

    #[test]
    fn single_string_attribute_matches_aws() {
        assert_eq!(
            digest_of(&[("MyAttribute", string("String", "foobar"))]).as_deref(),
            Some("adb59cd4678ea5a855436b949cd07ab6")
        );
        assert_eq!(
            digest_of(&[("Foo", string("String", "Bar"))]).as_deref(),
            Some("ae7155c6026991b6d54b11589678bf9c")
        );
    }

    #[test]
    fn number_attribute_matches_aws() {
        assert_eq!(
            digest_of(&[("timestamp", string("Number", "1493147359900"))]).as_deref(),
            Some("235c5c510d26fb653d073faed50ae77c")
        );
    }

    #[test]
    fn binary_attribute_hashes_decoded_bytes() {
        let bytes = b"traceparent\x1e00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01";
        assert_eq!(
            digest_of(&[("attr1", binary("Binary", bytes))]).as_deref(),
            Some("8cbe4db156db8a94db8b801b7addb984")
        );
    }

    #[test]
    fn filtered_subsets_match_aws() {
        let general = ("General", string("String", "Kenobi"));
        let hello = ("Hello", string("String", "There"));
        let help = ("Help.Me", string("String", "Me"));
        assert_eq!(
            digest_of(&[general.clone(), hello.clone(), help.clone()]).as_deref(),
            Some("4c360f3fdafd970e05fae2f149d997f5")
        );
        assert_eq!(
            digest_of(&[general, hello.clone()]).as_deref(),
            Some("fca026605781cb4126a1e9044df24232")
        );
        assert_eq!(
            digest_of(std::slice::from_ref(&hello)).as_deref(),
            Some("a311262e065454b75da111d535b8dacd")
        );
        assert_eq!(
            digest_of(&[hello, help]).as_deref(),
            Some("83fee93c1bcd8b9a5a923ffacdc636c7")
        );
    }

    #[test]
    fn library_vectors_including_custom_types() {
        let a = ("attribName1", string("String", "attribValue 1"));
        let b = (
            "customNumberTypeAttrib",
            string("Number.float", "4563442423554324324264524243.32543234"),
        );
        let c = ("binaryAttribute", binary("Binary", b"Hello binary world!"));
        assert_eq!(
            digest_of(std::slice::from_ref(&a)).as_deref(),
            Some("19e27d4e946b072f3f58da80d94fd778")
        );
        assert_eq!(
            digest_of(std::slice::from_ref(&b)).as_deref(),
            Some("9fe1b90bbd9965bdf77bac517c7d2495")
        );
        assert_eq!(
            digest_of(std::slice::from_ref(&c)).as_deref(),
            Some("31a92b15d92f8db860eda32aceb656c3")
        );
        // Given out of order on purpose: the function must sort.
        assert_eq!(
            digest_of(&[c, a, b]).as_deref(),
            Some("c932db14a896c663f83c260297d594ff")
        );
    }

    #[test]
    fn system_attribute_matches_aws() {
        let trace = string(
            "String",
            "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
        );
        assert_eq!(
            digest_of(&[("AWSTraceHeader", trace)]).as_deref(),
            Some("5ae4d5d7636402d80f4eb6d213245a88")
        );
    }

    #[test]
    fn digest_from_the_attribute_map_matches_the_vector() {
        let mut attrs = MessageAttributes::new();
        attrs.insert("Help.Me".into(), string("String", "Me"));
        attrs.insert("Hello".into(), string("String", "There"));
        assert_eq!(
            md5_of_attributes(attrs.iter().map(|(k, v)| (k.as_str(), v))).as_deref(),
            Some("83fee93c1bcd8b9a5a923ffacdc636c7")
        );
    }

    #[test]
    fn sorting_is_by_bytes_not_case_folded() {
        // 'B' (0x42) sorts before 'a' (0x61) in byte order; a case-folding sort would swap them.
        let upper = ("B", string("String", "1"));
        let lower = ("a", string("String", "2"));
        let mut manual = Md5::new();
        for (name, value) in [("B", "1"), ("a", "2")] {
            update_prefixed(&mut manual, name.as_bytes());
            update_prefixed(&mut manual, b"String");
            manual.update([TRANSPORT_STRING]);
            update_prefixed(&mut manual, value.as_bytes());
        }
        let expected = format!("{:x}", manual.finalize());
        assert_eq!(digest_of(&[lower, upper]), Some(expected));
    }

    proptest! {
        #[test]
        fn digest_does_not_depend_on_input_order(
            entries in proptest::collection::btree_map("[A-Za-z0-9_.-]{1,12}", ".{0,20}", 1..8)
        ) {
            let values: Vec<(String, MessageAttributeValue)> = entries
                .into_iter()
                .map(|(k, v)| (k, string("String", &v)))
                .collect();
            let forward = md5_of_attributes(values.iter().map(|(k, v)| (k.as_str(), v)));
            let backward = md5_of_attributes(values.iter().rev().map(|(k, v)| (k.as_str(), v)));
            prop_assert!(forward.is_some());
            prop_assert_eq!(forward, backward);
        }
    }
}
