// Driver for scripts/bench-server.sh and bench/compare.mjs: autocannon against SQS endpoints
// given as `label=url` arguments, two workloads each, several runs, medians, a markdown table.
//
//   send:  SendMessage (AWS JSON 1.0), 32 connections
//   cycle: SendMessageBatch(10) → ReceiveMessage(10) → DeleteMessageBatch(received), 32 connections
//
// Requests are not really signed: neither wasq serve (without --credentials) nor moto checks
// signatures, so both sides do the same work per request.

import autocannon from "autocannon";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Agent, createServer, request as httpRequest } from "node:http";

const args = process.argv.slice(2);

// `--ceiling PORT`: instead of measuring, be the reference server. It reads each request's body
// and answers 200 with a fixed body and headers of the size wasq sends for SendMessage (106-byte
// JSON, request id, content type), doing nothing else: what node:http itself costs on this
// machine, i.e. the most any Node server can answer here with the load generator on the same cores.
if (args[0] === "--ceiling") {
  const body = Buffer.from(JSON.stringify({ MD5OfMessageBody: "0".repeat(32), MessageId: "0".repeat(36) }));
  const answer = {
    "x-amzn-requestid": "00000000-0000-4000-8000-000000000000",
    "content-type": "application/x-amz-json-1.0",
    "content-length": String(body.length),
  };
  const server = createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      res.writeHead(200, answer);
      res.end(body);
    });
  });
  server.keepAliveTimeout = 25_000; // as wasq serve's, so the responses are byte for byte alike in size
  server.listen(Number(args[1]), "127.0.0.1");
  await new Promise(() => {});
}
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const duration = Number(opt("duration", "5"));
const runs = Number(opt("runs", "3"));
const connections = Number(opt("connections", "32"));
const jsonOut = opt("json", "");
const only = opt("only", ""); // "send" or "cycle"
// `label=url`; a label ending in "(http loop)" is driven by httpLoop instead of autocannon.
// `label=url`, or `label=url@pid` to also count the server process's CPU time per run.
const targets = args.map((a) => {
  const at = a.indexOf("=");
  const label = a.slice(0, at);
  const [url, pid] = a.slice(at + 1).split("@");
  return { label, url: url.replace(/\/$/, ""), pid, tool: label.endsWith("(http loop)") ? httpLoop : run };
});

// A process's CPU time in seconds (user + system, all its threads), from /proc/PID/stat: on a
// shared machine, requests per CPU-second of the server move far less than requests per second.
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));
function cpuSeconds(pid) {
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime, stime (fields 14 and 15)
}

const JSON_TYPE = "application/x-amz-json-1.0";
// moto routes a request to a service by the credential scope of its Authorization header (without
// one it answers as S3), so every request carries a SigV4-shaped header; nothing verifies it.
const AUTHORIZATION =
  "AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00";
const headers = (action) => ({
  "content-type": JSON_TYPE,
  "x-amz-target": `AmazonSQS.${action}`,
  authorization: AUTHORIZATION,
});

