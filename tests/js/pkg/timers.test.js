import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { wasq, setup, START, pkgDir } from "./load.js";

const { Engine, ManualClock, SystemClock } = wasq;

test("ManualClock steps a 12-hour visibility timeout instantly", () => {
  const { clock, engine, QueueUrl } = setup({ VisibilityTimeout: "43200" });
  const events = [];
  engine.on("event", (e) => events.push(e));
  engine.sendMessage({ QueueUrl, MessageBody: "slow job" });
  const first = engine.dispatch("ReceiveMessage", { QueueUrl }).Messages[0];
  assert.equal(engine.nextDeadline(), START + 43_200_000);
  clock.advance(43_200_000 - 1);
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl }).Messages, undefined);
  clock.advance(1);
  // advance() itself applied the expiry: the event was published before any further call.
  assert.equal(events.at(-1).type, "visibility-expired");
  assert.equal(events.at(-1).at, START + 43_200_000);
  const again = engine.dispatch("ReceiveMessage", { QueueUrl, AttributeNames: ["ApproximateReceiveCount"] }).Messages[0];
  assert.equal(again.MessageId, first.MessageId);
  assert.equal(again.Attributes.ApproximateReceiveCount, "2");
});

test("ManualClock.set jumps forward and applies everything due in between", () => {
  const { clock, engine, QueueUrl } = setup({ VisibilityTimeout: "30" });
  const expired = [];
  engine.on("event", (e) => e.type === "visibility-expired" && expired.push(e.messageId));
  for (let i = 0; i < 3; i++) engine.sendMessage({ QueueUrl, MessageBody: String(i) });
  engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 });
  clock.set(START + 3_600_000);
  assert.equal(expired.length, 3);
});

test("SystemClock: one re-armed timer fires the visibility expiry with no further calls", async () => {
  const engine = new Engine({ clock: new SystemClock(), seed: 9 });
  const QueueUrl = engine.createQueue({ QueueName: "t", Attributes: { VisibilityTimeout: "1" } }).QueueUrl;
  engine.sendMessage({ QueueUrl, MessageBody: "x" });
  engine.dispatch("ReceiveMessage", { QueueUrl });
  const expired = new Promise((resolve) => engine.on("event", (e) => e.type === "visibility-expired" && resolve(Date.now())));
  // The engine's own timer is unref'd (deadlines alone must not keep a Node process alive).
  const keepAlive = setTimeout(() => {}, 5000);
  const t0 = Date.now();
  const at = await expired;
  clearTimeout(keepAlive);
  assert.ok(at - t0 >= 900 && at - t0 < 2000, `fired after ${at - t0} ms`);
  engine.close();
});

test("an aborted long poll (SystemClock) lets the Node process exit: Consumer.stop() does not hold it for WaitTimeSeconds", () => {
  // A pending poll keeps the process alive (its timer is ref'd); once aborted, nothing should.
  const script = `
    import { Engine, Consumer } from ${JSON.stringify(pkgDir + "entry/node.js")};
    const engine = new Engine({ seed: 1 });
    const QueueUrl = engine.createQueue({ QueueName: "idle" }).QueueUrl;
    const abort = new AbortController();
    const poll = engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 }, { signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    await poll.catch(() => {});
    const consumer = new Consumer({ engine, queueUrl: QueueUrl, handleMessage() {} }).start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await consumer.stop();
  `;
  const t0 = Date.now();
  execFileSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 10_000 });
  assert.ok(Date.now() - t0 < 5000, `the process exited after ${Date.now() - t0} ms`);
});

test("many deadlines share one timer (never one setTimeout per message)", () => {
  const engine = new Engine({ clock: new SystemClock(), seed: 9 });
  const QueueUrl = engine.createQueue({ QueueName: "many" }).QueueUrl;
  const real = globalThis.setTimeout;
  let armed = 0;
  globalThis.setTimeout = (...args) => {
    armed++;
    return real(...args);
  };
  try {
    for (let i = 0; i < 100; i++) engine.sendMessage({ QueueUrl, MessageBody: String(i), DelaySeconds: 60 + (i % 5) });
  } finally {
    globalThis.setTimeout = real;
  }
  assert.ok(armed <= 2, `armed ${armed} timers for 100 delayed messages`);
  engine.close();
});

