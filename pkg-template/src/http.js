// HTTP front doors: an AWS SDK v3 `requestHandler` and a fetch-style handler. Both hand the
// bytes to the Rust protocol layer (AWS JSON 1.0 and Query, SigV4 when credentials are set);
// only long polling is done here, because waiting is the host's job.

import { HTTP, CONTEXT, DISPATCH, WAIT, FLUSH, NOW } from "./engine.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toBytes(body) {
  if (body === undefined || body === null) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("request body must be a string, Uint8Array or ArrayBuffer (streams are not supported)");
}

// RFC 3986 encoding, as SigV4 canonicalises it.
function encode(text) {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/** The SDK's `query` object (`{ name: value | value[] | null }`) as a query string. */
function queryString(query) {
  if (!query) return "";
  if (typeof query === "string") return query.replace(/^\?/, "");
  const parts = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === null || value === undefined) parts.push(encode(key));
    else for (const v of Array.isArray(value) ? value : [value]) parts.push(`${encode(key)}=${encode(String(v))}`);
  }
  return parts.join("&");
}

function header(headers, name) {
  for (const [k, v] of headers) if (k.toLowerCase() === name) return v;
  return undefined;
}

/**
 * If the request is a ReceiveMessage, what long polling needs: the queue URL and the explicit
 * WaitTimeSeconds (undefined: the queue's default applies). Requests the protocol layer will
 * reject are not parsed further: they are answered at once.
 */
function receiveOf(req) {
  const target = header(req.headers, "x-amz-target");
  if (target !== undefined) {
    if (target.trim() !== "AmazonSQS.ReceiveMessage") return null;
    try {
      const params = JSON.parse(decoder.decode(req.body));
      if (typeof params?.QueueUrl !== "string") return null;
      const wait = typeof params.WaitTimeSeconds === "number" ? params.WaitTimeSeconds : undefined;
      return { queueUrl: params.QueueUrl, wait, json: true };
    } catch {
      return null;
    }
  }
  const params = new URLSearchParams(req.query);
  const type = header(req.headers, "content-type") ?? "application/x-www-form-urlencoded";
  if (req.method.toUpperCase() !== "GET" && type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    for (const [k, v] of new URLSearchParams(decoder.decode(req.body))) params.append(k, v);
  }
  if (params.get("Action") !== "ReceiveMessage") return null;
  let queueUrl = params.get("QueueUrl");
  if (!queueUrl) {
    const host = header(req.headers, "host") ?? "localhost";
    queueUrl = `${header(req.headers, "x-forwarded-proto") ?? "http"}://${host}${req.path}`;
  }
  const waitText = params.get("WaitTimeSeconds");
  const wait = waitText === null ? undefined : Number(waitText);
  return { queueUrl, wait, json: false };
}

function delivered(res, json) {
  const text = decoder.decode(res.body);
  if (!json) return text.includes("<Message>");
  try {
    return (JSON.parse(text).Messages?.length ?? 0) > 0;
  } catch {
    return true; // not ours to interpret: answer it
  }
}

/** One request through the engine, waiting in JS when it is a long poll that found nothing. */
async function serve(engine, req, options, signal) {
  signal?.throwIfAborted();
  const start = engine[NOW]();
  let res = engine[HTTP](req, options);
  const receive = res.status === 200 ? receiveOf(req) : null;
  if (receive && !delivered(res, receive.json)) {
    // The region (SigV4 scope) and host decide which queue the URL names, as for the request.
    const context = engine[CONTEXT](req);
    let wait = receive.wait;
    if (wait === undefined) {
      try {
        const attrs = engine[DISPATCH](
          "GetQueueAttributes",
          { QueueUrl: receive.queueUrl, AttributeNames: ["ReceiveMessageWaitTimeSeconds"] },
          context,
        );
        wait = Number(attrs.Attributes?.ReceiveMessageWaitTimeSeconds ?? 0);
      } catch {
        wait = 0;
      }
    }
    const deadline = start + (Number.isFinite(wait) ? wait : 0) * 1000;
    while (engine[NOW]() < deadline) {
      await engine[WAIT](receive.queueUrl, context, deadline, signal);
      res = engine[HTTP](req, options);
      if (res.status !== 200 || delivered(res, receive.json)) break;
    }
  }
  await engine[FLUSH]();
  return res;
}

function protocolOptions({ credentials, maxBodyBytes } = {}) {
  return { credentials, maxBodyBytes };
}

/**
 * A `requestHandler` for `@aws-sdk/client-sqs` (v3) that answers in-process:
 * `new SQSClient({ requestHandler: createRequestHandler(engine), endpoint, region, credentials })`.
 * @param {import("./engine.js").Engine} engine
 * @param {{ credentials?: { accessKeyId: string, secretAccessKey: string }, maxBodyBytes?: number }} [options]
 *   with credentials, every request's SigV4 signature is verified against them
 */
export function createRequestHandler(engine, options = {}) {
  const opts = protocolOptions(options);
  return {
    metadata: { handlerProtocol: "http/1.1" },
    async handle(request, { abortSignal } = {}) {
      const req = {
        method: request.method ?? "POST",
        path: request.path || "/",
        query: queryString(request.query),
        headers: Object.entries(request.headers ?? {}).map(([k, v]) => [k, String(v)]),
        body: toBytes(request.body),
      };
      const res = await serve(engine, req, opts, abortSignal);
      const headers = {};
      for (const [name, value] of res.headers) {
        const key = name.toLowerCase();
        headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
      }
      return { response: { statusCode: res.status, headers, body: res.body } };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * `(request: Request) => Promise<Response>` for Workers, Deno, Bun and service workers.
 * Aborting the request's signal ends a pending long poll.
 */
export function createFetchHandler(engine, options = {}) {
  const opts = protocolOptions(options);
  return async function handleFetch(request) {
    const url = new URL(request.url);
    const req = {
      method: request.method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      headers: [...request.headers],
      body: new Uint8Array(await request.arrayBuffer()),
    };
    if (!header(req.headers, "host")) req.headers.push(["host", url.host]);
    const res = await serve(engine, req, opts, request.signal);
    return new Response(NULL_BODY_STATUS.has(res.status) ? null : res.body, {
      status: res.status,
      headers: res.headers,
    });
  };
}
