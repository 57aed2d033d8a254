// Shared by the page tests: browser launch, the page's address, `wasq serve` started for a test,
// the before/after of a suite, and the consistency check that compares what the page draws with
// what the engine says.
import { before, after } from "node:test";
import { chromium } from "playwright-core";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startStaticServer } from "./server.mjs";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const ARTIFACTS = resolve(REPO, "tests/artifacts/page");
mkdirSync(ARTIFACTS, { recursive: true });

/** Chromium as the page tests run it; `extraArgs` are added to its command line. */
export async function launch(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", ...extraArgs],
  });
}

/**
 * A suite's page server and browser, started before its tests and closed after them. The fields
 * are filled in by the `before` hook, so read them inside tests: `suite.browser`, `suite.url`
 * (the page's address, ending in `/`), and `suite.open(query, options)`, `openPage` on that address.
 */
export function pageSuite() {
  const suite = {
    browser: undefined,
    server: undefined,
    get url() { return suite.server.url; },
    open: (query = "", options) => openPage(suite.browser, suite.server.url, query, options),
  };
  before(async () => {
    suite.server = await pageServer();
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}

/**
 * Where the page is served from, in order: WASQ_PAGE_URL (a server someone else runs);
 * `wasq serve --memory --www www/` from the built package, as readers get it; or, when testing a
 * package built elsewhere (WASQ_PKG_DIR) or before the package has its server, a static server
 * with the same layout (page at `/`, package at `/pkg/`).
 */
export async function pageServer() {
  if (process.env.WASQ_PAGE_URL) return { url: process.env.WASQ_PAGE_URL, close: async () => {} };
  const cli = resolve(REPO, "pkg/bin/wasq.mjs");
  if (!process.env.WASQ_PKG_DIR && existsSync(cli)) {
    const serve = await startWasqServe({ args: ["--www", resolve(REPO, "www")] });
    return { url: `${serve.url}/`, close: serve.close };
  }
  return startStaticServer(REPO);
}

// Servers still running when the test process exits (a test that timed out before its own
// `close()`) are stopped then, so that none outlives the run.
const running = new Set();
process.once("exit", () => {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGTERM");
    } catch {} // already gone
  }
});

/**
 * Starts `<command> serve --memory --port 0 <args>` and resolves once it listens, with its
 * address (no trailing `/`) and `close()`, which stops it and waits for it to exit. `command`
 * defaults to the CLI of the package built in pkg/; an installed package's is
 * `["npx", "--no-install", "wasq"]` with `cwd` its project. The server runs in its own process
 * group so that `close()` also stops what a launcher such as npx started under it.
 */
export function startWasqServe({ command = [process.execPath, resolve(REPO, "pkg/bin/wasq.mjs")], args = [], cwd } = {}) {
  const [file, ...rest] = command;
  const child = spawn(file, [...rest, "serve", "--memory", "--port", "0", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  running.add(child.pid);
  const exited = new Promise((done) => child.once("exit", done));
  exited.then(() => running.delete(child.pid));
  let output = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8").on("data", (d) => { output += d; });
  return new Promise((ok, fail) => {
    // A bound on a server that neither listens nor exits (a hung start would hang the suite).
    const timer = setTimeout(() => fail(new Error(`wasq serve did not start:\n${output}`)), 30_000);
    child.stdout.on("data", (d) => {
      output += d;
      // The whole address: the line goes on after it, so a chunk cut inside it does not match.
      const m = /listening on (http:\/\/\S+?)\/? /.exec(output);
      if (!m) return;
      clearTimeout(timer);
      ok({
        url: m[1],
        close: async () => {
          try {
            process.kill(-child.pid, "SIGTERM");
          } catch {} // already gone
          await exited;
        },
      });
    });
    child.once("exit", (code) => { clearTimeout(timer); fail(new Error(`wasq serve exited (${code}):\n${output}`)); });
  });
}

/**
 * The built package (pkg/) packed by `npm pack` and installed by npm into a new, empty project
 * named `name`, as a reader installs it. Returns the temporary directory that holds both (remove
 * it when done) and the project's directory.
 */
export function installPackedPackage(name) {
  if (!existsSync(join(REPO, "pkg", "package.json"))) throw new Error("no built package: run `make pkg` first");
  const work = mkdtempSync(join(tmpdir(), `wasq-${name}-`));
  const packed = JSON.parse(execFileSync("npm", ["pack", join(REPO, "pkg"), "--pack-destination", work, "--json"], { encoding: "utf8" }));
  const project = join(work, name);
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name, private: true }));
  // The package has no dependencies: the install needs nothing but the tarball.
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(work, packed[0].filename)], { cwd: project, encoding: "utf8" });
  return { work, project };
}

