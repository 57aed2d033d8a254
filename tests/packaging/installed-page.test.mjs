// The playground page as it ships in the npm package, opened in Chromium with no `?pkg=`: the
// packed tarball installed into an empty project, its `node_modules/wasq/www/` served by a plain
// static server (what a reader does with `npx http-server` or a docs site's public folder), and
// `npx wasq serve` (page at `/`, package at `/pkg/`). Each must find the package it ships in,
// draw cards, and log no console error (a root tried and not found is a 404 in the console).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const repo = fileURLToPath(new URL("../../", import.meta.url));
let work;
let project;
let browser;
const children = new Set();

before(async () => {
  if (!existsSync(join(repo, "pkg", "package.json"))) throw new Error("no built package: run `make pkg` first");
  work = mkdtempSync(join(tmpdir(), "wasq-installed-page-"));
  const out = JSON.parse(execFileSync("npm", ["pack", join(repo, "pkg"), "--pack-destination", work, "--json"], { encoding: "utf8" }));
  project = join(work, "app");
  execFileSync("mkdir", [project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(work, out[0].filename)], { cwd: project, encoding: "utf8" });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
});

after(async () => {
  await browser?.close();
  for (const pid of children) {
    try {
      process.kill(-pid, "SIGTERM");
    } catch {}
  }
  rmSync(work, { recursive: true, force: true });
});

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm" };

/** A plain static file server over `root` (no rewriting, no knowledge of wasq); 404 for anything missing. */
function staticServer(root) {
  const server = createServer(async (req, res) => {
    let file = resolve(root, "." + decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (file !== root && !file.startsWith(root + sep)) return res.writeHead(403).end();
    try {
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })));
}

function wasqServe() {
  const child = spawn("npx", ["--no-install", "wasq", "serve", "--port", "0", "--memory"], { cwd: project, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.add(child.pid);
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (out += d));
  return new Promise((ok, fail) => {
    child.stdout.on("data", () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok({ url: m[1], close: () => process.kill(-child.pid, "SIGTERM") });
    });
    child.once("exit", (code) => fail(new Error(`npx wasq serve exited with ${code}: ${out}`)));
  });
}

/** Open `url` in Chromium, wait for the page to be ready (or to report an error); what it shows and logs. */
async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true" || !document.querySelector("#page-error")?.hidden, null, { timeout: 30_000 });
  const shown = await page.evaluate(() => ({
    error: document.querySelector("#page-error")?.hidden === false ? document.querySelector("#page-error").textContent : null,
    cards: [...document.querySelectorAll("#lanes .card")].filter((c) => c.getClientRects().length > 0).length,
    wasm: performance.getEntriesByType("resource").filter((r) => r.name.endsWith("/wasq_bg.wasm")).map((r) => new URL(r.name).pathname),
  }));
  await page.close();
  return { ...shown, problems };
}

test("the installed package's page, served as static files, finds the package it ships in with no ?pkg=", { timeout: 120_000 }, async () => {
  const server = await staticServer(project);
  try {
    const shown = await open(`${server.url}/node_modules/wasq/www/?scenario=visibility&step=1`);
    assert.equal(shown.error, null);
    assert.ok(shown.cards > 0, "cards are drawn");
    assert.deepEqual(shown.wasm, ["/node_modules/wasq/wasq_bg.wasm"], "the wasm of the package the page is in, asked for once");
    assert.deepEqual(shown.problems, []);
  } finally {
    server.close();
  }
});

test("npx wasq serve's page (at /, the package at /pkg/) still finds it with no failed request", { timeout: 120_000 }, async () => {
  const server = await wasqServe();
  try {
    const shown = await open(`${server.url}/?scenario=visibility&step=1`);
    assert.equal(shown.error, null);
    assert.ok(shown.cards > 0, "cards are drawn");
    assert.deepEqual(shown.wasm, ["/pkg/wasq_bg.wasm"]);
    assert.deepEqual(shown.problems, []);
  } finally {
    server.close();
  }
});
