// On a --credentials server: whether a request's signature will be refused whatever its body
// holds, decided from its headers and query string before the body is read. Without this, a
// client with no key at all could make the server hold up to 8 MiB per connection (and the
// whole --max-buffered-bytes between several) while it took its time sending them.
//
// This only decides; it does not answer. A request it refuses is handed to the protocol layer
// with an empty body, and the layer answers exactly as it would have with the body: the checks
// named here all come before anything in it reads the body (src/protocol/sigv4.rs, `verify`:
// presence, form, access key, date, then scope and signature). So this errs only one way: when
// unsure, the body is read and the protocol layer decides as always.

/** The protocol layer's allowed clock skew (sigv4.rs SKEW_MS), plus a minute so that the two
 *  clocks read a moment apart can never disagree about a request near the edge. */
const SKEW_MS = 15 * 60 * 1000 + 60 * 1000;

/** `YYYYMMDDTHHMMSSZ` as epoch ms, or NaN. */
function amzDate(text) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? "");
  if (!m) return NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 20261332 over into the next year; the protocol layer refuses it.
  const back = new Date(ms);
  return back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? ms : NaN;
}

/**
 * The values of `name` in a query string, decoded as the protocol layer decodes them (percent
 * escapes only: a `+` stays a `+`).
 */
function queryValues(query, name) {
  const decode = (text) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const values = [];
  for (const pair of query.split("&")) {
    const at = pair.indexOf("=");
    const key = decode(at < 0 ? pair : pair.slice(0, at));
    if (key === name) values.push(at < 0 ? "" : decode(pair.slice(at + 1)));
  }
  return values;
}

/** The access key of a `Credential=` value (`KEY/date/region/service/aws4_request`). */
function accessKeyOf(credential) {
  const parts = credential.trim().split("/");
  return parts.length === 5 ? parts[0] : undefined;
}

/**
 * True when the request cannot pass SigV4 with `accessKeyId` at `now`, whatever its body:
 * no signature at all, none naming this access key, or (in an Authorization header) a date
 * outside the allowed skew.
 * @param {(name: string) => string | undefined} header
 * @param {string} query the raw query string
 * @param {string} accessKeyId
 * @param {number} now epoch ms
 */
export function refusedBeforeBody(header, query, accessKeyId, now) {
  const auth = header("authorization");
  if (auth === undefined) {
    if (queryValues(query, "X-Amz-Algorithm").length === 0) return true; // MissingAuthenticationToken
    // A presigned URL's date is not held to the skew: it is valid for X-Amz-Expires (up to
    // 7 days), which the protocol layer decides.
    return !queryValues(query, "X-Amz-Credential").map(accessKeyOf).includes(accessKeyId);
  }
  const keys = [...auth.matchAll(/Credential=([^,\s]*)/g)].map((m) => accessKeyOf(m[1]));
  if (!keys.includes(accessKeyId)) return true; // InvalidClientTokenId or IncompleteSignature
  const date = header("x-amz-date");
  // Dated by a `Date` header instead: left to the protocol layer, whose rules for it may change.
  if (date === undefined && header("date") !== undefined) return false;
  const at = amzDate(date);
  if (Number.isNaN(at)) return true; // no or malformed date: IncompleteSignature
  return Math.abs(at - now) > SKEW_MS; // "Signature expired" / "not yet current"
}
