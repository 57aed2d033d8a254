// Runs the packaged Worker (`wasq/worker`) in workerd through miniflare, and gives tests a real
// @aws-sdk/client-sqs client whose requestHandler forwards to mf.dispatchFetch (MD5 checks on).

import { Miniflare } from "miniflare";
import { CreateQueueCommand, SQSClient } from "@aws-sdk/client-sqs";
import { join, resolve } from "node:path";

export const PKG = resolve(process.env.WASQ_PKG_DIR ?? new URL("../../pkg", import.meta.url).pathname);
export const CREDENTIALS = { accessKeyId: "test", secretAccessKey: "test" };
/** What examples/edge/wrangler.toml deploys with (tests/edge/example.test.mjs keeps them equal). */
export const COMPATIBILITY_DATE = "2026-07-30";
// A caller aborting its call to an object aborts the object's request.signal (long polls).
export const COMPATIBILITY_FLAGS = ["enable_request_signal"];

/**
 * A Miniflare running the Worker; `persist` is a directory kept across dispose/re-create (without
 * it, object storage is miniflare's in-memory SQLite). `pkgDir`/`script` run another entry module
 * over a copy of the package (the in-workerd benchmark).
 */
export function startWorker({ partitions = 1, persist, bindings = {}, host, port, pkgDir = PKG, script = "worker/index.js" } = {}) {
  return new Miniflare({
    ...(port !== undefined ? { host, port } : {}),
    modules: true,
    scriptPath: join(pkgDir, script),
    modulesRoot: pkgDir,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    durableObjects: {
      WASQ_QUEUE: { className: "WasqQueue", useSQLite: true },
      WASQ_DIRECTORY: { className: "WasqDirectory", useSQLite: true },
    },
    bindings: {
      WASQ_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      WASQ_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      WASQ_PARTITIONS: String(partitions),
      ...bindings,
    },
    ...(persist ? { defaultPersistRoot: persist, durableObjectsPersist: true } : {}),
  });
}

function queryString(query) {
  if (!query) return "";
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    for (const x of Array.isArray(v) ? v : [v]) out.append(k, x ?? "");
  }
  return out.toString();
}

/**
 * An SDK requestHandler that sends each request through miniflare's dispatchFetch. The SDK signs
 * the Host header, and dispatchFetch sends to miniflare's own address, so the client's endpoint
 * must be that address (see `client`).
 */
export function miniflareHandler(getMf, endpoint) {
  return {
    metadata: { handlerProtocol: "http/1.1" },
    async handle(request, { abortSignal } = {}) {
      const qs = queryString(request.query);
      const url = `${endpoint}${request.path || "/"}${qs ? `?${qs}` : ""}`;
      const res = await getMf().dispatchFetch(url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: abortSignal,
      });
      const headers = {};
      res.headers.forEach((v, k) => (headers[k] = v));
      return { response: { statusCode: res.status, headers, body: new Uint8Array(await res.arrayBuffer()) } };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}

/** A real SQS client for the Worker in `mf` (async: the endpoint is miniflare's address). */
export async function client(mf, { credentials = CREDENTIALS, region = "us-east-1" } = {}) {
  const endpoint = (await mf.ready).origin;
  return new SQSClient({
    region,
    endpoint,
    credentials,
    requestHandler: miniflareHandler(() => mf, endpoint),
    maxAttempts: 1,
  });
}

/** Attributes of a high-throughput FIFO queue, the kind that is split over partitions by group. */
export const HT_FIFO = { FifoQueue: "true", DeduplicationScope: "messageGroup", FifoThroughputLimit: "perMessageGroupId" };

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** CreateQueue through the SDK client; the new queue's URL. */
export async function createQueue(sqs, name, Attributes = {}) {
  return (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes }))).QueueUrl;
}
