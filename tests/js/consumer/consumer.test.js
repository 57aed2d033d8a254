import { test } from "node:test";
import assert from "node:assert/strict";
import { Consumer, settle, until, deferred, fakeEnv, advance } from "./helpers.js";

function collect(consumer) {
  const seen = { processed: [], released: [], errors: [], stopped: 0 };
  consumer.on("processed", (m) => seen.processed.push(m.Body));
  consumer.on("released", (m, s) => seen.released.push([m.Body, s]));
  consumer.on("error", (e) => seen.errors.push(e));
  consumer.on("stopped", () => seen.stopped++);
  return seen;
}

test("handleMessage is called once per message and each is deleted on success (batch deletes)", async () => {
  const env = fakeEnv();
  for (const b of ["a", "b", "c", "d", "e"]) env.send(b);
  const handled = [];
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    batchSize: 10,
    handleMessage: async (m) => handled.push(m.Body),
  });
  const seen = collect(consumer);
  consumer.start();
  await until(() => seen.processed.length === 5, "5 processed");
  assert.deepEqual(handled.sort(), ["a", "b", "c", "d", "e"]);
  assert.deepEqual(env.sqs.state(), [], "all deleted");
  assert.ok(env.sqs.calls.some(([name]) => name === "deleteMessageBatch"));
  const receive = env.sqs.calls.find(([name]) => name === "receiveMessage")[1];
  assert.equal(receive.MaxNumberOfMessages, 10);
  assert.equal(receive.WaitTimeSeconds, 20);
  await consumer.stop();
  assert.equal(seen.stopped, 1);
  assert.deepEqual(seen.errors, []);
});

test("handleMessageBatch: undefined deletes all; a returned subset deletes those and releases the rest", async () => {
  const env = fakeEnv();
  for (const b of ["1", "2", "3", "4"]) env.send(b);
  const calls = [];
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    handleMessageBatch: async (msgs) => {
      calls.push(msgs.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount]));
      return calls.length === 1 ? msgs.filter((m) => Number(m.Body) % 2 === 0) : undefined;
    },
    releaseOnFailure: { backoff: () => 0 },
  });
  const seen = collect(consumer);
  consumer.start();
  await until(() => seen.processed.length === 4, "4 processed");
  await consumer.stop();
  assert.deepEqual(calls, [
    [["1", "1"], ["2", "1"], ["3", "1"], ["4", "1"]],
    [["1", "2"], ["3", "2"]],
  ]);
  assert.deepEqual(seen.released, [["1", 0], ["3", 0]]);
  assert.deepEqual(env.sqs.state(), []);
});

test("a failed handler releases its message at once (visibility 0) and it is handled again", async () => {
  const env = fakeEnv();
  env.send("bad");
  env.send("good");
  let failures = 0;
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    handleMessage: async (m) => {
      if (m.Body === "bad" && failures++ === 0) throw new Error("boom");
    },
  });
  const seen = collect(consumer);
  consumer.start();
  await until(() => seen.processed.length === 2, "both processed");
  await consumer.stop();
  assert.deepEqual(seen.released, [["bad", 0]]);
  assert.equal(seen.errors.length, 1);
  assert.equal(seen.errors[0].message, "boom");
  assert.deepEqual(env.sqs.state(), []);
});

test("releaseOnFailure backoff sets visibility from the receive count", async () => {
  const env = fakeEnv();
  env.send("always fails");
  const handledAt = [];
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    handleMessage: async (m) => {
      handledAt.push([env.clock.now(), m.Attributes.ApproximateReceiveCount]);
      throw new Error("nope");
    },
    releaseOnFailure: { backoff: (n) => n * 60 },
  });
  const seen = collect(consumer);
  consumer.start();
  await until(() => seen.released.length === 1);
  assert.deepEqual(seen.released, [["always fails", 60]]);
  const t0 = handledAt[0][0];
  await advance(env.clock, 59_000);
  assert.equal(handledAt.length, 1, "not visible before the backoff ends");
  await advance(env.clock, 1_000);
  await until(() => seen.released.length === 2);
  assert.deepEqual(handledAt, [
    [t0, "1"],
    [t0 + 60_000, "2"],
  ]);
  assert.deepEqual(seen.released[1], ["always fails", 120]);
  await consumer.stop();
});

