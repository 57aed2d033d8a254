// The HTTP host behind `wasq serve`: node:http in front of the same request path as the package's
// SDK and fetch handlers (src/http.js), fed node:http's raw header list as it is.
//
// Everything SQS (both protocols, SigV4, errors, long polling, request ids, queue URLs from the
// Host header) happens in the Rust protocol layer and the Engine wrapper; this file only moves
// bytes, bounds the bodies it is willing to hold (each one, and all at once), keeps other web
// pages out (origin.mjs), routes the non-SQS paths (page, package, health) and shuts down in an
// order that leaves storage consistent.

import { createServer } from "node:http";
import { join } from "node:path";
import { protocolOptions, flatLookup, serve } from "../src/http.js";
import { errorResponse } from "../worker/wire.js";
import { describeFailure, isJson, serverFault, shuttingDown } from "./failures.mjs";
import { isLoopbackName, OriginPolicy } from "./origin.mjs";
import { refusedBeforeBody } from "./precheck.mjs";
import { pagePreloads, precompress, serveFile } from "./static.mjs";
import { ServerMetrics } from "./metrics.mjs";

/**
 * The protocol layer's default limit (ProtocolOptions::default), at which the host stops reading
 * so that the protocol sees a body over it and refuses it. It is not passed on: without options
 * the layer reads no properties per request. (tests/clients/server.test.mjs sends a body over it
 * and expects the protocol's 413, so the two cannot drift apart unnoticed.) SQS's largest payload
 * is a 1 MiB batch, and JSON escaping or form encoding can grow it several times over.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The default bound on request-body bytes held at once across every connection. The per-request
 * limit alone lets N clients make the server hold N × 8 MiB; 64 MiB is eight of the largest
 * bodies at once, far more than SQS traffic (1 MiB batches) needs, and small next to a machine.
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

/**
 * The default time a request has to deliver its whole body, from its headers on. Without one, a
 * client that sent most of a large body and then stopped kept those bytes of the budget
 * (--max-buffered-bytes) reserved until Node's own 300 s request timeout, so a handful of them
 * could have every other request refused for five minutes. 30 s moves the largest body (8 MiB)
 * at 280 KB/s; SQS's own payloads are at most 1 MiB.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

const EMPTY = Buffer.alloc(0);

/**
 * What a body over the limit is answered from without reading it: the protocol layer refuses by
 * length, so it must see `limit + 1` bytes. One zeroed buffer, made on first use and only ever
 * read, instead of one per refused request (concurrent refusals would each have held 8 MiB).
 */
let tooLargeBody = null;
function tooLarge(limit) {
  if (tooLargeBody?.length !== limit + 1) tooLargeBody = Buffer.alloc(limit + 1);
  return tooLargeBody;
}

/** How long the rest of a refused oversized body is drained before the connection is cut. */
const DRAIN_MS = 10_000;

class ShutdownError extends Error {
  constructor() {
    super("wasq serve is shutting down");
    this.name = "ShutdownError";
  }
}

/** The client hung up (or the connection broke) before its body was complete. */
class ClientGoneError extends Error {
  constructor(cause) {
    super("the client closed the connection before sending the whole body", { cause });
    this.name = "ClientGoneError";
  }
}

/**
 * Bytes of request bodies held across all connections. Each request reserves what it holds
 * before holding it and gives it all back when its answer is done (sent, failed or cut off), so
 * `used` is never more than `max` plus the one chunk that takes a body over the per-request limit.
 * What is reserved is what has arrived, not what a Content-Length declares: declarations cost a
 * client nothing, and eight idle connections declaring 8 MiB each once kept every other client
 * refused (renewably, one --body-timeout after another). Bytes that arrived have at least been sent.
 */
class BodyBudget {
  constructor(max) {
    this.max = max;
    this.used = 0;
  }
  /** Reserve `n` bytes for `hold` if they fit under the bound. */
  take(hold, n) {
    if (this.used + n > this.max) return false;
    this.force(hold, n);
    return true;
  }
  /** Reserve without the check: bytes already in hand that are about to be answered and dropped. */
  force(hold, n) {
    this.used += n;
    hold.bytes += n;
  }
  release(hold) {
    this.used -= hold.bytes;
    hold.bytes = 0;
  }
}

