// What the router needs to know about an admitted SQS request (`admitHttp`'s `{protocol, action,
// params, context}`, `params` AWS JSON text in both protocols) without executing it: its queue,
// the few fields that decide a partition, and how to write a copy with some fields changed (a
// sub-batch, a receipt handle without its partition prefix). Execution, validation and the
// response format stay with the Rust engine inside the objects: this file only reads and splices
// requests and the engine's own responses, in both AWS JSON 1.0 and Query/XML.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function header(req, name) {
  for (const [k, v] of req.headers) if (k.toLowerCase() === name) return v;
  return undefined;
}

/**
 * `{ json, action, params, parsed }` of an admitted request: `json` whether it came in the JSON
 * protocol (which decides the response format), `params` its parameters as an object.
 */
export function read(parsed) {
  const params = JSON.parse(parsed.params);
  return { json: parsed.protocol === "json", action: parsed.action, params: params !== null && typeof params === "object" ? params : {}, parsed };
}

/** A top-level scalar parameter as a string (undefined when absent). */
export function field(p, name) {
  const v = p.params[name];
  return v === undefined || v === null ? undefined : typeof v === "string" ? v : String(v);
}

/** The queue URL a request addresses (a Query request naming it by path has it as `QueueUrl`). */
export function queueUrlOf(p) {
  return field(p, "QueueUrl");
}

/**
 * The region a queue URL names in its path, `…/queue/<region>/<account>/<name>` (the engine's
 * form, src/engine/queue_url.rs); undefined for the form without one. Only region-shaped names
 * count, so a URL cannot make the directory open an engine under an arbitrary name.
 */
export function regionOfUrl(url) {
  if (typeof url !== "string") return undefined;
  const path = url.includes("://") ? url.slice(url.indexOf("://") + 3).replace(/^[^/]*/, "") : url;
  const m = /^\/queue\/([a-z]{2}(?:-[a-z]+)+-\d{1,2})\/[^/]+\/[^/]+\/?$/.exec(path);
  return m ? m[1] : undefined;
}

/** The queue name of a queue URL (its last path segment), as the engine resolves it. */
export function queueNameOf(url) {
  if (typeof url !== "string") return undefined;
  const path = url.includes("://") ? url.slice(url.indexOf("://") + 3).replace(/^[^/]*/, "") : url;
  const name = path.replace(/\/+$/, "").split("/").pop();
  return name || undefined;
}

/**
 * Batch entries in request order: `{ id, get, raw }` where `get` reads one member
 * (`MessageGroupId`, `ReceiptHandle`, `MessageBody`, …). `null` when the entry list is not a
 * well-formed list (the engine reports that).
 */
export function entries(p) {
  const list = p.params.Entries;
  if (!Array.isArray(list)) return null;
  if (!list.every((e) => e !== null && typeof e === "object" && !Array.isArray(e))) return null;
  return list.map((e) => ({ id: e.Id, get: (k) => e[k], raw: e }));
}

/** Payload bytes of one SendMessageBatch entry, as the engine counts them (body + attributes). */
export function payloadBytes(p, entry) {
  let total = encoder.encode(String(entry.get("MessageBody") ?? "")).length;
  const add = (name, type, value, binary) => {
    total += encoder.encode(String(name ?? "")).length + encoder.encode(String(type ?? "")).length;
    if (binary !== undefined) total += Math.floor((String(binary).replace(/=+$/, "").length * 3) / 4);
    else total += encoder.encode(String(value ?? "")).length;
  };
  const attrs = entry.raw.MessageAttributes;
  if (attrs !== null && typeof attrs === "object") {
    for (const [name, v] of Object.entries(attrs)) add(name, v?.DataType, v?.StringValue, v?.BinaryValue);
  }
  return total;
}

/** The admitted form of `p` with `set` applied (name → value) and, when given, only `keep` entries. */
export function rewrite(p, { set = {}, keep, entryPatch } = {}) {
  const params = { ...p.params, ...set };
  if (keep) params.Entries = keep.map((e) => (entryPatch ? { ...e.raw, ...entryPatch(e) } : e.raw));
  return { ...p.parsed, params: JSON.stringify(params) };
}

// ---- responses (the engine's own output, spliced) ----

export function text(res) {
  return decoder.decode(res.body);
}

export function withBody(res, body) {
  const headers = res.headers.filter(([k]) => k.toLowerCase() !== "content-length");
  return { ...res, headers, body: encoder.encode(body) };
}

function escapeXml(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
function unescapeXml(s) {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}

/** Every `<tag>…</tag>` block (flat: the engine never nests an element in one of the same name). */
function blocks(xml, tag) {
  return xml.match(new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`, "g")) ?? [];
}

function inner(block, tag) {
  const m = block.match(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`));
  return m ? unescapeXml(m[1]) : undefined;
}

