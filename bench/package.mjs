// The wasm package benchmark in Node: a built package's send → receive → delete cycle, one layer
// at a time so that a reader can see where time goes, and the memory a stored message takes.
// Prints one JSON object per line. scripts/bench-compare.sh runs it on two packages alternately.
//
//   node --expose-gc bench/package.mjs [--pkg DIR] [--seconds S] [--only cycle|memory]
//                                      [--layers engine-default,sdk,...] [--no-sdk]
//
// Layers, the package's ways of calling the engine:
//   core          WasqCore.dispatch through its one JS function (dispatchText, src/io.js): JSON
//                 text in and out, then what the Engine drains per call
//                 with no event listener (takeChanges; takeEvents too in builds whose core has
//                 no event feed switch, which always collected events)
//   engine-manual Engine.dispatch with ManualClock and MemoryStorage (clock read, commit)
//   engine-default the same with no storage option: what most users write
//   engine-nostorage the same with `storage: null` (nothing to outlive the process: no changes
//                 encoded, nothing committed)
//   engine-events engine-manual with one "event" listener (events collected, encoded and delivered)
//   engine-system engine-manual with SystemClock (adds re-arming the one setTimeout)
//   sdk           @aws-sdk/client-sqs through createRequestHandler (signing, HTTP shape, MD5 checks)
//
// Order matters: instantiation is timed first (a fresh process each run), and memory before
// anything else has grown the wasm heap, because linear memory never shrinks.

import { performance } from "node:perf_hooks";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const pkgDir = resolve(opt("--pkg", "pkg"));
const SECONDS = Number(opt("--seconds", "2"));
const SDK = !args.includes("--no-sdk");
const ONLY = opt("--only", "");
if (!["", "cycle", "memory"].includes(ONLY)) throw new Error(`--only ${ONLY}: cycle or memory`);
const wants = (part) => ONLY === "" || ONLY === part;
const LAYERS = opt("--layers", "");
const START = Date.parse("2026-01-01T00:00:00Z"); // benches/cycle.rs uses the same instant
const STORED = 100_000;
const BODY = "x".repeat(100);
const storedBody = (n) => String(n).padStart(100, "0");

const emit = (o) => console.log(JSON.stringify({ side: "wasm", ...o }));
const gc = () => globalThis.gc?.();

// --- instantiate: reading, compiling and instantiating the wasm and loading the package's JS.
// The entry bundles its own wasm-bindgen glue and does not expose the instance, so the instance
// (whose memory the memory figure reads) is taken as the entry makes it.
let instance = null;
const { Instance } = WebAssembly;
WebAssembly.Instance = new Proxy(Instance, {
  construct: (target, args, newTarget) => (instance = Reflect.construct(target, args, newTarget)),
});
const t0 = performance.now();
const wasq = await import(pathToFileURL(resolve(pkgDir, "entry/node.js")).href);
await wasq.init();
const instantiateMs = performance.now() - t0;
WebAssembly.Instance = Instance;
if (instance === null) throw new Error("the entry made no WebAssembly.Instance");
const { Engine, ManualClock, SystemClock, MemoryStorage, createRequestHandler } = wasq;
// The wasm's exports have minified names (scripts/minify-wasm-names.mjs): find the memory by type.
const memory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
const wasmBytes = () => memory.buffer.byteLength;

function urlOf(out) {
  return out.QueueUrl;
}

// --- memory per stored message: 100,000 sends (10 per call) into a fresh engine. (Recovery of
// such a store is bench/restore.mjs, in a process of its own.)
function fill(engine) {
  const url = urlOf(engine.dispatch("CreateQueue", { QueueName: "bench" }));
  for (let start = 0; start < STORED; start += 10) {
    const Entries = [];
    for (let i = start; i < start + 10; i++) Entries.push({ Id: `m${i % 10}`, MessageBody: storedBody(i) });
    engine.dispatch("SendMessageBatch", { QueueUrl: url, Entries });
  }
  return url;
}

