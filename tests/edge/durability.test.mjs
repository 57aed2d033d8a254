// Restarts and concurrency: miniflare is disposed and re-created over the same persistence
// directory mid-workload, and a partitioned FIFO queue is driven by concurrent senders and
// receivers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, HT_FIFO, createQueue, sleep } from "./harness.mjs";

test("restart mid-workload: nothing acknowledged is lost, in-flight deadlines and alarms survive", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasq-edge-"));
  let mf = startWorker({ partitions: 4, persist: dir });
  try {
    let sqs = await client(mf);
    const url = await createQueue(sqs, "durable.fifo", HT_FIFO);
    const sent = [];
    for (let i = 0; i < 40; i++) {
      const body = `g${i % 8}-${i}`;
      await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: `g${i % 8}`, MessageDeduplicationId: `d${i}` }));
      sent.push(body);
    }
    // Some in flight with a 3 s timeout when the runtime goes away.
    const inflight = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 3 }));
    assert.ok(inflight.Messages.length > 0);
    const receivedAt = Date.now();
    await mf.dispose();

    mf = startWorker({ partitions: 4, persist: dir });
    sqs = await client(mf);
    const attrs = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }));
    assert.equal(Number(attrs.Attributes.ApproximateNumberOfMessages) + Number(attrs.Attributes.ApproximateNumberOfMessagesNotVisible), 40);
    assert.equal(attrs.Attributes.ApproximateNumberOfMessagesNotVisible, String(inflight.Messages.length), "still in flight after restart");
    // Handles minted before the restart still work (the object's seed is stored with its data).
    const [keep, ...rest] = inflight.Messages;
    await sqs.send(new S.DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: keep.ReceiptHandle }));
    // The rest come back once their deadline passes: only the re-armed alarm can make that happen.
    const seenBodies = [keep.Body];
    const byGroup = new Map();
    const deadline = Date.now() + 20000;
    while (seenBodies.length < 40 && Date.now() < deadline) {
      const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 2, AttributeNames: ["All"] }));
      for (const m of got.Messages ?? []) {
        if (rest.some((r) => r.MessageId === m.MessageId)) {
          assert.ok(Date.now() - receivedAt >= 2900, "an in-flight message kept its deadline across the restart");
        }
        seenBodies.push(m.Body);
        const g = m.Attributes.MessageGroupId;
        byGroup.set(g, [...(byGroup.get(g) ?? []), m.Body]);
        await sqs.send(new S.DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
      }
    }
    assert.deepEqual([...seenBodies].sort(), [...sent].sort(), "every acknowledged send delivered exactly once");
    for (const [g, bodies] of byGroup) {
      const expected = sent.filter((b) => b.startsWith(`${g}-`) && bodies.includes(b));
      assert.deepEqual(bodies, expected, `group ${g} in order`);
    }
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("partitioned FIFO under concurrent senders and receivers: per-group order, one delivery per group in flight", async () => {
  const mf = startWorker({ partitions: 4 });
  try {
    const sqs = await client(mf);
    const url = await createQueue(sqs, "busy.fifo", HT_FIFO);
    const GROUPS = 12;
    const PER_GROUP = 15;
    const senders = Array.from({ length: 4 }, (_, s) =>
      (async () => {
        // Each sender owns three groups and sends them in order, in batches of up to 5.
        for (let i = 0; i < PER_GROUP; i += 5) {
          for (let g = s * 3; g < s * 3 + 3; g++) {
            const batch = [];
            for (let k = i; k < Math.min(i + 5, PER_GROUP); k++) {
              batch.push({ Id: `g${g}k${k}`, MessageBody: `${g}:${k}`, MessageGroupId: `g${g}`, MessageDeduplicationId: `g${g}k${k}` });
            }
            await sqs.send(new S.SendMessageBatchCommand({ QueueUrl: url, Entries: batch }));
          }
        }
      })(),
    );
    // group → messages received and not yet sent for deletion. A receive that returns a group
    // while another receiver holds one of its messages whose delete it has not even sent is a
    // group handed out twice: the server answered that receive before the delete existed.
    // (Counting until the delete's answer instead raced: the server may unlock the group and
    // answer the next receive before the deleting receiver has read its own answer.)
    const held = new Map();
    const delivered = new Map();
    let total = 0;
    let violations = 0;
    const receivers = Array.from({ length: 4 }, () =>
      (async () => {
        const stopAt = Date.now() + 30000;
        while (total < GROUPS * PER_GROUP && Date.now() < stopAt) {
          const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 4, WaitTimeSeconds: 1, VisibilityTimeout: 30, AttributeNames: ["All"] }));
          const msgs = got.Messages ?? [];
          const groups = new Set(msgs.map((m) => m.Attributes.MessageGroupId));
          for (const g of groups) if ((held.get(g) ?? 0) > 0) violations++;
          for (const m of msgs) {
            const group = m.Attributes.MessageGroupId;
            held.set(group, (held.get(group) ?? 0) + 1);
            const [g, k] = m.Body.split(":").map(Number);
            delivered.set(g, [...(delivered.get(g) ?? []), k]);
          }
          await sleep(5);
          for (const m of msgs) {
            const group = m.Attributes.MessageGroupId;
            held.set(group, held.get(group) - 1);
            await sqs.send(new S.DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
          }
          total += msgs.length;
        }
      })(),
    );
    await Promise.all([...senders, ...receivers]);
    assert.equal(violations, 0, "a group was handed to two receivers at once");
    assert.equal(total, GROUPS * PER_GROUP);
    for (let g = 0; g < GROUPS; g++) {
      assert.deepEqual(delivered.get(g), Array.from({ length: PER_GROUP }, (_, k) => k), `group ${g} in order`);
    }
  } finally {
    await mf.dispose();
  }
});

