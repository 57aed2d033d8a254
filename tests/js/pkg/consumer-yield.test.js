// The Consumer must leave the host's event loop room to run between receives: a handler that
// always throws (its message handed straight back, visibility 0, received again at once) or a
// long queue of messages handled successfully must not keep the loop in microtasks, or timers
// and I/O never run (and a test runner's own timeout cannot fire). Bounded by counts, not time:
// a starved loop ends the run itself after many rounds, and the test then fails instead of hanging.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { stat } from "node:fs";
import { wasq } from "./load.js";

const { Engine, ManualClock, SystemClock, Consumer } = wasq;

// Far more rounds than a yielding loop needs before a 0 ms timer is due.
const STARVED_AFTER = 20_000;

/** Start `consumer`; resolve with how many handler calls had run when a timer and an I/O callback set before start fired. */
function probeHost(consumer, calls) {
  return new Promise((resolve) => {
    const seen = {};
    const check = () => {
      if (seen.timer !== undefined && seen.io !== undefined) resolve(seen);
    };
    setTimeout(() => {
      seen.timer = calls();
      check();
    }, 0);
    stat(import.meta.filename, () => {
      seen.io = calls();
      check();
    });
    consumer.start();
  });
}

for (const [name, makeClock] of [
  ["ManualClock", () => new ManualClock(0)],
  ["SystemClock", () => new SystemClock()],
]) {
  test(`a handler that always throws (${name}) leaves timers and I/O room to run`, async () => {
    const engine = new Engine({ clock: makeClock(), seed: 3 });
    const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
    engine.sendMessage({ QueueUrl, MessageBody: "poison" });
    let calls = 0;
    const released = [];
    const consumer = new Consumer({
      engine,
      queueUrl: QueueUrl,
      handleMessage: async () => {
        calls++;
        if (calls === STARVED_AFTER) void consumer.stop({ wait: false });
        throw new Error("poison");
      },
    });
    consumer.on("error", () => {});
    consumer.on("released", (_m, seconds) => released.push(seconds));
    const seen = await probeHost(consumer, () => calls);
    await consumer.stop();
    assert.ok(seen.timer < STARVED_AFTER, `the timer fired only after ${seen.timer} handler calls`);
    assert.ok(seen.io < STARVED_AFTER, `the I/O callback ran only after ${seen.io} handler calls`);
    // SQS semantics kept: each failure hands the message back with visibility 0, and it is received again.
    assert.ok(calls >= 1);
    assert.ok(released.length >= 1 && released.every((s) => s === 0));
    assert.equal(engine.peek(QueueUrl).messages.filter((m) => m.state !== "deleted").length, 1);
    engine.close();
  });
}

test("draining 10,000 messages leaves a timer set before start room to fire before the queue is empty", async () => {
  const engine = new Engine({ clock: new ManualClock(0), seed: 3 });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  const total = 10_000;
  for (let i = 0; i < total / 10; i++) {
    engine.sendMessageBatch({
      QueueUrl,
      Entries: Array.from({ length: 10 }, (_, j) => ({ Id: `e${j}`, MessageBody: `m${i * 10 + j}` })),
    });
  }
  let handled = 0;
  const consumer = new Consumer({ engine, queueUrl: QueueUrl, handleMessage: async () => void handled++ });
  const drained = new Promise((resolve) => {
    let processed = 0;
    consumer.on("processed", () => {
      if (++processed === total) resolve();
    });
  });
  const seen = await probeHost(consumer, () => handled);
  await drained;
  await consumer.stop();
  assert.ok(seen.timer < total, `the timer fired only after all ${total} messages were handled`);
  assert.ok(seen.io < total, `the I/O callback ran only after all ${total} messages were handled`);
  assert.equal(handled, total);
  assert.equal(engine.getQueueAttributes({ QueueUrl, AttributeNames: ["All"] }).Attributes.ApproximateNumberOfMessages, "0");
  engine.close();
});