test("heartbeat keeps a slow handler's message invisible; without it the message reappears", async () => {
  for (const heartbeat of [true, false]) {
    const env = fakeEnv({ visibilityTimeout: 30 });
    env.send("slow");
    const gate = deferred();
    const consumer = new Consumer({
      engine: env.engine,
      queueUrl: env.queueUrl,
      visibilityTimeout: 30,
      ...(heartbeat && { heartbeatInterval: 10 }),
      clock: env.clock,
      handleMessage: () => gate.promise,
    });
    const seen = collect(consumer);
    consumer.start();
    await until(() => env.sqs.state()[0]?.receiveCount === 1, "received");
    let everVisible = false;
    for (let t = 0; t < 120; t += 5) {
      await advance(env.clock, 5_000, 5_000);
      everVisible ||= env.sqs.state()[0].visible;
    }
    const extensions = env.sqs.calls.filter(([name]) => name === "changeMessageVisibilityBatch");
    if (heartbeat) {
      assert.equal(everVisible, false, "never visible while the handler runs");
      assert.equal(extensions.length, 12, "one extension every 10 s for 120 s");
      assert.ok(extensions.every(([, v]) => v.length === 1 && v[0] === 30));
    } else {
      assert.equal(everVisible, true, "control: the visibility timeout lapses without heartbeats");
      assert.equal(extensions.length, 0);
    }
    gate.resolve();
    await until(() => seen.processed.length + seen.errors.length === 1);
    await consumer.stop();
    if (heartbeat) {
      assert.deepEqual(env.sqs.state(), [], "deleted after the handler finished");
      const before = env.sqs.calls.length;
      await advance(env.clock, 60_000, 5_000);
      assert.equal(env.sqs.calls.length, before, "heartbeats stop with the message");
    }
  }
});

test("stop() waits for in-flight handlers, receives nothing new, then emits stopped", async () => {
  const env = fakeEnv();
  env.send("in flight");
  const gate = deferred();
  const consumer = new Consumer({ engine: env.engine, queueUrl: env.queueUrl, handleMessage: () => gate.promise });
  const seen = collect(consumer);
  consumer.start();
  await until(() => env.sqs.state()[0]?.receiveCount === 1);
  let stopped = false;
  const stopping = consumer.stop().then(() => (stopped = true));
  assert.equal(consumer.isRunning, false);
  env.send("after stop");
  await settle();
  assert.equal(stopped, false, "still waiting for the handler");
  const receives = env.sqs.calls.filter(([n]) => n === "receiveMessage").length;
  gate.resolve();
  await stopping;
  assert.equal(seen.stopped, 1);
  assert.deepEqual(seen.processed, ["in flight"]);
  assert.equal(env.sqs.calls.filter(([n]) => n === "receiveMessage").length, receives, "no receive after stop");
  assert.deepEqual(env.sqs.state(), [{ body: "after stop", receiveCount: 0, visible: true }]);
});

test("stop() ends a pending long poll at once, and an AbortSignal stops the consumer", async () => {
  const env = fakeEnv();
  const controller = new AbortController();
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    handleMessage: async () => {},
    signal: controller.signal,
  });
  const seen = collect(consumer);
  consumer.start();
  await settle();
  assert.equal(env.sqs.calls.filter(([n]) => n === "receiveMessage").length, 1, "long poll pending");
  controller.abort();
  await until(() => seen.stopped === 1, "stopped without the clock moving");
  assert.deepEqual(seen.errors, [], "the aborted poll is not reported as an error");
});

