// Durability through the real server: stop `wasq serve`, start it again on the same --data
// directory, and everything a client saw is still there — messages, in-flight deadlines, FIFO
// deduplication. Also: a clean stop while a long poll is pending, and one owner per directory.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
import { client, rejection, removeDir, sleep, startWasq, tempDir } from "./helpers.mjs";

async function counts(sqs, url) {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }));
  return { visible: Number(Attributes.ApproximateNumberOfMessages), inflight: Number(Attributes.ApproximateNumberOfMessagesNotVisible) };
}

test("restart on the same --data: queues, messages, in-flight deadlines and FIFO dedup survive", async () => {
  const dir = tempDir();
  let server = await startWasq(["--data", dir]);
  let sqs = client(server.url);
  try {
    const { QueueUrl: std } = await sqs.send(new CreateQueueCommand({ QueueName: "durable", Attributes: { VisibilityTimeout: "30" } }));
    const { QueueUrl: fifo } = await sqs.send(new CreateQueueCommand({ QueueName: "durable.fifo", Attributes: { FifoQueue: "true" } }));
    for (const body of ["one", "two", "three"]) await sqs.send(new SendMessageCommand({ QueueUrl: std, MessageBody: body }));
    const inflight = await sqs.send(new ReceiveMessageCommand({ QueueUrl: std, VisibilityTimeout: 3 }));
    const inflightAt = Date.now();
    assert.equal(inflight.Messages.length, 1);
    const original = await sqs.send(
      new SendMessageCommand({ QueueUrl: fifo, MessageBody: "once", MessageGroupId: "g", MessageDeduplicationId: "d1" }),
    );

    assert.equal(await server.stop("SIGTERM"), 0, "a clean stop exits 0");
    assert.match(server.stdout(), /stopped \(SIGTERM\)/);
    sqs.destroy();

    // Same port too: queue URLs stay valid for clients that kept them.
    server = await startWasq(["--data", dir], { port: server.port });
    sqs = client(server.url);
    const { QueueUrls } = await sqs.send(new ListQueuesCommand({}));
    assert.deepEqual(QueueUrls.sort(), [std, fifo].sort());
    assert.deepEqual(await counts(sqs, std), { visible: 2, inflight: 1 });

    const visible = await sqs.send(new ReceiveMessageCommand({ QueueUrl: std, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }));
    const bodies = visible.Messages.map((m) => m.Body).sort();
    assert.equal(bodies.length, 2);
    assert.ok(!bodies.includes(inflight.Messages[0].Body), "the in-flight message stays hidden across the restart");

    // Its deadline was persisted: it comes back when the original 3 s run out, not 3 s after the restart.
    const back = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: std, WaitTimeSeconds: 10, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }),
    );
    const returnedAfter = Date.now() - inflightAt;
    assert.equal(back.Messages[0].MessageId, inflight.Messages[0].MessageId);
    assert.equal(back.Messages[0].Attributes.ApproximateReceiveCount, "2");
    assert.ok(returnedAfter >= 2900 && returnedAfter < 6000, `visible again ${returnedAfter} ms after the receive`);

    // Deduplication history survived: the same id is accepted and not enqueued again.
    const dup = await sqs.send(
      new SendMessageCommand({ QueueUrl: fifo, MessageBody: "once", MessageGroupId: "g", MessageDeduplicationId: "d1" }),
    );
    assert.equal(dup.MessageId, original.MessageId);
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: fifo, MaxNumberOfMessages: 10 }));
    assert.deepEqual(got.Messages.map((m) => m.Body), ["once"]);
  } finally {
    sqs.destroy();
    await server.stop();
    removeDir(dir);
  }
});

test("a second server on the same --data directory is refused while the first runs", async () => {
  const dir = tempDir();
  const server = await startWasq(["--data", dir]);
  try {
    const err = await rejection(startWasq(["--data", dir]));
    assert.match(err.message, /exited with 1 before listening/);
    assert.match(err.message, /cannot open --data/);
  } finally {
    await server.stop();
    removeDir(dir);
  }
});

test("SIGINT with a long poll pending: the server stops at once and the data stays consistent", async () => {
  const dir = tempDir();
  let server = await startWasq(["--data", dir]);
  let sqs = client(server.url);
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "interrupted" }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "kept" }));
    await sqs.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 })); // back at once
    const { QueueUrl: empty } = await sqs.send(new CreateQueueCommand({ QueueName: "waiting" }));
    const poll = sqs.send(new ReceiveMessageCommand({ QueueUrl: empty, WaitTimeSeconds: 20 }));
    poll.catch(() => {});
    await sleep(300);
    const t = Date.now();
    assert.equal(await server.stop("SIGINT"), 0);
    assert.ok(Date.now() - t < 3000, `stopped in ${Date.now() - t} ms despite a 20 s poll`);
    const err = await rejection(poll);
    assert.ok(err.$metadata?.httpStatusCode === 503 || /socket|ECONNRESET|closed/i.test(String(err.message)), String(err));
    sqs.destroy();

    server = await startWasq(["--data", dir]);
    sqs = client(server.url);
    const { QueueUrl: again } = await sqs.send(new CreateQueueCommand({ QueueName: "interrupted" }));
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: again, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
    assert.equal(got.Messages[0].Body, "kept");
    assert.equal(got.Messages[0].Attributes.ApproximateReceiveCount, "2");
  } finally {
    sqs.destroy();
    await server.stop();
    removeDir(dir);
  }
});
