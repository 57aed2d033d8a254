// engine.whenPolling(queue) is what the package README tells a test to await between an SDK
// `send(ReceiveMessageCommand)` and `clock.advance()`. The test cannot know whether the receive
// will wait or be answered at once (a message already visible, a refusal): whenPolling used to
// resolve only for a waiting poll, so the same documented lines hung whenever the queue already
// held a message. These run the README's pattern through the AWS SDK v3 and createRequestHandler.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pkgDir } from "./load.js";

const { SQSClient, ReceiveMessageCommand } = await import("@aws-sdk/client-sqs");
const { Engine, ManualClock, createRequestHandler } = await import(pkgDir + "entry/node.js");

function setup() {
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  const engine = new Engine({ clock, defaultHost: "sqs.local" });
  const sqs = new SQSClient({
    region: "us-east-1",
    endpoint: "http://sqs.local",
    credentials: { accessKeyId: "x", secretAccessKey: "y" },
    requestHandler: createRequestHandler(engine),
  });
  return { clock, engine, sqs };
}

/** Whether `promise` has settled once every callback queued so far has run. */
async function settled(promise) {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test("whenPolling resolves when the SDK's receive is answered at once (a message already visible)", async () => {
  const { clock, engine, sqs } = setup();
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  engine.sendMessage({ QueueUrl, MessageBody: "already here" });
  const polled = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  const watched = engine.whenPolling(QueueUrl);
  const out = await polled;
  assert.deepEqual(out.Messages.map((m) => m.Body), ["already here"]);
  assert.equal(await settled(watched), true, "whenPolling still pending after the receive was answered");
  clock.advance(20_000); // the README's next line: harmless once the receive is answered
  engine.close();
});

test("whenPolling resolves when the SDK's long poll waits on an empty queue, and the poll ends with the clock", async () => {
  const { clock, engine, sqs } = setup();
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  const polled = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  await engine.whenPolling(QueueUrl);
  assert.equal(await settled(polled), false, "the poll waits for the clock");
  clock.advance(20_000);
  assert.equal((await polled).Messages, undefined);
  engine.close();
});

test("whenPolling resolves when the SDK's receive is refused (no such queue)", async () => {
  const { engine, sqs } = setup();
  const QueueUrl = "http://sqs.local/000000000000/missing";
  const polled = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  const watched = engine.whenPolling("missing");
  await assert.rejects(polled, { name: "QueueDoesNotExist" });
  assert.equal(await settled(watched), true);
  engine.close();
});

test("an answered receive ends only the watches on its own queue", async () => {
  const { engine, sqs } = setup();
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  engine.createQueue({ QueueName: "other" });
  engine.sendMessage({ QueueUrl, MessageBody: "m" });
  const other = engine.whenPolling("other");
  const any = engine.whenPolling();
  await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  assert.equal(await settled(any), true, "a watch on every queue sees it");
  assert.equal(await settled(other), false, "a watch on another queue does not");
  engine.close();
  await assert.rejects(other, { name: "EngineClosedError" });
});

test("engine.receiveMessage answered at once (a message, or no wait) resolves whenPolling too", async () => {
  const { engine } = setup();
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  engine.sendMessage({ QueueUrl, MessageBody: "m" });
  const first = engine.whenPolling(QueueUrl);
  assert.equal((await engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 })).Messages.length, 1);
  assert.equal(await settled(first), true);
  const second = engine.whenPolling(QueueUrl);
  assert.equal((await engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 0 })).Messages, undefined);
  assert.equal(await settled(second), true);
  engine.close();
});
