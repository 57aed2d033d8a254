// Behaviours recorded against real AWS (issue #33) on the Worker in workerd, with every queue in
// one partition object and split over four: the Worker must answer like one engine.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, HT_FIFO, createQueue, sleep, examplePartitions } from "./harness.mjs";

/** The Worker's documented placement hash, FNV-1a 32-bit (as dlq-placement.test.mjs pins it). */
function groupHash(group) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(group)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

const bodies = (r) => (r.Messages ?? []).map((m) => m.Body);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Three group names that land in one partition of four, so one partition's engine orders them. */
function groupsInOnePartition() {
  const found = [];
  for (let i = 0; found.length < 3; i++) {
    const g = `grp${i}`;
    if (groupHash(g) % 4 === 0) found.push(g);
  }
  return found;
}

test("make serve-edge runs the partitions examples/edge/wrangler.toml deploys", () => {
  assert.equal(examplePartitions(), 4);
});

for (const partitions of [1, 4]) {
  describe(`edge worker, ${partitions} partition(s): AWS-recorded behaviours`, () => {
    let mf;
    let sqs;
    before(async () => {
      mf = startWorker({ partitions });
      sqs = await client(mf);
    });
    after(() => mf.dispose());

    // Recorded against AWS, issue #33 item 1, on a FIFO queue and in a partition of a
    // high-throughput one.
    for (const [kind, attrs] of [["FIFO", { FifoQueue: "true" }], ["high-throughput FIFO", HT_FIFO]]) {
      test(`${kind}: ready groups are served in the order they became ready`, async () => {
        const [g1, g2, g3] = groupsInOnePartition();
        const QueueUrl = await createQueue(sqs, `order-${kind.length}.fifo`, { ...attrs, VisibilityTimeout: "1" });
        const plan = [[g1, "g1-m1"], [g1, "g1-m2"], [g1, "g1-m3"], [g1, "g1-m4"], [g2, "g2-m1"], [g3, "g3-m1"]];
        for (const [g, body] of plan) {
          await sqs.send(new S.SendMessageCommand({ QueueUrl, MessageBody: body, MessageGroupId: g, MessageDeduplicationId: body }));
        }
        assert.deepEqual(bodies(await sqs.send(new S.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 2 }))), ["g1-m1", "g1-m2"]);
        assert.deepEqual(bodies(await sqs.send(new S.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }))), ["g2-m1"]);
        await sleep(2100); // both locks (1 s) end
        const all = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
        assert.deepEqual(bodies(all), ["g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1"]);
      });
    }

    // Recorded against AWS, issue #33 item 2.
    test("a bare queue name works where a QueueUrl is expected", async () => {
      const QueueUrl = await createQueue(sqs, "bare-name");
      for (let i = 0; i < 4; i++) await sqs.send(new S.SendMessageCommand({ QueueUrl: "bare-name", MessageBody: `m${i}` }));
      await sqs.send(new S.SetQueueAttributesCommand({ QueueUrl: "bare-name", Attributes: { VisibilityTimeout: "7" } }));
      const attrs = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: "bare-name", AttributeNames: ["All"] }));
      assert.equal(attrs.Attributes.VisibilityTimeout, "7");
      assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "4");
      const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      assert.ok(got.Messages.length > 0);
      await sqs.send(new S.DeleteMessageCommand({ QueueUrl: "bare-name", ReceiptHandle: got.Messages[0].ReceiptHandle }));
    });

    // Recorded against AWS, issue #33 item 3.
    test("move-task handles: base64 of a UUID taskId and the sourceArn; cancel's three refusals", async () => {
      const dlqUrl = await createQueue(sqs, "mt-dlq");
      const dlqArn = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
      await createQueue(sqs, "mt-src", { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) });
      for (const b of ["a", "b", "c"]) await sqs.send(new S.SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: b }));
      const DestinationArn = dlqArn.replace(/[^:]+$/, "mt-src");
      const { TaskHandle } = await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn, MaxNumberOfMessagesPerSecond: 1 }));
      const decoded = JSON.parse(Buffer.from(TaskHandle, "base64").toString("utf8"));
      assert.deepEqual(Object.keys(decoded), ["taskId", "sourceArn"]);
      assert.match(decoded.taskId, UUID);
      assert.equal(decoded.sourceArn, dlqArn);
      const listed = await sqs.send(new S.ListMessageMoveTasksCommand({ SourceArn: dlqArn }));
      assert.equal(listed.Results[0].TaskHandle, TaskHandle);
      const handle = (o) => Buffer.from(JSON.stringify(o)).toString("base64");
      const refusal = async (h) => {
        try {
          await sqs.send(new S.CancelMessageMoveTaskCommand({ TaskHandle: h }));
        } catch (e) {
          return e;
        }
        assert.fail("expected a refusal");
      };
      const unknown = await refusal(handle({ taskId: "3f2504e0-4f89-41d3-9a0c-0305e82c3301", sourceArn: dlqArn }));
      assert.equal(unknown.name, "ResourceNotFoundException");
      assert.equal(unknown.message, "Task does not exist.");
      assert.equal(unknown.$metadata.httpStatusCode, 404);
      const noSource = await refusal(handle({ taskId: decoded.taskId, sourceArn: `${dlqArn}-none` }));
      assert.equal(noSource.name, "ResourceNotFoundException");
      assert.equal(noSource.message, "The resource that you specified for the SourceArn parameter doesn't exist.");
      const bad = await refusal("not a handle");
      assert.equal(bad.name, "InvalidParameterValue");
      assert.equal(bad.message, "Value for parameter TaskHandle is invalid.");
      await sqs.send(new S.CancelMessageMoveTaskCommand({ TaskHandle }));
    });

    // Issue #33 item 5.
    test("queue URLs name their region and reach it from a client of another region", async () => {
      const west = await client(mf, { region: "eu-west-1" });
      const eastUrl = await createQueue(sqs, "regions");
      const westUrl = await createQueue(west, "regions");
      assert.equal(new URL(eastUrl).pathname, "/queue/us-east-1/000000000000/regions");
      assert.equal(new URL(westUrl).pathname, "/queue/eu-west-1/000000000000/regions");
      assert.equal((await west.send(new S.GetQueueUrlCommand({ QueueName: "regions" }))).QueueUrl, westUrl);
      assert.deepEqual((await west.send(new S.ListQueuesCommand({ QueueNamePrefix: "regions" }))).QueueUrls, [westUrl]);
      const arn = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: westUrl, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
      assert.equal(arn, "arn:aws:sqs:eu-west-1:000000000000:regions");
      await sqs.send(new S.SendMessageCommand({ QueueUrl: westUrl, MessageBody: "crossed" }));
      const got = await west.send(new S.ReceiveMessageCommand({ QueueUrl: westUrl, MaxNumberOfMessages: 10 }));
      assert.deepEqual(bodies(got), ["crossed"]);
      await sqs.send(new S.DeleteMessageCommand({ QueueUrl: westUrl, ReceiptHandle: got.Messages[0].ReceiptHandle }));
      assert.equal((await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: eastUrl }))).Messages, undefined);
    });

    // Issue #33 item 6.
    test("batch answers in entry order without an empty Failed; errors quote the handle sent", async () => {
      const QueueUrl = await createQueue(sqs, "batch-order");
      const Entries = Array.from({ length: 10 }, (_, i) => ({ Id: `message-${i}`, MessageBody: `m${i}` }));
      const sent = await sqs.send(new S.SendMessageBatchCommand({ QueueUrl, Entries }));
      assert.deepEqual(sent.Successful.map((e) => e.Id), Entries.map((e) => e.Id));
      assert.equal(sent.Failed, undefined);
      const got = [];
      for (let round = 0; round < 20 && got.length < 10; round++) {
        got.push(...((await sqs.send(new S.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages ?? []));
      }
      assert.equal(got.length, 10);
      const del = await sqs.send(
        new S.DeleteMessageBatchCommand({ QueueUrl, Entries: got.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })) }),
      );
      assert.deepEqual(del.Successful.map((e) => e.Id), got.map((_, i) => `d${i}`));
      assert.equal(del.Failed, undefined);
      const handle = got[0].ReceiptHandle;
      await assert.rejects(sqs.send(new S.ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: handle, VisibilityTimeout: 5 })), (e) => {
        assert.equal(e.name, "InvalidParameterValue");
        assert.ok(e.message.startsWith(`Value ${handle} for parameter ReceiptHandle is invalid.`), e.message);
        return true;
      });
      const batchChange = await sqs.send(
        new S.ChangeMessageVisibilityBatchCommand({ QueueUrl, Entries: got.slice(0, 3).map((m, i) => ({ Id: `c${i}`, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 5 })) }),
      );
      assert.equal(batchChange.Successful, undefined);
      assert.deepEqual(batchChange.Failed.map((f) => f.Id), ["c0", "c1", "c2"]);
      batchChange.Failed.forEach((f, i) => assert.ok(f.Message.startsWith(`Value ${got[i].ReceiptHandle} for parameter ReceiptHandle`), f.Message));
      // A FIFO delete after the visibility timeout quotes the handle too.
      const fifo = await createQueue(sqs, "late-delete.fifo", { ...HT_FIFO, VisibilityTimeout: "1" });
      await sqs.send(new S.SendMessageCommand({ QueueUrl: fifo, MessageBody: "x", MessageGroupId: "g", MessageDeduplicationId: "x" }));
      const [m] = (await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: fifo }))).Messages;
      await sleep(1100);
      await assert.rejects(sqs.send(new S.DeleteMessageCommand({ QueueUrl: fifo, ReceiptHandle: m.ReceiptHandle })), (e) => {
        assert.ok(e.message.startsWith(`Value ${m.ReceiptHandle} for parameter ReceiptHandle is invalid.`), e.message);
        return true;
      });
    });
  });
}
