//! AWS Signature Version 4 verification, for hosts configured with credentials.
//!
//! Follows the AWS "Create a canonical request" steps: canonical URI (each byte outside the
//! unreserved set percent-encoded, applied to the path as sent, which is the double encoding
//! AWS uses for every service but S3), sorted canonical query string, signed headers with
//! trimmed values, payload hash; then the string to sign and the `AWS4<secret>` key chain. Both
//! the `Authorization` header and presigned-URL query parameters are accepted.
//!
//! A signature only protects what it covers, so before comparing it the request must show that
//! it covers everything that decides what the request does: the body (its hash is computed
//! here, never read from the request), the `Host`, the date, and for the JSON protocol the
//! `X-Amz-Target` naming the action (the Query protocol names it in the signed query or body).

use super::HttpRequest;
use crate::error::SqsError;
use hmac::{Hmac, Mac};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// How far the request's `X-Amz-Date` may be from the server clock (AWS: 15 minutes).
const SKEW_MS: u64 = 15 * 60 * 1000;
/// The longest `X-Amz-Expires` a presigned request may ask for: 7 days, as long as the signing
/// key derived for one date is meant to live.
const MAX_EXPIRES_S: u64 = 7 * 24 * 60 * 60;
// The refusal below spells the limit out rather than formatting it.
const _: () = assert!(MAX_EXPIRES_S == 604_800);
const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// AWS URI-encoding: everything but `A-Z a-z 0-9 - _ . ~`.
const URI_ENCODE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
/// The same, keeping `/` (canonical URI).
const PATH_ENCODE: &AsciiSet = &URI_ENCODE.remove(b'/');

const MISMATCH: &str = "The request signature we calculated does not match the signature you provided. \
Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";

/// The parts of a SigV4 credential scope: `AKID/20250101/us-east-1/sqs/aws4_request`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    /// The access key id.
    pub access_key: String,
    /// `YYYYMMDD`.
    pub date: String,
    /// The region the request was signed for.
    pub region: String,
    /// The service (`sqs`).
    pub service: String,
    /// `aws4_request`.
    pub terminator: String,
}

impl Credential {
    /// Parse `AKID/date/region/service/aws4_request`; `None` unless there are exactly 5 parts.
    pub fn parse(text: &str) -> Option<Credential> {
        let parts: Vec<&str> = text.split('/').collect();
        let [access_key, date, region, service, terminator] = parts.as_slice() else {
            return None;
        };
        Some(Credential {
            access_key: access_key.to_string(),
            date: date.to_string(),
            region: region.to_string(),
            service: service.to_string(),
            terminator: terminator.to_string(),
        })
    }
}

/// What the request says about its signature, from the header or the presigned query.
struct Signed {
    credential: String,
    signed_headers: String,
    signature: String,
    amz_date: Option<String>,
    /// Which header the date came from (`x-amz-date` or `date`); `None` when presigned.
    date_header: Option<&'static str>,
    /// A presigned request's `X-Amz-Expires`, in seconds, when it gives one.
    expires: Option<u64>,
    presigned: bool,
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    super::header(req, name)
}

fn query_pairs(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                percent_decode_str(k).decode_utf8_lossy().into_owned(),
                percent_decode_str(v).decode_utf8_lossy().into_owned(),
            )
        })
        .collect()
}