if (wants("memory")) {
  gc();
  const wasm0 = wasmBytes();
  const mem0 = process.memoryUsage();
  const storage = new MemoryStorage();
  const filled = new Engine({ clock: new ManualClock(START), storage, seed: 1 });
  fill(filled);
  gc();
  const wasm1 = wasmBytes();
  const mem1 = process.memoryUsage();
  const jsHeap = (m) => m.heapUsed + m.arrayBuffers; // arrayBuffers includes wasm memory
  emit({
    bench: "memory",
    messages: STORED,
    body_bytes: BODY.length,
    wasm_linear_bytes_per_message: (wasm1 - wasm0) / STORED,
    // The JS side: MemoryStorage's copy of every record (Map entries and Uint8Arrays), without the
    // wasm memory, which arrayBuffers also counts.
    js_heap_bytes_per_message: (jsHeap(mem1) - (wasm1 - wasm0) - jsHeap(mem0)) / STORED,
    rss_bytes_per_message: (mem1.rss - mem0.rss) / STORED,
    storage_records: storage.size,
  });
  filled.close();
}

// --- send → receive → delete cycles.

/** A layer: `call(action, params)` returning the parsed response; `async` for the SDK. */
// The core layer's WasqCore: in a bundled package from its unshipped internal/node.js (a bundle
// of its own, on a wasm instance of its own); in an older, unbundled one from the glue (wasq.js)
// that the entry imported and initialised. Imported only when asked for, since it is no public API.
async function coreLayer() {
  const internal = resolve(pkgDir, "internal/node.js");
  const glue = await import(pathToFileURL(existsSync(internal) ? internal : resolve(pkgDir, "wasq.js")).href);
  const core = new glue.WasqCore({ seed: 1 }, undefined);
  // Older packages have no dispatchText: their core took the strings in `dispatch`.
  const text = glue.dispatchText
    ? (action, json) => glue.dispatchText(core, START, action, json, undefined)
    : (action, json) => core.dispatch(START, action, json, undefined);
  const feedSwitch = typeof core.setEventFeed === "function";
  if (feedSwitch) core.setEventFeed(false);
  return {
    call(action, params) {
      const out = JSON.parse(text(action, JSON.stringify(params)));
      core.takeChanges();
      if (!feedSwitch) core.takeEvents();
      return out;
    },
    close: () => core.free(),
  };
}

function engineLayer(clock, { listen = false, storage = new MemoryStorage() } = {}) {
  const engine = new Engine(storage === "default" ? { clock, seed: 1 } : { clock, storage, seed: 1 });
  let events = 0;
  if (listen) engine.on("event", () => events++);
  return { call: (action, params) => engine.dispatch(action, params), close: () => engine.close() };
}

async function sdkLayer() {
  const sdk = await import("@aws-sdk/client-sqs");
  const engine = new Engine({ clock: new SystemClock(), storage: new MemoryStorage(), seed: 1 });
  const client = new sdk.SQSClient({
    region: "us-east-1",
    endpoint: "http://localhost:9324",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
    requestHandler: createRequestHandler(engine),
    maxAttempts: 1,
  });
  const commands = {
    CreateQueue: sdk.CreateQueueCommand,
    SendMessage: sdk.SendMessageCommand,
    SendMessageBatch: sdk.SendMessageBatchCommand,
    ReceiveMessage: sdk.ReceiveMessageCommand,
    DeleteMessage: sdk.DeleteMessageCommand,
    DeleteMessageBatch: sdk.DeleteMessageBatchCommand,
  };
  return {
    call: (action, params) => client.send(new commands[action](params)),
    close: () => engine.close(),
    async: true,
  };
}

