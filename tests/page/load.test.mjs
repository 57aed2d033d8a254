// How the page and the element load, in real Chromium: the package's wasm (most of the bytes) is
// asked for without waiting on the page's stylesheet or the playground's module graph, and a link
// to a scenario step is replayed without drawing each action. The load time itself is a figure
// (bench/page-load.mjs, BENCHMARKS.md), not an assertion: these check the order of requests that
// makes it, by holding one response back and seeing whether the wasm is asked for meanwhile.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pageSuite, newPage } from "./helpers.mjs";

const suite = pageSuite();

// How long held responses wait for the expected requests before the test gives up (a bound on
// requests that, before the fix, were never made while the responses were held; not a measurement).
const BOUND_MS = 15_000;

/**
 * Opens `path`, holding back every response whose path matches `held` until each path in
 * `expected` has been asked for (or BOUND_MS passed). Returns the paths requested before the
 * held responses were let go: what did not have to wait for them.
 */
async function loadHolding(path, held, expected, { ready, html } = {}) {
  const page = await newPage(suite.browser, { width: 700, height: 900 });
  const url = new URL(path, suite.url).href;
  if (html) await page.route(url, (route) => route.fulfill({ contentType: "text/html", body: html }));
  const before = [];
  const all = [];
  let released = false;
  let allAsked;
  const asked = new Promise((resolve) => { allAsked = resolve; });
  page.on("request", (req) => {
    all.push(new URL(req.url()).pathname);
    if (released) return;
    before.push(new URL(req.url()).pathname);
    if (expected.every((p) => before.includes(p))) allAsked();
  });
  const bound = new Promise((resolve) => setTimeout(resolve, BOUND_MS));
  await page.route((u) => held.test(u.pathname), async (route) => {
    await Promise.race([asked, bound]);
    released = true;
    await route.continue();
  });
  await page.goto(url);
  await page.waitForSelector(ready, { timeout: 60_000 });
  await page.context().close();
  return { before, all, problems: page.problems };
}

test("the page asks for the wasm and package.json while its stylesheet is still on its way", async () => {
  const expected = ["/pkg/wasq_bg.wasm", "/pkg/package.json"];
  const { before, all, problems } = await loadHolding("?scenario=fifo-two-groups&step=1", /^\/style\.css$/, expected, { ready: "#lanes .card" });
  for (const path of expected) assert.ok(before.includes(path), `${path}: requested before style.css arrived: ${before.join(" ")}`);
  // Once each: the loader takes the responses the page's head asked for.
  for (const path of expected) assert.equal(all.filter((p) => p === path).length, 1, `${path} requests: ${all.join(" ")}`);
  assert.deepEqual(problems, []);
});

test("<wasq-playground> in a plain page, with no preload hints: the wasm, the entry and the stylesheet's module are asked for while the playground's modules are on their way", async () => {
  // The docs page of www/README.md, as an author writes it: one script tag and the element.
  const html = `<!doctype html><title>docs</title><script type="module" src="/pkg/www/element.js"></script>
<h1>Docs</h1><wasq-playground scenario="fifo-two-groups" step="1"></wasq-playground>`;
  // Every module of the playground but element.js itself (and style.css.js, the stylesheet).
  const modules = /^\/pkg\/www\/(?!element\.js$)[\w-]+\.js$/;
  // The element's package is the one it ships in: its wasm and entry are known without package.json.
  const expected = ["/pkg/wasq_bg.wasm", "/pkg/entry/browser.js", "/pkg/www/style.css.js", "/pkg/www/app.js", "/pkg/www/lanes.js"];
  const { before, problems } = await loadHolding("docs/load.html", modules, expected, { html, ready: "wasq-playground >> #lanes .card" });
  for (const path of expected) assert.ok(before.includes(path), `${path}: requested before the modules arrived: ${before.join(" ")}`);
  assert.deepEqual(problems, []);
});

test("the page and the element ask for the package's entry while package.json is still on its way", async () => {
  // The entry used to be asked for only once package.json (and loader.js) had arrived: a round
  // trip after the wasm, and on a phone the last request to arrive.
  const expected = ["/pkg/entry/browser.js"];
  const page = await loadHolding("?scenario=fifo-two-groups&step=1", /^\/pkg\/package\.json$/, expected, { ready: "#lanes .card" });
  assert.ok(page.before.includes("/pkg/entry/browser.js"), `the page: ${page.before.join(" ")}`);
  assert.equal(page.all.filter((p) => p === "/pkg/entry/browser.js").length, 1, `entry requests: ${page.all.join(" ")}`);
  assert.deepEqual(page.problems, []);
  const html = `<!doctype html><title>docs</title><script type="module" src="/pkg/www/element.js"></script>
<h1>Docs</h1><wasq-playground scenario="fifo-two-groups" step="1"></wasq-playground>`;
  const element = await loadHolding("docs/entry.html", /^\/pkg\/package\.json$/, expected, { html, ready: "wasq-playground >> #lanes .card" });
  assert.ok(element.before.includes("/pkg/entry/browser.js"), `the element: ${element.before.join(" ")}`);
  assert.deepEqual(element.problems, []);
});

