// Realism mode, written the way a user would test their own queue code: each knob breaks a
// consumer or producer that assumes the emulator-perfect SQS, and the fix holds under it.
// Runs against the built package (pkg/), with the real @aws-sdk/client-sqs where natural.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SQSClient, CreateQueueCommand, SendMessageCommand, SendMessageBatchCommand, ReceiveMessageCommand,
  DeleteMessageCommand, GetQueueAttributesCommand,
} from "@aws-sdk/client-sqs";
import { wasq, START } from "../pkg/load.js";

const { Engine, ManualClock, SystemClock, MemoryStorage, createRequestHandler } = wasq;

function sdk(engine, options = {}) {
  return new SQSClient({
    region: "us-east-1",
    endpoint: "http://localhost:9324",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
    requestHandler: createRequestHandler(engine),
    ...options,
  });
}

function eventsOf(engine) {
  const events = [];
  engine.on("event", (e) => events.push(e));
  return events;
}

async function sendOrders(sqs, QueueUrl, n) {
  for (let i = 0; i < n; i += 10) {
    const Entries = [];
    for (let j = i; j < Math.min(n, i + 10); j++) {
      Entries.push({ Id: `o${j}`, MessageBody: JSON.stringify({ order: j, amount: 10 }) });
    }
    await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
  }
}

/** A consumer that adds up every order it is handed: correct only if each arrives once. */
async function naiveTotal(sqs, QueueUrl, { idempotent = false } = {}) {
  let total = 0;
  const seen = new Set();
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    if (Messages.length === 0) return total;
    for (const m of Messages) {
      const { order, amount } = JSON.parse(m.Body);
      if (!idempotent || !seen.has(order)) total += amount;
      seen.add(order);
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
  }
}

test("duplicateDelivery: a non-idempotent consumer double-counts; deduplicating by content does not", async () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 21, realism: { duplicateDelivery: 0.2 } });
  const events = eventsOf(engine);
  const sqs = sdk(engine);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "orders" }));
  await sendOrders(sqs, QueueUrl, 100);
  const naive = await naiveTotal(sqs, QueueUrl);
  const duplicates = events.filter((e) => e.type === "duplicate-delivered").length;
  assert.ok(duplicates >= 5 && duplicates <= 40, `about 20 of 100 delivered twice, got ${duplicates}`);
  assert.equal(naive, 1000 + 10 * duplicates, "every duplicate was counted once more");

  const { QueueUrl: again } = await sqs.send(new CreateQueueCommand({ QueueName: "orders-2" }));
  await sendOrders(sqs, again, 100);
  const before = events.length;
  assert.equal(await naiveTotal(sqs, again, { idempotent: true }), 1000);
  assert.ok(events.slice(before).some((e) => e.type === "duplicate-delivered"), "duplicates happened here too");
  engine.close();
});

test("duplicateDelivery: a copy shares the message id, has its own receipt handle, and never happens on FIFO", async () => {
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 22, realism: { duplicateDelivery: 1 } });
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  engine.sendMessage({ QueueUrl, MessageBody: "once" });
  const first = await engine.receiveMessage({ QueueUrl });
  const second = await engine.receiveMessage({ QueueUrl });
  assert.equal(first.Messages[0].MessageId, second.Messages[0].MessageId);
  assert.notEqual(first.Messages[0].ReceiptHandle, second.Messages[0].ReceiptHandle);
  assert.deepEqual(engine.peek(QueueUrl).messages.map((m) => m.duplicateCopy ?? false), [false, true]);

  const fifo = engine.createQueue({ QueueName: "q.fifo", Attributes: { FifoQueue: "true", ContentBasedDeduplication: "true" } });
  engine.sendMessage({ QueueUrl: fifo.QueueUrl, MessageBody: "once", MessageGroupId: "g" });
  await engine.receiveMessage({ QueueUrl: fifo.QueueUrl });
  assert.deepEqual(engine.peek(fifo.QueueUrl).messages.map((m) => [m.state, m.duplicateCopy]), [["in-flight", undefined]]);
  engine.close();
});

