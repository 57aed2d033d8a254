// SQS scenarios against the Worker in workerd, through the real AWS SDK (MD5 checks on), with
// queues in one partition object and split over four.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, HT_FIFO, createQueue, sleep } from "./harness.mjs";

for (const partitions of [1, 4]) {
  describe(`edge worker, ${partitions} partition(s)`, () => {
    let mf;
    let sqs;
    before(async () => {
      mf = startWorker({ partitions });
      sqs = await client(mf);
    });
    after(() => mf.dispose());

    const create = (name, Attributes) => createQueue(sqs, name, Attributes);

    test("SigV4 is enforced: a wrong secret is refused and changes nothing", async () => {
      const url = await create("auth-q");
      const bad = await client(mf, { credentials: { accessKeyId: "test", secretAccessKey: "wrong" } });
      await assert.rejects(bad.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "x" })), (e) => e.name === "InvalidSignatureException" || e.Code === "SignatureDoesNotMatch");
      const attrs = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages"] }));
      assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "0");
    });

    test("FIFO: per-group order across a batch, group locking, directory lookups", async () => {
      const url = await create("orders.fifo", HT_FIFO);
      assert.equal((await sqs.send(new S.GetQueueUrlCommand({ QueueName: "orders.fifo" }))).QueueUrl, url);
      const listed = await sqs.send(new S.ListQueuesCommand({ QueueNamePrefix: "orders" }));
      assert.deepEqual(listed.QueueUrls, [url]);
      const entries = [];
      for (let i = 0; i < 10; i++) {
        entries.push({ Id: `e${i}`, MessageBody: `g${i % 3}-m${i}`, MessageGroupId: `g${i % 3}`, MessageDeduplicationId: `d${i}` });
      }
      const sent = await sqs.send(new S.SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
      assert.deepEqual(sent.Successful.map((e) => e.Id), entries.map((e) => e.Id), "merged in request order");
      assert.equal(sent.Failed?.length ?? 0, 0);
      const attrs = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages"] }));
      assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "10", "counters summed over partitions");

      const seen = new Map();
      for (let round = 0; round < 20 && [...seen.values()].flat().length < 10; round++) {
        const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, AttributeNames: ["All"] }));
        const inFlightGroups = new Set();
        for (const m of got.Messages ?? []) {
          const g = m.Attributes.MessageGroupId;
          inFlightGroups.add(g);
          if (!seen.has(g)) seen.set(g, []);
          seen.get(g).push(m.Body);
        }
        // A second receive while these are in flight must not hand out more of the same groups.
        const again = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, AttributeNames: ["All"] }));
        for (const m of again.Messages ?? []) assert.ok(!inFlightGroups.has(m.Attributes.MessageGroupId), "group locked while in flight");
        for (const m of [...(got.Messages ?? []), ...(again.Messages ?? [])]) {
          if (again.Messages?.includes(m)) {
            const g = m.Attributes.MessageGroupId;
            if (!seen.has(g)) seen.set(g, []);
            seen.get(g).push(m.Body);
          }
          await sqs.send(new S.DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
        }
      }
      for (const [g, bodies] of seen) {
        const expected = entries.filter((e) => e.MessageGroupId === g).map((e) => e.MessageBody);
        assert.deepEqual(bodies, expected, `group ${g} in send order`);
      }
      assert.equal([...seen.values()].flat().length, 10);
    });

    test("FIFO dedup per group: a repeated dedup id in the same group is dropped", async () => {
      const url = await create("dedup.fifo", HT_FIFO);
      for (let i = 0; i < 2; i++) {
        await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "once", MessageGroupId: "g", MessageDeduplicationId: "same" }));
      }
      await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "other group", MessageGroupId: "h", MessageDeduplicationId: "same" }));
      const attrs = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages"] }));
      assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "2");
    });

    test("visibility: a received message is hidden, then returns after its timeout; ChangeMessageVisibility by wrapped handle", async () => {
      const url = await create("vis-q", { VisibilityTimeout: "1" });
      await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "v" }));
      const first = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
      assert.equal(first.Messages.length, 1);
      const hidden = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url }));
      assert.equal(hidden.Messages?.length ?? 0, 0);
      const back = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 5, AttributeNames: ["ApproximateReceiveCount"] }));
      assert.equal(back.Messages.length, 1, "visible again after the timeout (alarm-driven)");
      assert.equal(back.Messages[0].Attributes.ApproximateReceiveCount, "2");
      await sqs.send(new S.ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: back.Messages[0].ReceiptHandle, VisibilityTimeout: 0 }));
      const now = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url }));
      assert.equal(now.Messages?.length, 1, "visibility 0 makes it receivable at once");
      await assert.rejects(
        sqs.send(new S.DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: "not-a-handle" })),
        (e) => e.name === "ReceiptHandleIsInvalid",
      );
    });

    test("long polling: a waiting receive returns as soon as a message arrives", async () => {
      const url = await create("poll-q");
      const t0 = Date.now();
      const waiting = sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 10 }));
      await sleep(300);
      await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "late" }));
      const got = await waiting;
      const took = Date.now() - t0;
      assert.equal(got.Messages?.[0]?.Body, "late");
      assert.ok(took < 5000, `returned after ${took} ms, not at the 10 s deadline`);
      const t1 = Date.now();
      const empty = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
      assert.equal(empty.Messages?.length ?? 0, 0);
      assert.ok(Date.now() - t1 >= 900, "an empty long poll waits its time");
    });

    test("long polling by the queue's ReceiveMessageWaitTimeSeconds when the request names no wait", async () => {
      const url = await create("poll-default-q", { ReceiveMessageWaitTimeSeconds: "10" });
      const waiting = sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url }));
      await sleep(300);
      await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "default-wait" }));
      const got = await waiting;
      assert.equal(got.Messages?.[0]?.Body, "default-wait", "the receive waited for the send");
      const short = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 0, VisibilityTimeout: 0 }));
      assert.equal(short.Messages?.length ?? 0, 0, "the received message stays in flight");
    });

    test("dead-letter queue: exhausted messages move and keep id, receive count and source ARN", async () => {
      const dlq = await create("dead-q");
      const dlqArn = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
      const src = await create("work-q", {
        VisibilityTimeout: "0",
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }),
      });
      const sources = await sqs.send(new S.ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq }));
      assert.deepEqual(sources.queueUrls, [src]);
      const { MessageId } = await sqs.send(new S.SendMessageCommand({ QueueUrl: src, MessageBody: "poison" }));
      const once = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: src, MaxNumberOfMessages: 10 }));
      assert.equal(once.Messages.length, 1);
      const twice = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: src, MaxNumberOfMessages: 10 }));
      assert.equal(twice.Messages?.length ?? 0, 0, "the receive that would exceed maxReceiveCount moves it instead");
      const dead = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, AttributeNames: ["All"] }));
      assert.equal(dead.Messages?.length, 1);
      const m = dead.Messages[0];
      assert.equal(m.MessageId, MessageId);
      assert.equal(m.Body, "poison");
      assert.equal(m.Attributes.ApproximateReceiveCount, "2");
      assert.equal(m.Attributes.DeadLetterQueueSourceArn, dlqArn.replace(/dead-q$/, "work-q"));
      const counts = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["ApproximateNumberOfMessagesNotVisible"] }));
      assert.equal(counts.Attributes.ApproximateNumberOfMessagesNotVisible, "1");
      await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: m.ReceiptHandle }));
      const left = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["All"] }));
      assert.equal(left.Attributes.ApproximateNumberOfMessagesNotVisible, "0");
      assert.equal(left.Attributes.ApproximateNumberOfMessages, "0");
    });

    test("batches: delete and change-visibility split by handle and merge in order; whole-batch errors stay whole", async () => {
      const url = await create("batch-q");
      const entries = Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: `body-${i}` }));
      await sqs.send(new S.SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
      const got = [];
      for (let i = 0; i < 10 && got.length < 10; i++) {
        const r = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }));
        got.push(...(r.Messages ?? []));
      }
      assert.equal(got.length, 10);
      const used = new Set(got.map((m) => m.ReceiptHandle.split(":")[0]));
      if (partitions > 1) assert.ok(used.size > 1, `messages without a group spread over partitions (${[...used]})`);
      else assert.deepEqual([...used], ["0"]);
      const vis = await sqs.send(new S.ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: got.map((m, i) => ({ Id: `c${i}`, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 120 })),
      }));
      assert.deepEqual(vis.Successful.map((e) => e.Id), got.map((_, i) => `c${i}`));
      const del = await sqs.send(new S.DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: [...got.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle }))].slice(0, 9).concat([{ Id: "bad", ReceiptHandle: "garbage" }]),
      }));
      assert.deepEqual(del.Successful.map((e) => e.Id), got.slice(0, 9).map((_, i) => `d${i}`));
      assert.deepEqual(del.Failed.map((e) => [e.Id, e.Code]), [["bad", "ReceiptHandleIsInvalid"]]);
      const eleven = Array.from({ length: 11 }, (_, i) => ({ Id: `x${i}`, MessageBody: "x" }));
      await assert.rejects(sqs.send(new S.SendMessageBatchCommand({ QueueUrl: url, Entries: eleven })), (e) => e.name === "TooManyEntriesInBatchRequest");
      await assert.rejects(
        sqs.send(new S.SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: "a", MessageBody: "1" }, { Id: "a", MessageBody: "2" }] })),
        (e) => e.name === "BatchEntryIdsNotDistinct",
      );
      // The wasm's own pairwise check (send.rs `first_repeat`): the first entry that repeats an
      // earlier id is named, and ids as long as each other that end alike are not repeats.
      const repeats = ["a", "b", "b", "a"].map((Id, i) => ({ Id, MessageBody: `${i}` }));
      await assert.rejects(
        sqs.send(new S.SendMessageBatchCommand({ QueueUrl: url, Entries: repeats })),
        (e) => e.name === "BatchEntryIdsNotDistinct" && e.message === "Id b repeated.",
      );
      const { QueueUrl: alikeUrl } = await sqs.send(new S.CreateQueueCommand({ QueueName: "alike-ids" }));
      const alike = await sqs.send(new S.SendMessageBatchCommand({
        QueueUrl: alikeUrl,
        Entries: ["xa", "ya", "Xa", "a"].map((Id, i) => ({ Id, MessageBody: `${i}` })),
      }));
      assert.deepEqual(alike.Successful.map((e) => e.Id), ["xa", "ya", "Xa", "a"]);
      const attrs = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }));
      assert.equal(attrs.Attributes.ApproximateNumberOfMessagesNotVisible, "1", "rejected batches sent nothing");
      assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "0");
    });

    test("Query protocol (form in, XML out) reaches the same queues", async () => {
      const url = await create("query-q");
      await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "via json" }));
      // Unsigned Query requests are refused; a signed one is built with the SDK's signer.
      const res = await mf.dispatchFetch(`${(await mf.ready).origin}/`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ Action: "ReceiveMessage", QueueUrl: url, Version: "2012-11-05" }).toString(),
      });
      assert.equal(res.status, 403);
      assert.match(await res.text(), /<Code>MissingAuthenticationToken<\/Code>/);
    });
  });
}
