// Message-move tasks (DLQ redrive) through the Worker: the directory drives each task, taking
// messages from every location of the dead-letter queue and sending them to the destination's
// partition for their group. Real SDK (JSON protocol), 1 and 4 partitions.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, HT_FIFO, createQueue, sleep } from "./harness.mjs";
import { groupHashPartition } from "./util.mjs";

for (const partitions of [1, 4]) {
  describe(`move tasks, ${partitions} partition(s)`, () => {
    let mf;
    let sqs;
    before(async () => {
      mf = startWorker({ partitions });
      sqs = await client(mf);
    });
    after(() => mf.dispose());

    const create = (name, Attributes) => createQueue(sqs, name, Attributes);
    const arnOf = async (url) =>
      (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
    const count = async (url) => {
      const a = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
      return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
    };
    const drain = async (url, opts = {}) => {
      const out = [];
      for (let i = 0; i < 30; i++) {
        const r = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, AttributeNames: ["All"], MessageAttributeNames: ["All"], ...opts }));
        if (!r.Messages?.length) {
          if ((await count(url)) === 0) break;
          continue;
        }
        for (const m of r.Messages) {
          out.push(m);
          await sqs.send(new S.DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
        }
      }
      return out;
    };
    /** A source queue whose messages are all dead-lettered (maxReceiveCount 1, two receives each). */
    const deadLettered = async (prefix, bodies, attrs = {}, groupOf) => {
      const dlq = await create(`${prefix}-dlq${attrs.FifoQueue ? ".fifo" : ""}`, attrs);
      const dlqArn = await arnOf(dlq);
      const src = await create(`${prefix}-src${attrs.FifoQueue ? ".fifo" : ""}`, {
        ...attrs,
        VisibilityTimeout: "0",
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }),
      });
      for (const [i, body] of bodies.entries()) {
        await sqs.send(new S.SendMessageCommand({
          QueueUrl: src,
          MessageBody: body,
          MessageAttributes: { n: { DataType: "Number", StringValue: String(i) } },
          ...(groupOf ? { MessageGroupId: groupOf(i), MessageDeduplicationId: `d${i}` } : {}),
        }));
      }
      for (let round = 0; round < 40 && (await count(src)) > 0; round++) {
        await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: src, MaxNumberOfMessages: 10 }));
      }
      assert.equal(await count(src), 0, "every message was dead-lettered");
      assert.equal(await count(dlq), bodies.length);
      return { src, dlq, dlqArn, srcArn: await arnOf(src) };
    };
    const list = async (SourceArn, MaxResults) => (await sqs.send(new S.ListMessageMoveTasksCommand({ SourceArn, MaxResults }))).Results ?? [];
    const until = async (SourceArn, status, seconds = 20) => {
      for (let i = 0; i < seconds * 10; i++) {
        const [t] = await list(SourceArn);
        if (t?.Status === status) return t;
        await sleep(100);
      }
      assert.fail(`task on ${SourceArn} never reached ${status}: ${JSON.stringify(await list(SourceArn))}`);
    };

    test("redrive to the original source at the rate asked, with progress counters, from every DLQ location", async () => {
      const bodies = Array.from({ length: 12 }, (_, i) => `poison-${i}`);
      const { src, dlq, dlqArn } = await deadLettered("mt1", bodies);
      const started = Date.now();
      const { TaskHandle } = await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 5 }));
      assert.ok(TaskHandle);
      let running;
      for (;;) {
        const [t] = await list(dlqArn);
        const elapsed = Math.floor((Date.now() - started) / 1000);
        // Never faster than asked: one batch of ≤ 5 at start, then ≤ 5 per elapsed second.
        assert.ok(t.ApproximateNumberOfMessagesMoved <= 5 * (elapsed + 1), `moved ${t.ApproximateNumberOfMessagesMoved} after ${elapsed} s`);
        assert.equal(t.ApproximateNumberOfMessagesToMove, 12, "fixed at start");
        if (t.Status !== "RUNNING") {
          assert.equal(t.Status, "COMPLETED");
          assert.equal(t.TaskHandle, undefined, "a handle only while running");
          break;
        }
        running = t;
        assert.equal(t.TaskHandle, TaskHandle);
        await sleep(100);
      }
      assert.ok(running, "the task was seen running (the rate spreads 12 messages over 3 seconds)");
      const [done] = await list(dlqArn);
      assert.equal(done.ApproximateNumberOfMessagesMoved, 12);
      assert.equal(done.MaxNumberOfMessagesPerSecond, 5);
      assert.equal(done.DestinationArn, undefined, "not named, not listed");
      assert.equal(done.SourceArn, dlqArn);
      assert.ok(done.StartedTimestamp >= started - 1000 && done.StartedTimestamp <= Date.now());
      assert.equal(await count(dlq), 0);
      const back = await drain(src);
      assert.deepEqual(back.map((m) => m.Body).sort(), [...bodies].sort());
      for (const m of back) {
        assert.equal(m.Attributes.ApproximateReceiveCount, "1", "a moved message is a new message");
        assert.equal(m.Attributes.DeadLetterQueueSourceArn, undefined);
        assert.equal(m.MessageAttributes.n.DataType, "Number", "message attributes travel with it");
      }
    });

    test("an explicit destination: a high-throughput FIFO queue gets each group in its own partition, in order", async () => {
      const bodies = Array.from({ length: 9 }, (_, i) => `g${i % 3}-${i}`);
      const { dlqArn } = await deadLettered("mt2", bodies, HT_FIFO, (i) => `g${i % 3}`);
      const dest = await create("mt2-dest.fifo", HT_FIFO);
      const destArn = await arnOf(dest);
      await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: destArn }));
      const t = await until(dlqArn, "COMPLETED");
      assert.equal(t.DestinationArn, destArn);
      assert.equal(t.ApproximateNumberOfMessagesMoved, 9);
      const seen = new Map();
      const got = await drain(dest);
      for (const m of got) {
        const g = m.Attributes.MessageGroupId;
        assert.equal(Number(m.ReceiptHandle.split(":")[0]), groupHashPartition(g, partitions), `group ${g} lives in its hash partition`);
        if (!seen.has(g)) seen.set(g, []);
        seen.get(g).push(m.Body);
      }
      for (const [g, list] of seen) assert.deepEqual(list, bodies.filter((b) => b.startsWith(`${g}-`)), `group ${g} in order`);
      assert.equal(got.length, 9);
    });

    test("cancel: answers the count so far, ends CANCELLED, loses nothing", async () => {
      const bodies = Array.from({ length: 8 }, (_, i) => `c-${i}`);
      const { src, dlq, dlqArn } = await deadLettered("mt3", bodies);
      const { TaskHandle } = await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 1 }));
      await sleep(1500);
      const { ApproximateNumberOfMessagesMoved: atCancel } = await sqs.send(new S.CancelMessageMoveTaskCommand({ TaskHandle }));
      assert.ok(atCancel >= 1 && atCancel < 8, `moved ${atCancel} before the cancel`);
      const t = await until(dlqArn, "CANCELLED", 5);
      assert.ok(t.ApproximateNumberOfMessagesMoved >= atCancel);
      await sleep(1500);
      const [later] = await list(dlqArn);
      assert.equal(later.ApproximateNumberOfMessagesMoved, t.ApproximateNumberOfMessagesMoved, "nothing moves after CANCELLED");
      assert.equal((await count(src)) + (await count(dlq)), 8, "every message is in the source or the DLQ");
      assert.equal(await count(src), t.ApproximateNumberOfMessagesMoved);
      await assert.rejects(sqs.send(new S.CancelMessageMoveTaskCommand({ TaskHandle })), (e) => {
        assert.equal(e.name, "InvalidParameterValue");
        assert.equal(e.message, `Value ${TaskHandle} for parameter TaskHandle is invalid. Reason: Only active tasks can be cancelled.`);
        return true;
      });
      // A new task may start once the old one is over; List shows newest first.
      await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn }));
      await until(dlqArn, "COMPLETED");
      const both = await list(dlqArn, 10);
      assert.deepEqual(both.map((x) => x.Status), ["COMPLETED", "CANCELLED"]);
      assert.equal(await count(src), 8);
    });

    test("the exact SQS errors, and a refused start changes nothing", async () => {
      const { dlqArn, srcArn } = await deadLettered("mt4", ["a", "b", "c"]);
      const refuses = (cmd, name, status, message) =>
        assert.rejects(sqs.send(cmd), (e) => {
          assert.equal(e.name, name);
          assert.equal(e.$metadata.httpStatusCode, status);
          if (message) assert.equal(e.message, message);
          return true;
        });
      const missing = dlqArn.replace(/mt4-dlq$/, "no-such-queue");
      await refuses(new S.StartMessageMoveTaskCommand({ SourceArn: missing }), "ResourceNotFoundException", 404, "The resource that you specified for the SourceArn parameter doesn't exist.");
      await refuses(new S.StartMessageMoveTaskCommand({ SourceArn: srcArn }), "InvalidParameterValue", 400, "Source queue must be configured as a Dead Letter Queue.");
      await refuses(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: missing }), "ResourceNotFoundException", 404, "The resource that you specified for the DestinationArn parameter doesn't exist.");
      await refuses(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 501 }), "InvalidParameterValue", 400);
      await refuses(new S.ListMessageMoveTasksCommand({ SourceArn: missing }), "ResourceNotFoundException", 404);
      await refuses(new S.ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 11 }), "InvalidParameterValue", 400);
      assert.deepEqual(await list(dlqArn), [], "no task was recorded by any refusal");
      await refuses(new S.CancelMessageMoveTaskCommand({ TaskHandle: "not a handle" }), "InvalidParameterValue", 400, "Value for parameter TaskHandle is invalid.");
      const unknown = Buffer.from(JSON.stringify({ sourceArn: dlqArn, taskId: "424242" })).toString("base64");
      await refuses(new S.CancelMessageMoveTaskCommand({ TaskHandle: unknown }), "ResourceNotFoundException", 404, "Task does not exist.");

      const { TaskHandle } = await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 1 }));
      await refuses(
        new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn }),
        "InvalidParameterValue",
        400,
        "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
      );
      assert.equal((await list(dlqArn, 10)).length, 1, "the refused second start recorded nothing");
      await sqs.send(new S.CancelMessageMoveTaskCommand({ TaskHandle }));

      // Starts at once: the directory takes the others while the first counts the DLQ's
      // messages in the partitions, and still only one may run.
      const both = await Promise.allSettled([1, 2, 3, 4, 5].map(() => sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 1 }))));
      assert.equal(both.filter((r) => r.status === "fulfilled").length, 1, "exactly one concurrent start succeeds");
      for (const r of both.filter((x) => x.status === "rejected")) assert.equal(r.reason.name, "InvalidParameterValue");
      const [running] = await list(dlqArn);
      assert.equal(running.Status, "RUNNING");
      await sqs.send(new S.CancelMessageMoveTaskCommand({ TaskHandle: running.TaskHandle }));
    });

    test("a DLQ consumer racing a move task: each message is either consumed or moved, never both", async () => {
      const bodies = Array.from({ length: 40 }, (_, i) => `race-${i}`);
      const { src, dlq, dlqArn } = await deadLettered("mt6", bodies);
      // Consumers take one message at a time from the DLQ (and delete it) while the task runs,
      // several receives always outstanding so that some land between a batch's export and
      // its removal (the window where an unlocked export let a receive take a moving message).
      const consumed = [];
      let finished = false;
      const consumer = async () => {
        while (!finished) {
          const r = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 1, VisibilityTimeout: 60 }));
          for (const m of r.Messages ?? []) {
            consumed.push(m.Body);
            await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: m.ReceiptHandle }));
          }
        }
      };
      await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn }));
      const consumers = Array.from({ length: 4 }, consumer);
      try {
        await until(dlqArn, "COMPLETED", 30);
      } finally {
        finished = true;
        await Promise.all(consumers);
      }
      const moved = (await drain(src)).map((m) => m.Body);
      const both = moved.filter((b) => consumed.includes(b));
      assert.deepEqual(both, [], "received from the DLQ and also moved");
      assert.deepEqual([...moved, ...consumed].sort(), [...bodies].sort(), "each message either moved or consumed, once");
      assert.ok(moved.length > 0, "the task moved some");
      assert.equal(await count(dlq), 0);
    });

    test("a destination deleted mid-task fails the task with NonExistentQueue and keeps the messages", async () => {
      const bodies = Array.from({ length: 6 }, (_, i) => `f-${i}`);
      const { dlq, dlqArn } = await deadLettered("mt5", bodies);
      const dest = await create("mt5-dest");
      const destArn = await arnOf(dest);
      await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: destArn, MaxNumberOfMessagesPerSecond: 1 }));
      await sleep(1200);
      await sqs.send(new S.DeleteQueueCommand({ QueueUrl: dest }));
      const t = await until(dlqArn, "FAILED", 10);
      assert.equal(t.FailureReason, "AWS.SimpleQueueService.NonExistentQueue");
      assert.equal(await count(dlq), 6 - t.ApproximateNumberOfMessagesMoved, "what was not moved is still in the DLQ");
    });
  });
}