/** Processes steps one at a time, assuming step n+1 follows step n; returns how often it did not. */
async function orderAssumingConsumer(sqs, QueueUrl) {
  let last = -1;
  let broken = 0;
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }));
    if (Messages.length === 0) return broken;
    const step = Number(Messages[0].Body);
    if (step !== last + 1) broken++;
    last = step;
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }));
  }
}

test("reorder: a consumer that assumes a standard queue keeps order breaks; without realism it never did", async () => {
  for (const [realism, expectBroken] of [[{ reorder: true }, true], [null, false]]) {
    const engine = new Engine({ clock: new ManualClock(START), seed: 23, realism });
    const sqs = sdk(engine);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "steps" }));
    for (let i = 0; i < 20; i++) await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: String(i) }));
    const broken = await orderAssumingConsumer(sqs, QueueUrl);
    if (expectBroken) assert.ok(broken >= 5, `shuffled order breaks the assumption many times, got ${broken}`);
    else assert.equal(broken, 0, "plain wasq serves a standard queue oldest first");
    engine.close();
  }
});

test("shortPollSampling: 'an empty short poll means the queue is empty' stops early; long polling gets everything", async () => {
  const engine = new Engine({ clock: new SystemClock(), seed: 24, realism: { shortPollSampling: 0.3 } });
  const events = eventsOf(engine);
  const sqs = sdk(engine);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "jobs" }));
  await sendOrders(sqs, QueueUrl, 30);

  async function drain(WaitTimeSeconds) {
    let done = 0;
    for (;;) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds }));
      if (Messages.length === 0) return done;
      for (const m of Messages) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
        done++;
      }
    }
  }
  const early = await drain(0);
  const left = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }));
  assert.ok(early < 30, `the short-polling consumer stopped with work left (did ${early})`);
  assert.equal(Number(left.Attributes.ApproximateNumberOfMessages), 30 - early);
  assert.ok(events.some((e) => e.type === "sampled-out"), "the feed says which messages a poll left out");
  assert.equal(early + (await drain(1)), 30, "long polls see every visible message, as in SQS");
  engine.close();
});

test("throttling: a producer without retries loses messages past the FIFO quota (exact on a ManualClock)", async () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 25, realism: { throttling: true } });
  const events = eventsOf(engine);
  const sqs = sdk(engine, { maxAttempts: 1 });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({
    QueueName: "burst.fifo", Attributes: { FifoQueue: "true", ContentBasedDeduplication: "true" },
  }));
  const results = await Promise.allSettled(Array.from({ length: 350 }, (_, i) =>
    sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: `m${i}`, MessageGroupId: `g${i % 7}` }))));
  const lost = results.filter((r) => r.status === "rejected");
  assert.equal(results.length - lost.length, 300, "SQS's 300 calls per second per action");
  assert.equal(lost.length, 50);
  assert.equal(lost[0].reason.name, "RequestThrottled");
  assert.equal(lost[0].reason.$metadata.httpStatusCode, 400);
  assert.equal(events.filter((e) => e.type === "throttled" && e.action === "SendMessage").length, 50);
  const attrs = engine.getQueueAttributes({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] });
  assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "300", "the 50 are gone for good");
  engine.close();
});

test("throttling: the AWS SDK's own retry strategy (RequestThrottled is retryable) delivers every message", async () => {
  const engine = new Engine({ clock: new SystemClock(), seed: 26, realism: { throttling: { standardPerAction: 10 } } });
  const events = eventsOf(engine);
  // The SDK's standard strategy with exponential backoff and jitter; only the attempt count raised.
  const sqs = sdk(engine, { maxAttempts: 12 });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "burst" }));
  const results = await Promise.allSettled(Array.from({ length: 25 }, (_, i) =>
    sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: `m${i}` }))));
  assert.deepEqual(results.filter((r) => r.status === "rejected").map((r) => r.reason.name), []);
  assert.ok(events.some((e) => e.type === "throttled"), "the burst was throttled and retried");
  assert.ok(results.some((r) => r.value.$metadata.attempts > 1));
  const attrs = engine.getQueueAttributes({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] });
  assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "25");
  engine.close();
});

