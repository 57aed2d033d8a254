// Dead-letter chains through the Worker, checked against one in-process engine (the package's
// Engine behind the same SDK) running the same steps: what each receive returns, with receive
// counts and DeadLetterQueueSourceArn, must be the same. Then placement in a partitioned FIFO
// DLQ: a dead-lettered group stays in one location, in order, one message in flight at a time.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, PKG, CREDENTIALS, HT_FIFO, createQueue } from "./harness.mjs";

const wasq = await import(join(PKG, "entry/node.js"));

function oneEngine() {
  const engine = new wasq.Engine({ seed: 3 });
  return new S.SQSClient({
    region: "us-east-1",
    endpoint: "http://localhost:9324",
    credentials: CREDENTIALS,
    requestHandler: wasq.createRequestHandler(engine),
    maxAttempts: 1,
  });
}

/**
 * A → B → C (maxReceiveCount 1, then 2), later B re-pointed at a new D: a trace of every receive,
 * with ids replaced by the index of the send that minted them and ARNs by queue names.
 */
async function chainScenario(sqs) {
  const trace = [];
  const ids = new Map();
  const create = (name, Attributes) => createQueue(sqs, name, Attributes);
  const arnOf = async (url) => (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
  const redrive = (arn, n) => JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: n });
  const receive = async (label, url) => {
    const r = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, AttributeNames: ["All"] }));
    trace.push([label, (r.Messages ?? []).map((m) => [m.Body, ids.get(m.MessageId) ?? "new id", m.Attributes.ApproximateReceiveCount, m.Attributes.DeadLetterQueueSourceArn?.split(":").pop() ?? null])]);
    return r.Messages ?? [];
  };
  const send = async (url, body) => {
    const { MessageId } = await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: body }));
    ids.set(MessageId, `sent:${body}`);
  };
  const c = await create("chain-c");
  const b = await create("chain-b", { VisibilityTimeout: "0", RedrivePolicy: redrive(await arnOf(c), 2) });
  const a = await create("chain-a", { VisibilityTimeout: "0", RedrivePolicy: redrive(await arnOf(b), 1) });
  await send(a, "m1");
  await receive("a1", a);
  await receive("a2 (moves m1 to b)", a);
  await receive("b1", b);
  await receive("b2 (moves m1 to c)", b);
  await receive("c1", c);
  await receive("a3", a);

  // Re-point B at a queue created afterwards: A's copies of B must follow.
  const d = await create("chain-d");
  await sqs.send(new S.SetQueueAttributesCommand({ QueueUrl: b, Attributes: { RedrivePolicy: redrive(await arnOf(d), 1) } }));
  await send(a, "m2");
  await receive("a4", a);
  await receive("a5 (moves m2 to b)", a);
  await receive("b3 (moves m2 to d)", b);
  await receive("c2", c);
  const inD = await receive("d1", d);
  for (const m of inD) await sqs.send(new S.DeleteMessageCommand({ QueueUrl: d, ReceiptHandle: m.ReceiptHandle }));
  for (const [label, url] of [["a", a], ["b", b], ["c", c], ["d", d]]) {
    const attrs = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
    trace.push([`${label} counts`, [attrs.ApproximateNumberOfMessages, attrs.ApproximateNumberOfMessagesNotVisible]]);
  }
  return trace;
}

for (const partitions of [1, 4]) {
  describe(`dead-letter chains, ${partitions} partition(s)`, () => {
    let mf;
    let sqs;
    before(async () => {
      mf = startWorker({ partitions });
      sqs = await client(mf);
    });
    after(() => mf.dispose());

    test("a message follows the whole chain exactly as on one engine, also after the chain changes", async () => {
      const expected = await chainScenario(oneEngine());
      // The oracle itself shows the chain: m1 reaches C, keeping its id, counting on.
      assert.deepEqual(expected.find(([l]) => l === "c1")[1], [["m1", "sent:m1", "3", "chain-b"]]);
      assert.deepEqual(expected.find(([l]) => l === "d1")[1], [["m2", "sent:m2", "2", "chain-b"]]);
      assert.deepEqual(await chainScenario(sqs), expected);
    });

    test("a partitioned FIFO DLQ: each dead-lettered group stays in one location, in order, one in flight", async () => {
      const create = (name, Attributes) => createQueue(sqs, name, Attributes);
      const dlq = await create("place-dlq.fifo", HT_FIFO);
      const dlqArn = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
      const src = await create("place-src.fifo", { ...HT_FIFO, VisibilityTimeout: "0", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) });
      const sent = [];
      for (let i = 0; i < 24; i++) {
        const body = `g${i % 6}-${i}`;
        await sqs.send(new S.SendMessageCommand({ QueueUrl: src, MessageBody: body, MessageGroupId: `g${i % 6}`, MessageDeduplicationId: `d${i}` }));
        sent.push(body);
      }
      for (let i = 0; i < 60; i++) {
        const r = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: src, MaxNumberOfMessages: 10 }));
        const a = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: src, AttributeNames: ["ApproximateNumberOfMessages"] }))).Attributes;
        if (!r.Messages?.length && a.ApproximateNumberOfMessages === "0") break;
      }
      const where = new Map();
      const order = new Map();
      let got = 0;
      for (let i = 0; i < 60 && got < 24; i++) {
        const r = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, VisibilityTimeout: 30, AttributeNames: ["All"] }));
        const msgs = r.Messages ?? [];
        const again = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, VisibilityTimeout: 30, AttributeNames: ["All"] }));
        const held = new Set(msgs.map((m) => m.Attributes.MessageGroupId));
        for (const m of again.Messages ?? []) assert.ok(!held.has(m.Attributes.MessageGroupId), "a dead-lettered group is locked while in flight");
        for (const m of [...msgs, ...(again.Messages ?? [])]) {
          const g = m.Attributes.MessageGroupId;
          const loc = m.ReceiptHandle.split(":")[0];
          assert.equal(where.get(g) ?? loc, loc, `group ${g} lives in one location of the DLQ`);
          where.set(g, loc);
          order.set(g, [...(order.get(g) ?? []), m.Body]);
          await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: m.ReceiptHandle }));
          got++;
        }
      }
      assert.equal(got, 24);
      for (const [g, bodies] of order) assert.deepEqual(bodies, sent.filter((b) => b.startsWith(`${g}-`)), `group ${g} in order`);
      if (partitions > 1) assert.ok(new Set(where.values()).size > 1, "the groups spread over several locations");
    });
  });
}
