// Shared by the page tests: browser launch, the page's address, and the consistency check that
// compares what the page draws with what the engine says.
import { chromium } from "playwright-core";
import { existsSync, mkdirSync } from "node:fs";
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startStaticServer } from "./server.mjs";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const ARTIFACTS = resolve(REPO, "tests/artifacts/page");
mkdirSync(ARTIFACTS, { recursive: true });

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
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
  if (!process.env.WASQ_PKG_DIR && existsSync(cli)) return startWasqServe(cli);
  return startStaticServer(REPO);
}

function startWasqServe(cli) {
  const child = spawn(process.execPath, [cli, "serve", "--memory", "--port", "0", "--www", resolve(REPO, "www")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`wasq serve did not start:\n${output}`)), 10000);
    const onData = (chunk) => {
      output += chunk;
      const m = /playground at (http:\/\/\S+?)\/?\n/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      ok({
        url: `${m[1]}/`,
        close: () => new Promise((done) => { child.once("exit", done); child.kill("SIGTERM"); }),
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (c) => { output += c; });
    child.once("exit", (code) => { clearTimeout(timer); fail(new Error(`wasq serve exited (${code}):\n${output}`)); });
  });
}

export async function openPage(browser, base, query = "", { width = 1280, height = 900, reducedMotion } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, reducedMotion });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  await page.goto(new URL(query, base).href);
  await page.waitForSelector("html[data-ready=true]", { timeout: 10000 });
  page.problems = problems;
  return page;
}

export async function settled(page) {
  await page.evaluate(() => window.wasq.settled());
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
