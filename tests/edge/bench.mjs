// Throughput of the edge Worker in local workerd (not a test: `node tests/edge/bench.mjs`).
// SendMessage of 200-byte bodies to a high-throughput FIFO queue (1,000 groups), SigV4 on, 64 at
// a time, for 1, 2, 4, 8 partitions, and the same load on one queue object directly (its /parsed
// endpoint, no Worker) to isolate what one object sustains. Two drivers:
//   - in workerd (default): requests are signed in Node beforehand and replayed from inside the
//     runtime (tests/edge/bench-entry.js), so only the Worker and the objects are measured;
//   - from Node (BENCH_DRIVER=node): the real SDK through miniflare's dispatchFetch, which also
//     measures Node and miniflare's HTTP bridge on the same cores.
// BATCH=10 sends 10-entry SendMessageBatch requests instead (workerd driver only).
// Each case runs ROUNDS times (default 3) after a warm-up; the median is reported with every
// round and the load average, since other work shares the machine's cores.
import { loadavg, tmpdir } from "node:os";
import { cpSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SignatureV4 } from "@smithy/signature-v4";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, PKG, CREDENTIALS } from "./harness.mjs";
import { Sha256 } from "./util.mjs";

const SECONDS = Number(process.env.SECONDS_EACH ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = 64;
const htFifo = { FifoQueue: "true", DeduplicationScope: "messageGroup", FifoThroughputLimit: "perMessageGroupId" };
let seq = 0;

async function once(op) {
  let n = 0;
  const start = Date.now();
  const end = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < end) {
      await op(seq++);
      n++;
    }
  }));
  return { rate: (n * 1000) / (Date.now() - start), count: n };
}

/**
 * CPU seconds used so far by the workerd processes miniflare started (Linux /proc; null
 * elsewhere). CPU per request does not depend on how much of the machine others leave us, so it
 * says what the rate would be with a core to itself.
 */
function workerdCpuSeconds() {
  try {
    let ticks = 0;
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      let stat;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue;
      }
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (comm === "workerd" && Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks / 100; // USER_HZ
  } catch {
    return null;
  }
}

// Objects take the Worker's admitted form (`/parsed`); a package from before that (WASQ_PKG_DIR,
// to measure an older build in the same run) takes the HTTP request (`/http`).
// The object code is worker/host.js in an unbundled package, inside worker/index.js in a bundled one.
const objectCode = ["worker/host.js", "worker/index.js"].find((f) => existsSync(join(PKG, f)));
const PARSED_OBJECTS = readFileSync(join(PKG, objectCode), "utf8").includes('"/parsed"');
let scratch = null;

/** What the Worker sends an object for this request: `admitHttp`'s form, read here, not measured. */
async function admitted(req) {
  if (!PARSED_OBJECTS) return undefined;
  if (scratch === null) {
    // WasqCore: from the unshipped internal/node.js of a bundled package, else (an older,
    // unbundled one) from its wasm-bindgen glue, which its Node entry initialises.
    const bundled = existsSync(join(PKG, "internal/node.js"));
    if (!bundled) await import(new URL("entry/node.js", `file://${PKG}/`).href);
    const { WasqCore } = await import(new URL(bundled ? "internal/node.js" : "wasq.js", `file://${PKG}/`).href);
    scratch = new WasqCore({ seed: 1 }, undefined);
  }
  const head = ["POST", req.path, "", ...req.headers.flat()].join("\0");
  const { response, ...parsed } = scratch.admitHttp(Date.now(), head, new TextEncoder().encode(req.body), undefined);
  if (response) throw new Error(`bench request refused: ${response.status}`);
  return parsed;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function run(label, round) {
  await round(); // warm-up, not counted
  const rates = [];
  const cpu = [];
  const loads = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = workerdCpuSeconds();
    const { rate, count } = await round();
    const c1 = workerdCpuSeconds();
    rates.push(rate);
    if (c0 !== null && c1 !== null && count > 0) cpu.push(((c1 - c0) * 1e6) / count);
    loads.push(loadavg()[0].toFixed(2));
  }
  const cpuText = cpu.length ? `; workerd CPU ${median(cpu).toFixed(0)} µs/request (rounds ${cpu.map((x) => x.toFixed(0)).join(", ")})` : "";
  console.log(`${label}: median ${median(rates).toFixed(0)} req/s (rounds ${rates.map((x) => x.toFixed(0)).join(", ")})${cpuText}; load avg ${loads.join(", ")}`);
}

const DRIVER = process.env.BENCH_DRIVER ?? "workerd";
const PER_ROUND = Number(process.env.PER_ROUND ?? 4000);
const BATCH = Number(process.env.BATCH ?? 1);

