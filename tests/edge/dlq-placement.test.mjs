// Dead-letter placement with 4 partitions: a dead-lettered message moves from the shadow in its
// source partition to the DLQ partition that owns its group (FNV-1a(group) mod N, as a send is
// placed), keeping its identity, so one FIFO group lives in one DLQ partition whatever queue it
// came from. The transfer is idempotent by MessageId and survives a restart; the internal
// operations it uses are no SQS actions.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, HT_FIFO, createQueue, sleep } from "./harness.mjs";

/**
 * The Worker's placement hash, FNV-1a (32-bit) of the group id's UTF-8 bytes (as
 * pkg-template/worker/partition.js documents it), computed here on its own: the packaged Worker
 * is one bundle, so its modules cannot be imported one by one, and the test then pins the
 * documented function rather than whatever the code does.
 */
function groupHash(group) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(group)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}
// Published FNV-1a 32-bit test vectors.
assert.deepEqual(["", "a", "foobar"].map(groupHash), [0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
const PARTITIONS = 4;

const arnOf = async (sqs, url) =>
  (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
const redrive = (arn, n) => JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: n });
const receive = (sqs, url, max, visibility = 30) =>
  sqs
    .send(new S.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: max, VisibilityTimeout: visibility, AttributeNames: ["All"], MessageAttributeNames: ["All"] }))
    .then((r) => r.Messages ?? []);
const counts = async (sqs, url) => {
  const a = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
  return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
};
/** Receive from `url` until `n` messages were seen or nothing more comes. */
async function drainSource(sqs, url) {
  for (let i = 0; i < 40; i++) {
    const got = await receive(sqs, url, 10, 0);
    if (!got.length && (await counts(sqs, url)) === 0) return;
  }
}

test("one FIFO group dead-lettered from two sources (and sent directly) lives in one DLQ partition, locked as one group", async () => {
  const mf = startWorker({ partitions: PARTITIONS });
  try {
    const sqs = await client(mf);
    const dlq = await createQueue(sqs, "place2-dlq.fifo", HT_FIFO);
    const dlqArn = await arnOf(sqs, dlq);
    const sources = [];
    for (const name of ["place2-a.fifo", "place2-b.fifo"]) {
      sources.push(await createQueue(sqs, name, { ...HT_FIFO, VisibilityTimeout: "0", RedrivePolicy: redrive(dlqArn, 1) }));
    }
    // Group "G" and a few others from both sources; the sources' partitions of G differ from
    // the DLQ's only by chance, so the transfer (not the placement of the source) decides.
    const groups = ["G", "h1", "h2", "h3"];
    const original = new Map(); // MessageId → what the source showed at its first receive
    const sent = [];
    for (const [s, url] of sources.entries()) {
      for (let i = 0; i < 8; i++) {
        const g = groups[i % groups.length];
        const body = `${s}:${g}:${i}`;
        await sqs.send(new S.SendMessageCommand({
          QueueUrl: url,
          MessageBody: body,
          MessageGroupId: g,
          MessageDeduplicationId: `${s}-${i}`,
          MessageAttributes: { n: { DataType: "Number", StringValue: String(i) } },
        }));
        sent.push(body);
      }
      // First receive of each: remember identity; the next receive dead-letters them.
      for (let k = 0; k < 20; k++) {
        for (const m of await receive(sqs, url, 10, 0)) if (!original.has(m.MessageId)) original.set(m.MessageId, { ...m, source: url });
        if (original.size >= sent.length) break;
      }
      await drainSource(sqs, url);
    }
    assert.equal(original.size, sent.length, "every message was received once before dead-lettering");
    const direct = await sqs.send(new S.SendMessageCommand({ QueueUrl: dlq, MessageBody: "direct:G", MessageGroupId: "G", MessageDeduplicationId: "direct" }));
    assert.equal(await counts(sqs, dlq), sent.length + 1, "the DLQ counts every message once");

    const home = groupHash("G") % PARTITIONS;
    const seen = [];
    for (let round = 0; round < 60 && seen.length < sent.length + 1; round++) {
      const first = await receive(sqs, dlq, 10);
      const second = await receive(sqs, dlq, 10);
      const held = new Set(first.map((m) => m.Attributes.MessageGroupId));
      for (const m of second) assert.ok(!held.has(m.Attributes.MessageGroupId), "two receives hold one group at once");
      for (const m of [...first, ...second]) {
        const g = m.Attributes.MessageGroupId;
        const loc = Number(m.ReceiptHandle.split(":")[0]);
        assert.equal(loc, groupHash(g) % PARTITIONS, `group ${g} is in the DLQ partition that owns it`);
        if (g === "G") assert.equal(loc, home);
        seen.push(m);
        await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: m.ReceiptHandle }));
      }
    }
    assert.deepEqual(seen.map((m) => m.Body).sort(), [...sent, "direct:G"].sort(), "each message exactly once");
    // Identity kept across the transfer.
    for (const m of seen) {
      if (m.MessageId === direct.MessageId) continue;
      const o = original.get(m.MessageId);
      assert.ok(o, `message ${m.Body} kept its MessageId`);
      assert.equal(m.Body, o.Body);
      assert.equal(m.Attributes.ApproximateReceiveCount, "2", "one receive in the source, one here");
      assert.equal(m.Attributes.SentTimestamp, o.Attributes.SentTimestamp);
      assert.equal(m.Attributes.ApproximateFirstReceiveTimestamp, o.Attributes.ApproximateFirstReceiveTimestamp);
      assert.equal(m.Attributes.MessageGroupId, o.Attributes.MessageGroupId);
      assert.equal(m.Attributes.DeadLetterQueueSourceArn, await arnOf(sqs, o.source));
      assert.deepEqual(m.MessageAttributes, o.MessageAttributes);
      assert.equal(m.MD5OfBody, o.MD5OfBody);
    }
    // Per source, a group keeps its send order in the DLQ.
    for (const s of [0, 1]) {
      for (const g of groups) {
        const order = seen.map((m) => m.Body).filter((b) => b.startsWith(`${s}:${g}:`));
        assert.deepEqual(order, sent.filter((b) => b.startsWith(`${s}:${g}:`)), `source ${s} group ${g} in order`);
      }
    }
    assert.equal(await counts(sqs, dlq), 0);
  } finally {
    await mf.dispose();
  }
});

