// The playground page as it ships in the npm package, opened in Chromium with no `?pkg=`: the
// packed tarball installed into an empty project, its `node_modules/wasq/www/` served by a plain
// static server (what a reader does with `npx http-server` or a docs site's public folder), and
// `npx wasq serve` (page at `/`, package at `/pkg/`). Each must find the package it ships in,
// draw cards, and log no console error (a root tried and not found is a 404 in the console).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { installPackedPackage, launch, newPage, startWasqServe } from "../page/helpers.mjs";
import { startStaticServer } from "../page/server.mjs";

let work;
let project;
let browser;

before(async () => {
  ({ work, project } = installPackedPackage("app"));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Open `url` in Chromium, wait for the page to be ready (or to report an error); what it shows and logs. */
async function open(url) {
  const page = await newPage(browser, { width: 1280, height: 800 });
  page.on("response", (r) => r.status() >= 400 && page.problems.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true" || !document.querySelector("#page-error")?.hidden, null, { timeout: 30_000 });
  const shown = await page.evaluate(() => ({
    error: document.querySelector("#page-error")?.hidden === false ? document.querySelector("#page-error").textContent : null,
    cards: [...document.querySelectorAll("#lanes .card")].filter((c) => c.getClientRects().length > 0).length,
    wasm: performance.getEntriesByType("resource").filter((r) => r.name.endsWith("/wasq_bg.wasm")).map((r) => new URL(r.name).pathname),
  }));
  await page.context().close();
  return { ...shown, problems: page.problems };
}

test("the installed package's page, served as static files, finds the package it ships in with no ?pkg=", { timeout: 120_000 }, async () => {
  // A plain static server over the project (no rewriting, no knowledge of wasq).
  const server = await startStaticServer(project, [["/", project]]);
  try {
    const shown = await open(new URL("node_modules/wasq/www/?scenario=visibility&step=1", server.url).href);
    assert.equal(shown.error, null);
    assert.ok(shown.cards > 0, "cards are drawn");
    assert.deepEqual(shown.wasm, ["/node_modules/wasq/wasq_bg.wasm"], "the wasm of the package the page is in, asked for once");
    assert.deepEqual(shown.problems, []);
  } finally {
    server.close();
  }
});

test("npx wasq serve's page (at /, the package at /pkg/) still finds it with no failed request", { timeout: 120_000 }, async () => {
  const server = await startWasqServe({ command: ["npx", "--no-install", "wasq"], cwd: project });
  try {
    const shown = await open(`${server.url}/?scenario=visibility&step=1`);
    assert.equal(shown.error, null);
    assert.ok(shown.cards > 0, "cards are drawn");
    assert.deepEqual(shown.wasm, ["/pkg/wasq_bg.wasm"]);
    assert.deepEqual(shown.problems, []);
  } finally {
    await server.close();
  }
});