/**
 * The answer to a body refused because the server already holds its bound of bodies.
 * `RequestThrottled` (400), not an HTTP 503: the SQS model lists it among every action's errors
 * (the reference, §4) and the engine already answers its own throttling with it, so clients
 * handle it as they would SQS's: the AWS SDKs and botocore classify it as a throttling error and
 * retry with backoff, which is what an overloaded server wants of them. `ServiceUnavailable` is
 * in no SQS model; a 503 would be retried as well, but as a generic server fault.
 */
function overloaded(header, budget) {
  return errorResponse(isJson(header), {
    type: "com.amazonaws.sqs#RequestThrottled",
    code: "RequestThrottled",
    status: 400,
    message:
      `Rate exceeded: request bodies being received would pass this server's limit of ${budget.max} bytes ` +
      "held at once (--max-buffered-bytes); retry later.",
  });
}

/**
 * The answer to a request whose engine stopped on an internal error (a panic or trap in the wasm,
 * src/internal-error.js): AWS's generic 500, which the SDKs retry (on the engine restored by
 * then, see `internalErrors`).
 */
function internalFailure(header, err) {
  return errorResponse(isJson(header), {
    type: "com.amazon.coral.service#InternalFailure",
    code: "InternalFailure",
    status: 500,
    message: err.message,
  });
}

/**
 * What the server does when its engine stops on an internal error: say so once (the engine's
 * later refusals are the same incident), then carry on with an engine `restore()` makes over the
 * same storage; with nothing to restore from (`restore` null, or it failed), `/health` reports
 * the failure and `onFailed(err)` ends the process, so that a supervisor restarts it rather than
 * every request being answered 500 for ever.
 */
function internalErrors({ restore, onFailed, report }) {
  const state = { count: 0, failed: null, last: null };
  state.handle = (err, engine, replace) => {
    if (state.failed !== null || state.last === engine) return;
    state.last = engine;
    state.count++;
    report(`wasq serve: internal error, the engine stopped: ${err?.stack ?? err}`);
    if (restore !== null) {
      try {
        replace(restore());
        report("wasq serve: restored the engine from its storage; serving again");
        return;
      } catch (again) {
        report(`wasq serve: could not restore the engine from its storage: ${again?.stack ?? again}`);
      }
    }
    state.failed = err;
    onFailed?.(err);
  };
  return state;
}

/** A Query request carries `Action=` in its query string; any other GET is for a file. */
function isQueryAction(query) {
  return /(?:^|&)Action=/.test(query);
}

/**
 * A queue's URL path (`/<account>/<name>` or `/queue/<region>/<account>/<name>`): a GET there is
 * the protocol's to answer even without an Action (AWS: 404 `<UnknownOperationException/>`).
 */
function isQueuePath(path) {
  return /^\/(?:queue\/[^/]+\/)?\d+\/[^/]+$/.test(path);
}

/**
 * Read the body, holding at most `limit + 1` bytes: enough for the protocol layer to see that
 * the limit was passed. A declared Content-Length over the limit is refused before reading.
 * Every byte held is first reserved in `budget` for `hold`, chunk by chunk as it arrives. A body
 * that does not fit is not read further: `{ overloaded: true }`. A body not complete `timeoutMs`
 * after the headers is not read further: `{ timedOut: true }`. Rejects with ClientGoneError when
 * the connection ends first.
 */
function readBody(req, limit, contentLength, budget, hold, timeoutMs) {
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.resolve({ body: tooLarge(limit), tooLarge: true });
  }
  return new Promise((resolveBody, reject) => {
    const chunks = [];
    let size = 0;
    let done = false;
    const stop = () => {
      done = true;
      clearTimeout(deadline);
      req.off("data", onData);
    };
    const deadline = setTimeout(() => {
      if (done) return;
      stop();
      resolveBody({ body: EMPTY, timedOut: true });
    }, timeoutMs);
    const onData = (chunk) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        budget.force(hold, chunk.length);
        chunks.push(chunk);
        resolveBody({ body: Buffer.concat(chunks).subarray(0, limit + 1), tooLarge: true });
        return;
      }
      if (!budget.take(hold, chunk.length)) {
        stop();
        resolveBody({ body: EMPTY, overloaded: true });
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => {
      // Most bodies arrive in one chunk, which needs no copy.
      if (!done) {
        stop();
        resolveBody({ body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), tooLarge: false });
      }
    });
    // "error" (a reset mid-body) or a "close" with no "end" before it: either way the body will
    // never be complete, and the request must end here so that its reservation is given back.
    req.on("error", (err) => {
      if (!done) {
        stop();
        reject(new ClientGoneError(err));
      }
    });
    req.on("close", () => {
      if (!done) {
        stop();
        reject(new ClientGoneError());
      }
    });
  });
}