fn query_param(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// The credential scope the request names, from either place, without checking anything else.
pub fn credential_of(req: &HttpRequest) -> Option<Credential> {
    if let Some(auth) = header(req, "authorization") {
        let rest = auth.trim().split_once(' ').map(|(_, r)| r).unwrap_or("");
        for part in rest.split(',') {
            if let Some(v) = part.trim().strip_prefix("Credential=") {
                return Credential::parse(v.trim());
            }
        }
        return None;
    }
    query_param(&query_pairs(&req.query), "X-Amz-Credential").and_then(|c| Credential::parse(&c))
}

fn incomplete(msg: String) -> SqsError {
    SqsError::IncompleteSignature(msg)
}

fn parse_authorization(req: &HttpRequest, auth: &str) -> Result<Signed, SqsError> {
    let trimmed = auth.trim();
    let (algorithm, rest) = trimmed.split_once(' ').unwrap_or((trimmed, ""));
    let mut credential = None;
    let mut signed_headers = None;
    let mut signature = None;
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(incomplete(format!(
                "'{part}' not a valid key=value pair (missing equal-sign) in Authorization header: '{auth}'."
            )));
        };
        match k.trim() {
            "Credential" => credential = Some(v.trim().to_string()),
            "SignedHeaders" => signed_headers = Some(v.trim().to_string()),
            "Signature" => signature = Some(v.trim().to_string()),
            _ => {}
        }
    }
    // Like AWS, `X-Amz-Date` first, else `Date`; either must be in the ISO-8601 basic form.
    let (amz_date, date_header) = match (header(req, "x-amz-date"), header(req, "date")) {
        (Some(d), _) => (Some(d.to_string()), Some("x-amz-date")),
        (None, Some(d)) => (Some(d.to_string()), Some("date")),
        (None, None) => (None, None),
    };
    let mut missing = String::new();
    for (name, present) in [
        ("Credential", credential.is_some()),
        ("Signature", signature.is_some()),
        ("SignedHeaders", signed_headers.is_some()),
    ] {
        if !present {
            missing.push_str(&format!(
                "Authorization header requires '{name}' parameter. "
            ));
        }
    }
    if amz_date.is_none() {
        missing.push_str(
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ",
        );
    }
    if !missing.is_empty() {
        return Err(incomplete(format!("{missing}Authorization={auth}")));
    }
    if algorithm != ALGORITHM {
        return Err(incomplete(format!(
            "Unsupported AWS 'algorithm': '{algorithm}'."
        )));
    }
    Ok(Signed {
        credential: credential.unwrap_or_default(),
        signed_headers: signed_headers.unwrap_or_default(),
        signature: signature.unwrap_or_default(),
        amz_date,
        date_header,
        expires: None,
        presigned: false,
    })
}

fn parse_presigned(pairs: &[(String, String)]) -> Result<Option<Signed>, SqsError> {
    let Some(algorithm) = query_param(pairs, "X-Amz-Algorithm") else {
        return Ok(None);
    };
    let mut missing = String::new();
    let mut get = |name: &str| {
        let v = query_param(pairs, name);
        if v.is_none() {
            missing.push_str(&format!(
                "AWS query-string parameters must include '{name}'. "
            ));
        }
        v.unwrap_or_default()
    };
    let credential = get("X-Amz-Credential");
    let signature = get("X-Amz-Signature");
    let signed_headers = get("X-Amz-SignedHeaders");
    let amz_date = get("X-Amz-Date");
    if !missing.is_empty() {
        return Err(incomplete(format!(
            "{missing}Re-examine the query-string parameters."
        )));
    }
    if algorithm != ALGORITHM {
        return Err(incomplete(format!(
            "Unsupported AWS 'algorithm': '{algorithm}'."
        )));
    }
    let expires = match query_param(pairs, "X-Amz-Expires") {
        Some(text) => Some(parse_expires(&text)?),
        None => None,
    };
    Ok(Some(Signed {
        credential,
        signed_headers,
        signature,
        amz_date: Some(amz_date),
        date_header: None,
        expires,
        presigned: true,
    }))
}

/// `X-Amz-Expires`: whole seconds, at most 7 days. The wording is S3's, the one AWS service
/// that documents these refusals; the code is SQS's for a malformed signature.
fn parse_expires(text: &str) -> Result<u64, SqsError> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(incomplete("X-Amz-Expires should be a number".into()));
    }
    if text.starts_with('-') {
        return Err(incomplete("X-Amz-Expires must be non-negative".into()));
    }
    let seconds = digits.bytes().fold(0u64, |n, b| {
        n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    });
    if seconds > MAX_EXPIRES_S {
        return Err(incomplete(
            "X-Amz-Expires must be less than a week (in seconds) that is 604800".into(),
        ));
    }
    Ok(seconds)
}

