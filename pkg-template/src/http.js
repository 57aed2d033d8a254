// HTTP front doors: an AWS SDK v3 `requestHandler` and a fetch-style handler. Both hand the
// bytes to the Rust protocol layer (AWS JSON 1.0 and Query, SigV4 when credentials are set);
// only long polling is done here, because waiting is the host's job.

import { HTTP, CONTEXT, DISPATCH, WAIT, FLUSH, NOW, RECEIVED } from "./engine.js";
import { headerPairs, requestHead } from "./http-head.js";

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

/** `lookup(name)` over `[name, value, name, value…]`, names matched case-insensitively. */
export function flatLookup(flat) {
  return (name) => {
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const key = flat[i];
      if (key.length === name.length && key.toLowerCase() === name) return flat[i + 1];
    }
    return undefined;
  };
}

/**
 * If the request is a ReceiveMessage, what long polling needs: the queue URL and the explicit
 * WaitTimeSeconds (undefined: the queue's default applies). Requests the protocol layer will
 * reject are not parsed further: they are answered at once.
 * @param {{ method: string, path: string, query: string, body: Uint8Array, header(name: string): string | undefined }} req
 */
function receiveOf(req) {
  const target = req.header("x-amz-target");
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
  const type = req.header("content-type") ?? "application/x-www-form-urlencoded";
  if (req.method.toUpperCase() !== "GET" && type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    for (const [k, v] of new URLSearchParams(decoder.decode(req.body))) params.append(k, v);
  }
  if (params.get("Action") !== "ReceiveMessage") return null;
  let queueUrl = params.get("QueueUrl");
  if (!queueUrl) {
    const host = req.header("host") ?? "localhost";
    queueUrl = `${req.header("x-forwarded-proto") ?? "http"}://${host}${req.path}`;
  }
  const waitText = params.get("WaitTimeSeconds");
  const wait = waitText === null ? undefined : Number(waitText);
  // A Query request accepting JSON is answered in JSON (the protocol layer's query_json.rs).
  return { queueUrl, wait, json: /application\/json/i.test(req.header("accept") ?? "") };
}

/**
 * Whether a successful ReceiveMessage answer holds messages, without parsing it: the engine
 * omits an empty list (as SQS does), and inside a JSON string every `"` is escaped, so the key
 * `"Messages":` appears unescaped only as the key itself (in XML, `<` cannot appear unescaped).
 */
function delivered(res, json) {
  return decoder.decode(res.body).includes(json ? '"Messages":' : "<Message>");
}

/**
 * One request through the engine, waiting in JS when it is a long poll that found nothing.
 * `abort` is an AbortSignal, or a function that makes one when a wait begins: a host answering
 * thousands of requests a second only pays for one when a request actually waits.
 * @param {{ method: string, path: string, query: string, body: Uint8Array, header(name: string): string | undefined, flat: string[] }} req
 * @returns {Promise<{ status: number, head: string, body: Uint8Array }>} the core's answer (src/http-head.js)
 */
export async function serve(engine, req, options, abort) {
  let signal = typeof abort === "function" ? undefined : abort;
  signal?.throwIfAborted();
  const start = engine[NOW]();
  const head = requestHead(req.method, req.path, req.query, req.flat);
  let res = engine[HTTP](head, req.body, options);
  // A receive, answered, refused or about to wait, ends whenPolling()'s watches on its queue (a
  // poll registers below before anything is awaited, so a watcher then finds it waiting). A body
  // refused as too large is not parsed.
  const receive = res.status !== 413 ? receiveOf(req) : null;
  if (receive) engine[RECEIVED](receive.queueUrl);
  if (receive && res.status === 200 && !delivered(res, receive.json)) {
    signal ??= abort?.();
    // The region (SigV4 scope) and host decide which queue the URL names, as for the request.
    const context = engine[CONTEXT](head);
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
      res = engine[HTTP](head, req.body, options);
      if (res.status !== 200 || delivered(res, receive.json)) break;
    }
  }
  await engine[FLUSH]();
  return res;
}

/** Names and values alternating, as node:http's `rawHeaders`. */
function flatten(entries) {
  const flat = [];
  for (const [name, value] of entries) flat.push(name, String(value));
  return flat;
}

/** What the protocol layer is told; nothing at all when it has nothing to be told. */
export function protocolOptions({ credentials, maxBodyBytes } = {}) {
  return credentials === undefined && maxBodyBytes === undefined ? undefined : { credentials, maxBodyBytes };
}

