// The Worker: admits each request once (size, SigV4, action and parameters, on a scratch core),
// then sends it to the object that owns it — control-plane actions to the directory, messages to
// the queue's partitions — and splices partition answers together where it spans several.

import { decodeHttp } from "./host.js";
import { wasm, wasmGeneration } from "../src/bindings.js";
import * as wire from "./wire.js";
import { partitionOf, wrapHandle, unwrapHandle, groupHash } from "./partition.js";
import { engineSettings } from "./host.js";
import { engineFacts, batchIdsValid } from "../src/facts.js";
import { isScrape, metricsResponse } from "./metrics.js";
import { scrapeRefusal } from "../src/prometheus.js";
import { headerPairs, requestHead } from "../src/http-head.js";

const PROPAGATING = new Set(["CreateQueue", "SetQueueAttributes", "DeleteQueue", "PurgeQueue"]);
const META_TTL_MS = 5000;

let scratch = null;
// The wasm instance the scratch core lives in: a Durable Object's internal error in this isolate
// replaces the instance (src/bindings.js), and a core of the old one must not be used again.
let scratchGeneration = -1;
let spreadAt = null;
const metaCache = new Map();

/**
 * A core with no queues: it admits and reads requests (size, SigV4, action, parameters) and never
 * runs one, so it stays empty. Its seed is drawn (inside a request: workerd refuses random values
 * at module top level) so that the request ids of the refusals it answers differ per isolate.
 */
function scratchCore(env) {
  if (scratch === null || scratchGeneration !== wasmGeneration()) {
    const words = crypto.getRandomValues(new Uint32Array(2));
    const seed = (words[0] & 0x1fffff) * 2 ** 32 + words[1];
    scratch = new (wasm().WasqCore)({ ...engineSettings(env), seed }, undefined);
    scratchGeneration = wasmGeneration();
  }
  return scratch;
}

function spread() {
  if (spreadAt === null) spreadAt = crypto.getRandomValues(new Uint32Array(1))[0];
  spreadAt = (spreadAt + 1) >>> 0;
  return spreadAt;
}

/** The deployment's credentials; auth is on unless WASQ_AUTH is "off". */
export function credentialsOf(env) {
  if (env?.WASQ_AUTH === "off") return null;
  const accessKeyId = env?.WASQ_ACCESS_KEY_ID;
  const secretAccessKey = env?.WASQ_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  return { accessKeyId, secretAccessKey };
}

function stub(ns, name) {
  return ns.get(ns.idFromName(name));
}

/**
 * `admitHttp` on the scratch core: `{protocol, action, params, context}`, or `{response}` (the
 * Worker's form: headers as pairs) when the request is refused.
 */
function admit(env, req, options) {
  const head = requestHead(req.method, req.path, req.query, req.headers.flat());
  const admitted = scratchCore(env).admitHttp(Date.now(), head, req.body, options);
  const refused = admitted.response;
  if (refused === undefined) return admitted;
  return { response: { status: refused.status, headers: headerPairs(refused.head), body: refused.body } };
}

/**
 * An admitted request (`{protocol, action, params, context}`) to an object, which runs it without
 * reading HTTP again; the answer is the engine's, as `handleHttp` would give it.
 */
async function sendParsed(target, path, parsed, extra = {}, signal) {
  const res = await target.fetch(`http://wasq${path}`, { method: "POST", headers: extra, body: JSON.stringify(parsed), signal });
  return decodeHttp(res);
}

