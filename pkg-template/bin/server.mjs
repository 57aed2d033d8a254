// The HTTP host behind `wasq serve`: node:http in front of the same request path as the package's
// SDK and fetch handlers (src/http.js), fed node:http's raw header list as it is.
//
// Everything SQS (both protocols, SigV4, errors, long polling, request ids, queue URLs from the
// Host header) happens in the Rust protocol layer and the Engine wrapper; this file only moves
// bytes, bounds the body it is willing to hold, routes the non-SQS paths (page, package,
// health) and shuts down in an order that leaves storage consistent.

import { createServer } from "node:http";
import { protocolOptions, flatLookup, serve } from "../src/http.js";
import { serveFile } from "./static.mjs";

/**
 * The protocol layer's default limit (ProtocolOptions::default), at which the host stops reading
 * so that the protocol sees a body over it and refuses it. It is not passed on: without options
 * the layer reads no properties per request. (tests/clients/server.test.mjs sends a body over it
 * and expects the protocol's 413, so the two cannot drift apart unnoticed.) SQS's largest payload
 * is a 1 MiB batch, and JSON escaping or form encoding can grow it several times over.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** How long the rest of a refused oversized body is drained before the connection is cut. */
const DRAIN_MS = 10_000;

class ShutdownError extends Error {
  constructor() {
    super("wasq serve is shutting down");
    this.name = "ShutdownError";
  }
}

/** A Query request carries `Action=` in its query string; any other GET is for a file. */
function isQueryAction(query) {
  return /(?:^|&)Action=/.test(query);
}

/**
 * Read the body, holding at most `limit + 1` bytes: enough for the protocol layer to see that
 * the limit was passed. A declared Content-Length over the limit is refused before reading.
 */
function readBody(req, limit, contentLength) {
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.resolve({ body: Buffer.alloc(limit + 1), tooLarge: true });
  }
  return new Promise((resolveBody, reject) => {
    const chunks = [];
    let size = 0;
    let done = false;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.off("data", onData);
        chunks.push(chunk);
        resolveBody({ body: Buffer.concat(chunks).subarray(0, limit + 1), tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => {
      // Most bodies arrive in one chunk, which needs no copy.
      if (!done) resolveBody({ body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), tooLarge: false });
    });
    req.on("error", (err) => {
      if (!done) reject(err);
    });
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
 * @param {(line: string) => void} [options.log] one line per request when set
 * @returns {Promise<{ server: import("node:http").Server, url: string, close(): Promise<void> }>}
 */
export async function startServer(options) {
  const { engine, host, port, credentials, www = null, pkgRoot, storageKind = "memory", log } = options;
  const opts = protocolOptions({ credentials });
  const inflight = new Set(); // AbortControllers of long polls not yet answered
  let closing = null;

  async function sqs(req, res, path, query) {
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
    try {
      const header = flatLookup(req.rawHeaders);
      const read = await readBody(req, MAX_BODY_BYTES, header("content-length"));
      body = read.body;
      const response = await serve(engine, { method: req.method, path, query, flat: req.rawHeaders, header, body }, opts, abort);
      if (read.tooLarge) {
        // The rest of the body is read and dropped rather than the socket closed under a client
        // still writing (it would see a reset instead of this answer); a client that keeps
        // sending for longer than DRAIN_MS is cut off.
        res.on("finish", () => {
          if (req.complete) return;
          const cutoff = setTimeout(() => req.socket?.destroy(), DRAIN_MS);
          cutoff.unref();
          req.on("end", () => clearTimeout(cutoff));
          req.on("close", () => clearTimeout(cutoff));
          req.resume();
        });
      }
      if (log) res.wasqAction = actionOf(req, query, body);
      // Names and values alternating: node:http takes that list as it is, and the packed head is
      // one split away from it.
      const headers = response.head === undefined ? response.headers.flat() : response.head.split("\0");
      headers.push("content-length", String(response.body.byteLength));
      res.writeHead(response.status, headers);
      res.end(response.body);
    } catch (err) {
      if (log) res.wasqAction = `${actionOf(req, query, body)} (${err?.name ?? "error"})`;
      const reason = controller?.signal.reason;
      if (controller?.signal.aborted && !(reason instanceof ShutdownError)) {
        res.destroy(); // the client is gone; nobody to answer
      } else if (reason instanceof ShutdownError || err?.name === "EngineClosedError") {
        if (!res.headersSent) plain(res, 503, "wasq serve is shutting down\n", { connection: "close" });
      } else {
        process.stderr.write(`wasq serve: ${req.method} ${path}: ${err?.stack ?? err}\n`);
        if (!res.headersSent) plain(res, 500, `internal error: ${err?.message ?? err}\n`);
        else res.destroy();
      }
    } finally {
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
    if (isRead && !isQueryAction(query)) {
      if (path === "/health") {
        const text = JSON.stringify({ status: closing ? "stopping" : "ok", storage: storageKind }) + "\n";
        res.writeHead(closing ? 503 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        return res.end(req.method === "HEAD" ? undefined : text);
      }
      if (path === "/pkg" || path.startsWith("/pkg/")) return serveFile(req, res, pkgRoot, path.slice(4) || "/");
      if (www) return serveFile(req, res, www, path);
      if (path === "/") {
        return plain(res, 200, "wasq serve: SQS endpoint (AWS JSON 1.0 and Query). No page directory was found; pass --www DIR.\n");
      }
      return plain(res, 404, "not found\n");
    }
    return sqs(req, res, path, query);
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