test("stop() hands back messages that were received but not started", async () => {
  const env = fakeEnv();
  for (const b of ["a", "b", "c"]) env.send(b);
  const gate = deferred();
  const consumer = new Consumer({ engine: env.engine, queueUrl: env.queueUrl, handleMessage: () => gate.promise });
  const seen = collect(consumer);
  consumer.start();
  await until(() => env.sqs.state().every((m) => m.receiveCount === 1));
  const stopping = consumer.stop();
  gate.resolve();
  await stopping;
  assert.deepEqual(seen.processed, ["a"]);
  assert.deepEqual(seen.released, [["b", 0], ["c", 0]]);
  assert.deepEqual(env.sqs.state(), [
    { body: "b", receiveCount: 1, visible: true },
    { body: "c", receiveCount: 1, visible: true },
  ]);
});

test("standard queue: handlers run in parallel up to concurrency", async () => {
  const env = fakeEnv();
  for (let i = 0; i < 9; i++) env.send(String(i));
  let running = 0;
  let peak = 0;
  const gates = [];
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    concurrency: 3,
    handleMessage: async () => {
      peak = Math.max(peak, ++running);
      const g = deferred();
      gates.push(g);
      await g.promise;
      running--;
    },
  });
  const seen = collect(consumer);
  consumer.start();
  while (seen.processed.length < 9) {
    await settle();
    gates.shift()?.resolve();
  }
  await consumer.stop();
  assert.equal(peak, 3);
});

// Completes a random running handler at each step (seeded), checking the FIFO invariants as it goes.
async function runFifo({ concurrency, seed, env, consumerOptions = {} }) {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const running = new Map(); // body → { group, gate }
  const starts = [];
  let peak = 0;
  let parallelGroups = false;
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    concurrency,
    handleMessage: async (m) => {
      const group = m.Attributes.MessageGroupId;
      for (const r of running.values()) assert.notEqual(r.group, group, `two handlers at once in group ${group}`);
      const gate = deferred();
      running.set(m.Body, { group, gate });
      starts.push(m.Body);
      peak = Math.max(peak, running.size);
      if (running.size > 1) parallelGroups = true;
      await gate.promise;
      running.delete(m.Body);
    },
    ...consumerOptions,
  });
  const seen = collect(consumer);
  consumer.start();
  return { consumer, seen, starts, running, random, stats: () => ({ peak, parallelGroups }) };
}

test("FIFO: one handler per group at a time, groups in parallel up to concurrency, order kept", async () => {
  for (const [concurrency, seed] of [[1, 1], [2, 7], [3, 42], [3, 99]]) {
    const env = fakeEnv({ fifo: true });
    const sent = { A: [], B: [], C: [], D: [] };
    for (let i = 0; i < 24; i++) {
      const group = "ABCD"[(i * 7 + (i >> 2)) % 4];
      const body = `${group}${sent[group].length}`;
      sent[group].push(body);
      env.send(body, group);
    }
    const run = await runFifo({ concurrency, seed, env });
    while (run.seen.processed.length < 24) {
      await settle(5);
      const names = [...run.running.keys()];
      assert.ok(run.running.size <= concurrency);
      if (names.length) run.running.get(names[Math.floor(run.random() * names.length)]).gate.resolve();
    }
    await run.consumer.stop();
    const { peak, parallelGroups } = run.stats();
    assert.equal(peak, concurrency, `peak parallelism reaches ${concurrency}`);
    assert.equal(parallelGroups, concurrency > 1);
    for (const [group, bodies] of Object.entries(sent)) {
      assert.deepEqual(run.starts.filter((b) => b[0] === group), bodies, `group ${group} in order`);
    }
    assert.deepEqual(env.sqs.state(), []);
  }
});

