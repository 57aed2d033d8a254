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
