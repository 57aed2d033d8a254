// sqs-producer and sqs-consumer (v14), unmodified, against `wasq serve` over HTTP: a standard and
// a FIFO queue end to end, a handler that fails and is retried, and a poison message that ends
// up in the dead-letter queue.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { CreateQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { Consumer } from "sqs-consumer";
import { Producer } from "sqs-producer";
import { client, sleep, startWasq, uniqueName } from "./helpers.mjs";

let server;
let sqs;

before(async () => {
  server = await startWasq(["--memory"]);
  sqs = client(server.url);
});

after(async () => {
  sqs?.destroy();
  await server?.stop();
});

async function createQueue(prefix, attributes = {}, fifo = false) {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: uniqueName(prefix, fifo), Attributes: fifo ? { FifoQueue: "true", ...attributes } : attributes }),
  );
  return QueueUrl;
}

async function attribute(url, name) {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [name] }));
  return Attributes[name];
}

async function depth(url) {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }));
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) +
    Number(Attributes.ApproximateNumberOfMessagesDelayed);
}

/** Resolve once `check()` is true, polling; fail after `ms`. */
async function until(check, ms, what) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** A consumer whose `errors` collects what it reports while running (not the abort of its stop). */
function consumer(options) {
  const c = Consumer.create({ sqs, waitTimeSeconds: 1, pollingWaitTimeMs: 0, ...options });
  const errors = [];
  let stopped = false;
  c.on("error", (err) => {
    if (!stopped) errors.push(err);
  });
  const stop = () => {
    stopped = true;
    c.stop({ abort: true });
  };
  return { c, errors, stop };
}

test("standard queue: producer batches in, consumer processes all, a failing handler is retried", async () => {
  const queueUrl = await createQueue("std", { VisibilityTimeout: "30" });
  const producer = Producer.create({ queueUrl, sqs });
  const bodies = Array.from({ length: 25 }, (_, i) => `job-${i}`);
  const sent = await producer.send(bodies.map((body) => ({ id: body, body })));
  assert.equal(sent.length, 25);
  assert.equal(await producer.queueSize(), 25);

  const handled = new Map();
  let failedOnce = false;
  const processingErrors = [];
  const { c, errors, stop } = consumer({
    queueUrl,
    batchSize: 10,
    // A failed message becomes visible again at once instead of after 30 s.
    terminateVisibilityTimeout: true,
    handleMessage: async (message) => {
      if (message.Body === "job-7" && !failedOnce) {
        failedOnce = true;
        throw new Error("transient failure");
      }
      handled.set(message.Body, (handled.get(message.Body) ?? 0) + 1);
      return message;
    },
  });
  c.on("processing_error", (err) => processingErrors.push(err));
  c.start();
  try {
    await until(() => handled.size === 25, 15_000, "all 25 messages to be handled");
    await until(async () => (await depth(queueUrl)) === 0, 5_000, "the queue to drain");
  } finally {
    stop();
  }
  assert.deepEqual([...handled.keys()].sort(), [...bodies].sort());
  assert.ok([...handled.values()].every((n) => n === 1), "each message handled successfully once");
  assert.equal(processingErrors.length, 1);
  assert.match(processingErrors[0].message, /transient failure/);
  assert.deepEqual(errors, []);
});

test("a message whose handler always fails moves to the dead-letter queue after maxReceiveCount", async () => {
  const dlqUrl = await createQueue("dead");
  const dlqArn = await attribute(dlqUrl, "QueueArn");
  const queueUrl = await createQueue("work", {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
  });
  const producer = Producer.create({ queueUrl, sqs });
  await producer.send([
    { id: "good", body: "good" },
    { id: "poison", body: "poison" },
  ]);

  const attempts = new Map();
  const { c, errors, stop } = consumer({
    queueUrl,
    batchSize: 10,
    terminateVisibilityTimeout: true,
    handleMessage: async (message) => {
      attempts.set(message.Body, (attempts.get(message.Body) ?? 0) + 1);
      if (message.Body === "poison") throw new Error("cannot process");
      return message;
    },
  });
  c.on("processing_error", () => {});
  const dead = [];
  const { c: dlqConsumer, stop: stopDlq } = consumer({
    queueUrl: dlqUrl,
    messageSystemAttributeNames: ["All"],
    handleMessage: async (message) => {
      dead.push(message);
      return message;
    },
  });
  c.start();
  dlqConsumer.start();
  try {
    await until(() => dead.length === 1, 15_000, "the poison message in the dead-letter queue");
    await until(async () => (await depth(queueUrl)) === 0, 5_000, "the work queue to drain");
  } finally {
    stop();
    stopDlq();
  }
  assert.equal(dead[0].Body, "poison");
  assert.equal(dead[0].Attributes.DeadLetterQueueSourceArn, await attribute(queueUrl, "QueueArn"));
  assert.equal(dead[0].Attributes.ApproximateReceiveCount, "3");
  assert.equal(attempts.get("poison"), 2, "delivered maxReceiveCount times, then moved");
  assert.equal(attempts.get("good"), 1);
  assert.equal(await depth(dlqUrl), 0);
  assert.deepEqual(errors, []);
});

test("FIFO queue: per-group order end to end, duplicates dropped, handleMessageBatch", async () => {
  const queueUrl = await createQueue("orders", {}, true);
  const producer = Producer.create({ queueUrl, sqs });
  const messages = [];
  for (let i = 0; i < 12; i++) {
    const group = `g${i % 3}`;
    messages.push({ id: `m${i}`, body: `${group}:${i}`, groupId: group, deduplicationId: `dedup-${i}` });
  }
  await producer.send(messages);
  // Same deduplication ids again: accepted, not delivered twice.
  await producer.send(messages.slice(0, 4));

  const seen = [];
  const { c, errors, stop } = consumer({
    queueUrl,
    batchSize: 10,
    handleMessageBatch: async (batch) => {
      for (const m of batch) seen.push(m.Body);
      return batch;
    },
  });
  c.start();
  try {
    await until(() => seen.length >= 12, 15_000, "all FIFO messages");
    await sleep(300); // a duplicate, if any, would arrive now
  } finally {
    stop();
  }
  assert.equal(seen.length, 12);
  for (const group of ["g0", "g1", "g2"]) {
    const order = seen.filter((b) => b.startsWith(group + ":")).map((b) => Number(b.split(":")[1]));
    const expected = messages.filter((m) => m.groupId === group).map((m) => Number(m.body.split(":")[1]));
    assert.deepEqual(order, expected, `group ${group} in send order`);
  }
  assert.equal(await depth(queueUrl), 0);
  assert.deepEqual(errors, []);
});
