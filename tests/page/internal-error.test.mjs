// An internal error in the browser (issue #32, item 3): the same WasqInternalError as in Node,
// and the fresh wasm instance that replaces the stopped one is made in Chromium too (the
// package's browser entry, from the test package: scripts/build-test-pkg.sh).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { launch, REPO } from "./helpers.mjs";
import { startWasq } from "../clients/helpers.mjs";

const testBin = resolve(REPO, "target/pkg-test/bin/wasq.mjs");
if (!existsSync(testBin)) throw new Error(`no ${testBin}: run scripts/build-test-pkg.sh first`);

test("in Chromium, a panic stops its engine and a new engine over the same storage carries on", async () => {
  const server = await startWasq(["--memory"], { bin: testBin });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pkg/package.json`);
    const result = await page.evaluate(async () => {
      const { init, Engine, ManualClock, MemoryStorage } = await import("/pkg/entry/browser.js");
      await init();
      const storage = new MemoryStorage();
      const engine = new Engine({ clock: new ManualClock(0), storage });
      const { QueueUrl } = engine.createQueue({ QueueName: "q" });
      engine.sendMessage({ QueueUrl, MessageBody: "kept" });
      let first;
      try {
        engine.sendMessage({ QueueUrl, MessageBody: "wasq-test-panic" });
      } catch (err) {
        first = { name: err.name, location: err.panicLocation };
      }
      let later;
      try {
        engine.dispatch("ListQueues", {});
      } catch (err) {
        later = err.name;
      }
      const again = new Engine({ clock: new ManualClock(0), storage });
      const bodies = again.peek(QueueUrl).messages.map((m) => m.body);
      again.sendMessage({ QueueUrl, MessageBody: "after" });
      return { first, later, bodies, count: again.peek(QueueUrl).messages.length };
    });
    assert.equal(result.first?.name, "WasqInternalError");
    assert.match(result.first.location, /test_hooks\.rs:\d+:\d+/);
    assert.equal(result.later, "WasqInternalError");
    assert.deepEqual(result.bodies, ["kept"]);
    assert.equal(result.count, 2);
  } finally {
    await browser.close();
    await server.stop();
  }
});