test("a move task survives a restart: the directory's alarm resumes it, nothing is lost or moved twice", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasq-edge-mt-"));
  let mf = startWorker({ partitions: 4, persist: dir });
  try {
    let sqs = await client(mf);
    const create = (name, Attributes) => createQueue(sqs, name, Attributes);
    const dlq = await create("rd-dlq.fifo", HT_FIFO);
    const dlqArn = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
    const src = await create("rd-src.fifo", { ...HT_FIFO, VisibilityTimeout: "0", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) });
    const bodies = Array.from({ length: 10 }, (_, i) => `g${i % 5}-${i}`);
    for (const [i, body] of bodies.entries()) {
      await sqs.send(new S.SendMessageCommand({ QueueUrl: src, MessageBody: body, MessageGroupId: `g${i % 5}`, MessageDeduplicationId: `d${i}` }));
    }
    const total = async (url) => {
      const a = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
      return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
    };
    for (let i = 0; i < 40 && (await total(src)) > 0; i++) {
      await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: src, MaxNumberOfMessages: 10 }));
    }
    assert.equal(await total(dlq), 10);
    await sqs.send(new S.StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 2 }));
    await sleep(1500);
    const list = async () => (await sqs.send(new S.ListMessageMoveTasksCommand({ SourceArn: dlqArn }))).Results[0];
    const before = await list();
    assert.equal(before.Status, "RUNNING");
    assert.ok(before.ApproximateNumberOfMessagesMoved < 10);
    await mf.dispose();

    // Nobody calls the directory after the restart until the task is done: only its alarm can move messages.
    mf = startWorker({ partitions: 4, persist: dir });
    sqs = await client(mf);
    await sleep(6500);
    const after = await list();
    assert.equal(after.Status, "COMPLETED", JSON.stringify(after));
    assert.equal(after.ApproximateNumberOfMessagesMoved, 10);
    assert.equal(await total(dlq), 0);
    const back = [];
    for (let i = 0; i < 30 && back.length < 10; i++) {
      const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: src, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }));
      back.push(...(got.Messages ?? []).map((m) => m.Body));
    }
    assert.deepEqual(back.sort(), [...bodies].sort(), "each message moved exactly once");
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