test("latency: every SDK call takes [min, max] ms on the engine's clock, instantly under a ManualClock", async () => {
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 27, realism: { latency: [20, 50] } });
  const sqs = sdk(engine);
  const wall = Date.now();
  const t0 = clock.now();
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "slow" }));
  const t1 = clock.now();
  assert.ok(t1 - t0 >= 20 && t1 - t0 <= 50, `one call: ${t1 - t0} ms`);
  // Concurrent calls' delays overlap, as network delays do: five calls cost one longest delay.
  await Promise.all(Array.from({ length: 5 }, (_, i) => sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: `${i}` }))));
  const t2 = clock.now();
  assert.ok(t2 - t1 >= 20 && t2 - t1 <= 50, `five concurrent calls: ${t2 - t1} ms`);
  // A handler slower than the visibility timeout, once latency is counted, loses its message.
  engine.setQueueAttributes({ QueueUrl, Attributes: { VisibilityTimeout: "0" } });
  const got = await engine.receiveMessage({ QueueUrl });
  assert.ok(clock.now() > t2, "receiveMessage is delayed too");
  assert.ok(Date.now() - wall < 2000, "no real waiting under a ManualClock");
  assert.equal(engine.peek(QueueUrl).messages.find((m) => m.messageId === got.Messages[0].MessageId).state, "stored", "visible again");
  engine.close();
});

test("latency: with a SystemClock the call really waits", async () => {
  const engine = new Engine({ clock: new SystemClock(), seed: 28, realism: { latency: [60, 80] } });
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  const start = Date.now();
  await engine.receiveMessage({ QueueUrl });
  const took = Date.now() - start;
  assert.ok(took >= 59 && took < 1000, `took ${took} ms`);
  engine.close();
});

/** Everything a realism run shows a user: answers, events and clock readings. */
async function run(seed) {
  const clock = new ManualClock(START);
  const engine = new Engine({
    clock, seed,
    realism: { duplicateDelivery: 0.2, reorder: true, shortPollSampling: 0.5, latency: [1, 40], throttling: { standardPerAction: 15 } },
  });
  const events = eventsOf(engine);
  const sqs = sdk(engine, { maxAttempts: 1 });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "same" }));
  const trace = [];
  for (let i = 0; i < 20; i++) {
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: `m${i}` }));
      trace.push(["sent", i, clock.now()]);
    } catch (err) {
      trace.push([err.name, i, clock.now()]);
    }
  }
  for (let i = 0; i < 10; i++) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 3 }));
    trace.push(["received", Messages.map((m) => [m.MessageId, m.Body, m.ReceiptHandle]), clock.now()]);
  }
  engine.close();
  return { trace, events };
}

test("the same seed reproduces the identical sequence; another seed does not", async () => {
  const a = await run(99);
  const b = await run(99);
  assert.deepEqual(b, a);
  for (const type of ["duplicate-delivered", "sampled-out", "throttled"]) {
    assert.ok(a.events.some((e) => e.type === type), `the run shows ${type}`);
  }
  assert.notDeepEqual((await run(100)).trace, a.trace);
});

test("realism off (default, or set back to null): exact, oldest first, no duplicates, no sampling, no delay", async () => {
  for (const setup of [(e) => e, (e) => e.setRealism(undefined, "aws").setRealism(undefined, null)]) {
    const clock = new ManualClock(START);
    const engine = setup(new Engine({ clock, seed: 29 }));
    const events = eventsOf(engine);
    const sqs = sdk(engine, { maxAttempts: 1 });
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "plain" }));
    await Promise.all(Array.from({ length: 400 }, (_, i) => sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: `${i}` }))));
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    assert.deepEqual(got.Messages.map((m) => m.Body), ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    assert.equal(clock.now(), START);
    assert.deepEqual(events.filter((e) => ["duplicate-delivered", "sampled-out", "throttled"].includes(e.type)), []);
    assert.equal(engine.realismFor(QueueUrl).reorder, false);
    engine.close();
  }
});

