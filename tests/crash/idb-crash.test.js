// The crash workload on IndexedDbStorage in real Chromium: the whole browser (every process of
// it) is SIGKILLed with a call in flight, restarted on the same profile, and the engine rebuilt
// from IndexedDB must hold every acknowledged call (see workload.js for the checks).
//
// WASQ_IDB_CRASH_KILLS (default 15); WASQ_CRASH_SEED (default 1); CHROMIUM (default /usr/bin/chromium).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { rng, Model, nextOp, command, applyAck, checkAndResolve } from "./workload.js";

const KILLS = Number(process.env.WASQ_IDB_CRASH_KILLS ?? 15);
const SEED = Number(process.env.WASQ_CRASH_SEED ?? 1);
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ORIGIN = "http://wasq.test";
const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };

/** Files of the repository under a made-up origin, so IndexedDB has a stable origin and no server runs. */
async function serveRepo(route) {
  const url = new URL(route.request().url());
  const file = path.join(REPO, decodeURIComponent(url.pathname));
  if (!file.startsWith(REPO) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    return route.fulfill({ status: 404, body: "not found" });
  }
  return route.fulfill({
    status: 200,
    contentType: TYPES[path.extname(file)] ?? "application/octet-stream",
    body: fs.readFileSync(file),
  });
}

class BrowserLife {
  static async start(profile, start) {
    const life = new BrowserLife();
    // Launched by hand (not by Playwright) so the test owns the process group it kills.
    life.proc = spawn(
      CHROMIUM,
      ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        `--user-data-dir=${profile}`, "--remote-debugging-port=0", "about:blank"],
      { detached: true, stdio: ["ignore", "ignore", "pipe"] },
    );
    life.exited = new Promise((resolve) => life.proc.on("exit", resolve));
    const ws = await new Promise((resolve, reject) => {
      let err = "";
      life.proc.stderr.on("data", (d) => {
        err += d;
        const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      life.proc.on("exit", () => reject(new Error(`chromium exited:\n${err}`)));
    });
    life.browser = await chromium.connectOverCDP(ws);
    const context = life.browser.contexts()[0];
    await context.route(`${ORIGIN}/**`, serveRepo);
    life.page = context.pages()[0] ?? (await context.newPage());
    await life.page.goto(`${ORIGIN}/tests/crash/idb-page.html?start=${start}`);
    life.ready = await life.page.evaluate(() => window.wasqReady);
    return life;
  }

  request(cmd) {
    return this.page.evaluate((c) => window.run(c), cmd);
  }

  async kill() {
    process.kill(-this.proc.pid, "SIGKILL");
    await this.exited;
    await this.browser.close().catch(() => {});
  }
}

test(`IndexedDB crash: ${KILLS} browser SIGKILLs lose no acknowledged operation`, { timeout: 600_000 }, async () => {
  const r = rng(SEED * 7919);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-idb-crash-"));
  const model = new Model();
  let acked = 0;
  let life = await BrowserLife.start(profile, model.now);
  try {
    for (const [key, name, attrs] of [["std", "std", {}], ["fifo", "fifo.fifo", { FifoQueue: "true" }]]) {
      const reply = await life.request({ op: "call", action: "CreateQueue", params: { QueueName: name, Attributes: attrs } });
      assert.ok(reply.ok, JSON.stringify(reply.error));
      model.queues[key] = reply.result.QueueUrl;
    }
    for (let kill = 0; kill < KILLS; kill++) {
      const ops = 1 + r.int(12);
      for (let i = 0; i < ops; i++) {
        const op = nextOp(model, r);
        if (op.kind === "advance") model.now += op.ms;
        applyAck(model, op, await life.request(command(op)));
        acked++;
      }
      // A call in flight, the browser killed a random moment later: in doubt, either outcome allowed.
      const victim = nextOp(model, r);
      if (victim.kind === "advance") model.now += victim.ms;
      life.request(command(victim)).catch(() => {});
      model.victim = victim;
      await new Promise((resolve) => setTimeout(resolve, r.int(20)));
      await life.kill();
      life = await BrowserLife.start(profile, model.now);
      const peeks = {};
      for (const queue of ["std", "fifo"]) {
        const reply = await life.request({ op: "peek", queueUrl: model.queues[queue] });
        assert.ok(reply.ok, JSON.stringify(reply.error));
        peeks[queue] = reply.result;
      }
      try {
        checkAndResolve(model, peeks);
      } catch (err) {
        err.message = `after browser kill ${kill}: ${err.message}`;
        throw err;
      }
    }
    console.log(`# IndexedDB crash: ${KILLS} kills, ${acked} acknowledged calls, ${model.msgs.size} messages sent`);
    assert.ok(model.msgs.size > 0);
  } finally {
    await life.kill().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
});
