// One package's send → receive → delete cycle over a fixed number of messages, timed by the
// process's CPU time (user + system), which the waits of a loaded machine do not inflate the way
// they do wall clock. scripts/bench-cpu-ab.sh runs it alternately over several packages.
//
//   node bench/cycle-cpu.mjs PKG_DIR [default|nostorage|memory] [single|batch] [MESSAGES]
//
// default: `new Engine({ clock })`; nostorage: `storage: null`; memory: a MemoryStorage passed in.
import { pathToFileURL } from "node:url";
const [pkg, mode = "default", work = "single", n0 = "200000"] = process.argv.slice(2);
const wasq = await import(pathToFileURL(pkg + "/entry/node.js").href);
await wasq.init();
const { Engine, ManualClock, MemoryStorage } = wasq;
const opts = { clock: new ManualClock(Date.parse("2026-01-01T00:00:00Z")), seed: 1 };
if (mode === "nostorage") opts.storage = null; else if (mode === "memory") opts.storage = new MemoryStorage();
const e = new Engine(opts);
const url = e.dispatch("CreateQueue", { QueueName: "bench" }).QueueUrl;
const BODY = "x".repeat(100);
const entries = Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: BODY }));
const batch = work === "batch";
function cycle() {
  if (batch) {
    e.dispatch("SendMessageBatch", { QueueUrl: url, Entries: entries });
    const out = e.dispatch("ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 10 });
    e.dispatch("DeleteMessageBatch", { QueueUrl: url, Entries: out.Messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })) });
    return 10;
  }
  e.dispatch("SendMessage", { QueueUrl: url, MessageBody: BODY });
  const out = e.dispatch("ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 1 });
  e.dispatch("DeleteMessage", { QueueUrl: url, ReceiptHandle: out.Messages[0].ReceiptHandle });
  return 1;
}
const msgs = Number(n0);
for (let m = 0; m < msgs / 5; ) m += cycle(); // warm-up
const c0 = process.cpuUsage();
for (let m = 0; m < msgs; ) m += cycle();
const c = process.cpuUsage(c0);
const us = (c.user + c.system) / msgs;
console.log(`${pkg} ${mode} ${work} ${(1e6 / us).toFixed(0)} msg/s-cpu`);
