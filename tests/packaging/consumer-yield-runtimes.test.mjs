// The Consumer leaves the host's event loop room between receive rounds in the other runtimes it
// ships for, not only Node (tests/js/pkg/consumer-yield.test.js): Chromium (the browser entry) and
// workerd (miniflare, the workerd entry). The probes are the same everywhere, each with a 0 ms
// timer set before start: a handler that always throws, with a bound in handler calls after which
// the handler stops the consumer itself, so a starved loop fails the test instead of hanging it;
// and a drain of 10,000 messages, in which the timer must fire before the last one is handled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = fileURLToPath(new URL("../../pkg/", import.meta.url));
if (!existsSync(join(pkg, "package.json"))) throw new Error("no built package: run `make pkg` first");

const STARVED_AFTER = 20_000;
const DRAINED = 10_000;

/** The probe, as source: `Engine`, `ManualClock`, `SystemClock`, `Consumer` in scope; resolves with the handler calls run when the timer fired. */
const PROBE = `
async function probe(clockKind) {
  const clock = clockKind === "manual" ? new ManualClock(0) : new SystemClock();
  const engine = new Engine({ clock, seed: 3 });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  engine.sendMessage({ QueueUrl, MessageBody: "poison" });
  let calls = 0;
  const consumer = new Consumer({
    engine,
    queueUrl: QueueUrl,
    handleMessage: async () => {
      calls++;
      if (calls === ${STARVED_AFTER}) consumer.stop({ wait: false });
      throw new Error("poison");
    },
  });
  consumer.on("error", () => {});
  const fired = new Promise((resolve) => setTimeout(() => resolve(calls), 0));
  consumer.start();
  const timer = await fired;
  await consumer.stop();
  engine.close();
  return { timer, calls };
}
async function drainProbe() {
  const engine = new Engine({ clock: new ManualClock(0), seed: 3 });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  for (let i = 0; i < ${DRAINED}; i += 10) {
    engine.sendMessageBatch({ QueueUrl, Entries: Array.from({ length: 10 }, (_, j) => ({ Id: "e" + j, MessageBody: "m" + (i + j) })) });
  }
  let handled = 0;
  const consumer = new Consumer({ engine, queueUrl: QueueUrl, handleMessage: async () => void handled++ });
  const drained = new Promise((resolve) => {
    let processed = 0;
    consumer.on("processed", () => { if (++processed === ${DRAINED}) resolve(); });
  });
  const fired = new Promise((resolve) => setTimeout(() => resolve(handled), 0));
  consumer.start();
  const timer = await fired;
  await drained;
  await consumer.stop();
  const left = engine.getQueueAttributes({ QueueUrl, AttributeNames: ["All"] }).Attributes.ApproximateNumberOfMessages;
  engine.close();
  return { timer, handled, left };
}`;

function assertDrain(drain) {
  assert.ok(drain.timer < DRAINED, `drain: the timer fired only after all ${DRAINED} messages were handled`);
  assert.equal(drain.handled, DRAINED);
  assert.equal(drain.left, "0");
}

const TYPES = { ".js": "text/javascript", ".html": "text/html", ".wasm": "application/wasm", ".json": "application/json" };

test("Chromium: a Consumer whose handler always throws, or that drains 10,000 messages, leaves a 0 ms timer room to fire", { timeout: 120_000 }, async () => {
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
import { init, Engine, ManualClock, SystemClock, Consumer } from "/entry/browser.js";
${PROBE}
await init();
window.result = { manual: await probe("manual"), system: await probe("system"), drain: await drainProbe() };
</script>`;
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/probe.html") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    const file = resolve(pkg, "." + decodeURIComponent(path));
    if (!file.startsWith(pkg) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    await tab.goto(`http://127.0.0.1:${server.address().port}/probe.html`);
    await tab.waitForFunction(() => window.result !== undefined || false, null, { timeout: 60_000 });
    const result = await tab.evaluate(() => window.result);
    assert.deepEqual(errors, []);
    for (const kind of ["manual", "system"]) {
      assert.ok(result[kind].timer < STARVED_AFTER, `${kind} clock: the timer fired only after ${result[kind].timer} handler calls`);
      assert.ok(result[kind].calls >= 1);
    }
    assertDrain(result.drain);
  } finally {
    await browser.close();
    server.close();
  }
});

test("workerd (miniflare): a Consumer whose handler always throws, or that drains 10,000 messages, leaves a 0 ms timer room to fire", { timeout: 120_000 }, async () => {
  const { Miniflare } = await import("miniflare");
  const worker = `import { Engine, ManualClock, SystemClock, Consumer } from "./entry/workerd.js";
${PROBE}
export default { async fetch(request) {
  const clock = new URL(request.url).searchParams.get("clock");
  return Response.json(clock === "drain" ? await drainProbe() : await probe(clock));
} };`;
  const file = (rel) => join(pkg, rel);
  const mf = new Miniflare({
    modulesRoot: pkg.replace(new RegExp(`\\${sep}$`), ""),
    modules: [
      { type: "ESModule", path: file("probe-worker.js"), contents: worker },
      { type: "ESModule", path: file("entry/workerd.js") },
      { type: "ESModule", path: file("chunks/workerd.js") },
      { type: "CompiledWasm", path: file("wasq_bg.wasm") },
    ],
    compatibilityDate: "2026-07-30",
  });
  try {
    for (const kind of ["manual", "system"]) {
      const res = await mf.dispatchFetch(`http://probe.local/?clock=${kind}`);
      const text = await res.text();
      assert.equal(res.status, 200, text);
      const result = JSON.parse(text);
      assert.ok(result.timer < STARVED_AFTER, `${kind} clock: the timer fired only after ${result.timer} handler calls`);
      assert.ok(result.calls >= 1);
    }
    const res = await mf.dispatchFetch("http://probe.local/?clock=drain");
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assertDrain(JSON.parse(text));
  } finally {
    await mf.dispose();
  }
});