/** POST to an internal endpoint of a queue object, as the Worker's objects do. */
async function objectPost(mf, name, path, input) {
  const ns = await mf.getDurableObjectNamespace("WASQ_QUEUE");
  const res = await ns.get(ns.idFromName(name)).fetch(`http://wasq${path}`, { method: "POST", body: JSON.stringify(input) });
  return { status: res.status, body: await res.text() };
}

test("an import is idempotent by MessageId, also after a restart; bad input is refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasq-edge-"));
  let mf = startWorker({ partitions: PARTITIONS, persist: dir });
  try {
    let sqs = await client(mf);
    const dlq = await createQueue(sqs, "idem-dlq.fifo", HT_FIFO);
    const object = `us-east-1/idem-dlq.fifo/${groupHash("K") % PARTITIONS}`;
    const id = "7f1d1c2e-0000-4000-8000-00000000abcd";
    const now = Date.now();
    const message = {
      MessageId: id,
      Body: "kept",
      Extra: { group_id: "K", deduplication_id: id, dead_letter_source_arn: "arn:aws:sqs:us-east-1:000000000000:elsewhere.fifo" },
      SentTimestamp: now - 5000,
      ReceiveCount: 3,
      FirstReceiveTimestamp: now - 4000,
    };
    const input = { context: { region: "us-east-1" }, name: "idem-dlq.fifo", messages: [message] };
    const first = await objectPost(mf, object, "/import", input);
    assert.equal(first.status, 200, first.body);
    assert.equal(JSON.parse(first.body).Imported, 1);
    const again = await objectPost(mf, object, "/import", input);
    assert.deepEqual(JSON.parse(again.body), { Imported: 0, Skipped: [id] });
    // A malformed message is refused by the engine (the object call fails; a source would retry).
    await assert.rejects(objectPost(mf, object, "/import", { ...input, messages: [{ ...message, MessageId: "not-a-uuid" }] }), /not a UUID/);
    await assert.rejects(objectPost(mf, object, "/import", { ...input, messages: [{ ...message, ReceiveCount: -1 }] }), /ReceiveCount/);
    assert.equal(await counts(sqs, dlq), 1);

    await mf.dispose();
    mf = startWorker({ partitions: PARTITIONS, persist: dir });
    sqs = await client(mf);
    const retry = await objectPost(mf, object, "/import", input);
    assert.deepEqual(JSON.parse(retry.body), { Imported: 0, Skipped: [id] }, "a retry after a restart is skipped");
    const [m, ...more] = await receive(sqs, dlq, 10);
    assert.equal(more.length, 0);
    assert.equal(m.MessageId, id);
    assert.equal(m.Attributes.ApproximateReceiveCount, "4");
    assert.equal(m.Attributes.SentTimestamp, String(now - 5000));
    assert.equal(m.Attributes.ApproximateFirstReceiveTimestamp, String(now - 4000));
    assert.equal(m.Attributes.DeadLetterQueueSourceArn, "arn:aws:sqs:us-east-1:000000000000:elsewhere.fifo");
    assert.equal(Number(m.ReceiptHandle.split(":")[0]), groupHash("K") % PARTITIONS);
    // Received and deleted: a late retry within the deduplication window is still skipped.
    await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: m.ReceiptHandle }));
    const late = await objectPost(mf, object, "/import", input);
    assert.equal(JSON.parse(late.body).Imported, 0);
    assert.equal(await counts(sqs, dlq), 0);
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a restart in the middle of dead-lettering loses and duplicates nothing", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasq-edge-"));
  let mf = startWorker({ partitions: PARTITIONS, persist: dir });
  try {
    let sqs = await client(mf);
    const dlq = await createQueue(sqs, "crash-dlq.fifo", HT_FIFO);
    const src = await createQueue(sqs, "crash-src.fifo", { ...HT_FIFO, VisibilityTimeout: "0", RedrivePolicy: redrive(await arnOf(sqs, dlq), 1) });
    const sent = [];
    for (let i = 0; i < 30; i++) {
      const body = `g${i % 10}-${i}`;
      await sqs.send(new S.SendMessageCommand({ QueueUrl: src, MessageBody: body, MessageGroupId: `g${i % 10}`, MessageDeduplicationId: `d${i}` }));
      sent.push(body);
    }
    for (let k = 0; k < 10; k++) await receive(sqs, src, 10, 0);
    // Receives that dead-letter (and transfer) are cut off by the runtime going away, wherever
    // they are: in the engine, between the shadow's commit and the import, or after it.
    const cut = Array.from({ length: 4 }, () => receive(sqs, src, 10, 0).catch(() => []));
    await sleep(15);
    await mf.dispose();
    await Promise.all(cut);

    mf = startWorker({ partitions: PARTITIONS, persist: dir });
    sqs = await client(mf);
    await drainSource(sqs, src);
    const bodies = [];
    const deadline = Date.now() + 15000;
    while (bodies.length < sent.length && Date.now() < deadline) {
      const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, AttributeNames: ["All"] }));
      for (const m of got.Messages ?? []) {
        assert.equal(Number(m.ReceiptHandle.split(":")[0]), groupHash(m.Attributes.MessageGroupId) % PARTITIONS);
        bodies.push(m.Body);
        await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: m.ReceiptHandle }));
      }
    }
    assert.deepEqual(bodies.sort(), [...sent].sort(), "every message reached the DLQ exactly once");
    assert.equal(await counts(sqs, src), 0);
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the internal transfer operations are no SQS actions", async () => {
  const mf = startWorker({ partitions: PARTITIONS, bindings: { WASQ_AUTH: "off" } });
  try {
    const sqs = await client(mf);
    const dlq = await createQueue(sqs, "closed-dlq");
    await sqs.send(new S.SendMessageCommand({ QueueUrl: dlq, MessageBody: "stay" }));
    const origin = (await mf.ready).origin;
    for (const op of ["ImportMessages", "ExportMessages", "RemoveMessages"]) {
      const json = await mf.dispatchFetch(origin, {
        method: "POST",
        headers: { "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": `AmazonSQS.${op}` },
        // The shape RemoveMessages takes: the refusal must not depend on the body.
        body: JSON.stringify({ QueueUrl: dlq, Messages: [{ MessageId: "7f1d1c2e-0000-4000-8000-00000000abcd", Sequence: 1 }] }),
      });
      assert.equal(json.status, 400, op);
      assert.equal(json.headers.get("x-amzn-query-error"), "InvalidAction;Sender");
      assert.match((await json.json()).__type, /UnknownOperationException$/);
      const query = await mf.dispatchFetch(origin, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ Action: op, QueueUrl: dlq }).toString(),
      });
      assert.equal(query.status, 400, op);
      assert.match(await query.text(), /<Code>InvalidAction<\/Code>/);
    }
    assert.equal(await counts(sqs, dlq), 1);
  } finally {
    await mf.dispose();
  }
});