/// `YYYYMMDDTHHMMSSZ` → epoch milliseconds.
pub fn parse_amz_date(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() != 16 || b.get(8) != Some(&b'T') || b.get(15) != Some(&b'Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let (y, mo, d) = (num(0..4)?, num(4..6)?, num(6..8)?);
    let (h, mi, se) = (num(9..11)?, num(11..13)?, num(13..15)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    let secs = days * 86_400 + h * 3600 + mi * 60 + se;
    u64::try_from(secs).ok().and_then(|s| s.checked_mul(1000))
}

/// Epoch milliseconds → `YYYYMMDDTHHMMSSZ`.
pub fn format_amz_date(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

// Howard Hinnant's civil-date algorithms: exact for the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

fn keyed(key: &[u8], data: &[u8]) -> Option<HmacSha256> {
    // HMAC takes keys of any length: the error case does not occur.
    let mut mac = HmacSha256::new_from_slice(key).ok()?;
    mac.update(data);
    Some(mac)
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    keyed(key, data)
        .map(|m| m.finalize().into_bytes().to_vec())
        .unwrap_or_default()
}

/// RFC 3986 dot-segment removal, keeping a trailing slash (as botocore does).
fn normalize_path(path: &str) -> String {
    if path.is_empty() {
        return "/".into();
    }
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    let mut s = format!("/{}", out.join("/"));
    if path.ends_with('/') && s != "/" {
        s.push('/');
    }
    s
}

fn canonical_query(raw: &str, presigned: bool) -> String {
    let mut pairs: Vec<(String, String)> = query_pairs(raw)
        .into_iter()
        .filter(|(k, _)| !(presigned && k == "X-Amz-Signature"))
        .map(|(k, v)| {
            (
                utf8_percent_encode(&k, URI_ENCODE).to_string(),
                utf8_percent_encode(&v, URI_ENCODE).to_string(),
            )
        })
        .collect();
    pairs.sort();
    // Pushed in place rather than joined from a `Vec<String>`: `join` over `String`s is a
    // second instantiation of it beside the `&str` one the rest of this file uses.
    let mut out = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(k);
        out.push('=');
        out.push_str(v);
    }
    out
}

fn canonical_header_value(req: &HttpRequest, name: &str) -> String {
    let values = req
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(name));
    let mut out = String::new();
    for (i, (_, v)) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&v.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    out
}

/// The canonical request (exposed for the tests that compare it with botocore's).
pub fn canonical_request(req: &HttpRequest, signed_headers: &str, presigned: bool) -> String {
    canonical_request_with(req, signed_headers, presigned, &payload_hash(req))
}

/// The SHA-256 of the body received, in hex: the payload line of every canonical request. An
/// `X-Amz-Content-Sha256` header is S3's way to sign a payload hash the client states (or
/// `UNSIGNED-PAYLOAD`); the other AWS services, SQS among them, hash the body themselves, and
/// taking the header's word would let a captured signature carry any body sent beside the
/// original body's hash.
fn payload_hash(req: &HttpRequest) -> String {
    hex(&Sha256::digest(&req.body))
}

fn canonical_request_with(
    req: &HttpRequest,
    signed_headers: &str,
    presigned: bool,
    payload: &str,
) -> String {
    let uri = utf8_percent_encode(&normalize_path(&req.path), PATH_ENCODE).to_string();
    let mut headers = String::new();
    for name in signed_headers.split(';') {
        headers.push_str(&name.to_ascii_lowercase());
        headers.push(':');
        headers.push_str(&canonical_header_value(req, name));
        headers.push('\n');
    }
    format!(
        "{}\n{uri}\n{}\n{headers}\n{signed_headers}\n{payload}",
        req.method.to_ascii_uppercase(),
        canonical_query(&req.query, presigned)
    )
}

fn must_be_signed(name: &str) -> SqsError {
    SqsError::SignatureDoesNotMatch(format!(
        "'{name}' must be a 'SignedHeader' in the AWS Authorization."
    ))
}

/// Whether the request's SignedHeaders name `name` (lower case).
fn signs(signed: &Signed, name: &str) -> bool {
    signed
        .signed_headers
        .split(';')
        .any(|n| n.trim().eq_ignore_ascii_case(name))
}

/// The headers that decide what a request does must be among those it signs: a header left out
/// could be changed or added by anyone holding the request. AWS refuses SignedHeaders without
/// `host` in these words (SignatureDoesNotMatch), before it reads the credential or the date.
fn check_host_signed(signed: &Signed) -> Result<(), SqsError> {
    if signs(signed, "host") {
        Ok(())
    } else {
        Err(SqsError::SignatureDoesNotMatch(
            "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.".into(),
        ))
    }
}

/// The rest of that rule, held to AWS's wording for it, once the credential and the date have
/// been accepted: the date header the signature's date was read from, and for the JSON protocol
/// `X-Amz-Target`, which names the action (the SDKs always sign it; a Query request names its
/// action in the signed query or body).
fn check_covering_headers(req: &HttpRequest, signed: &Signed) -> Result<(), SqsError> {
    match signed.date_header {
        Some("x-amz-date") if !signs(signed, "x-amz-date") => {
            return Err(must_be_signed("X-Amz-Date"))
        }
        Some("date") if !signs(signed, "date") => return Err(must_be_signed("Date")),
        _ => {}
    }
    // A request carrying `X-Amz-Target` is a JSON-protocol request (`protocol_of`), whatever
    // its content type: an unsigned one, added or changed, would pick the action.
    if header(req, "x-amz-target").is_some() && !signs(signed, "x-amz-target") {
        return Err(must_be_signed("X-Amz-Target"));
    }
    Ok(())
}

/// Whether `at` (the request's date) is still good at `now`. Every request may be signed up to
/// 15 minutes ahead of the server clock. A header-signed request, or a presigned one without
/// `X-Amz-Expires`, is good for 15 minutes after its date; a presigned one with it is good for
/// exactly the seconds it asked for (up to 7 days), no longer: a link signed for one second is
/// not a link for fifteen minutes.
fn check_time(amz_date: &str, at: u64, expires: Option<u64>, now: u64) -> Result<(), SqsError> {
    if at > now.saturating_add(SKEW_MS) {
        return Err(SqsError::SignatureDoesNotMatch(format!(
            "Signature not yet current: {amz_date} is still later than {} ({} + 15 min.)",
            format_amz_date(now.saturating_add(SKEW_MS)),
            format_amz_date(now)
        )));
    }
    if let Some(seconds) = expires {
        // AWS's list of common errors gives RequestExpired for a presigned URL used too late. It
        // speaks of 15 minutes' grace past the expiry; wasq gives none, so that a short link
        // stays short.
        return if at.saturating_add(seconds * 1000) < now {
            Err(SqsError::RequestExpired("Request has expired".into()))
        } else {
            Ok(())
        };
    }
    // AWS reports clock skew with the SignatureDoesNotMatch code (InvalidSignatureException in
    // JSON) and this wording, in every recorded client log.
    if at.saturating_add(SKEW_MS) < now {
        return Err(SqsError::SignatureDoesNotMatch(format!(
            "Signature expired: {amz_date} is now earlier than {} ({} - 15 min.)",
            format_amz_date(now - SKEW_MS),
            format_amz_date(now)
        )));
    }
    Ok(())
}

/// Check the request's SigV4 signature against `(access key, secret)` at server time `now`
/// (epoch ms). Checks run in the order AWS reports them: presence, form, `host` signed, key,
/// date, scope; then the other headers that must be signed, the payload hash, the signature.
pub fn verify(req: &HttpRequest, access_key: &str, secret: &str, now: u64) -> Result<(), SqsError> {
    let signed = match header(req, "authorization") {
        Some(auth) => parse_authorization(req, auth)?,
        None => match parse_presigned(&query_pairs(&req.query))? {
            Some(s) => s,
            None => {
                return Err(SqsError::MissingAuthenticationToken(
                    "Request is missing Authentication Token".into(),
                ))
            }
        },
    };
    check_host_signed(&signed)?;
    let Some(cred) = Credential::parse(&signed.credential) else {
        return Err(incomplete(format!(
            "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '{}'",
            signed.credential
        )));
    };
    if cred.access_key != access_key {
        return Err(SqsError::InvalidClientTokenId(
            "The security token included in the request is invalid.".into(),
        ));
    }
    let amz_date = signed.amz_date.clone().unwrap_or_default();
    let Some(at) = parse_amz_date(&amz_date) else {
        return Err(incomplete(format!(
            "Date must be in ISO-8601 'basic format'. Got '{amz_date}'. See http://en.wikipedia.org/wiki/ISO_8601"
        )));
    };
    check_time(&amz_date, at, signed.expires, now)?;
    if cred.terminator != "aws4_request" {
        return Err(SqsError::SignatureDoesNotMatch(format!(
            "Credential should be scoped with a valid terminator: 'aws4_request', not '{}'.",
            cred.terminator
        )));
    }
    if cred.service != "sqs" {
        return Err(SqsError::SignatureDoesNotMatch(
            "Credential should be scoped to correct service: 'sqs'. ".into(),
        ));
    }
    if amz_date.get(0..8) != Some(cred.date.as_str()) {
        return Err(SqsError::SignatureDoesNotMatch(
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP"
                .into(),
        ));
    }
    check_covering_headers(req, &signed)?;
    let payload = payload_hash(req);
    // A payload-hash header that is not the body's hash (`UNSIGNED-PAYLOAD` included) is refused
    // as a signature that does not match, which is what AWS answers for it: its signature can
    // only have been computed over some other body.
    if header(req, "x-amz-content-sha256").is_some_and(|h| !h.trim().eq_ignore_ascii_case(&payload))
    {
        return Err(SqsError::SignatureDoesNotMatch(MISMATCH.into()));
    }
    let canonical = canonical_request_with(req, &signed.signed_headers, signed.presigned, &payload);
    let scope = format!(
        "{}/{}/{}/aws4_request",
        cred.date, cred.region, cred.service
    );
    let string_to_sign = format!(
        "{ALGORITHM}\n{amz_date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let mut key = hmac(format!("AWS4{secret}").as_bytes(), cred.date.as_bytes());
    for part in [cred.region.as_str(), cred.service.as_str(), "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    let provided = unhex(&signed.signature).unwrap_or_default();
    // verify_slice compares in constant time.
    let matches = keyed(&key, string_to_sign.as_bytes())
        .is_some_and(|mac| mac.verify_slice(&provided).is_ok());
    if matches {
        Ok(())
    } else {
        Err(SqsError::SignatureDoesNotMatch(MISMATCH.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amz_dates_round_trip() {
        assert_eq!(parse_amz_date("19700101T000000Z"), Some(0));
        assert_eq!(parse_amz_date("20250101T000000Z"), Some(1_735_689_600_000));
        assert_eq!(format_amz_date(1_735_689_600_000), "20250101T000000Z");
        assert_eq!(
            format_amz_date(951_782_400_000 + 3_723_000),
            "20000229T010203Z"
        );
        assert_eq!(
            parse_amz_date("20000229T010203Z"),
            Some(951_782_400_000 + 3_723_000)
        );
        for bad in [
            "",
            "2025-01-01T00:00:00Z",
            "20251301T000000Z",
            "2025010T1000000Z",
            "+0250101T000000Z",
            "20250101T00000éZ",
        ] {
            assert_eq!(parse_amz_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn paths_are_normalised_then_encoded() {
        assert_eq!(normalize_path(""), "/");
        assert_eq!(normalize_path("/a/./b/../c/"), "/a/c/");
        assert_eq!(normalize_path("//x"), "/x");
        let req = HttpRequest {
            method: "get".into(),
            path: "/a b/%41".into(),
            query: "b=2&a=%20x&a=1&c".into(),
            headers: vec![("Host".into(), "  h   1 ".into())],
            body: vec![],
        };
        assert_eq!(
            canonical_request(&req, "host", false),
            "GET\n/a%20b/%2541\na=%20x&a=1&b=2&c=\nhost:h 1\n\nhost\n\
             e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn credentials_need_five_parts() {
        assert_eq!(
            Credential::parse("AK/20250101/eu-west-1/sqs/aws4_request").map(|c| c.region),
            Some("eu-west-1".into())
        );
        assert!(Credential::parse("AK/20250101/eu-west-1/sqs").is_none());
        assert!(Credential::parse("AK/2/3/4/5/6").is_none());
    }
}
