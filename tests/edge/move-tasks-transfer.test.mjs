// Move tasks take messages out of the DLQ with the engine's internal export (no receive), so a
// DLQ that is itself in a dead-letter chain moves its messages instead of dead-lettering them
// onward, and a restart during a task moves every message exactly once (moved copies get ids
// derived from the task and the old id; imports are idempotent by id).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, createQueue, sleep } from "./harness.mjs";

const arnOf = async (sqs, url) =>
  (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
const redrive = (arn, n) => JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: n });
const count = async (sqs, url) => {
  const a = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
  return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
};
const receive = (sqs, url) =>
  sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, AttributeNames: ["All"] })).then((r) => r.Messages ?? []);

/** Source `a` dead-letters into `b` (maxReceiveCount 1); `b` itself dead-letters into `c` (1). */
async function chain(sqs, prefix, n) {
  const c = await createQueue(sqs, `${prefix}-c`);
  const b = await createQueue(sqs, `${prefix}-b`, { VisibilityTimeout: "0", RedrivePolicy: redrive(await arnOf(sqs, c), 1) });
  const a = await createQueue(sqs, `${prefix}-a`, { VisibilityTimeout: "0", RedrivePolicy: redrive(await arnOf(sqs, b), 1) });
  const ids = new Map();
  for (let i = 0; i < n; i++) {
    const { MessageId } = await sqs.send(new S.SendMessageCommand({ QueueUrl: a, MessageBody: `m${i}` }));
    ids.set(`m${i}`, MessageId);
  }
  for (let round = 0; round < 40 && (await count(sqs, a)) > 0; round++) await receive(sqs, a);
  assert.equal(await count(sqs, b), n, "every message dead-lettered into b");
  return { a, b, c, ids };
}

async function waitTask(sqs, sourceArn, timeoutMs = 20000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { Results } = await sqs.send(new S.ListMessageMoveTasksCommand({ SourceArn: sourceArn }));
    if (Results?.[0]?.Status !== "RUNNING" || Date.now() > until) return Results?.[0];
    await sleep(200);
  }
}

for (const partitions of [1, 4]) {
  test(`${partitions} partition(s): a DLQ that is itself in a chain is moved, not dead-lettered onward`, async () => {
    const mf = startWorker({ partitions });
    try {
      const sqs = await client(mf);
      const { a, b, c, ids } = await chain(sqs, "inchain", 6);
      // Each message in b already has receive count 1 = b's own maxReceiveCount: a receive from b
      // would move it on to c.
      await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: await arnOf(sqs, b) }));
      const task = await waitTask(sqs, await arnOf(sqs, b));
      assert.equal(task.Status, "COMPLETED");
      assert.equal(task.ApproximateNumberOfMessagesMoved, 6);
      assert.equal(await count(sqs, c), 0, "nothing went on to c");
      assert.equal(await count(sqs, b), 0);
      const moved = [];
      for (let round = 0; round < 20 && moved.length < 6; round++) moved.push(...(await receive(sqs, a)));
      assert.deepEqual(moved.map((m) => m.Body).sort(), [...ids.keys()].sort());
      for (const m of moved) {
        assert.notEqual(m.MessageId, ids.get(m.Body), "a moved message is a new message");
        assert.equal(m.Attributes.ApproximateReceiveCount, "1");
        assert.equal(m.Attributes.DeadLetterQueueSourceArn, undefined);
      }
    } finally {
      await mf.dispose();
    }
  });
}

test("a restart during a move task moves every message exactly once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasq-edge-"));
  let mf = startWorker({ partitions: 4, persist: dir });
  try {
    let sqs = await client(mf);
    const dlq = await createQueue(sqs, "restart-move-dlq");
    const dest = await createQueue(sqs, "restart-move-dest");
    const bodies = [];
    for (let i = 0; i < 40; i++) {
      await sqs.send(new S.SendMessageCommand({ QueueUrl: dlq, MessageBody: `r${i}` }));
      bodies.push(`r${i}`);
    }
    const dlqArn = await arnOf(sqs, dlq);
    await createQueue(sqs, "restart-move-src", { RedrivePolicy: redrive(dlqArn, 5) }); // makes it a DLQ
    await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: await arnOf(sqs, dest), MaxNumberOfMessagesPerSecond: 15 }));
    // The task moves 15 a second; the runtime goes away in the middle of it.
    await sleep(1300);
    await mf.dispose();

    mf = startWorker({ partitions: 4, persist: dir });
    sqs = await client(mf);
    // A batch cut off between its export and its removal stays locked in the DLQ for the
    // export's 10 s before the task takes it again: a longer bound than the other tasks'.
    const task = await waitTask(sqs, dlqArn, 40000);
    assert.equal(task.Status, "COMPLETED");
    assert.equal(await count(sqs, dlq), 0);
    const got = [];
    for (let round = 0; round < 30 && got.length < 40; round++) {
      for (const m of await receive(sqs, dest)) {
        got.push(m.Body);
        await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dest, ReceiptHandle: m.ReceiptHandle }));
      }
    }
    assert.deepEqual(got.sort(), bodies.sort(), "each message moved once");
    assert.equal(await count(sqs, dest), 0);
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
