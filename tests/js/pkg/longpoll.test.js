import { test } from "node:test";
import assert from "node:assert/strict";
import { wasq, setup, START } from "./load.js";

const { Engine, SystemClock } = wasq;

/** Settles pending promise callbacks without moving any clock. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

function track(promise) {
  const state = { done: false, value: undefined, error: undefined };
  promise.then((v) => Object.assign(state, { done: true, value: v }), (e) => Object.assign(state, { done: true, error: e }));
  return state;
}

test("a long poll returns as soon as a message is sent (ManualClock)", async () => {
  const { engine, QueueUrl } = setup();
  const poll = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 }));
  await flush();
  assert.equal(poll.done, false, "waits while the queue is empty");
  engine.sendMessage({ QueueUrl, MessageBody: "wake" });
  await flush();
  assert.equal(poll.done, true);
  assert.equal(poll.value.Messages[0].Body, "wake");
});

test("a long poll ends empty when the engine's clock passes the wait", async () => {
  const { clock, engine, QueueUrl } = setup();
  const poll = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 5 }));
  clock.advance(4999);
  await flush();
  assert.equal(poll.done, false);
  clock.advance(1);
  await flush();
  assert.equal(poll.done, true);
  assert.deepEqual(poll.value, {});
});

test("the queue's ReceiveMessageWaitTimeSeconds applies when WaitTimeSeconds is absent; 0 forces a short poll", async () => {
  const { clock, engine, QueueUrl } = setup({ ReceiveMessageWaitTimeSeconds: "10" });
  const short = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 0 }));
  await flush();
  assert.equal(short.done, true);
  const poll = track(engine.receiveMessage({ QueueUrl }));
  clock.advance(9000);
  await flush();
  assert.equal(poll.done, false);
  clock.advance(1000);
  await flush();
  assert.equal(poll.done, true);
});

test("a delay ending during the wait wakes the poll", async () => {
  const { clock, engine, QueueUrl } = setup();
  engine.sendMessage({ QueueUrl, MessageBody: "later", DelaySeconds: 3 });
  const poll = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 }));
  clock.advance(2999);
  await flush();
  assert.equal(poll.done, false);
  clock.advance(1);
  await flush();
  assert.equal(poll.value.Messages[0].Body, "later");
});

test("a visibility timeout ending during the wait wakes the poll", async () => {
  const { clock, engine, QueueUrl } = setup({ VisibilityTimeout: "10" });
  engine.sendMessage({ QueueUrl, MessageBody: "again" });
  engine.dispatch("ReceiveMessage", { QueueUrl });
  const poll = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20, AttributeNames: ["ApproximateReceiveCount"] }));
  clock.advance(10_000);
  await flush();
  assert.equal(poll.value.Messages[0].Attributes.ApproximateReceiveCount, "2");
});

test("an AbortSignal cancels the wait and takes no message", async () => {
  const { engine, QueueUrl } = setup();
  const controller = new AbortController();
  const poll = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 }, { signal: controller.signal }));
  controller.abort();
  await flush();
  assert.equal(poll.error?.name, "AbortError");
  engine.sendMessage({ QueueUrl, MessageBody: "still here" });
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "still here");
  await assert.rejects(engine.receiveMessage({ QueueUrl }, { signal: AbortSignal.abort() }), { name: "AbortError" });
});

test("invalid WaitTimeSeconds is refused at once with the SQS error", async () => {
  const { engine, QueueUrl } = setup();
  await assert.rejects(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 21 }), { name: "InvalidParameterValueException" });
});

test("deleting the queue ends a pending poll with QueueDoesNotExist", async () => {
  const { engine, QueueUrl } = setup();
  const poll = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 }));
  engine.deleteQueue({ QueueUrl });
  await flush();
  assert.equal(poll.error?.name, "QueueDoesNotExist");
});

test("close() rejects pending polls with EngineClosedError", async () => {
  const { engine, QueueUrl } = setup();
  const poll = track(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 }));
  engine.close();
  await flush();
  assert.equal(poll.error?.name, "EngineClosedError");
});

test("SystemClock: a poll waits in real time and is woken by a send", async () => {
  const engine = new Engine({ clock: new SystemClock(), seed: 5 });
  const QueueUrl = engine.createQueue({ QueueName: "real" }).QueueUrl;
  let t0 = Date.now();
  const empty = await engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 1 });
  const waited = Date.now() - t0;
  assert.deepEqual(empty, {});
  assert.ok(waited >= 990 && waited < 1900, `waited ${waited} ms`);
  t0 = Date.now();
  setTimeout(() => engine.sendMessage({ QueueUrl, MessageBody: "soon" }), 100);
  const got = await engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 });
  assert.equal(got.Messages[0].Body, "soon");
  assert.ok(Date.now() - t0 < 1000);
  engine.close();
});