test("a message left in a source partition's outbox by a restart reaches its DLQ partition after it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasq-edge-"));
  let mf = startWorker({ partitions: PARTITIONS, persist: dir });
  try {
    let sqs = await client(mf);
    const dlq = await createQueue(sqs, "outbox-dlq.fifo", HT_FIFO);
    const src = await createQueue(sqs, "outbox-src.fifo", { ...HT_FIFO, RedrivePolicy: redrive(await arnOf(sqs, dlq), 1) });
    await receive(sqs, src, 10); // every partition of src has run once (and found its outbox empty)
    // The state a dead-lettering receive leaves when the object stops right after its commit: a
    // message in the source partition's shadow of the DLQ, not yet transferred, no alarm armed.
    const source = `us-east-1/outbox-src.fifo/${groupHash("Z") % PARTITIONS}`;
    const put = await objectPost(mf, source, "/call", {
      context: { region: "us-east-1" },
      calls: [{ action: "SendMessage", params: { QueueUrl: dlq, MessageBody: "in transit", MessageGroupId: "Z", MessageDeduplicationId: "z1" } }],
    });
    const [{ ok }] = JSON.parse(put.body).results;
    assert.ok(ok?.MessageId, put.body);
    assert.equal(await counts(sqs, dlq), 1, "counted while in transit");
    assert.deepEqual(await receive(sqs, dlq, 10, 0), [], "not receivable from the outbox");

    await mf.dispose();
    mf = startWorker({ partitions: PARTITIONS, persist: dir });
    sqs = await client(mf);
    await receive(sqs, src, 10); // any request to the source partition resumes its transfers
    const got = await receive(sqs, dlq, 10);
    assert.deepEqual(got.map((m) => [m.Body, m.MessageId]), [["in transit", ok.MessageId]]);
    assert.equal(Number(got[0].ReceiptHandle.split(":")[0]), groupHash("Z") % PARTITIONS);
    await sqs.send(new S.DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: got[0].ReceiptHandle }));
    assert.equal(await counts(sqs, dlq), 0, "exactly once");
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
