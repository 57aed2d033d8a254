// FIFO SequenceNumbers through the Worker: unique within a queue and increasing within a group,
// whatever partition a group lives in. Each partition's engine numbers its own messages, so with
// 4 partitions messages of groups in different partitions came back with the same number (8
// groups: 2 distinct numbers) — a consumer keying on SequenceNumber saw duplicates.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, CREDENTIALS, HT_FIFO, createQueue } from "./harness.mjs";
import { signedQuery, xmlAll, xmlText, groupHashPartition } from "./util.mjs";

const GROUPS = Array.from({ length: 8 }, (_, i) => `g${i}`);

for (const partitions of [1, 4]) {
  describe(`FIFO SequenceNumbers, ${partitions} partition(s)`, () => {
    let mf;
    let sqs;
    before(async () => {
      mf = startWorker({ partitions });
      sqs = await client(mf);
    });
    after(() => mf.dispose());

    /** MessageId → SequenceNumber of every message received (JSON), deleting nothing. */
    const receiveAll = async (QueueUrl, want) => {
      const got = new Map();
      for (let i = 0; i < 30 && got.size < want; i++) {
        const { Messages = [] } = await sqs.send(
          new S.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60, MessageSystemAttributeNames: ["All"] }),
        );
        for (const m of Messages) got.set(m.MessageId, { seq: m.Attributes.SequenceNumber, group: m.Attributes.MessageGroupId });
      }
      return got;
    };

    const check = (sent, received) => {
      const seqs = [...sent.values()].map((s) => s.seq);
      assert.equal(new Set(seqs).size, seqs.length, `duplicate SequenceNumbers: ${seqs.join(" ")}`);
      assert.equal(received.size, sent.size);
      for (const [id, s] of sent) assert.equal(received.get(id)?.seq, s.seq, `message ${id}: received with another SequenceNumber`);
      for (const g of GROUPS) {
        const inGroup = [...sent.values()].filter((s) => s.group === g).map((s) => BigInt(s.seq));
        for (let i = 1; i < inGroup.length; i++) assert.ok(inGroup[i] > inGroup[i - 1], `group ${g} not increasing`);
      }
      for (const s of seqs) assert.match(s, /^\d{20}$/);
      if (partitions === 1) {
        // One partition: exactly the engine's numbers (10^19 + 65,536 × sequence).
        for (const s of seqs) assert.equal((BigInt(s) - 10n ** 19n) % 65536n, 0n);
      }
    };

    test("SendMessage and SendMessageBatch (JSON): unique, per group increasing, the same when received", async () => {
      const QueueUrl = await createQueue(sqs, "seq-json.fifo", { ...HT_FIFO, ContentBasedDeduplication: "true" });
      if (partitions > 1) assert.ok(new Set(GROUPS.map((g) => groupHashPartition(g, partitions))).size > 1);
      const sent = new Map();
      for (const g of GROUPS) {
        const r = await sqs.send(new S.SendMessageCommand({ QueueUrl, MessageBody: `one ${g}`, MessageGroupId: g }));
        sent.set(r.MessageId, { seq: r.SequenceNumber, group: g });
      }
      const batch = await sqs.send(
        new S.SendMessageBatchCommand({ QueueUrl, Entries: GROUPS.map((g, i) => ({ Id: `e${i}`, MessageBody: `two ${g}`, MessageGroupId: g })) }),
      );
      assert.equal(batch.Successful.length, GROUPS.length);
      for (const e of batch.Successful) sent.set(e.MessageId, { seq: e.SequenceNumber, group: GROUPS[Number(e.Id.slice(1))] });
      // A duplicate send answers the original's number.
      const dup = await sqs.send(new S.SendMessageCommand({ QueueUrl, MessageBody: "one g3", MessageGroupId: "g3" }));
      assert.equal(dup.SequenceNumber, [...sent.values()].find((s) => s.group === "g3").seq);
      check(sent, await receiveAll(QueueUrl, sent.size));
    });

    test("the Query protocol's SendMessage, SendMessageBatch and ReceiveMessage carry the same numbers", async () => {
      const QueueUrl = await createQueue(sqs, "seq-query.fifo", { ...HT_FIFO, ContentBasedDeduplication: "true" });
      const query = (params) => signedQuery(mf, params, { credentials: CREDENTIALS });
      const sent = new Map();
      for (const g of GROUPS) {
        const { status, xml } = await query([["Action", "SendMessage"], ["QueueUrl", QueueUrl], ["MessageBody", `one ${g}`], ["MessageGroupId", g]]);
        assert.equal(status, 200, xml);
        sent.set(xmlText(xml, "MessageId"), { seq: xmlText(xml, "SequenceNumber"), group: g });
      }
      const params = [["Action", "SendMessageBatch"], ["QueueUrl", QueueUrl]];
      GROUPS.forEach((g, i) => {
        const e = `SendMessageBatchRequestEntry.${i + 1}.`;
        params.push([e + "Id", `e${i}`], [e + "MessageBody", `two ${g}`], [e + "MessageGroupId", g]);
      });
      const { status, xml } = await query(params);
      assert.equal(status, 200, xml);
      for (const entry of xmlAll(xml, "SendMessageBatchResultEntry")) {
        sent.set(xmlText(entry, "MessageId"), { seq: xmlText(entry, "SequenceNumber"), group: GROUPS[Number(xmlText(entry, "Id").slice(1))] });
      }
      const received = new Map();
      for (let i = 0; i < 30 && received.size < sent.size; i++) {
        const r = await query([
          ["Action", "ReceiveMessage"], ["QueueUrl", QueueUrl], ["MaxNumberOfMessages", "10"], ["VisibilityTimeout", "60"], ["AttributeName.1", "All"],
        ]);
        assert.equal(r.status, 200, r.xml);
        for (const m of xmlAll(r.xml, "Message")) {
          const seq = /<Name>SequenceNumber<\/Name><Value>(\d+)<\/Value>/.exec(m)?.[1];
          received.set(xmlText(m, "MessageId"), { seq });
        }
      }
      check(sent, received);
    });
  });
}