// The cycles are written once, for sync and async layers alike; `await` on a plain value costs a
// microtask, so the sync layers get their own copies without it.
function singleSync(layer, url) {
  layer.call("SendMessage", { QueueUrl: url, MessageBody: BODY });
  const out = layer.call("ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 1 });
  if (out.Messages?.length !== 1) throw new Error("single cycle must move one message");
  layer.call("DeleteMessage", { QueueUrl: url, ReceiptHandle: out.Messages[0].ReceiptHandle });
  return 1;
}

const sendEntries = Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: BODY }));

function deleteEntries(out) {
  if (out.Messages?.length !== 10) throw new Error("batched cycle must move 10 messages");
  return out.Messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle }));
}

function batchSync(layer, url) {
  layer.call("SendMessageBatch", { QueueUrl: url, Entries: sendEntries });
  const out = layer.call("ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 10 });
  layer.call("DeleteMessageBatch", { QueueUrl: url, Entries: deleteEntries(out) });
  return 10;
}

async function singleAsync(layer, url) {
  await layer.call("SendMessage", { QueueUrl: url, MessageBody: BODY });
  const out = await layer.call("ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 1 });
  if (out.Messages?.length !== 1) throw new Error("single cycle must move one message");
  await layer.call("DeleteMessage", { QueueUrl: url, ReceiptHandle: out.Messages[0].ReceiptHandle });
  return 1;
}

async function batchAsync(layer, url) {
  await layer.call("SendMessageBatch", { QueueUrl: url, Entries: sendEntries });
  const out = await layer.call("ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 10 });
  await layer.call("DeleteMessageBatch", { QueueUrl: url, Entries: deleteEntries(out) });
  return 10;
}

/**
 * Messages per second over `seconds`, after a warm-up of a tenth of that: by the wall clock, and
 * by the process's CPU time (user + system, all threads), which the waits of a loaded machine do
 * not inflate the way they do the wall clock.
 */
async function rate(layer, cycle, seconds) {
  const queue = urlOf(await layer.call("CreateQueue", { QueueName: "bench" }));
  const warmEnd = performance.now() + (seconds * 1000) / 10;
  while (performance.now() < warmEnd) await cycle(layer, queue);
  gc();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;
  let moved = 0;
  if (layer.async) {
    while (performance.now() < end) moved += await cycle(layer, queue);
  } else {
    // The clock is read every 64 cycles so reading it costs nothing measurable.
    while (performance.now() < end) for (let i = 0; i < 64; i++) moved += cycle(layer, queue);
  }
  const wall = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { wall: moved / wall, cpu: moved / ((cpu.user + cpu.system) / 1e6) };
}

const allLayers = [
  ["core", () => coreLayer()],
  ["engine-manual", () => engineLayer(new ManualClock(START))],
  ["engine-default", () => engineLayer(new ManualClock(START), { storage: "default" })],
  ["engine-nostorage", () => engineLayer(new ManualClock(START), { storage: null })],
  ["engine-events", () => engineLayer(new ManualClock(START), { listen: true })],
  ["engine-system", () => engineLayer(new SystemClock())],
];
if (SDK) allLayers.push(["sdk", () => sdkLayer()]);
const chosen = LAYERS ? LAYERS.split(",") : allLayers.map(([name]) => name);
for (const name of chosen) if (!allLayers.some(([n]) => n === name)) throw new Error(`--layers: no layer ${name}`);
const layers = wants("cycle") ? allLayers.filter(([name]) => chosen.includes(name)) : [];

for (const [workload, sync, async] of [
  ["single", singleSync, singleAsync],
  ["batch10", batchSync, batchAsync],
]) {
  for (const [name, make] of layers) {
    const layer = await make();
    // The SDK is two orders of magnitude slower; a shorter run gives it as many samples.
    const seconds = name === "sdk" ? Math.max(0.5, SECONDS / 2) : SECONDS;
    const perS = await rate(layer, layer.async ? async : sync, seconds);
    layer.close();
    emit({ bench: "cycle", workload, layer: name, messages_per_s: perS.wall, messages_per_cpu_s: perS.cpu });
  }
}
