// Many pending long polls must not make every other call slow: the engine checks whether the
// polls may proceed after each call, and it did so with one receivable() crossing into the wasm
// per poll (3,000 polls on one queue: ~40 ms for any call on any queue, against ~0.6).
import { test } from "node:test";
import assert from "node:assert/strict";
import { START } from "./load.js";
import { internal } from "./internal.js";

const { Engine, ManualClock, WasqCore } = internal;

const flush = () => new Promise((resolve) => setImmediate(resolve));

function countReceivable(t) {
  const spy = { calls: 0 };
  const { receivable } = WasqCore.prototype;
  WasqCore.prototype.receivable = function (...args) {
    spy.calls++;
    return receivable.apply(this, args);
  };
  t.after(() => Object.assign(WasqCore.prototype, { receivable }));
  return spy;
}

test("polls on one queue share one receivable check per call", async (t) => {
  const spy = countReceivable(t);
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 1 });
  const a = engine.createQueue({ QueueName: "a" }).QueueUrl;
  const b = engine.createQueue({ QueueName: "b" }).QueueUrl;
  const polls = Array.from({ length: 200 }, () => engine.receiveMessage({ QueueUrl: a, WaitTimeSeconds: 20 }));
  const other = Array.from({ length: 50 }, () => engine.receiveMessage({ QueueUrl: b, WaitTimeSeconds: 20 }));
  await flush();

  spy.calls = 0;
  engine.listQueues({});
  assert.equal(spy.calls, 2, "one check for each queue with polls, not one for each poll");

  // Still every poll that can proceed does: ten messages, ten polls answered with one each.
  engine.sendMessageBatch({ QueueUrl: a, Entries: Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: `m${i}` })) });
  for (let i = 0; i < 20; i++) await flush();
  const answered = [];
  for (const p of polls) p.then((r) => answered.push(r));
  await flush();
  assert.equal(answered.filter((r) => r.Messages?.length === 1).length, 10);
  // The rest time out empty, the other queue's polls too.
  clock.advance(20_000);
  const rest = await Promise.all([...polls, ...other]);
  assert.equal(rest.filter((r) => r.Messages?.length).length, 10);
  engine.close();
});

test("a send wakes as many polls as it can feed, not every poll on the queue", async () => {
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 1 });
  const a = engine.createQueue({ QueueName: "a" }).QueueUrl;
  const polls = Array.from({ length: 200 }, () => engine.receiveMessage({ QueueUrl: a, WaitTimeSeconds: 20 }));
  await flush();
  let receives = 0;
  const dispatch = engine.dispatch.bind(engine);
  engine.dispatch = (action, params) => {
    if (action === "ReceiveMessage") receives++;
    return dispatch(action, params);
  };
  engine.sendMessageBatch({ QueueUrl: a, Entries: Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: `m${i}` })) });
  for (let i = 0; i < 40; i++) await flush();
  // Each woken poll's receive wakes the next while messages are left: ten receives, ten messages.
  assert.equal(receives, 10);
  const answered = [];
  for (const p of polls) p.then((r) => answered.push(r), () => {}); // the rest reject below
  await flush();
  assert.deepEqual(answered.map((r) => r.Messages.length), Array(10).fill(1));
  // The longest waiting polls were the ones answered, in order.
  const bodies = answered.map((r) => r.Messages[0].Body).sort();
  assert.deepEqual(bodies, Array.from({ length: 10 }, (_, i) => `m${i}`).sort());
  // A deleted queue releases every poll on it, so each reports the error.
  engine.deleteQueue({ QueueUrl: a });
  const rest = await Promise.allSettled(polls);
  assert.equal(rest.filter((r) => r.status === "rejected" && r.reason.name === "QueueDoesNotExist").length, 190);
  engine.close();
});