async function call(base, action, params) {
  const res = await fetch(base + "/", { method: "POST", headers: headers(action), body: JSON.stringify(params) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${action} on ${base}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : {};
}

let queueCounter = 0;
const ceilingUrl = targets.find((t) => t.label.includes("ceiling"))?.url;
async function freshQueue(base, workload) {
  if (base === ceilingUrl) return `${base}/000000000000/ceiling`;
  const name = `bench-${workload}-${process.pid}-${++queueCounter}`;
  return (await call(base, "CreateQueue", { QueueName: name, Attributes: { VisibilityTimeout: "300" } })).QueueUrl;
}

const BODY = "x".repeat(200); // a typical small job payload

function sendRequests(queueUrl) {
  return [{ method: "POST", path: "/", headers: headers("SendMessage"), body: JSON.stringify({ QueueUrl: queueUrl, MessageBody: BODY }) }];
}

function cycleRequests(queueUrl) {
  const entries = Array.from({ length: 10 }, (_, i) => ({ Id: `e${i}`, MessageBody: BODY }));
  return [
    { method: "POST", path: "/", headers: headers("SendMessageBatch"), body: JSON.stringify({ QueueUrl: queueUrl, Entries: entries }) },
    {
      method: "POST",
      path: "/",
      headers: headers("ReceiveMessage"),
      body: JSON.stringify({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
      onResponse: (status, body, context) => {
        let handles = [];
        try {
          handles = (JSON.parse(body).Messages ?? []).map((m) => m.ReceiptHandle);
        } catch {}
        context.handles = handles;
        context.received = (context.received ?? 0) + handles.length;
      },
    },
    {
      method: "POST",
      path: "/",
      headers: headers("DeleteMessageBatch"),
      setupRequest: (req, context) => {
        const handles = context.handles?.length ? context.handles : ["none"];
        return {
          ...req,
          body: JSON.stringify({ QueueUrl: queueUrl, Entries: handles.map((h, i) => ({ Id: `d${i}`, ReceiptHandle: h })) }),
        };
      },
    },
  ];
}

function run(url, requests, seconds) {
  return new Promise((ok, fail) => {
    const instance = autocannon({ url, connections, duration: seconds, requests, timeout: 30 }, (err, result) =>
      err ? fail(err) : ok(result),
    );
    instance.on("error", fail);
  });
}

/**
 * The same closed loop as autocannon (each connection sends its request sequence back to back),
 * on node:http's Agent. Needed for moto: its server answers `Connection: close`, and autocannon
 * does not reconnect a closed connection (each stalls after one request: ~11 req/s measured).
 */
async function httpLoop(url, requests, seconds) {
  const { hostname, port } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let non2xx = 0;
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const send = (req) =>
    new Promise((ok) => {
      const started = process.hrtime.bigint();
      const r = httpRequest({ hostname, port, agent, method: req.method, path: req.path, headers: req.headers }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
          if (res.statusCode < 200 || res.statusCode >= 300) non2xx++;
          ok({ status: res.statusCode, body: Buffer.concat(chunks).toString() });
        });
      });
      r.on("error", () => {
        errors++;
        ok(null);
      });
      r.end(req.body);
    });
  async function worker() {
    const context = {};
    while (Date.now() < end) {
      for (const template of requests) {
        const req = template.setupRequest ? template.setupRequest({ ...template }, context) : template;
        const res = await send(req);
        if (res && template.onResponse) template.onResponse(res.status, res.body, context);
      }
    }
  }
  const t0 = Date.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0);
  return { requests: { average: latencies.length / elapsed, total: latencies.length }, latency: { p50: pct(50), p99: pct(99) }, non2xx, errors, timeouts: 0 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const workloads = [
  { name: "send", title: "SendMessage", build: sendRequests, perReq: 1 },
  { name: "cycle", title: "batched send → receive → delete (10/batch)", build: cycleRequests, perReq: 1 / 3 },
].filter((w) => !only || w.name === only);

// The ceiling answers every request alike, so it is a reference for the single-request workload only.
const targetsFor = (w) => targets.filter((t) => w.name === "send" || !t.label.includes("ceiling"));

// Runs interleave across targets (run 1 of every target, then run 2, …, in reverse order every
// other run) so that a change in the machine's load during the benchmark reaches every target
// alike, not only the ones measured then.
const results = {};
for (const w of workloads) {
  const samples = new Map();
  for (const t of targetsFor(w)) {
    // Warm-up: JIT, connection setup, the queue's first allocations.
    await t.tool(t.url, w.build(await freshQueue(t.url, w.name)), 1);
    samples.set(t, []);
  }
  for (let i = 0; i < runs; i++) {
    const turn = i % 2 ? [...targetsFor(w)].reverse() : targetsFor(w);
    for (const t of turn) {
      // A fresh queue per run, so no run drains what an earlier one left behind.
      const requests = w.build(await freshQueue(t.url, w.name));
      const cpu0 = t.pid ? cpuSeconds(t.pid) : 0;
      const r = await t.tool(t.url, requests, duration);
      const rps = r.requests.average;
      // Requests answered per CPU-second of the server, if its pid was given.
      const rpcs = t.pid ? r.requests.total / (cpuSeconds(t.pid) - cpu0) : undefined;
      samples.get(t).push({ rps, rpcs, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts });
      process.stderr.write(
        `${w.name.padEnd(5)} ${t.label.padEnd(14)} run ${i + 1}: ${rps.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}\n`,
      );
    }
  }
  for (const [t, list] of samples) {
    results[`${w.name}/${t.label}`] = {
      workload: w.name,
      target: t.label,
      rps: median(list.map((s) => s.rps)),
      p50: median(list.map((s) => s.p50)),
      p99: median(list.map((s) => s.p99)),
      non2xx: list.reduce((a, s) => a + s.non2xx, 0),
      errors: list.reduce((a, s) => a + s.errors + s.timeouts, 0),
      samples: list,
    };
  }
}

// Ratios compare like with like: each target against moto driven by the same tool.
const motoFor = (t) => targets.find((m) => m.label.startsWith("moto") && m.tool === t.tool)?.label;
const lines = [];
for (const w of workloads) {
  lines.push(`**${w.title}**, ${connections} connections, median of ${runs} × ${duration} s runs:`, "");
  lines.push(
    w.name === "cycle"
      ? "| server | requests/s | cycles/s | messages sent/s | p50 ms | p99 ms | non-2xx | × moto |"
      : "| server | requests/s | p50 ms | p99 ms | non-2xx | × moto |",
  );
  lines.push(w.name === "cycle" ? "|---|---:|---:|---:|---:|---:|---:|---:|" : "|---|---:|---:|---:|---:|---:|");
  for (const t of targetsFor(w)) {
    const r = results[`${w.name}/${t.label}`];
    const base = motoFor(t) ? results[`${w.name}/${motoFor(t)}`]?.rps : undefined;
    const ratio = base ? (r.rps / base).toFixed(1) + "×" : "—";
    const rps = r.rps.toFixed(0);
    if (w.name === "cycle") {
      const cycles = r.rps / 3;
      lines.push(`| ${t.label} | ${rps} | ${cycles.toFixed(0)} | ${(cycles * 10).toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${ratio} |`);
    } else {
      lines.push(`| ${t.label} | ${rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${ratio} |`);
    }
  }
  lines.push("");
}
process.stdout.write(lines.join("\n") + "\n");
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2) + "\n");