/**
 * `res` (an engine's 200 answer to SendMessage, SendMessageBatch or ReceiveMessage) with every
 * FIFO `SequenceNumber` raised by `partition`. Each partition's engine numbers its own messages,
 * 10^19 + 65,536 × its sequence, so without this four messages of four groups in four
 * partitions all got the same number. SQS's are unique within a queue (a consumer may key on
 * them) and increase within a group; a partition index below 65,536 (MAX_PARTITIONS is 64)
 * keeps both, and partition 0 — every queue of one partition — is left exactly as the engine
 * wrote it. Only the members the protocol layer writes are touched: a message body or attribute
 * value cannot hold them unescaped.
 */
export function withPartitionSequences(json, res, partition) {
  if (!partition || res.status !== 200) return res;
  const body = text(res);
  if (!body.includes("SequenceNumber")) return res;
  const raise = (n) => (BigInt(n) + BigInt(partition)).toString();
  const out = json
    ? body.replace(/("SequenceNumber":")(\d+)(")/g, (_, a, n, b) => a + raise(n) + b)
    : body
        .replace(/(<SequenceNumber>)(\d+)(<\/SequenceNumber>)/g, (_, a, n, b) => a + raise(n) + b)
        .replace(/(<Name>SequenceNumber<\/Name>\s*<Value>)(\d+)(<\/Value>)/g, (_, a, n, b) => a + raise(n) + b);
  return withBody(res, out);
}

/** Messages of a ReceiveMessage response, each with its receipt handle prefixed. */
export function receivedMessages(json, res, prefix) {
  if (json) {
    const out = JSON.parse(text(res)).Messages ?? [];
    return out.map((m) => ({ ...m, ReceiptHandle: prefix + m.ReceiptHandle }));
  }
  return blocks(text(res), "Message").map((b) =>
    b.replace(/<ReceiptHandle>([\s\S]*?)<\/ReceiptHandle>/, (_, h) => `<ReceiptHandle>${escapeXml(prefix + unescapeXml(h))}</ReceiptHandle>`),
  );
}

/** `template` (a ReceiveMessage response) holding `messages` instead of its own. */
export function receiveResponse(json, template, messages) {
  if (json) {
    const body = JSON.parse(text(template));
    if (messages.length) body.Messages = messages;
    else delete body.Messages;
    return withBody(template, JSON.stringify(body));
  }
  const xml = text(template);
  const empty = xml.replace(/<ReceiveMessageResult>[\s\S]*?<\/ReceiveMessageResult>|<ReceiveMessageResult\/>/, "<ReceiveMessageResult></ReceiveMessageResult>");
  return withBody(template, empty.replace("<ReceiveMessageResult></ReceiveMessageResult>", `<ReceiveMessageResult>${messages.join("")}</ReceiveMessageResult>`));
}

/** `{ ok: [[id, entry]], failed: [[id, entry]] }` of a batch response. */
export function batchResults(json, action, res) {
  if (json) {
    const body = JSON.parse(text(res));
    return {
      ok: (body.Successful ?? []).map((e) => [e.Id, e]),
      failed: (body.Failed ?? []).map((e) => [e.Id, e]),
    };
  }
  const xml = text(res);
  const entryTag = action + "ResultEntry";
  return {
    ok: blocks(xml, entryTag).map((b) => [inner(b, "Id"), b]),
    failed: blocks(xml, "BatchResultErrorEntry").map((b) => [inner(b, "Id"), b]),
  };
}

/** `template` (a batch response) holding the merged entries, in request order. */
export function batchResponse(json, action, template, ok, failed) {
  if (json) {
    // The engine's order of members (Failed, then Successful) and, as SQS, no empty list.
    const body = JSON.parse(text(template));
    delete body.Failed;
    delete body.Successful;
    if (failed.length) body.Failed = failed;
    if (ok.length) body.Successful = ok;
    return withBody(template, JSON.stringify(body));
  }
  const tag = `${action}Result`;
  const xml = text(template).replace(
    new RegExp(`<${tag}>[\\s\\S]*?</${tag}>|<${tag}/>`),
    `<${tag}>${ok.join("")}${failed.join("")}</${tag}>`,
  );
  return withBody(template, xml);
}

/**
 * `res` with every receipt handle a partition's engine saw (`[partition's, client's]` pairs)
 * written back as the client sent it: an error that quotes a handle quotes the client's
 * (`1:AQEB…`), as one engine would. The wrapped form only prepends digits and `:`, which neither
 * JSON nor XML escapes, so the handle's text in the body is the engine's escaping of it.
 */
export function withClientHandles(res, pairs) {
  if (!pairs.length) return res;
  let body = text(res);
  const before = body;
  for (const [engine, client] of pairs) {
    if (engine && engine !== client) body = body.split(engine).join(client);
  }
  return body === before ? res : withBody(res, body);
}

export const COUNTERS = [
  "ApproximateNumberOfMessages",
  "ApproximateNumberOfMessagesNotVisible",
  "ApproximateNumberOfMessagesDelayed",
];

/** Which counters a GetQueueAttributes response lists. */
export function countersIn(json, res) {
  const body = text(res);
  if (json) {
    const attrs = JSON.parse(body).Attributes ?? {};
    return COUNTERS.filter((c) => Object.hasOwn(attrs, c));
  }
  return COUNTERS.filter((c) => body.includes(`<Name>${c}</Name>`));
}

