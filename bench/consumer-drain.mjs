// A Consumer draining a queue, two built packages side by side, in the runtimes the package ships
// for: Node (entry/node.js, a fresh process per sample), Chromium (entry/browser.js, one page per
// package) and workerd (miniflare, entry/workerd.js, one worker per package).
//
// A sample: an engine on a ManualClock with MESSAGES messages sent in batches of ten, a Consumer
// with a handler that only counts (the default batchSize 10, concurrency 1), timed from start()
// to the last "processed" event, by the wall clock and by CPU time (Node: the process's;
// Chromium: the page's main thread, CDP's TaskDuration in thread ticks; workerd: its process's,
// from /proc). Each sample is the median of three drains after one warm-up drain; rounds
// alternate the packages' order. On a shared machine the wall clock also counts waiting for a
// core, so CPU time is the steadier figure; but time spent idle between tasks shows only on the
// wall clock. Then, in Node and Chromium, one more drain with a chain of 0 ms timers: the longest
// a timer waited, and the most messages handled while it did (what a page's timers, input and
// rendering wait behind; the second does not move with load). workerd's clock moves only with
// I/O, so there the time is taken outside the worker, around the request (less a no-op
// request's), and there is no timer figure.
//
//   node bench/consumer-drain.mjs --before BEFORE_PKG --after AFTER_PKG [--rounds 7]
//     [--messages 10000] [--only node,chromium,workerd]
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  options: {
    before: { type: "string" },
    after: { type: "string" },
    rounds: { type: "string", default: "7" },
    messages: { type: "string", default: "10000" },
    only: { type: "string", default: "node,chromium,workerd" },
  },
});
if (!opts.before || !opts.after) throw new Error("usage: --before BEFORE_PKG --after AFTER_PKG");
const PKGS = { before: resolve(opts.before), after: resolve(opts.after) };
for (const dir of Object.values(PKGS)) if (!existsSync(join(dir, "package.json"))) throw new Error(`no package in ${dir}`);
const ROUNDS = Number(opts.rounds);
const MESSAGES = Number(opts.messages);
const ONLY = new Set(opts.only.split(","));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** The drain, as source: `Engine`, `ManualClock`, `Consumer` in scope. `drain(n, { ticker })` resolves with { ms, maxGap }. */
const DRAIN = `
async function drain(n, { ticker = false } = {}) {
  const engine = new Engine({ clock: new ManualClock(0), seed: 1 });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  for (let i = 0; i < n; i += 10) {
    engine.sendMessageBatch({ QueueUrl, Entries: Array.from({ length: 10 }, (_, j) => ({ Id: "e" + j, MessageBody: "m" + (i + j) })) });
  }
  let handled = 0;
  const consumer = new Consumer({ engine, queueUrl: QueueUrl, handleMessage: async () => void handled++ });
  let maxGap = 0;
  let maxBetween = 0;
  let ticking = ticker;
  if (ticker) {
    let last = performance.now();
    let lastHandled = 0;
    const tick = () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      maxBetween = Math.max(maxBetween, handled - lastHandled);
      last = now;
      lastHandled = handled;
      if (ticking) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
  }
  const t0 = performance.now();
  await new Promise((resolve) => {
    let processed = 0;
    consumer.on("processed", () => { if (++processed === n) resolve(); });
    consumer.start();
  });
  const ms = performance.now() - t0;
  ticking = false;
  await consumer.stop();
  engine.close();
  return { ms, maxGap, maxBetween };
}
`;

const results = {}; // runtime → which → [{ ms, maxGap }]
const record = (runtime, which, value) => {
  results[runtime] ??= { before: [], after: [] };
  results[runtime][which].push(value);
};
/** A sample: the median of its timed drains, and the timer chain's figures. */
const summarise = (runs, { maxGap = NaN, maxBetween = NaN }) => ({
  ms: median(runs.map((r) => r.ms)),
  cpuMs: median(runs.map((r) => r.cpuMs)),
  maxGap,
  maxBetween,
});
const orderOf = (round) => (round % 2 ? ["after", "before"] : ["before", "after"]);

if (ONLY.has("node")) {
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of orderOf(round)) {
      const script = `import { Engine, ManualClock, Consumer } from ${JSON.stringify(pathToFileURL(join(PKGS[which], "entry/node.js")).href)};
${DRAIN}
await drain(${Math.min(MESSAGES, 1000)});
const runs = [];
for (let i = 0; i < 3; i++) {
  const cpu0 = process.cpuUsage();
  const { ms } = await drain(${MESSAGES});
  const cpu = process.cpuUsage(cpu0);
  runs.push({ ms, cpuMs: (cpu.user + cpu.system) / 1000 });
}
process.stdout.write(JSON.stringify({ runs, ticker: await drain(${MESSAGES}, { ticker: true }) }));`;
      const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
      record("node", which, summarise(out.runs, out.ticker));
    }
  }
}