test("FIFO: a failure hands back the rest of its group unprocessed, and order holds on redelivery", async () => {
  const env = fakeEnv({ fifo: true });
  for (const b of ["A0", "A1", "A2"]) env.send(b, "A");
  env.send("B0", "B");
  const order = [];
  let failed = false;
  const consumer = new Consumer({
    engine: env.engine,
    queueUrl: env.queueUrl,
    concurrency: 2,
    handleMessage: async (m) => {
      order.push(m.Body);
      if (m.Body === "A0" && !failed) {
        failed = true;
        throw new Error("first A0 fails");
      }
    },
  });
  const seen = collect(consumer);
  consumer.start();
  await until(() => seen.processed.length === 4, "all processed");
  await consumer.stop();
  assert.deepEqual(order.filter((b) => b[0] === "A"), ["A0", "A0", "A1", "A2"]);
  assert.deepEqual(seen.released.map(([b]) => b).sort(), ["A0", "A1", "A2"]);
});

test("FIFO: messages of a busy group received later wait for it, in order", async () => {
  // Scripted engine: the second receive returns more of group A while A1 is still running.
  const script = [
    [{ Body: "A1", group: "A" }],
    [{ Body: "A2", group: "A" }, { Body: "B1", group: "B" }],
  ];
  const deleted = [];
  const engine = {
    async receiveMessage(_params, { signal }) {
      const next = script.shift();
      if (next) {
        return {
          Messages: next.map((m) => ({
            MessageId: m.Body,
            ReceiptHandle: `rh-${m.Body}`,
            Body: m.Body,
            Attributes: { MessageGroupId: m.group },
          })),
        };
      }
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    },
    async deleteMessage({ ReceiptHandle }) {
      deleted.push(ReceiptHandle);
    },
    async changeMessageVisibility() {},
  };
  const gates = new Map();
  const log = [];
  const consumer = new Consumer({
    engine,
    queueUrl: "https://sqs.test/0/q.fifo",
    concurrency: 2,
    handleMessage: async (m) => {
      log.push(`start ${m.Body}`);
      const g = deferred();
      gates.set(m.Body, g);
      await g.promise;
      log.push(`end ${m.Body}`);
    },
  });
  consumer.start();
  await until(() => gates.has("B1"), "B1 started");
  assert.deepEqual(log, ["start A1", "start B1"], "A2 waits while A1 runs; B1 runs beside A1");
  gates.get("B1").resolve();
  await settle();
  assert.ok(!gates.has("A2"), "A2 still waits for A1, even with a free slot");
  gates.get("A1").resolve();
  await until(() => gates.has("A2"), "A2 started");
  gates.get("A2").resolve();
  await until(() => deleted.length === 3);
  await consumer.stop();
  assert.deepEqual(log, ["start A1", "start B1", "end B1", "end A1", "start A2", "end A2"]);
  assert.deepEqual(deleted.sort(), ["rh-A1", "rh-A2", "rh-B1"], "single-call fallback used without batch methods");
});

test("Consumer validates its options", () => {
  const engine = { receiveMessage: async () => ({}) };
  const base = { engine, queueUrl: "q", handleMessage: async () => {} };
  assert.throws(() => new Consumer({ ...base, engine: {} }), TypeError);
  assert.throws(() => new Consumer({ ...base, queueUrl: "" }), TypeError);
  assert.throws(() => new Consumer({ ...base, handleMessageBatch: async () => {} }), /exactly one/);
  assert.throws(() => new Consumer({ engine, queueUrl: "q" }), /exactly one/);
  assert.throws(() => new Consumer({ ...base, batchSize: 11 }), RangeError);
  assert.throws(() => new Consumer({ ...base, waitTimeSeconds: 21 }), RangeError);
  assert.throws(() => new Consumer({ ...base, concurrency: 0 }), RangeError);
  assert.throws(() => new Consumer({ ...base, heartbeatInterval: 10 }), /visibilityTimeout/);
  assert.throws(() => new Consumer({ ...base, heartbeatInterval: 30, visibilityTimeout: 30 }), /greater/);
  assert.throws(() => new Consumer({ ...base, releaseOnFailure: "later" }), TypeError);
  assert.throws(() => new Consumer(base).on("bogus", () => {}), TypeError);
});