/**
 * The handlers reach the engine through symbols private to one copy of the package, so an Engine
 * from another copy failed on its first request with "engine[HTTP] is not a function" (minified:
 * "n[B] is not a function"). A second copy is easy to get in tests: `jest.resetModules()` or
 * `jest.isolateModules()`, or a bundle that includes wasq as well as loading it. (Node's `import`
 * and `require` reach one copy: entry/node.js re-exports entry/node.cjs.)
 */
function checkEngine(engine, what) {
  if (typeof engine?.[HTTP] === "function") return;
  const foreign = engine !== null && typeof engine === "object" && typeof engine.dispatch === "function";
  throw new TypeError(
    foreign
      ? `${what}: this Engine comes from another copy of wasq: jest.resetModules() or isolateModules(), ` +
          "or a bundle that includes wasq as well as loading it, " +
          "loads it twice; create the engine and the handler from the same copy"
      : `${what}: the first argument must be a wasq Engine, got ${engine === null ? "null" : typeof engine}`,
  );
}

/**
 * A `requestHandler` for `@aws-sdk/client-sqs` (v3) that answers in-process:
 * `new SQSClient({ requestHandler: createRequestHandler(engine), endpoint, region, credentials })`.
 * @param {import("./engine.js").Engine} engine
 * @param {{ credentials?: { accessKeyId: string, secretAccessKey: string }, maxBodyBytes?: number }} [options]
 *   with credentials, every request's SigV4 signature is verified against them
 */
export function createRequestHandler(engine, options = {}) {
  checkEngine(engine, "createRequestHandler");
  const opts = protocolOptions(options);
  return {
    metadata: { handlerProtocol: "http/1.1" },
    async handle(request, { abortSignal } = {}) {
      const flat = [];
      const sent = request.headers ?? {};
      for (const name of Object.keys(sent)) flat.push(name, String(sent[name]));
      // The SDK's endpoint scheme (https: when no `endpoint` is given, the client's own AWS
      // endpoint), so that the queue URLs answered match it as SQS's do: with http:// ones the
      // SDK warns on every call that the QueueUrl differs from its endpoint.
      if (request.protocol === "https:" && flatLookup(flat)("x-forwarded-proto") === undefined) {
        flat.push("x-forwarded-proto", "https");
      }
      const req = {
        method: request.method ?? "POST",
        path: request.path || "/",
        query: queryString(request.query),
        flat,
        header: flatLookup(flat),
        body: toBytes(request.body),
      };
      const res = await serve(engine, req, opts, standardSignal(abortSignal));
      const headers = {};
      for (const [name, value] of headerPairs(res.head)) {
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

/**
 * The SDK's `abortSignal` as a standard AbortSignal. Its type also admits the deprecated
 * `@aws-sdk/abort-controller` signal (`aborted` and `onabort` only, no addEventListener), which
 * the SDK's own HTTP handlers still honour; the long-poll wait needs the standard API.
 */
function standardSignal(signal) {
  if (!signal || signal.addEventListener) return signal;
  const controller = new AbortController();
  const previous = signal.onabort;
  if (signal.aborted) controller.abort();
  else signal.onabort = (...args) => (controller.abort(), previous?.(...args));
  return controller.signal;
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * `(request: Request) => Promise<Response>` for Workers, Deno, Bun and service workers.
 * Aborting the request's signal ends a pending long poll.
 */
export function createFetchHandler(engine, options = {}) {
  checkEngine(engine, "createFetchHandler");
  const opts = protocolOptions(options);
  return async function handleFetch(request) {
    const url = new URL(request.url);
    const flat = flatten(request.headers);
    if (!request.headers.has("host")) flat.push("host", url.host);
    // Served over TLS (Deno.serve, Bun.serve, a Worker's public URL) with no proxy saying so:
    // queue URLs are https, or clients that follow them would call an http:// endpoint.
    if (url.protocol === "https:" && !request.headers.has("x-forwarded-proto")) flat.push("x-forwarded-proto", "https");
    const req = {
      method: request.method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ""),
      flat,
      header: flatLookup(flat),
      body: new Uint8Array(await request.arrayBuffer()),
    };
    const res = await serve(engine, req, opts, request.signal);
    return new Response(NULL_BODY_STATUS.has(res.status) ? null : res.body, {
      status: res.status,
      headers: headerPairs(res.head),
    });
  };
}
