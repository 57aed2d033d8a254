//! Queue URLs that name their region: `http://HOST/queue/<region>/<account>/<name>`, the path
//! form LocalStack's users know. Two queues of one name in two regions get two URLs, and a
//! request that names a queue by URL reaches it whatever region the client signed for (issue
//! #33 item 5). Today's `http://HOST/<account>/<name>` is still accepted, resolved in the
//! signing region, so URLs and stores from before keep working.

/// The path prefix of the region form.
pub(crate) const PREFIX: &str = "/queue/";

/// A queue URL's path, its parts found: `region` is `None` for the form without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QueuePath<'a> {
    pub(crate) region: Option<&'a str>,
    pub(crate) account: &'a str,
    pub(crate) name: &'a str,
}

/// The parts of a URL path (no scheme or host): the last two segments are account and name;
/// `/queue/<region>` before them names the region. Any other prefix is ignored, as before.
pub(crate) fn parse(path: &str) -> Option<QueuePath<'_>> {
    let path = path.trim_end_matches('/');
    let (rest, name) = path.rsplit_once('/')?;
    let (before, account) = rest.rsplit_once('/').unwrap_or(("", rest));
    let region = before
        .strip_prefix(PREFIX)
        .filter(|r| !r.is_empty() && !r.contains('/'));
    Some(QueuePath {
        region,
        account,
        name,
    })
}

/// The region a queue URL names, if it is of the region form.
pub fn region_of_url(url: &str) -> Option<&str> {
    parse(super::url_path(url))?.region
}

/// The top-level `QueueUrl` string of an AWS JSON request body, read without building a tree
/// (a service routes each request by it before the engine reads the body). `None` when there is
/// none, it is not a string, or the text is not an object; the engine's own reading still
/// judges the body.
pub fn json_queue_url(text: &str) -> Option<std::borrow::Cow<'_, str>> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0usize;
    // Whether the next string at depth 1 is a key (after `{` or `,`) rather than a value.
    let mut expect_key = false;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => {
                depth += 1;
                expect_key = bytes[i] == b'{' && depth == 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b',' => {
                expect_key = depth == 1;
                i += 1;
            }
            b'"' => {
                let end = string_end(bytes, i)?;
                let is_key = depth == 1 && expect_key;
                expect_key = false;
                if is_key && &text[i..=end] == "\"QueueUrl\"" {
                    let mut j = end + 1;
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if bytes.get(j) != Some(&b':') {
                        return None;
                    }
                    j += 1;
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if bytes.get(j) != Some(&b'"') {
                        return None;
                    }
                    let value_end = string_end(bytes, j)?;
                    let raw = &text[j + 1..value_end];
                    return if raw.contains('\\') {
                        // Through `Value`, the one serde_json reader the crate instantiates
                        // (each is ~8 KB of wasm).
                        match serde_json::from_str::<serde_json::Value>(&text[j..=value_end]) {
                            Ok(serde_json::Value::String(s)) => Some(std::borrow::Cow::Owned(s)),
                            _ => None,
                        }
                    } else {
                        Some(std::borrow::Cow::Borrowed(raw))
                    };
                }
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// The index of the `"` closing the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_and_without_a_region() {
        assert_eq!(
            parse("/queue/eu-west-1/000000000000/q"),
            Some(QueuePath {
                region: Some("eu-west-1"),
                account: "000000000000",
                name: "q"
            })
        );
        assert_eq!(
            parse("/000000000000/q/"),
            Some(QueuePath {
                region: None,
                account: "000000000000",
                name: "q"
            })
        );
        assert_eq!(parse("/x/queue/eu-west-1/1/q").unwrap().region, None);
        assert_eq!(parse("q"), None);
        assert_eq!(
            region_of_url("http://h:1/queue/ap-south-1/1/q"),
            Some("ap-south-1")
        );
        assert_eq!(region_of_url("http://h:1/1/q"), None);
    }

    #[test]
    fn the_top_level_queue_url_of_a_json_body() {
        let url = |t: &str| json_queue_url(t).map(|c| c.into_owned());
        assert_eq!(
            url(r#"{"QueueUrl":"http://h/q"}"#).as_deref(),
            Some("http://h/q")
        );
        assert_eq!(
            url(r#"{ "MessageBody": "{\"QueueUrl\":\"x\"}", "QueueUrl" : "http:\/\/h\/q" }"#)
                .as_deref(),
            Some("http://h/q")
        );
        assert_eq!(
            url(r#"{"Attributes":{"QueueUrl":"inner"},"QueueUrl":"outer"}"#).as_deref(),
            Some("outer")
        );
        assert_eq!(url(r#"{"Attributes":{"QueueUrl":"inner"}}"#), None);
        assert_eq!(url(r#"{"QueueUrl":1}"#), None);
        assert_eq!(url(r#"{"QueueUrl":"unterminated"#), None);
        assert_eq!(url(r#"}}}"#), None);
        assert_eq!(url(r#"["QueueUrl","x"]"#), None);
    }
}