/**
 * Opens `path` (with `html` as its body, if given) holding the package's entry back until the whole
 * wasm has arrived, and returns the streaming compiles started by then: one that waits for the
 * entry (as wasm-bindgen's init does, given a Response) has not started.
 */
async function compilesBeforeEntry(path, ready, html) {
  const page = await newPage(suite.browser, { width: 700, height: 900 });
  await page.addInitScript(() => {
    window.streamingCompiles = [];
    for (const name of ["compileStreaming", "instantiateStreaming"]) {
      const original = WebAssembly[name];
      WebAssembly[name] = function (source, ...rest) {
        window.streamingCompiles.push(name);
        return original.call(this, source, ...rest);
      };
    }
  });
  const url = new URL(path, suite.url).href;
  if (html) await page.route(url, (route) => route.fulfill({ contentType: "text/html", body: html }));
  let wasmDone;
  const wasmArrived = new Promise((resolve) => { wasmDone = resolve; });
  page.on("requestfinished", (req) => { if (new URL(req.url()).pathname === "/pkg/wasq_bg.wasm") wasmDone(); });
  let started = null;
  await page.route((u) => u.pathname === "/pkg/entry/browser.js", async (route) => {
    await Promise.race([wasmArrived, new Promise((resolve) => setTimeout(resolve, BOUND_MS))]);
    started = await page.evaluate(() => [...window.streamingCompiles]);
    await route.continue();
  });
  await page.goto(url);
  await page.waitForSelector(ready, { timeout: 60_000 });
  await page.context().close();
  return { started, problems: page.problems };
}

test("the wasm is compiled as it arrives, not once the package's entry has: the page and the element", async () => {
  const page = await compilesBeforeEntry("?scenario=fifo-two-groups&step=1", "#lanes .card");
  assert.deepEqual(page.started, ["compileStreaming"], "the page");
  assert.deepEqual(page.problems, []);
  const html = `<!doctype html><title>docs</title><script type="module" src="/pkg/www/element.js"></script>
<h1>Docs</h1><wasq-playground scenario="fifo-two-groups" step="1"></wasq-playground>`;
  const element = await compilesBeforeEntry("docs/compile.html", "wasq-playground >> #lanes .card", html);
  assert.deepEqual(element.started, ["compileStreaming"], "the element");
  assert.deepEqual(element.problems, []);
});

test("a host that labels the wasm other than application/wasm still gets the playground", async () => {
  // Streaming compiles need the type; without it the loader asks again and compiles once all of
  // it is in.
  const page = await newPage(suite.browser, { width: 700, height: 900 });
  let relabelled = 0;
  await page.route((u) => u.pathname === "/pkg/wasq_bg.wasm", async (route) => {
    const response = await route.fetch();
    relabelled++;
    await route.fulfill({ response, headers: { ...response.headers(), "content-type": "application/octet-stream" } });
  });
  await page.goto(new URL("?scenario=fifo-two-groups&step=1", suite.url).href);
  await page.waitForSelector("html[data-ready=true]", { timeout: 60_000 });
  assert.ok(relabelled >= 1);
  assert.ok(await page.locator("#lanes .card").count() > 0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a link to a scenario step is replayed without drawing each action: no card moves on load", async () => {
  const page = await newPage(suite.browser, { width: 1280, height: 900 });
  // Step 1 of fifo-two-groups: four messages sent, then m1 received, so it is in flight on arrival.
  await page.goto(new URL("?scenario=fifo-two-groups&step=1", suite.url).href);
  await page.waitForSelector("html[data-ready=true]");
  const { moves, lane } = await page.evaluate(() => ({
    moves: window.wasq.moves,
    lane: document.querySelector(`#lanes .card[data-id="${window.wasq.playground.ids.get("m1")}"]`).dataset.lane,
  }));
  assert.equal(lane, "inflight");
  // Drawn once at the end: a card drawn in Stored and then moved to In flight (a FLIP, and a
  // forced layout for each render) is a state the reader never asked to see.
  assert.equal(moves, 0);
  // The next step still animates its move.
  await page.evaluate(() => window.wasq.nextStep());
  assert.equal(await page.evaluate(() => window.wasq.moves), 1);
  await page.context().close();
});