/**
 * A page in a fresh browser context, recording its uncaught errors and console errors in
 * `page.problems` (a test asserts it empty). Close it with `page.context().close()`.
 */
export async function newPage(browser, { width = 1280, height = 900, reducedMotion } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, reducedMotion });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.problems = problems;
  return page;
}

/** The page at `query` relative to `base`, once it says it is ready (see `newPage`). */
export async function openPage(browser, base, query = "", options = {}) {
  const page = await newPage(browser, options);
  await page.goto(new URL(query, base).href);
  await page.waitForSelector("html[data-ready=true]", { timeout: 10000 });
  return page;
}

export async function settled(page) {
  await page.evaluate(() => window.wasq.settled());
}

/** A reader's click on the scenario's Next, and the page done drawing it. */
export async function clickNext(page) {
  await page.click("#scenario-next");
  await settled(page);
}

/**
 * Every mismatch between the page and the engine, as strings (empty when consistent):
 * the lane and group row of each card against engine.peek(), the counters against
 * GetQueueAttributes, and the FIFO group locks against peek().groups.
 * The lane rule is written out here on purpose, independently of the page's code.
 */
export async function mismatches(page) {
  return page.evaluate(() => {
    const { engine, playground } = window.wasq;
    const out = [];
    const name = playground.selected;
    if (!name) return out;
    const url = window.wasq.queueUrl(name);
    const peek = engine.peek(url);
    const attrs = engine.dispatch("GetQueueAttributes", { QueueUrl: url, AttributeNames: ["All"] }).Attributes;
    const laneOfState = {
      delayed: "delayed", stored: "stored", "in-flight": "inflight", deleted: "deleted", expired: "deleted",
      purged: "deleted", moved: "deleted", "dead-lettered": "dlq",
    };
    const expected = new Map();
    // A realism duplicate shares its original's message id; the page keys its card apart.
    const keyOf = (m) => (m.duplicateCopy ? `${m.messageId}·copy` : m.messageId);
    for (const m of peek.messages) expected.set(keyOf(m), { lane: laneOfState[m.state], group: m.groupId || "", state: m.state });
    if (attrs.RedrivePolicy) {
      const arn = JSON.parse(attrs.RedrivePolicy).deadLetterTargetArn;
      const dlqUrl = engine.dispatch("GetQueueUrl", { QueueName: arn.split(":").pop() }).QueueUrl;
      for (const m of engine.peek(dlqUrl).messages) expected.set(keyOf(m), { lane: "dlq", group: m.groupId || "", state: m.state });
    }
    const drawn = new Map();
    for (const card of document.querySelectorAll("#lanes .card")) {
      const cell = card.closest(".cell");
      const key = card.dataset.key ?? card.dataset.id;
      if (drawn.has(key)) out.push(`card ${key} drawn twice`);
      drawn.set(key, { lane: cell?.dataset.lane, group: cell?.dataset.group, state: card.dataset.state });
    }
    for (const [id, e] of expected) {
      const d = drawn.get(id);
      if (!d) { out.push(`${id} (${e.state}) has no card`); continue; }
      if (d.lane !== e.lane) out.push(`${id} (${e.state}) in lane ${d.lane}, expected ${e.lane}`);
      if (peek.queue.fifo && d.group !== e.group) out.push(`${id} in group row ${d.group}, expected ${e.group}`);
      if (d.state !== e.state) out.push(`${id} card says ${d.state}, engine says ${e.state}`);
    }
    for (const id of drawn.keys()) if (!expected.has(id)) out.push(`card ${id} is not in peek()`);
    for (const name of ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"]) {
      const shown = document.querySelector(`#counters [data-attr="${name}"] dd`)?.textContent;
      if (shown !== String(attrs[name])) out.push(`${name} shows ${shown}, GetQueueAttributes says ${attrs[name]}`);
    }
    for (const g of peek.groups || []) {
      const head = document.querySelector(`.group-head[data-group="${CSS.escape(g.groupId)}"]`);
      if (!head) out.push(`group ${g.groupId} has no row`);
      else if (head.dataset.locked !== String(g.locked)) out.push(`group ${g.groupId} lock shows ${head.dataset.locked}, engine ${g.locked}`);
    }
    return out;
  });
}

/** Each card's lane and position, to tell afterwards which cards moved. */
export async function cardPositions(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#lanes .card")].map((c) => {
    const anims = c.getAnimations().length;
    // Where the card is laid out, not where a running FLIP transform shows it.
    for (const a of c.getAnimations()) a.finish();
    const r = c.getBoundingClientRect();
    return [c.dataset.id, { lane: c.closest(".cell").dataset.lane, x: r.x + scrollX, y: r.y + scrollY, anims }];
  })));
}