if (ONLY.has("chromium")) {
  const TYPES = { ".js": "text/javascript", ".html": "text/html", ".wasm": "application/wasm", ".json": "application/json" };
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
import { init, Engine, ManualClock, Consumer } from "./entry/browser.js";
${DRAIN}
await init();
window.drain = drain;
window.ready = true;
</script>`;
  const server = createServer((req, res) => {
    const [, which, ...rest] = new URL(req.url, "http://x").pathname.split("/");
    const root = PKGS[which];
    if (!root) return res.writeHead(404).end();
    if (rest.join("/") === "bench.html") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    const file = resolve(root, decodeURIComponent(rest.join("/")));
    if (!file.startsWith(root + sep) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const tabs = {};
    for (const which of ["before", "after"]) {
      tabs[which] = await (await browser.newContext()).newPage();
      await tabs[which].goto(`http://127.0.0.1:${server.address().port}/${which}/bench.html`);
      await tabs[which].waitForFunction(() => window.ready === true);
    }
    // The renderer's main-thread CPU time: CDP's TaskDuration, measured in thread ticks.
    const cdps = {};
    for (const which of ["before", "after"]) {
      cdps[which] = await tabs[which].context().newCDPSession(tabs[which]);
      await cdps[which].send("Performance.enable", { timeDomain: "threadTicks" });
    }
    const taskSeconds = async (cdp) => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value;
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of orderOf(round)) {
        const [tab, cdp] = [tabs[which], cdps[which]];
        await tab.bringToFront();
        await tab.evaluate((n) => window.drain(n), Math.min(MESSAGES, 1000));
        const runs = [];
        for (let i = 0; i < 3; i++) {
          const cpu0 = await taskSeconds(cdp);
          const { ms } = await tab.evaluate((n) => window.drain(n), MESSAGES);
          runs.push({ ms, cpuMs: ((await taskSeconds(cdp)) - cpu0) * 1000 });
        }
        const ticker = await tab.evaluate((n) => window.drain(n, { ticker: true }), MESSAGES);
        record("chromium", which, summarise(runs, ticker));
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
}

if (ONLY.has("workerd")) {
  const { Miniflare } = await import("miniflare");
  // workerd runs in a process of its own: its CPU time is read from /proc (Linux).
  const children = () =>
    new Set(readdirSync(`/proc/${process.pid}/task`).flatMap((t) => readFileSync(`/proc/${process.pid}/task/${t}/children`, "utf8").split(/\s+/).filter(Boolean)));
  const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));
  const cpuMsOf = (pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1000; // utime + stime
  };
  const workers = {};
  const pids = {};
  for (const which of ["before", "after"]) {
    const dir = PKGS[which];
    const script = `import { Engine, ManualClock, Consumer } from "./entry/workerd.js";
${DRAIN}
export default { async fetch(request) {
  const n = Number(new URL(request.url).searchParams.get("n"));
  if (n > 0) await drain(n);
  return new Response("ok");
} };`;
    const had = children();
    workers[which] = new Miniflare({
      modulesRoot: dir,
      modules: [
        { type: "ESModule", path: join(dir, "bench-consumer-worker.js"), contents: script },
        { type: "ESModule", path: join(dir, "entry/workerd.js") },
        { type: "ESModule", path: join(dir, "chunks/workerd.js") },
        { type: "CompiledWasm", path: join(dir, "wasq_bg.wasm") },
      ],
      compatibilityDate: "2026-07-30",
    });
    await workers[which].ready;
    pids[which] = [...children()].filter((pid) => !had.has(pid));
  }
  /** Wall and workerd CPU ms of one request that drains n messages (0: the request alone). */
  const timed = async (which, n) => {
    const cpu0 = pids[which].reduce((sum, pid) => sum + cpuMsOf(pid), 0);
    const t0 = performance.now();
    const res = await workers[which].dispatchFetch(`http://bench.local/?n=${n}`);
    if ((await res.text()) !== "ok") throw new Error(`worker answered ${res.status}`);
    const ms = performance.now() - t0;
    return { ms, cpuMs: pids[which].reduce((sum, pid) => sum + cpuMsOf(pid), 0) - cpu0 };
  };
  try {
    for (const which of ["before", "after"]) await timed(which, Math.min(MESSAGES, 1000));
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of orderOf(round)) {
        const base = [await timed(which, 0), await timed(which, 0), await timed(which, 0)];
        const runs = [await timed(which, MESSAGES), await timed(which, MESSAGES), await timed(which, MESSAGES)];
        const less = (key) => median(base.map((r) => r[key]));
        record("workerd", which, summarise(runs.map((r) => ({ ms: r.ms - less("ms"), cpuMs: r.cpuMs - less("cpuMs") })), {}));
      }
    }
  } finally {
    for (const mf of Object.values(workers)) await mf.dispose();
  }
}

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "–");
console.log(`Consumer drain of ${MESSAGES} messages, no-op handler, ManualClock; medians of ${ROUNDS} rounds (each the median of 3 drains)`);
console.log(`before: ${PKGS.before}\nafter:  ${PKGS.after}\n`);
console.log("| runtime | wall ms, before → after | ratio (rounds' min–max) | CPU ms, before → after | ratio (rounds' min–max) | a 0 ms timer's longest wait, ms | messages handled in it |");
console.log("|---|---|---|---|---|---|---|");
for (const [runtime, r] of Object.entries(results)) {
  const cell = (key) => {
    const ratios = r.before.map((b, i) => r.after[i][key] / b[key]);
    return [
      `${fmt(median(r.before.map((x) => x[key])))} → ${fmt(median(r.after.map((x) => x[key])))}`,
      `**${fmt(median(ratios), 2)}** (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
    ];
  };
  const span = (key, digits) => `${fmt(median(r.before.map((x) => x[key])), digits)} → ${fmt(median(r.after.map((x) => x[key])), digits)}`;
  console.log(`| ${runtime} | ${[...cell("ms"), ...cell("cpuMs"), span("maxGap", 1), span("maxBetween", 0)].join(" | ")} |`);
}
const samples = (key) => Object.fromEntries(Object.entries(results).map(([k, r]) => [k, [r.before.map((x) => Math.round(x[key])), r.after.map((x) => Math.round(x[key]))]]));
console.log(`\nsamples, before | after: wall ${JSON.stringify(samples("ms"))}; CPU ${JSON.stringify(samples("cpuMs"))}`);