test("the aws preset is Realism::aws(); per-queue settings replace the engine's for that queue only", () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 30, realism: "aws" });
  const a = engine.createQueue({ QueueName: "a" }).QueueUrl;
  const b = engine.createQueue({ QueueName: "b" }).QueueUrl;
  const aws = {
    duplicateDelivery: 0.01, reorder: true, shortPollSampling: 0.5, latency: [5, 30],
    throttling: { fifoPerAction: 300, highThroughputPerPartition: 3000, highThroughputPartitions: 8, standardPerAction: null },
  };
  assert.deepEqual(engine.realismFor(a), aws);
  engine.setRealism(a, { duplicateDelivery: 0.5 });
  assert.deepEqual(engine.realismFor("a"), { duplicateDelivery: 0.5, reorder: false, shortPollSampling: 0, throttling: null, latency: [5, 30] });
  assert.deepEqual(engine.realismFor(b), aws);
  engine.setRealism(a, null);
  assert.deepEqual(engine.realismFor(a), aws);
  engine.close();
});

test("bad realism settings are refused with a clear error and change nothing", () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 31, realism: { reorder: true } });
  const before = engine.realismFor("q");
  const cases = [
    [{ duplicate: 0.5 }, TypeError, /unknown knob "duplicate"/],
    ["fast", TypeError, /unknown preset "fast"/],
    [{ duplicateDelivery: 2 }, RangeError, /probability/],
    [{ shortPollSampling: -0.1 }, RangeError, /probability/],
    [{ reorder: "yes" }, TypeError, /boolean/],
    [{ latency: [50, 10] }, RangeError, /min 50 is above max 10/],
    [{ latency: 5 }, TypeError, /\[min, max\]/],
    [{ throttling: { fifo: 3 } }, TypeError, /unknown quota "fifo"/],
    [{ throttling: { standardPerAction: 1.5 } }, RangeError, /non-negative integer/],
    // Values JSON cannot hold are named as JS prints them, not read as null (off).
    [{ duplicateDelivery: NaN }, RangeError, /^realism\.duplicateDelivery must be a probability between 0 and 1, got NaN$/],
    [{ throttling: { fifoPerAction: Infinity } }, RangeError, /^realism\.throttling\.fifoPerAction must be a non-negative integer, got Infinity$/],
    [{ latency: [1n, 2] }, RangeError, /^realism\.latency\[0\] must be a non-negative integer, got 1$/],
    [{ reorder: null }, TypeError, /^realism\.reorder must be a boolean$/],
  ];
  for (const [setting, type, message] of cases) {
    assert.throws(() => engine.setRealism(undefined, setting), (err) => err instanceof type && message.test(err.message));
  }
  assert.throws(() => engine.setRealism("q", { latency: [1, 2] }), /whole engine/);
  assert.throws(() => new Engine({ realism: { reorder: 1 } }), { name: "TypeError", message: "options.realism.reorder must be a boolean" });
  assert.deepEqual(engine.realismFor("q"), before);
  engine.close();
});

test("realism settings survive the rebuild after a failed storage commit", async () => {
  const storage = new MemoryStorage();
  const commit = storage.commit.bind(storage);
  let fail = false;
  storage.commit = (batch) => {
    if (fail) throw new Error("disk full");
    commit(batch);
  };
  const engine = new Engine({ clock: new ManualClock(START), seed: 32, storage, realism: { reorder: true } });
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  engine.setRealism(QueueUrl, { duplicateDelivery: 1 });
  fail = true;
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "lost" }), /disk full/);
  fail = false;
  assert.equal(engine.realismFor("other").reorder, true);
  assert.equal(engine.realismFor(QueueUrl).duplicateDelivery, 1);
  engine.sendMessage({ QueueUrl, MessageBody: "kept" });
  await engine.receiveMessage({ QueueUrl });
  assert.equal(engine.peek(QueueUrl).messages.length, 2, "the queue's override still duplicates");
  engine.close();
});
