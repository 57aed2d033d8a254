// The playground's load on a phone-class profile, as a mobile audit sets it: Chromium with 4×
// CPU slowdown, 1.6 Mbit/s down, 750 kbit/s up and 150 ms round trips, an empty cache. Measures
// the time from navigation to the first message card on screen (a scenario opened by link), and
// the bytes transferred, for two ways in:
//
//   page:    the package's www/index.html, served by the package's own `wasq serve`
//   element: <wasq-playground scenario=…> in a plain docs page (one script tag, no preload hints),
//            from the package's www/element.js
//
// for this tree's package (pkg/, `make pkg`) and, with --before, another built package side by
// side (main's `make pkg`, copied): rounds alternate between the two, and medians are printed.
//
//   node bench/page-load.mjs [--before <built package dir>] [--rounds 5] [--trace]
//
// --trace prints each build's last round as a waterfall (every request's start and end, ms since
// navigation, and its bytes), to find request chains on the critical path.
// Needs /usr/bin/chromium.

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const REPO = resolve(import.meta.dirname, "..");
const BEFORE = opt("--before", null);
const ROUNDS = Number(opt("--rounds", 5));
const TRACE = args.includes("--trace");
const QUERY = "?scenario=fifo-two-groups&step=1";

/** The package's own `wasq serve`: its www/ at /, the package at /pkg/, compressed as browsers accept. */
function serve(pkg) {
  const child = spawn(process.execPath, [join(pkg, "bin/wasq.mjs"), "serve", "--memory", "--port", "0", "--www", join(pkg, "www")], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((ok, fail) => {
    let out = "";
    let found = false;
    child.stdout.on("data", (c) => {
      out += c;
      const m = /playground at (http:\/\/\S+?)\/?\n/.exec(out);
      if (m && !found) {
        found = true;
        const url = `${m[1]}/`;
        // The server compresses the wasm once, when it starts (brotli's best takes seconds on a
        // busy machine): the first round must not wait for it when the other build's does not.
        const warm = (encoding) => fetch(`${url}pkg/wasq_bg.wasm`, { headers: { "accept-encoding": encoding } }).then((r) => r.arrayBuffer());
        Promise.all([warm("br"), warm("gzip")]).then(() => ok({ url, close: () => child.kill("SIGTERM") }), fail);
      }
    });
    child.once("exit", (code) => fail(new Error(`wasq serve exited ${code}: ${out}`)));
  });
}

const ELEMENT_PAGE = `<!doctype html><meta name="viewport" content="width=device-width"><title>docs</title>
<script type="module" src="/pkg/www/element.js"></script><h1>A docs page</h1>
<wasq-playground scenario="fifo-two-groups" step="1"></wasq-playground>`;

async function load(browser, url, { element }) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  let bytes = 0;
  const requests = new Map();
  cdp.on("Network.requestWillBeSent", (e) => requests.set(e.requestId, { url: e.request.url, start: e.timestamp }));
  cdp.on("Network.loadingFinished", (e) => {
    bytes += e.encodedDataLength;
    const r = requests.get(e.requestId);
    if (r) Object.assign(r, { end: e.timestamp, bytes: e.encodedDataLength });
  });
  const t0 = Date.now();
  if (element) {
    await page.route(url + "docs.html", (route) => route.fulfill({ contentType: "text/html", body: ELEMENT_PAGE }));
    await page.goto(url + "docs.html", { waitUntil: "commit", timeout: 60_000 });
    await page.waitForSelector("wasq-playground >> #lanes .card", { timeout: 60_000 });
  } else {
    await page.goto(url + QUERY, { waitUntil: "commit", timeout: 60_000 });
    await page.waitForSelector("#lanes .card", { timeout: 60_000 });
  }
  const ms = Date.now() - t0;
  await context.close();
  return { ms, bytes, requests: [...requests.values()] };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
const builds = { after: await serve(resolve(REPO, "pkg")) };
if (BEFORE) builds.before = await serve(resolve(BEFORE));
const runs = {};
for (let i = 0; i < ROUNDS; i++) {
  for (const [build, server] of Object.entries(builds)) {
    for (const element of [false, true]) {
      const name = `${build} ${element ? "element" : "page"}`;
      (runs[name] ??= []).push(await load(browser, server.url, { element }));
    }
  }
}
for (const [name, rs] of Object.entries(runs)) {
  console.log(JSON.stringify({ build: name, rounds: rs.length, firstCardMs: median(rs.map((r) => r.ms)), transferredKB: Math.round(median(rs.map((r) => r.bytes)) / 1024), all: rs.map((r) => r.ms) }));
}
if (BEFORE) {
  for (const way of ["page", "element"]) {
    const m = (build) => median(runs[`${build} ${way}`].map((r) => r.ms));
    // Also the median of each round's own ratio: a round the machine's load slowed slows both.
    const paired = median(runs[`after ${way}`].map((r, i) => r.ms / runs[`before ${way}`][i].ms));
    console.log(`${way}: after ÷ before ${(m("after") / m("before")).toFixed(2)} (medians), ${paired.toFixed(2)} (median of the rounds' ratios)`);
  }
}
if (TRACE) {
  for (const [name, rs] of Object.entries(runs)) {
    const { requests, ms } = rs[rs.length - 1];
    const t0 = Math.min(...requests.map((r) => r.start));
    console.log(`${name} (first card at ${ms} ms):`);
    for (const r of requests.sort((a, b) => a.start - b.start)) {
      const at = (t) => (t === undefined ? "    -" : String(Math.round((t - t0) * 1000)).padStart(5));
      console.log(`  ${at(r.start)} → ${at(r.end)} ms ${String(((r.bytes ?? 0) / 1024).toFixed(1)).padStart(6)} KB  ${new URL(r.url).pathname}`);
    }
  }
}
for (const s of Object.values(builds)) s.close();
await browser.close();