/** `count` SendMessage requests, signed now for `host` (signatures stay valid for minutes). */
async function presign(host, url, count) {
  const signer = new SignatureV4({ credentials: CREDENTIALS, region: "us-east-1", service: "sqs", sha256: Sha256 });
  const out = [];
  for (let k = 0; k < count; k++) {
    const i = seq++;
    // BATCH=n: SendMessageBatch of n entries, each its own group (a batch splits by partition).
    const body = BATCH > 1
      ? JSON.stringify({
          QueueUrl: url,
          Entries: Array.from({ length: BATCH }, (_, k) => ({ Id: `e${k}`, MessageBody: "x".repeat(200), MessageGroupId: `g${(i * BATCH + k) % 1000}`, MessageDeduplicationId: `d${i}-${k}` })),
        })
      : JSON.stringify({ QueueUrl: url, MessageBody: "x".repeat(200), MessageGroupId: `g${i % 1000}`, MessageDeduplicationId: `d${i}` });
    const signed = await signer.sign({
      method: "POST", protocol: "http:", hostname: host.split(":")[0], port: Number(host.split(":")[1]), path: "/",
      headers: { host, "content-type": "application/x-amz-json-1.0", "x-amz-target": BATCH > 1 ? "AmazonSQS.SendMessageBatch" : "AmazonSQS.SendMessage" },
      body,
    });
    const req = { host, path: "/", headers: Object.entries(signed.headers), body };
    out.push({ ...req, parsed: await admitted(req) });
  }
  return out;
}

async function inWorkerd(mf, host, url, object) {
  const requests = await presign(host, url, PER_ROUND);
  const res = await mf.dispatchFetch(`http://${host}/__bench`, {
    method: "POST",
    body: JSON.stringify({ requests, concurrency: CONCURRENCY, seconds: SECONDS, object }),
  });
  const { done, failed, ms } = await res.json();
  if (failed) throw new Error(`${failed} requests failed`);
  return { rate: (done / ms) * 1000, count: done };
}

const dir = mkdtempSync(join(tmpdir(), "wasq-bench-pkg-"));
cpSync(PKG, dir, { recursive: true });
copyFileSync(fileURLToPath(new URL("./bench-entry.js", import.meta.url)), join(dir, "bench-entry.js"));
console.log(`driver: ${DRIVER}; ${CONCURRENCY} at a time; ${ROUNDS} rounds per case; ${BATCH > 1 ? `SendMessageBatch of ${BATCH}` : "SendMessage"}`);
if (BATCH > 1 && DRIVER === "node") throw new Error("BATCH is for the workerd driver");
try {
  for (const partitions of (process.env.PARTITIONS ?? "1,2,4,8").split(",").map(Number)) {
    const mf = startWorker({ partitions, pkgDir: dir, script: "bench-entry.js" });
    const sqs = await client(mf);
    const host = new URL((await mf.ready).origin).host;
    const url = (await sqs.send(new S.CreateQueueCommand({ QueueName: "bench.fifo", Attributes: htFifo }))).QueueUrl;
    const object = "us-east-1/bench.fifo/0";
    if (DRIVER === "node") {
      await run(`SendMessage via Worker, ${partitions} partition(s)`, () => once((i) =>
        sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "x".repeat(200), MessageGroupId: `g${i % 1000}`, MessageDeduplicationId: `d${i}` }))));
      if (partitions === 1) {
        const ns = await mf.getDurableObjectNamespace("WASQ_QUEUE");
        const obj = ns.get(ns.idFromName(object));
        const headers = [["host", "localhost"], ["x-amz-target", "AmazonSQS.SendMessage"], ["content-type", "application/x-amz-json-1.0"]];
        await run("SendMessage on one queue object directly", () => once(async (i) => {
          const body = JSON.stringify({ QueueUrl: url, MessageBody: "x".repeat(200), MessageGroupId: `g${i % 1000}`, MessageDeduplicationId: `o${i}` });
          const parsed = await admitted({ path: "/", headers, body });
          const r = parsed
            ? await obj.fetch("http://wasq/parsed", { method: "POST", body: JSON.stringify(parsed) })
            : await obj.fetch("http://wasq/http", {
                method: "POST",
                headers: { "x-wasq-request": JSON.stringify({ method: "POST", path: "/", query: "", headers }) },
                body,
              });
          return r.arrayBuffer();
        }));
      }
    } else {
      const action = BATCH > 1 ? `SendMessageBatch(${BATCH})` : "SendMessage";
      await run(`${action} via Worker, ${partitions} partition(s)`, () => inWorkerd(mf, host, url));
      if (partitions === 1) await run(`${action} on one queue object directly`, () => inWorkerd(mf, host, url, object));
    }
    await mf.dispose();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
