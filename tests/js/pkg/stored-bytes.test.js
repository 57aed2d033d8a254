// The bound on what an engine holds (issue #31, item 6): past `maxStoredBytes`, sends are refused
// with RequestThrottled and change nothing, while receives, deletes, purges and queue deletion
// go on and make room. Each message counts its body and attributes plus 256 bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { wasq, START } from "./load.js";

const { Engine, ManualClock, MemoryStorage } = wasq;
const BODY = "x".repeat(1000);
const EACH = 1000 + 256;

function full(options = {}) {
  const engine = new Engine({ clock: new ManualClock(START), seed: 9, maxStoredBytes: 10 * EACH, ...options });
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  for (let i = 0; i < 10; i++) engine.sendMessage({ QueueUrl, MessageBody: BODY });
  return { engine, QueueUrl };
}

const throttled = (err) => {
  assert.equal(err.name, "RequestThrottled");
  assert.equal(err.code, "RequestThrottled");
  assert.equal(err.httpStatus, 400);
  assert.match(err.message, /hold 12560 of the 12560 stored bytes allowed \(maxStoredBytes\), and this send needs \d+/);
  return true;
};

test("a send past maxStoredBytes is RequestThrottled and changes nothing; a batch too", () => {
  const { engine, QueueUrl } = full();
  const before = JSON.stringify(engine.peek(QueueUrl));
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "y" }), throttled);
  assert.throws(() => engine.dispatch("SendMessage", { QueueUrl, MessageBody: "y" }), throttled);
  assert.throws(() => engine.sendMessageBatch({ QueueUrl, Entries: [{ Id: "a", MessageBody: "y" }] }), throttled);
  // Attributes count as well: a tiny body with a large attribute is no way around the bound.
  assert.throws(
    () => engine.sendMessage({ QueueUrl, MessageBody: "y", MessageAttributes: { a: { DataType: "String", StringValue: BODY } } }),
    throttled,
  );
  assert.equal(JSON.stringify(engine.peek(QueueUrl)), before);
  engine.close();
});

test("receives, deletes, purges and queue deletion go on at the bound and make room", () => {
  const { engine, QueueUrl } = full();
  const got = engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 2 });
  assert.equal(got.Messages.length, 2);
  // Received is still held: still full.
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "y" }), { name: "RequestThrottled" });
  engine.deleteMessage({ QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle });
  engine.sendMessage({ QueueUrl, MessageBody: BODY }); // one message's room again
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "y" }), { name: "RequestThrottled" });
  engine.deleteMessageBatch({ QueueUrl, Entries: [{ Id: "d", ReceiptHandle: got.Messages[1].ReceiptHandle }] });
  engine.sendMessageBatch({ QueueUrl, Entries: [{ Id: "b", MessageBody: BODY }] });

  engine.purgeQueue({ QueueUrl });
  for (let i = 0; i < 10; i++) engine.sendMessage({ QueueUrl, MessageBody: BODY });
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "y" }), { name: "RequestThrottled" });

  const other = engine.createQueue({ QueueName: "other" }).QueueUrl;
  assert.throws(() => engine.sendMessage({ QueueUrl: other, MessageBody: "y" }), { name: "RequestThrottled" }, "the bound is the engine's, not a queue's");
  engine.deleteQueue({ QueueUrl });
  engine.sendMessage({ QueueUrl: other, MessageBody: BODY });
  engine.close();
});

test("a store holding more than the bound is restored whole; sends wait until there is room", () => {
  const storage = new MemoryStorage();
  const { engine, QueueUrl } = full({ storage, maxStoredBytes: 100 * EACH });
  engine.close();
  const small = new Engine({ clock: new ManualClock(START), storage, maxStoredBytes: 5 * EACH });
  assert.equal(small.peek(QueueUrl).messages.length, 10);
  assert.throws(() => small.sendMessage({ QueueUrl, MessageBody: "y" }), { name: "RequestThrottled" });
  const got = small.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 });
  small.deleteMessageBatch({
    QueueUrl,
    Entries: got.Messages.slice(0, 6).map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })),
  });
  small.sendMessage({ QueueUrl, MessageBody: BODY });
  small.close();
});

test("maxStoredBytes must be a byte count", () => {
  for (const bad of [-1, 1.5, "1G", NaN]) {
    assert.throws(() => new Engine({ maxStoredBytes: bad }), (err) => err instanceof RangeError || err instanceof TypeError, String(bad));
  }
});