// The Consumer gives the host a turn once its time slice is spent, by performance.now(). Where
// that clock stands still while JS runs (workerd moves it only with I/O; Jest's and Sinon's fake
// timers freeze it), a turn must still come after a bounded number of rounds.
test("a handler that always throws leaves timers room to run when performance.now() stands still", async () => {
  const now = mock.method(performance, "now", () => 1000);
  try {
    const engine = new Engine({ clock: new ManualClock(0), seed: 3 });
    const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
    engine.sendMessage({ QueueUrl, MessageBody: "poison" });
    let calls = 0;
    const consumer = new Consumer({
      engine,
      queueUrl: QueueUrl,
      handleMessage: async () => {
        calls++;
        if (calls === STARVED_AFTER) void consumer.stop({ wait: false });
        throw new Error("poison");
      },
    });
    consumer.on("error", () => {});
    const seen = await probeHost(consumer, () => calls);
    await consumer.stop();
    assert.ok(now.mock.callCount() > 0, "the consumer did not read performance.now()");
    assert.ok(seen.timer < STARVED_AFTER, `the timer fired only after ${seen.timer} handler calls`);
    assert.ok(seen.io < STARVED_AFTER, `the I/O callback ran only after ${seen.io} handler calls`);
    engine.close();
  } finally {
    now.mock.restore();
  }
});

// Consumers on one engine interleave in microtasks: each one's turns must not be undone by the
// others running on, so a timer still fires while three poisoned consumers spin together.
test("three consumers whose handlers always throw, on one engine, leave timers and I/O room to run", async () => {
  const engine = new Engine({ clock: new ManualClock(0), seed: 3 });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  for (let i = 0; i < 3; i++) engine.sendMessage({ QueueUrl, MessageBody: `poison ${i}` });
  let calls = 0;
  const consumers = [];
  for (let i = 0; i < 3; i++) {
    const consumer = new Consumer({
      engine,
      queueUrl: QueueUrl,
      batchSize: 1,
      handleMessage: async () => {
        calls++;
        if (calls >= STARVED_AFTER) for (const c of consumers) void c.stop({ wait: false });
        throw new Error("poison");
      },
    });
    consumer.on("error", () => {});
    consumers.push(consumer);
  }
  const [first, ...rest] = consumers;
  for (const c of rest) c.start();
  const seen = await probeHost(first, () => calls);
  await Promise.all(consumers.map((c) => c.stop()));
  assert.ok(seen.timer < STARVED_AFTER, `the timer fired only after ${seen.timer} handler calls`);
  assert.ok(seen.io < STARVED_AFTER, `the I/O callback ran only after ${seen.io} handler calls`);
  assert.equal(engine.peek(QueueUrl).messages.filter((m) => m.state !== "deleted").length, 3);
  engine.close();
});

// A ManualClock consumer sets no timer, so fake timers installed after wasq was loaded (a test's
// vi.useFakeTimers() or jest.useFakeTimers() in beforeEach; node:test's mock.timers here) must
// not hold it: its turns are the host's own. It stalled after its first round, waiting on a fake
// setImmediate that nothing advanced.
test("a ManualClock consumer drains a queue under fake timers installed after loading, without advancing them", { timeout: 60_000 }, async (t) => {
  const realSetTimeout = setTimeout;
  const engine = new Engine({ clock: new ManualClock(0), seed: 3 });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  const total = 3_000;
  for (let i = 0; i < total; i += 10) {
    engine.sendMessageBatch({ QueueUrl, Entries: Array.from({ length: 10 }, (_, j) => ({ Id: `e${j}`, MessageBody: `m${i + j}` })) });
  }
  t.mock.timers.enable({ apis: ["setTimeout", "setImmediate"] });
  let handled = 0;
  const consumer = new Consumer({ engine, queueUrl: QueueUrl, handleMessage: async () => void handled++ });
  const drained = new Promise((resolve) => {
    let processed = 0;
    consumer.on("processed", () => {
      if (++processed === total) resolve(true);
    });
  });
  consumer.start();
  // Only a guard against a hang: a stalled consumer never resolves `drained`.
  let guard;
  const stalled = new Promise((resolve) => (guard = realSetTimeout(() => resolve(false), 30_000)));
  const done = await Promise.race([drained, stalled]);
  clearTimeout(guard);
  t.mock.timers.reset();
  // A stalled consumer's loop waits on a fake turn that will never come: do not wait for it.
  await consumer.stop({ wait: done });
  engine.close();
  assert.ok(done, `the consumer stalled after ${handled} of ${total} messages`);
  assert.equal(handled, total);
});
