// Memory a stored message costs `wasq serve`, `--data` (FileStorage, the default) beside
// `--memory` (no storage), measured the same way in the same run: the server's resident set
// (VmRSS) after a warm-up, and again after N more messages are sent and left in the queue; the
// growth divided by N. Each is read twice: as the server left it ("rss"), and after a full
// garbage collection asked for through the inspector ("rss after gc"), because what the server
// holds and what V8 has not collected yet differ by mode: `--data` answers wait for a group
// fsync, so each request's garbage outlives a young-generation collection there and not with
// `--memory`. Rounds alternate the two modes, each in a fresh server process; the medians and
// their ratios are printed, then one JSON line.
//
//   node --experimental-websocket bench/memory-per-message.mjs [--pkg DIR] [--messages 100000] [--body 200] [--rounds 3]
//   (Node 22 has WebSocket without the flag.)

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as readline from "node:readline";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const pkgDir = resolve(opt("--pkg", "pkg"));
const MESSAGES = Number(opt("--messages", 100_000));
const BODY = Number(opt("--body", 200));
const ROUNDS = Number(opt("--rounds", 3));
const WARMUP = 2_000;
const CONCURRENCY = 16;

const rssBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServer(mode) {
  const dir = mode === "data" ? mkdtempSync(join(tmpdir(), "wasq-mem-bench-")) : null;
  const storage = dir === null ? ["--memory"] : ["--data", dir];
  const bin = join(pkgDir, "bin/wasq.mjs");
  const proc = spawn(process.execPath, ["--inspect=127.0.0.1:0", bin, "serve", "--port", "0", ...storage], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const inspector = new Promise((resolve) => {
    readline.createInterface({ input: proc.stderr }).on("line", (line) => {
      const m = /Debugger listening on (ws:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
  });
  const url = await new Promise((resolve, reject) => {
    proc.once("exit", (code) => reject(new Error(`wasq serve exited (${code})`)));
    readline.createInterface({ input: proc.stdout }).on("line", (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
  });
  return { proc, url, dir, inspector: await inspector };
}

/** Two full garbage collections in the server, through its inspector. */
async function collectGarbage(inspectorUrl) {
  const ws = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  for (let id = 1; id <= 2; id++) {
    const done = new Promise((resolve) => {
      ws.onmessage = (event) => JSON.parse(event.data).id === id && resolve();
    });
    ws.send(JSON.stringify({ id, method: "HeapProfiler.collectGarbage" }));
    await done;
  }
  ws.close();
}

async function call(url, action, params) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${action}` },
    body: JSON.stringify(params),
  });
  const out = await res.json();
  if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/** `count` messages in batches of ten, CONCURRENCY batches in flight. */
async function send(url, QueueUrl, count, from) {
  let next = 0;
  const batches = Math.ceil(count / 10);
  const worker = async () => {
    while (next < batches) {
      const b = next++;
      const Entries = [];
      for (let i = b * 10; i < Math.min(count, b * 10 + 10); i++) {
        Entries.push({ Id: `e${i - b * 10}`, MessageBody: `${from + i}:`.padEnd(BODY, "x") });
      }
      const out = await call(url, "SendMessageBatch", { QueueUrl, Entries });
      if (out.Failed?.length) throw new Error(`send failed: ${JSON.stringify(out.Failed[0])}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function measure(mode) {
  const { proc, url, dir, inspector } = await startServer(mode);
  try {
    const { QueueUrl } = await call(url, "CreateQueue", { QueueName: "memory-bench" });
    await send(url, QueueUrl, WARMUP, 0);
    await sleep(500);
    const before = rssBytes(proc.pid);
    await collectGarbage(inspector);
    const beforeGc = rssBytes(proc.pid);
    await send(url, QueueUrl, MESSAGES, WARMUP);
    await sleep(500);
    const after = rssBytes(proc.pid);
    await collectGarbage(inspector);
    const afterGc = rssBytes(proc.pid);
    const { Attributes } = await call(url, "GetQueueAttributes", { QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] });
    if (Number(Attributes.ApproximateNumberOfMessages) !== WARMUP + MESSAGES) throw new Error("messages missing");
    return { rss: (after - before) / MESSAGES, gc: (afterGc - beforeGc) / MESSAGES };
  } finally {
    proc.kill("SIGTERM");
    await new Promise((r) => proc.once("exit", r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = { memory: [], data: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of round % 2 === 0 ? ["memory", "data"] : ["data", "memory"]) {
    const perMessage = await measure(mode);
    results[mode].push(perMessage);
    console.log(`round ${round + 1} --${mode}: rss ${perMessage.rss.toFixed(0)}, rss after gc ${perMessage.gc.toFixed(0)} bytes a message`);
  }
}
const summary = {};
for (const kind of ["rss", "gc"]) {
  const memory = median(results.memory.map((r) => r[kind]));
  const data = median(results.data.map((r) => r[kind]));
  summary[kind] = { memory, data, ratio: data / memory };
  console.log(`median ${kind === "rss" ? "rss" : "rss after gc"}: --memory ${memory.toFixed(0)}, --data ${data.toFixed(0)} bytes a message: ${(data / memory).toFixed(2)}x`);
}
console.log(JSON.stringify({ messages: MESSAGES, body: BODY, rounds: ROUNDS, ...results, summary }));