test("timers: false leaves time to the host: nothing moves until tick()", async () => {
  let now = START;
  const engine = new Engine({ clock: { now: () => now }, seed: 4, timers: false });
  const QueueUrl = engine.createQueue({ QueueName: "do", Attributes: { VisibilityTimeout: "1" } }).QueueUrl;
  engine.sendMessage({ QueueUrl, MessageBody: "x" });
  engine.dispatch("ReceiveMessage", { QueueUrl });
  const events = [];
  engine.on("event", (e) => events.push(e.type));
  assert.equal(engine.nextDeadline(), START + 1000);
  now += 5000;
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(events, []);
  engine.tick();
  assert.deepEqual(events, ["visibility-expired"]);
  assert.equal(engine.nextDeadline() > now, true);
  engine.close();
});

test("a failed commit during a ManualClock tick reaches the caller of advance()", () => {
  let fail = false;
  const inner = new wasq.MemoryStorage();
  const storage = { loadAll: () => inner.loadAll(), commit: (b) => { if (fail) throw new Error("io"); inner.commit(b); } };
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, storage, seed: 1 });
  const QueueUrl = engine.createQueue({ QueueName: "q", Attributes: { VisibilityTimeout: "5" } }).QueueUrl;
  engine.sendMessage({ QueueUrl, MessageBody: "x" });
  engine.dispatch("ReceiveMessage", { QueueUrl });
  fail = true;
  assert.throws(() => clock.advance(10_000), /io/);
  fail = false;
  // Rebuilt from storage, the expiry is still due and applies on the next call.
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "x");
});

/** Run `body` in a child Node with `gc()` exposed and the package as `wasq`; returns its stdout. */
function withGc(body) {
  const script = `
    const wasq = await import(${JSON.stringify(pkgDir + "entry/node.js")});
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    async function collect(done) {
      for (let i = 0; i < 50 && !done(); i++) { gc(); await settle(); }
    }
    ${body}
  `;
  return execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    timeout: 20_000,
    encoding: "utf8",
  });
}

test("SystemClock: an engine nobody holds is collected, though its timer is armed days ahead", () => {
  // The timer on the message's retention (4 days) must not hold the engine: a test file that
  // forgets close() would keep every engine it made, and their wasm memory, until then.
  const out = withGc(`
    let collected = false;
    const registry = new FinalizationRegistry(() => { collected = true; });
    (() => {
      const engine = new wasq.Engine({ clock: new wasq.SystemClock(), seed: 1 });
      const { QueueUrl } = engine.createQueue({ QueueName: "left-open" });
      engine.sendMessage({ QueueUrl, MessageBody: "kept for days" });
      if (!(engine.nextDeadline() > Date.now() + 86_400_000)) throw new Error("no deadline days ahead");
      registry.register(engine, "engine");
    })();
    await collect(() => collected);
    console.log(collected ? "collected" : "kept");
  `);
  assert.equal(out.trim(), "collected");
});

test("SystemClock: a pending long poll holds its engine until it answers", () => {
  // Nothing but the poll's promise refers to the engine: the timer must hold it strongly, or the
  // poll would never end.
  const out = withGc(`
    let collected = false;
    const registry = new FinalizationRegistry(() => { collected = true; });
    const poll = (() => {
      const engine = new wasq.Engine({ clock: new wasq.SystemClock(), seed: 1 });
      const { QueueUrl } = engine.createQueue({ QueueName: "polled" });
      registry.register(engine, "engine");
      return engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 1 });
    })();
    // Collections all through the poll's second, not only at its start.
    let settled = false;
    poll.finally(() => { settled = true; });
    while (!settled && !collected) { gc(); await new Promise((resolve) => setTimeout(resolve, 20)); }
    const answer = await poll;
    console.log(collected ? "collected during the poll" : "answered " + (answer.Messages?.length ?? 0));
  `);
  assert.equal(out.trim(), "answered 0");
});