/** The response with the listed counters replaced by `values`. */
export function withCounters(json, res, values) {
  const body = text(res);
  if (json) {
    const parsed = JSON.parse(body);
    for (const [k, v] of Object.entries(values)) if (parsed.Attributes && k in parsed.Attributes) parsed.Attributes[k] = String(v);
    return withBody(res, JSON.stringify(parsed));
  }
  let xml = body;
  for (const [k, v] of Object.entries(values)) {
    xml = xml.replace(new RegExp(`(<Name>${k}</Name>\\s*<Value>)[^<]*(</Value>)`), `$1${v}$2`);
  }
  return withBody(res, xml);
}

/** The SQS error code of a response (Query code), or undefined for a success. */
export function errorCode(res) {
  if (res.status === 200) return undefined;
  const q = res.headers.find(([k]) => k.toLowerCase() === "x-amzn-query-error");
  if (q) return q[1].split(";")[0];
  return text(res).match(/<Code>([^<]*)<\/Code>/)?.[1];
}

// ---- answers the Worker writes itself (move tasks), in the protocol layer's exact format ----

const XMLNS = "http://queue.amazonaws.com/doc/2012-11-05/";
const JSON_TYPE = "application/x-amz-json-1.0";

/** XML text escaped as the protocol layer escapes it (`& < > " '`, CR, XML-invalid controls). */
export function escapeText(s) {
  let out = "";
  for (const c of String(s)) {
    const n = c.codePointAt(0);
    if (c === "&") out += "&amp;";
    else if (c === "<") out += "&lt;";
    else if (c === ">") out += "&gt;";
    else if (c === '"') out += "&quot;";
    else if (c === "'") out += "&apos;";
    else if (c === "\r") out += "&#xD;";
    else if (c === "\t" || c === "\n") out += c;
    else if (n < 0x20 || n === 0xfffe || n === 0xffff) out += "\ufffd";
    else out += c;
  }
  return out;
}

/** Members in insertion order; arrays of objects as `<…ResultEntry>` items (the only nested output here). */
function xmlMembers(action, output) {
  let out = "";
  for (const [k, v] of Object.entries(output)) {
    if (Array.isArray(v)) {
      for (const item of v) out += `<${action}ResultEntry>${xmlMembers(action, item)}</${action}ResultEntry>`;
    } else {
      out += `<${k}>${escapeText(v)}</${k}>`;
    }
  }
  return out;
}

function requestIdOf(res) {
  return res?.headers.find(([k]) => k.toLowerCase() === "x-amzn-requestid")?.[1] ?? crypto.randomUUID();
}

/** A 200 answer of an action with output. */
export function successResponse(json, action, output, requestId = crypto.randomUUID()) {
  if (json) {
    return {
      status: 200,
      headers: [["x-amzn-RequestId", requestId], ["Content-Type", JSON_TYPE]],
      body: encoder.encode(JSON.stringify(output)),
    };
  }
  const xml = `<?xml version="1.0"?><${action}Response xmlns="${XMLNS}"><${action}Result>${xmlMembers(action, output)}</${action}Result><ResponseMetadata><RequestId>${escapeText(requestId)}</RequestId></ResponseMetadata></${action}Response>`;
  return { status: 200, headers: [["x-amzn-RequestId", requestId], ["Content-Type", "text/xml"]], body: encoder.encode(xml) };
}

/** `template` (the engine's 200 answer to the same request) carrying `output` instead of its own. */
export function withJsonOrXmlResult(json, template, action, output) {
  return successResponse(json, action, output, requestIdOf(template));
}

/** An SQS error: `{ type (JSON __type), code (Query code), status, message, fault }`; `fault` is
 * "Sender" (the request is at fault) or "Receiver" (the server is; clients retry those). */
export function errorResponse(json, { type, code, status, message, fault = "Sender" }, requestId = crypto.randomUUID()) {
  if (json) {
    return {
      status,
      headers: [["x-amzn-RequestId", requestId], ["Content-Type", JSON_TYPE], ["x-amzn-query-error", `${code};${fault}`]],
      body: encoder.encode(JSON.stringify({ __type: type, message })),
    };
  }
  const xml = `<?xml version="1.0"?><ErrorResponse xmlns="${XMLNS}"><Error><Type>${fault}</Type><Code>${escapeText(code)}</Code><Message>${escapeText(message)}</Message><Detail/></Error><RequestId>${escapeText(requestId)}</RequestId></ErrorResponse>`;
  return { status, headers: [["x-amzn-RequestId", requestId], ["Content-Type", "text/xml"]], body: encoder.encode(xml) };
}

/**
 * The answer to a request whose engine stopped on an internal error (a panic or trap in the wasm):
 * AWS's generic server fault, a 500 that the SDKs retry, carrying the error's message (the panic
 * and where it happened), as `wasq serve` answers it.
 */
export function internalFailure(json, message) {
  return errorResponse(json, { type: "com.amazon.coral.service#InternalFailure", code: "InternalFailure", status: 500, fault: "Receiver", message });
}
