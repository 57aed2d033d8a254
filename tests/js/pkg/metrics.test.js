// `engine.metrics()`: every queue's numbers as a plain object, in process: the counts agree with
// GetQueueAttributes, the age of the oldest message follows the engine's clock, and the counters
// count what happened (and start again with a new engine over the same storage: they are not
// records).
import { test } from "node:test";
import assert from "node:assert/strict";
import { wasq, setup } from "./load.js";

test("metrics() agree with GetQueueAttributes and count sends, receives, deletes and dead-letter moves", () => {
  const storage = new wasq.MemoryStorage();
  const { clock, engine, QueueUrl } = setup({}, { storage });
  const dlq = engine.createQueue({ QueueName: "q-dlq" }).QueueUrl;
  const dlqArn = engine.getQueueAttributes({ QueueUrl: dlq, AttributeNames: ["QueueArn"] }).Attributes.QueueArn;
  engine.setQueueAttributes({ QueueUrl, Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) } });
  for (let i = 0; i < 4; i++) engine.sendMessage({ QueueUrl, MessageBody: `m${i}` });
  engine.sendMessage({ QueueUrl, MessageBody: "late", DelaySeconds: 30 });
  clock.advance(5000);
  const got = engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 2, VisibilityTimeout: 10 }).Messages;
  engine.deleteMessage({ QueueUrl, ReceiptHandle: got[0].ReceiptHandle });
  clock.advance(11_000); // got[1] visible again, its one receive used up
  const again = engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }).Messages ?? [];

  const { queues } = engine.metrics();
  assert.deepEqual(
    queues.map((q) => q.queue),
    ["q", "q-dlq"],
  );
  for (const row of queues) {
    const url = row.queue === "q" ? QueueUrl : dlq;
    const a = engine.getQueueAttributes({ QueueUrl: url, AttributeNames: ["All"] }).Attributes;
    assert.equal(row.visible, Number(a.ApproximateNumberOfMessages), row.queue);
    assert.equal(row.inflight, Number(a.ApproximateNumberOfMessagesNotVisible), row.queue);
    assert.equal(row.delayed, Number(a.ApproximateNumberOfMessagesDelayed), row.queue);
  }
  const [q, d] = queues;
  assert.deepEqual(
    { sent: q.sent, received: q.received, deleted: q.deleted, moved: q.movedToDeadLetterQueue, throttled: q.throttled, fifo: q.fifo },
    { sent: 5, received: 2 + again.length, deleted: 1, moved: 1, throttled: 0, fifo: false },
  );
  assert.equal(q.region, "us-east-1");
  assert.equal(q.oldestMessageAgeSeconds, 16, "the first messages were sent 16 s ago on the engine's clock");
  assert.equal(d.visible, 1);
  assert.equal(d.oldestMessageAgeSeconds, 16, "a dead-lettered message keeps its send time");
  engine.close();

  const restarted = new wasq.Engine({ clock, storage, seed: 7 });
  const [q2] = restarted.metrics().queues;
  assert.equal(q2.visible + q2.inflight + q2.delayed, q.visible + q.inflight + q.delayed, "the messages are kept");
  assert.equal(q2.sent, 0, "counters start again with the engine");
  restarted.close();
});