/**
 * The answer to a body not received in time: 408, in the protocol's error shape. SQS's model has
 * no such error (AWS's front end was not recorded cutting a slow upload); `RequestTimeout` is the
 * code S3 gives the same case, and a 408 is what HTTP clients, the AWS SDKs among them, expect.
 */
function bodyTimedOut(header, ms) {
  return errorResponse(isJson(header), {
    type: "com.amazonaws.sqs#RequestTimeout",
    code: "RequestTimeout",
    status: 408,
    message: `The request body was not received within ${ms / 1000} s (--body-timeout); the connection is closed.`,
  });
}

/** For `--verbose`: which action a request names, without parsing more than the log needs. */
function actionOf(req, query, body) {
  const target = req.headers["x-amz-target"];
  if (target) return String(target).replace(/^AmazonSQS\./, "");
  const params = new URLSearchParams(query);
  const type = String(req.headers["content-type"] ?? "application/x-www-form-urlencoded");
  if (!params.has("Action") && body.length > 0 && type.startsWith("application/x-www-form-urlencoded")) {
    return new URLSearchParams(body.subarray(0, 4096).toString("latin1")).get("Action") ?? "-";
  }
  return params.get("Action") ?? "-";
}

/**
 * The answer to a request the origin policy refuses (origin.mjs): 403 `AccessDenied`, the AWS
 * error for a caller that may not make the call.
 */
function forbidden(json, message) {
  return errorResponse(json, {
    type: "com.amazon.coral.service#AccessDeniedException",
    code: "AccessDenied",
    status: 403,
    message,
  });
}

/**
 * For a request answered without reading its body: once the answer is out, the rest of the body
 * is read and dropped rather than the socket closed under a client still writing (it would see a
 * reset instead of the answer); a client that keeps sending for longer than DRAIN_MS is cut off.
 */
function drainAfterAnswer(req, res) {
  res.on("finish", () => {
    if (req.complete) return;
    const cutoff = setTimeout(() => req.socket?.destroy(), DRAIN_MS);
    cutoff.unref();
    req.on("end", () => clearTimeout(cutoff));
    req.on("close", () => clearTimeout(cutoff));
    req.resume();
  });
}

/** Write `response` (an answer from the protocol layer or built here) with `extra` headers added. */
function answer(res, response, extra) {
  // Names and values alternating: node:http takes that list as it is, and the packed head is one
  // split away from it.
  const headers = response.head === undefined ? response.headers.flat() : response.head.split("\0");
  headers.push(...extra, "content-length", String(response.body.byteLength));
  res.writeHead(response.status, headers);
  res.end(response.body);
  return headers;
}

function plain(res, status, text, extra = {}) {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...extra,
  });
  res.end(text);
}

/**
 * Start serving. Resolves once listening.
 * @param {object} options
 * @param {import("../entry/node.js").Engine} options.engine
 * @param {string} options.host
 * @param {number} options.port 0: any free port
 * @param {{accessKeyId: string, secretAccessKey: string}} [options.credentials] SigV4 required when set
 * @param {string|null} [options.www] directory served at `/`
 * @param {string} options.pkgRoot directory served at `/pkg/`
 * @param {string} [options.storageKind] reported by `/health`
 * @param {number} [options.maxBufferedBytes] request-body bytes held at once, all connections together
 * @param {number} [options.bodyTimeoutMs] time a request has to deliver its whole body
 * @param {string[]} [options.allowOrigins] web origins allowed besides loopback and the server's
 *   own page (origin.mjs parseAllowedOrigins; `*`: all)
 * @param {string[]} [options.allowHosts] names a Host may give besides the loopback ones, when
 *   the server listens on loopback only (origin.mjs parseAllowedHosts)
 * @param {(line: string) => void} [options.log] one line per request when set
 * @param {ServerMetrics} [options.metrics] request counts and latencies for `GET /metrics`
 * @param {() => import("../entry/node.js").Engine} [options.restore] a new engine over the same
 *   storage, for when the engine stops on an internal error; without one, such an error is fatal
 * @param {(err: Error) => void} [options.onFailed] called once the server cannot go on (see internalErrors)
 * @returns {Promise<{ server: import("node:http").Server, url: string, close(): Promise<void> }>}
 */