async function post(target, path, input, signal) {
  const res = await target.fetch(`http://wasq${path}`, { method: "POST", body: JSON.stringify(input), signal });
  if (!res.ok) throw new Error(`wasq edge: ${path} failed: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function handleRequest(request, env) {
  const url = new URL(request.url);
  const req = {
    method: request.method,
    path: url.pathname,
    query: url.search.replace(/^\?/, ""),
    headers: [...request.headers],
    body: new Uint8Array(await request.arrayBuffer()),
  };
  if (wire.header(req, "host") === undefined) req.headers.push(["host", url.host]);
  const res = await route(env, req, request.signal);
  return new Response(res.status === 204 ? null : res.body, { status: res.status, headers: res.headers });
}

async function route(env, req, signal) {
  const credentials = credentialsOf(env);
  if (credentials === undefined) {
    return {
      status: 500,
      headers: [["content-type", "text/plain"]],
      body: new TextEncoder().encode(
        "wasq edge: SigV4 auth is on but WASQ_ACCESS_KEY_ID / WASQ_SECRET_ACCESS_KEY are not set (set them as Worker secrets, or WASQ_AUTH=off)\n",
      ),
    };
  }
  if (isScrape(req)) return scrape(env, req, credentials);
  // One pass of the protocol layer: whatever it refuses (size, signature, unknown action,
  // malformed parameters) is answered here, exactly as an object would answer it.
  const admitted = admit(env, req, credentials ? { credentials } : undefined);
  if (admitted.response) return admitted.response;
  const { context } = admitted;
  const p = wire.read(admitted);
  // A queue URL that names its region reaches that region's queue whatever region the client
  // signed for (issue #33 item 5); the objects then run it in that region too.
  const urlRegion = wire.regionOfUrl(wire.queueUrlOf(p));
  if (urlRegion !== undefined) context.region = urlRegion;
  const region = context.region ?? env.WASQ_REGION ?? "us-east-1";
  const ctx = { env, p, context, region, signal };
  if (engineFacts().messageActions.has(p.action)) {
    const name = wire.queueNameOf(wire.queueUrlOf(p));
    const record = name ? await meta(env, region, name) : null;
    if (record) return dataPlane({ ...ctx, name, record });
  }
  return control(ctx);
}

/**
 * `GET /metrics`: signed like any request when auth is on, unless WASQ_METRICS_PUBLIC is "on"
 * (a Prometheus scraper cannot sign SigV4).
 */
async function scrape(env, req, credentials) {
  if (credentials && env.WASQ_METRICS_PUBLIC !== "on") {
    const refusal = scrapeRefusal(admit(env, { ...req, body: new Uint8Array(0) }, { credentials }));
    if (refusal !== undefined) return refusal;
  }
  return metricsResponse(env, req, meta);
}

// ---- directory ----

function directory(env) {
  return stub(env.WASQ_DIRECTORY, "directory");
}

async function meta(env, region, name, fresh = false) {
  const key = `${region}/${name}`;
  const hit = metaCache.get(key);
  if (!fresh && hit && Date.now() - hit.at < META_TTL_MS) return hit.record;
  const record = await post(directory(env), "/meta", { region, name });
  if (record) metaCache.set(key, { record, at: Date.now() });
  else metaCache.delete(key);
  return record;
}

async function control({ env, p, context, region, signal }) {
  const action = p.action;
  const name = action === "CreateQueue" ? wire.field(p, "QueueName") : wire.queueNameOf(wire.queueUrlOf(p));
  const routeInfo = { action, name: PROPAGATING.has(action) ? name : undefined, region, context };
  const res = await sendParsed(directory(env), "/control", p.parsed, { "x-wasq-route": JSON.stringify(routeInfo) }, signal);
  if (name) metaCache.delete(`${region}/${name}`);
  if (action === "GetQueueAttributes" && res.status === 200 && name) return withCounters(env, p, res, context, region, name);
  return res;
}

/** The directory holds no messages: the counters are the sums over every object of the queue. */
async function withCounters(env, p, res, context, region, name) {
  const counters = wire.countersIn(p.json, res);
  if (!counters.length) return res;
  const record = await meta(env, region, name);
  if (!record) return res;
  const queueUrl = wire.queueUrlOf(p) ?? "";
  const sums = Object.fromEntries(counters.map((c) => [c, 0]));
  const answers = await Promise.all(
    record.locations.map((o) =>
      post(stub(env.WASQ_QUEUE, o), "/call", {
        context,
        calls: [{ action: "GetQueueAttributes", params: { QueueUrl: queueUrl, AttributeNames: counters } }],
      }),
    ),
  );
  for (const { results } of answers) {
    const attrs = results[0]?.ok?.Attributes ?? {};
    for (const c of counters) sums[c] += Number(attrs[c] ?? 0);
  }
  return wire.withCounters(p.json, res, sums);
}

// ---- data plane ----

function dataPlane(ctx) {
  switch (ctx.p.action) {
    case "SendMessage":
      return sendMessage(ctx);
    case "SendMessageBatch":
      return batch(ctx, (e, i, start) => partitionOf(e.get("MessageGroupId"), ctx.record.partitions, () => start + i));
    case "ReceiveMessage":
      return receive(ctx);
    case "DeleteMessage":
    case "ChangeMessageVisibility":
      return byHandle(ctx);
    default:
      return batch(ctx, (e) => unwrapHandle(e.get("ReceiptHandle"))?.location ?? 0, (e) => {
        const h = unwrapHandle(e.get("ReceiptHandle"));
        return h ? { ReceiptHandle: h.handle } : {};
      });
  }
}

function at(ctx, location) {
  return stub(ctx.env.WASQ_QUEUE, ctx.record.locations[location]);
}

async function sendMessage(ctx) {
  const loc = partitionOf(wire.field(ctx.p, "MessageGroupId"), ctx.record.partitions, spread);
  return wire.withPartitionSequences(ctx.p.json, await sendParsed(at(ctx, loc), "/parsed", ctx.p.parsed, {}, ctx.signal), loc);
}

async function byHandle(ctx) {
  let h = unwrapHandle(wire.field(ctx.p, "ReceiptHandle"));
  if (h && h.location >= ctx.record.locations.length) {
    ctx.record = (await meta(ctx.env, ctx.region, ctx.name, true)) ?? ctx.record;
  }
  if (!h || h.location >= ctx.record.locations.length) {
    return sendParsed(at(ctx, 0), "/parsed", ctx.p.parsed, {}, ctx.signal); // the engine names the bad handle
  }
  const sub = wire.rewrite(ctx.p, { set: { ReceiptHandle: h.handle } });
  const res = await sendParsed(at(ctx, h.location), "/parsed", sub, {}, ctx.signal);
  return res.status === 200 ? res : wire.withClientHandles(res, [[h.handle, wire.field(ctx.p, "ReceiptHandle")]]);
}

/**
 * Whether a batch can be split without changing its answer: errors about the batch as a whole
 * (empty, too many entries, repeated or malformed ids, too large) must come from one engine
 * seeing all of it, and a split could hide them.
 */
function splittable(p, list) {
  if (!list || !batchIdsValid(list.map((e) => e.id ?? null))) return false;
  if (p.action === "SendMessageBatch") {
    const total = list.reduce((n, e) => n + wire.payloadBytes(p, e), 0);
    if (total > engineFacts().maxBatchBytes) return false;
  }
  return true;
}

async function batch(ctx, locate, entryPatch) {
  const { p } = ctx;
  const list = wire.entries(p);
  if (!splittable(p, list)) return sendParsed(at(ctx, 0), "/parsed", p.parsed, {}, ctx.signal);
  const start = spread();
  const groups = new Map();
  list.forEach((e, i) => {
    let loc = locate(e, i, start);
    if (loc >= ctx.record.locations.length) loc = 0;
    if (!groups.has(loc)) groups.set(loc, []);
    groups.get(loc).push(e);
  });
  if (groups.size === 1 && !entryPatch) {
    const [loc] = groups.keys();
    return wire.withPartitionSequences(p.json, await sendParsed(at(ctx, loc), "/parsed", p.parsed, {}, ctx.signal), loc);
  }
  const parts = await Promise.all(
    [...groups].map(async ([loc, keep]) =>
      wire.withPartitionSequences(p.json, await sendParsed(at(ctx, loc), "/parsed", wire.rewrite(p, { keep, entryPatch }), {}, ctx.signal), loc),
    ),
  );
  const failed = parts.find((r) => r.status !== 200);
  if (failed) return failed;
  const ok = new Map();
  const bad = new Map();
  for (const part of parts) {
    const r = wire.batchResults(p.json, p.action, part);
    for (const [id, e] of r.ok) ok.set(id, e);
    for (const [id, e] of r.failed) bad.set(id, e);
  }
  const order = list.map((e) => e.id);
  const merged = wire.batchResponse(
    p.json,
    p.action,
    parts[0],
    order.filter((id) => ok.has(id)).map((id) => ok.get(id)),
    order.filter((id) => bad.has(id)).map((id) => bad.get(id)),
  );
  return bad.size ? wire.withClientHandles(merged, clientHandles(list)) : merged;
}

/** `[partition's, client's]` receipt handle of each batch entry that names one. */
function clientHandles(list) {
  const pairs = [];
  for (const e of list) {
    const sent = e.get("ReceiptHandle");
    const h = unwrapHandle(sent);
    if (h) pairs.push([h.handle, sent]);
  }
  return pairs;
}

function validCount(value, lo, hi) {
  if (value === undefined || value === null) return true;
  const n = typeof value === "number" ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= lo && n <= hi;
}

async function receive(ctx) {
  const { p, record, env, context } = ctx;
  // The queue's own partitions only: the shadows a DLQ has in its sources' partitions are
  // outboxes whose messages move to these partitions (objects.js), never received from there.
  const locations = record.locations.slice(0, record.partitions);
  const maxValue = p.params.MaxNumberOfMessages;
  const waitValue = p.params.WaitTimeSeconds;
  if (locations.length === 1 || !validCount(maxValue, 1, 10) || !validCount(waitValue, 0, 20)) {
    // One object, or an answer the engine must give: the whole request, long poll included, runs there.
    const res = await sendParsed(at(ctx, 0), "/parsed", p.parsed, {}, ctx.signal);
    if (res.status !== 200) return res;
    return wire.receiveResponse(p.json, res, wire.receivedMessages(p.json, res, wrapHandle(0, "")));
  }
  const max = maxValue === undefined || maxValue === null ? 1 : Number(maxValue);
  const queueUrl = wire.queueUrlOf(p);
  const started = Date.now();
  const attempt = wire.field(p, "ReceiveRequestAttemptId");
  const first = attempt !== undefined ? groupHash(attempt) % locations.length : spread() % locations.length;

  // One pass over the objects, each asked only for what is still missing (never more: a message
  // received and not returned would sit invisible for a whole visibility timeout).
  const sweep = async (from) => {
    const got = [];
    let template = null;
    let error = null;
    for (let i = 0; i < locations.length && got.length < max; i++) {
      const loc = (from + i) % locations.length;
      const sub = wire.rewrite(p, { set: { MaxNumberOfMessages: max - got.length, WaitTimeSeconds: 0 } });
      const res = await sendParsed(at(ctx, loc), "/parsed", sub, {}, ctx.signal);
      if (res.status !== 200) {
        error ??= res;
        continue;
      }
      template ??= res;
      got.push(...wire.receivedMessages(p.json, wire.withPartitionSequences(p.json, res, loc), wrapHandle(loc, "")));
    }
    return { got, template, error };
  };

  let result = await sweep(first);
  if (result.got.length || !result.template) return result.template ? wire.receiveResponse(p.json, result.template, result.got) : result.error;
  let wait = waitValue === undefined || waitValue === null ? undefined : Number(waitValue);
  if (wait === undefined) {
    const { results } = await post(at(ctx, 0), "/call", {
      context,
      calls: [{ action: "GetQueueAttributes", params: { QueueUrl: queueUrl, AttributeNames: ["ReceiveMessageWaitTimeSeconds"] } }],
    });
    wait = Number(results[0]?.ok?.Attributes?.ReceiveMessageWaitTimeSeconds ?? 0);
  }
  const deadline = started + wait * 1000;
  let immediate = true;
  while (Date.now() < deadline) {
    const ready = await firstReady(env, locations, { queueUrl, context, deadline, immediate }, ctx.signal);
    // A caller that went away gets no further sweep (which could take messages nobody reads).
    ctx.signal?.throwIfAborted();
    if (ready < 0) break;
    result = await sweep(ready);
    if (result.got.length) return wire.receiveResponse(p.json, result.template ?? result.error, result.got);
    immediate = false;
  }
  return wire.receiveResponse(p.json, result.template, []);
}

/** Long polls in every object at once; the index of the first that has something, or -1 at the deadline. */
function firstReady(env, locations, input, signal) {
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  return new Promise((resolve) => {
    let pending = locations.length;
    const done = (i) => {
      if (i >= 0) {
        abort.abort();
        resolve(i);
      } else if (--pending === 0) resolve(-1);
    };
    locations.forEach((o, i) => {
      post(stub(env.WASQ_QUEUE, o), "/wait", input, abort.signal).then(
        (r) => done(r.ready ? i : -1),
        () => done(-1),
      );
    });
  }).finally(() => signal?.removeEventListener("abort", onAbort));
}
