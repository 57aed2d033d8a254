// Recovery in a fresh process: instantiate the package, fill a store with 100,000 messages (a
// standard queue, or a FIFO queue with content-based deduplication: a deduplication record per
// message), then five `new Engine`s over it: the first is what a process start pays, the median
// of five the steady figure. One JSON line. scripts/bench-compare.sh runs it on two packages
// alternately.
//
//   node --expose-gc bench/restore.mjs [--pkg DIR] [--queue standard|fifo] [--storage memory|file]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const pkgDir = resolve(opt("--pkg", "pkg"));
const QUEUE = opt("--queue", "standard");
const STORAGE = opt("--storage", "memory");
if (!["standard", "fifo"].includes(QUEUE) || !["memory", "file"].includes(STORAGE)) {
  throw new Error("usage: restore.mjs [--pkg DIR] [--queue standard|fifo] [--storage memory|file]");
}
const START = Date.parse("2026-01-01T00:00:00Z");
const STORED = 100_000;
const GROUPS = 100;
const gc = () => globalThis.gc?.();

const cpuMs = (c) => (c.user + c.system) / 1000;
const c0 = process.cpuUsage();
const t0 = performance.now();
const wasq = await import(pathToFileURL(resolve(pkgDir, "entry/node.js")).href);
await wasq.init();
const instantiateMs = performance.now() - t0;
const instantiateCpuMs = cpuMs(process.cpuUsage(c0));
const { Engine, ManualClock, MemoryStorage, FileStorage } = wasq;

const dir = STORAGE === "file" ? mkdtempSync(join(tmpdir(), "wasq-restore-")) : null;
const open = () => (dir === null ? new MemoryStorage() : new FileStorage(dir, { fsync: false }));
let storage = open();
const fifo = QUEUE === "fifo";
const filled = new Engine({ clock: new ManualClock(START), storage, seed: 1 });
const QueueUrl = filled.dispatch("CreateQueue", {
  QueueName: fifo ? "bench.fifo" : "bench",
  ...(fifo ? { Attributes: { FifoQueue: "true", ContentBasedDeduplication: "true" } } : {}),
}).QueueUrl;
for (let start = 0; start < STORED; start += 10) {
  const Entries = [];
  for (let i = start; i < start + 10; i++) {
    // Distinct bodies: with content-based deduplication equal ones would be dropped.
    const entry = { Id: `m${i}`, MessageBody: String(i).padStart(100, "0") };
    if (fifo) entry.MessageGroupId = `g${i % GROUPS}`;
    Entries.push(entry);
  }
  filled.dispatch("SendMessageBatch", { QueueUrl, Entries });
}
filled.close();

const restores = [];
let firstRestoreCpuMs = 0;
for (let i = 0; i < 5; i++) {
  if (dir !== null) {
    // A FileStorage restore includes reading its log, as a process start does.
    storage.close();
  }
  gc();
  const c = process.cpuUsage();
  const t = performance.now();
  if (dir !== null) storage = open();
  const engine = new Engine({ clock: new ManualClock(START), storage, seed: 1 });
  restores.push(performance.now() - t);
  if (i === 0) firstRestoreCpuMs = cpuMs(process.cpuUsage(c));
  const n = engine.dispatch("GetQueueAttributes", { QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] });
  if (n.Attributes.ApproximateNumberOfMessages !== String(STORED)) {
    throw new Error(`restore lost messages: ${JSON.stringify(n)}`);
  }
  engine.close();
}
storage.close();
if (dir !== null) rmSync(dir, { recursive: true, force: true });
const sorted = [...restores].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: "restore-only",
    queue: QUEUE,
    storage: STORAGE,
    messages: STORED,
    instantiate_ms: instantiateMs,
    first_restore_ms: restores[0],
    // CPU time (user + system, all threads): what the waits of a loaded machine do not inflate.
    instantiate_cpu_ms: instantiateCpuMs,
    first_restore_cpu_ms: firstRestoreCpuMs,
    restore_ms: sorted[2],
    total_ms: instantiateMs + restores[0],
  }),
);