export async function startServer(options) {
  const { host, port, credentials, www = null, pkgRoot, storageKind = "memory", log } = options;
  // The playground's largest file, compressed before a browser asks for it.
  if (www) precompress(join(pkgRoot, "wasq_bg.wasm"));
  const preloads = www ? pagePreloads(pkgRoot) : null;
  let { engine } = options;
  const incidents = internalErrors({
    restore: options.restore ?? null,
    onFailed: options.onFailed,
    report: (line) => process.stderr.write(line + "\n"),
  });
  const opts = protocolOptions({ credentials });
  const budget = new BodyBudget(options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const inflight = new Set(); // AbortControllers of long polls not yet answered
  const metrics = options.metrics ?? new ServerMetrics();
  let policy; // OriginPolicy, once the address listened on is known
  let closing = null;

  /**
   * An SQS request: its body read (within the bounds), handed to the protocol layer, answered
   * with `cors` (CORS headers, names and values alternating) added.
   */
  async function sqs(req, res, path, query, header, cors) {
    const started = metrics.start();
    let controller = null;
    // A client that hangs up ends its long poll instead of leaving a waiter behind.
    const onClose = () => {
      if (!res.writableFinished) controller.abort(new Error("client closed the connection"));
    };
    // Made only when a long poll begins: nothing else waits, so nothing else needs ending.
    const abort = () => {
      controller = new AbortController();
      inflight.add(controller);
      res.on("close", onClose);
      if (closing) controller.abort(new ShutdownError());
      return controller.signal;
    };
    let body = EMPTY;
    const hold = { bytes: 0 };
    const used = engine;
    try {
      // Refused on its headers alone: the protocol layer answers it with no body, as it would
      // with one (precheck.mjs), and nothing of the body is held.
      const unsigned = credentials !== undefined && refusedBeforeBody(header, query, credentials.accessKeyId, Date.now());
      const read = unsigned
        ? { body: EMPTY, refused: true }
        : await readBody(req, MAX_BODY_BYTES, header("content-length"), budget, hold, bodyTimeoutMs);
      body = read.body;
      const response = read.overloaded
        ? overloaded(header, budget)
        : read.timedOut
          ? bodyTimedOut(header, bodyTimeoutMs)
          : await serve(used, { method: req.method, path, query, flat: req.rawHeaders, header, body }, opts, abort);
      if (read.timedOut) {
        // Already as slow as it may be: no drain, the connection ends with the answer.
        res.on("finish", () => req.socket?.destroySoon());
        response.headers.push(["connection", "close"]);
      } else if (read.tooLarge || read.overloaded || read.refused) {
        drainAfterAnswer(req, res);
      }
      if (log) res.wasqAction = actionOf(req, query, body);
      const written = answer(res, response, cors);
      metrics.answered(started, header, query, body, response.status, written, response.body);
    } catch (err) {
      if (log) res.wasqAction = `${actionOf(req, query, body)} (${err?.name ?? "error"})`;
      const reason = controller?.signal.reason;
      if (err instanceof ClientGoneError || (controller?.signal.aborted && !(reason instanceof ShutdownError))) {
        res.destroy(); // the client is gone; nobody to answer
      } else if (reason instanceof ShutdownError || err?.name === "EngineClosedError") {
        if (!res.headersSent) answer(res, shuttingDown(header), [...cors, "connection", "close"]);
      } else if (err?.name === "WasqInternalError") {
        incidents.handle(err, used, (fresh) => (engine = fresh));
        if (res.headersSent) res.destroy();
        else answer(res, internalFailure(header, err), cors);
      } else {
        process.stderr.write(`wasq serve: ${req.method} ${path}: ${describeFailure(err)}\n`);
        if (!res.headersSent) answer(res, serverFault(header, err), cors);
        else res.destroy();
      }
      metrics.ended(started, req, query, body, res);
    } finally {
      // The body is held until here: a long poll answers it again each time it wakes.
      budget.release(hold);
      if (controller) {
        inflight.delete(controller);
        res.off("close", onClose);
      }
    }
  }

  async function route(req, res) {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? "" : url.slice(q + 1);
    const isRead = req.method === "GET" || req.method === "HEAD";
    const isFile = isRead && !isQueryAction(query) && !(req.method === "GET" && isQueuePath(path));
    const header = flatLookup(req.rawHeaders);
    const preflight = req.method === "OPTIONS" && header("origin") !== undefined && header("access-control-request-method") !== undefined;
    const refusal = policy.refusal(header, !isFile);
    if (refusal !== null) {
      // In the protocol the request would have been answered in; a preflight names its
      // headers instead of sending them.
      const json = preflight ? /x-amz-target/i.test(header("access-control-request-headers") ?? "") : isJson(header);
      if (log) res.wasqAction = `refused (${refusal.code})`;
      drainAfterAnswer(req, res);
      return answer(res, forbidden(json, refusal.message), []);
    }
    if (preflight) return answer(res, { status: 204, headers: [], body: EMPTY }, policy.preflightHeaders(header));
    if (isFile) {
      if (path === "/metrics") return metrics.serve(req, res, { engine, credentials, path, query });
      if (path === "/health") {
        const text =
          JSON.stringify({
            status: incidents.failed ? "failed" : closing ? "stopping" : "ok",
            storage: storageKind,
            // Engines stopped by an internal error since the start (each restored, unless failed).
            internalErrors: incidents.count,
            // How close the server is to refusing bodies with RequestThrottled.
            bufferedBodyBytes: budget.used,
            maxBufferedBodyBytes: budget.max,
          }) + "\n";
        res.writeHead(incidents.failed ? 500 : closing ? 503 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        return res.end(req.method === "HEAD" ? undefined : text);
      }
      const cors = policy.fileCorsHeaders(header);
      if (path === "/pkg" || path.startsWith("/pkg/")) return serveFile(req, res, pkgRoot, path.slice(4) || "/", cors);
      // The page's response names the package's wasm and package.json as preloads (a Link
      // header: the browser asks for them on the response's headers, before any HTML is
      // parsed). Only this server knows the package is at /pkg/: the page, which also ships in
      // the package (and finds it at ../ there), cannot name one root for every layout.
      if (www) return serveFile(req, res, www, path, path === "/" || path === "/index.html" ? { ...cors, link: preloads } : cors);
      if (path === "/") {
        return plain(res, 200, "wasq serve: SQS endpoint (AWS JSON 1.0 and Query). No page directory was found; pass --www DIR.\n");
      }
      return plain(res, 404, "not found\n");
    }
    return sqs(req, res, path, query, header, policy.corsHeaders(header));
  }

  const server = createServer((req, res) => {
    if (log) {
      const started = process.hrtime.bigint();
      const line = (status) => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        log(`${req.method} ${req.url} ${res.wasqAction ?? "-"} ${status} ${ms.toFixed(1)}ms`);
      };
      // "finish" is before the client has the answer, so the line precedes whatever it does
      // next; "close" without "finish" is an answer cut short (client gone, shutdown).
      res.once("finish", () => line(res.statusCode));
      res.once("close", () => {
        if (!res.writableFinished) line("aborted");
      });
    }
    route(req, res).catch((err) => {
      process.stderr.write(`wasq serve: ${err?.stack ?? err}\n`);
      if (!res.headersSent) plain(res, 500, "internal error\n");
      else res.destroy();
    });
  });
  // Long polls last up to 20 s; keep-alive connections of SDK clients outlive Node's 5 s default
  // less often if idle sockets are kept a little longer than a poll.
  server.keepAliveTimeout = 25_000;

  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      ok();
    });
  });
  const address = server.address();
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  // Set before any request can arrive: node:http emits them from later turns of the event loop.
  policy = new OriginPolicy({
    loopbackOnly: isLoopbackName(address.address),
    allowOrigins: options.allowOrigins ?? [],
    allowHosts: options.allowHosts ?? [],
  });

  /** Stop accepting, end pending long polls, let answers go out, then close the engine (and storage). */
  function close() {
    if (closing) return closing;
    closing = (async () => {
      const closed = new Promise((done) => server.close(() => done()));
      for (const controller of [...inflight]) controller.abort(new ShutdownError());
      server.closeIdleConnections();
      // Requests still being read or answered get a moment, then their sockets are cut.
      const force = setTimeout(() => server.closeAllConnections(), 2000);
      force.unref();
      await closed;
      clearTimeout(force);
      engine.close();
    })();
    return closing;
  }

  return { server, url: `http://${shownHost}:${address.port}`, port: address.port, close };
}
