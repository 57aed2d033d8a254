// The Consumer on the built package's real Engine (pkg/, `make pkg`), on a ManualClock: the
// consumer's heartbeats follow engine.clock, and the engine's own long polls, visibility
// timeouts and FIFO group locks decide what it receives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, ManualClock, Consumer } from "../../../pkg/entry/node.js";
import { settle, until, deferred } from "./helpers.js";

function setup({ fifo = false } = {}) {
  const clock = new ManualClock(1_700_000_000_000);
  const engine = new Engine({ clock, seed: 7 });
  const { QueueUrl } = engine.createQueue({
    QueueName: fifo ? "work.fifo" : "work",
    Attributes: fifo ? { FifoQueue: "true", ContentBasedDeduplication: "true" } : {},
  });
  const send = (body, group) =>
    engine.sendMessage({ QueueUrl, MessageBody: body, ...(group && { MessageGroupId: group }) });
  const live = () =>
    engine.peek(QueueUrl).messages.filter((m) => ["stored", "in-flight", "delayed"].includes(m.state));
  return { clock, engine, queueUrl: QueueUrl, send, live };
}

async function step(clock, totalMs, stepMs) {
  for (let t = 0; t < totalMs; t += stepMs) {
    clock.advance(stepMs);
    await settle(5);
  }
}

test("Engine + Consumer: every message handled once and deleted", async () => {
  const env = setup();
  for (let i = 0; i < 12; i++) env.send(`m${i}`);
  const handled = [];
  const consumer = new Consumer({ engine: env.engine, queueUrl: env.queueUrl, handleMessage: async (m) => handled.push(m.Body) });
  const processed = [];
  consumer.on("processed", (m) => processed.push(m.Body));
  consumer.start();
  await until(() => processed.length === 12, "12 processed");
  await consumer.stop();
  assert.deepEqual(handled.sort(), Array.from({ length: 12 }, (_, i) => `m${i}`).sort());
  assert.deepEqual(env.live(), []);
  env.engine.close();
});

test("Engine + Consumer: heartbeats on engine.clock keep a slow message in flight with one receive", async () => {
  const env = setup();
  env.send("slow");
  const gate = deferred();
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    visibilityTimeout: 30,
    heartbeatInterval: 10,
    handleMessage: () => gate.promise,
  });
  consumer.start();
  await until(() => env.live()[0]?.state === "in-flight", "received");
  for (let i = 0; i < 24; i++) {
    await step(env.clock, 5_000, 5_000);
    const [m] = env.live();
    assert.equal(m.state, "in-flight", `in flight after ${(i + 1) * 5} s`);
    assert.equal(m.receiveCount, 1);
    assert.ok(m.visibleAt - env.clock.now() <= 30_000 && m.visibleAt > env.clock.now());
  }
  gate.resolve();
  await until(() => env.live().length === 0, "deleted");
  await consumer.stop();
  env.engine.close();
});

test("Engine + Consumer: failure backoff sets the visibility deadline from ApproximateReceiveCount", async () => {
  const env = setup();
  env.send("fails");
  const released = [];
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    handleMessage: async () => {
      throw new Error("handler failure");
    },
    releaseOnFailure: { backoff: (n) => 45 * n },
  });
  consumer.on("released", (m, s) => released.push(s));
  consumer.on("error", () => {});
  consumer.start();
  await until(() => released.length === 1);
  const [m] = env.live();
  assert.equal(m.state, "in-flight");
  assert.equal(m.visibleAt, env.clock.now() + 45_000);
  await step(env.clock, 45_000, 5_000);
  await until(() => released.length === 2, "second failure");
  assert.deepEqual(released, [45, 90]);
  assert.equal(env.live()[0].receiveCount, 2);
  await consumer.stop();
  env.engine.close();
});

test("Engine + Consumer: stop() ends the engine's pending long poll without the clock moving", async () => {
  const env = setup();
  const consumer = new Consumer({ engine: env.engine, queueUrl: env.queueUrl, handleMessage: async () => {} });
  const errors = [];
  consumer.on("error", (e) => errors.push(e));
  consumer.start();
  await settle();
  await consumer.stop();
  assert.deepEqual(errors, []);
  env.send("later");
  await settle();
  assert.equal(env.live()[0].receiveCount, 0, "nothing received after stop");
  env.engine.close();
});

test("Engine + Consumer: closing the engine under a running consumer stops it (no error every errorBackoffMs)", async () => {
  const env = setup();
  const consumer = new Consumer({ engine: env.engine, queueUrl: env.queueUrl, handleMessage: () => {} });
  const errors = [];
  consumer.on("error", (e) => errors.push(e));
  const stopped = new Promise((resolve) => consumer.on("stopped", resolve));
  consumer.start();
  await settle(5);
  env.engine.close(); // its pending long poll rejects with EngineClosedError
  await stopped;
  assert.equal(consumer.isRunning, false);
  assert.deepEqual(errors, []);
  await consumer.stop(); // stopping again is harmless
});

test("Engine + Consumer: FIFO groups one at a time each, in parallel across groups, in order", async () => {
  const env = setup({ fifo: true });
  const sent = {};
  for (let i = 0; i < 18; i++) {
    const group = `g${(i * 5) % 3}`;
    (sent[group] ??= []).push(`${group}-${i}`);
    env.send(`${group}-${i}`, group);
  }
  const running = new Map();
  const starts = [];
  let peak = 0;
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    concurrency: 2,
    handleMessage: async (m) => {
      const group = m.Attributes.MessageGroupId;
      for (const other of running.values()) assert.notEqual(other.group, group);
      const gate = deferred();
      running.set(m.Body, { group, gate });
      starts.push(m.Body);
      peak = Math.max(peak, running.size);
      await gate.promise;
      running.delete(m.Body);
    },
  });
  const processed = [];
  consumer.on("processed", (m) => processed.push(m.Body));
  consumer.start();
  let turn = 0;
  while (processed.length < 18) {
    await settle(5);
    const names = [...running.keys()];
    if (names.length) running.get(names[turn++ % names.length]).gate.resolve();
  }
  await consumer.stop();
  assert.equal(peak, 2);
  for (const [group, bodies] of Object.entries(sent)) {
    assert.deepEqual(starts.filter((b) => b.startsWith(`${group}-`)), bodies, `${group} in order`);
  }
  assert.deepEqual(env.live(), []);
  env.engine.close();
});
