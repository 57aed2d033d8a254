// The Query protocol (form in, XML out) through the Worker where it splits requests over
// partitions and merges the answers: batches and receives, signed by the AWS SDK's SigV4 signer.
// Queues are created and checked with the JSON SDK, so both protocols see the same state.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, CREDENTIALS, HT_FIFO, createQueue } from "./harness.mjs";
import { signedQuery, xmlAll, xmlText, groupHashPartition } from "./util.mjs";

const md5 = (s) => createHash("md5").update(s, "utf8").digest("hex");

for (const partitions of [1, 4]) {
  describe(`Query protocol through the Worker, ${partitions} partition(s)`, () => {
    let mf;
    let sqs;
    const query = (params, opts = {}) => signedQuery(mf, params, { credentials: CREDENTIALS, ...opts });
    before(async () => {
      mf = startWorker({ partitions });
      sqs = await client(mf);
    });
    after(() => mf.dispose());

    const create = (name, Attributes) => createQueue(sqs, name, Attributes);
    const counts = async (url) => {
      const a = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
      return [Number(a.ApproximateNumberOfMessages), Number(a.ApproximateNumberOfMessagesNotVisible)];
    };
    const receiveAll = async (url, want, extra = []) => {
      const out = [];
      for (let i = 0; i < 20 && out.length < want; i++) {
        const { status, xml } = await query([
          ["Action", "ReceiveMessage"], ["QueueUrl", url], ["MaxNumberOfMessages", "10"], ["VisibilityTimeout", "60"],
          ["AttributeName.1", "All"], ["MessageAttributeName.1", "All"], ...extra,
        ]);
        assert.equal(status, 200, xml);
        assert.match(xml, /^<\?xml version="1.0"\?><ReceiveMessageResponse xmlns="http:\/\/queue.amazonaws.com\/doc\/2012-11-05\/"><ReceiveMessageResult>/);
        assert.match(xml, /<\/ReceiveMessageResult><ResponseMetadata><RequestId>[^<]+<\/RequestId><\/ResponseMetadata><\/ReceiveMessageResponse>$/);
        out.push(...xmlAll(xml, "Message"));
      }
      return out;
    };

    test("SendMessageBatch split by group, merged in request order with a per-entry failure; receive merges across partitions", async () => {
      const url = await create("qbatch.fifo", HT_FIFO);
      const params = [["Action", "SendMessageBatch"], ["QueueUrl", url]];
      const bodies = [];
      for (let i = 1; i <= 9; i++) {
        const e = `SendMessageBatchRequestEntry.${i}.`;
        const body = `g${i % 4} <&> ${i}`;
        bodies.push(body);
        params.push([e + "Id", `e${i}`], [e + "MessageBody", body], [e + "MessageGroupId", `g${i % 4}`], [e + "MessageDeduplicationId", `d${i}`]);
        params.push([e + "MessageAttribute.1.Name", "n"], [e + "MessageAttribute.1.Value.DataType", "Number"], [e + "MessageAttribute.1.Value.StringValue", String(i)]);
      }
      // Entry 10's body holds a character SQS refuses: a per-entry failure inside a batch that otherwise succeeds.
      const e10 = "SendMessageBatchRequestEntry.10.";
      params.push([e10 + "Id", "e10"], [e10 + "MessageBody", "bad \u0001"], [e10 + "MessageGroupId", "g1"], [e10 + "MessageDeduplicationId", "d10"]);
      const { status, xml } = await query(params);
      assert.equal(status, 200, xml);
      const ok = xmlAll(xml, "SendMessageBatchResultEntry");
      assert.deepEqual(ok.map((e) => xmlText(e, "Id")), bodies.map((_, i) => `e${i + 1}`), "successes merged in request order");
      ok.forEach((e, i) => assert.equal(xmlText(e, "MD5OfMessageBody"), md5(bodies[i])));
      const failed = xmlAll(xml, "BatchResultErrorEntry");
      assert.deepEqual(failed.map((e) => [xmlText(e, "Id"), xmlText(e, "Code"), xmlText(e, "SenderFault")]), [["e10", "InvalidMessageContents", "true"]]);
      assert.equal(xml.indexOf("<BatchResultErrorEntry>") > xml.lastIndexOf("</SendMessageBatchResultEntry>"), true, "failures after successes");
      assert.deepEqual(await counts(url), [9, 0]);

      const got = await receiveAll(url, 9);
      assert.equal(got.length, 9);
      const byGroup = new Map();
      for (const m of got) {
        const body = xmlText(m, "Body");
        assert.equal(xmlText(m, "MD5OfBody"), md5(body));
        const group = /<Attribute><Name>MessageGroupId<\/Name><Value>([^<]*)<\/Value><\/Attribute>/.exec(m)[1];
        assert.equal(Number(xmlText(m, "ReceiptHandle").split(":")[0]), groupHashPartition(group, partitions), "handle names the group's partition");
        assert.match(m, /<MessageAttribute><Name>n<\/Name><Value><StringValue>\d<\/StringValue><DataType>Number<\/DataType><\/Value><\/MessageAttribute>/);
        byGroup.set(group, [...(byGroup.get(group) ?? []), body]);
      }
      for (const [g, list] of byGroup) assert.deepEqual(list, bodies.filter((b) => b.startsWith(`${g} `)), `${g} in order`);
      assert.deepEqual(await receiveAll(url, 1), [], "every group is locked while its messages are in flight");
    });

    test("Delete and ChangeMessageVisibility batches split by handle; a whole-batch error stays whole and changes nothing", async () => {
      const url = await create("qstd");
      const send = [["Action", "SendMessageBatch"], ["QueueUrl", url]];
      for (let i = 1; i <= 10; i++) send.push([`SendMessageBatchRequestEntry.${i}.Id`, `s${i}`], [`SendMessageBatchRequestEntry.${i}.MessageBody`, `m${i}`]);
      assert.equal((await query(send)).status, 200);
      const got = await receiveAll(url, 10);
      assert.equal(got.length, 10);
      const handles = got.map((m) => xmlText(m, "ReceiptHandle"));
      if (partitions > 1) assert.ok(new Set(handles.map((h) => h.split(":")[0])).size > 1, "messages spread over partitions");

      // A repeated id is about the whole batch: one engine must see all of it, and it changes nothing.
      const dup = [["Action", "DeleteMessageBatch"], ["QueueUrl", url],
        ["DeleteMessageBatchRequestEntry.1.Id", "x"], ["DeleteMessageBatchRequestEntry.1.ReceiptHandle", handles[0]],
        ["DeleteMessageBatchRequestEntry.2.Id", "x"], ["DeleteMessageBatchRequestEntry.2.ReceiptHandle", handles[1]]];
      const refused = await query(dup);
      assert.equal(refused.status, 400);
      assert.equal(xmlText(refused.xml, "Code"), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct");
      assert.deepEqual(await counts(url), [0, 10]);

      const vis = [["Action", "ChangeMessageVisibilityBatch"], ["QueueUrl", url]];
      handles.slice(0, 5).forEach((h, i) => {
        const e = `ChangeMessageVisibilityBatchRequestEntry.${i + 1}.`;
        vis.push([e + "Id", `v${i}`], [e + "ReceiptHandle", h], [e + "VisibilityTimeout", "0"]);
      });
      const changed = await query(vis);
      assert.equal(changed.status, 200, changed.xml);
      assert.deepEqual(xmlAll(changed.xml, "ChangeMessageVisibilityBatchResultEntry").map((e) => xmlText(e, "Id")), ["v0", "v1", "v2", "v3", "v4"]);
      assert.deepEqual(await counts(url), [5, 5], "the five made visible, wherever they live");

      const del = [["Action", "DeleteMessageBatch"], ["QueueUrl", url]];
      handles.slice(5).forEach((h, i) => del.push([`DeleteMessageBatchRequestEntry.${i + 1}.Id`, `d${i}`], [`DeleteMessageBatchRequestEntry.${i + 1}.ReceiptHandle`, h]));
      del.push(["DeleteMessageBatchRequestEntry.6.Id", "bad"], ["DeleteMessageBatchRequestEntry.6.ReceiptHandle", "garbage"]);
      const deleted = await query(del);
      assert.equal(deleted.status, 200, deleted.xml);
      assert.deepEqual(xmlAll(deleted.xml, "DeleteMessageBatchResultEntry").map((e) => xmlText(e, "Id")), ["d0", "d1", "d2", "d3", "d4"]);
      assert.deepEqual(xmlAll(deleted.xml, "BatchResultErrorEntry").map((e) => [xmlText(e, "Id"), xmlText(e, "Code")]), [["bad", "ReceiptHandleIsInvalid"]]);
      assert.deepEqual(await counts(url), [5, 0]);
    });

    test("a path-addressed long poll waits across partitions and wakes on a send; an empty answer is well-formed", async () => {
      const url = await create("qpoll");
      const path = new URL(url).pathname;
      const empty = await query([["Action", "ReceiveMessage"], ["WaitTimeSeconds", "1"]], { path });
      assert.equal(empty.status, 200, empty.xml);
      assert.match(empty.xml, /<ReceiveMessageResult><\/ReceiveMessageResult>|<ReceiveMessageResult\/>/);
      const waiting = query([["Action", "ReceiveMessage"], ["WaitTimeSeconds", "10"], ["MaxNumberOfMessages", "10"]], { path });
      await new Promise((r) => setTimeout(r, 300));
      await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "wake" }));
      const { status, xml } = await waiting;
      assert.equal(status, 200, xml);
      assert.deepEqual(xmlAll(xml, "Message").map((m) => xmlText(m, "Body")), ["wake"]);
      const bad = await query([["Action", "ReceiveMessage"], ["MaxNumberOfMessages", "11"]], { path });
      assert.equal(bad.status, 400);
      assert.equal(xmlText(bad.xml, "Code"), "InvalidParameterValue");
    });

    test("requests the protocol layer refuses (read once, at the Worker) get the exact error in their protocol, and nothing runs", async () => {
      const unknown = await query([["Action", "Frobnicate"], ["QueueName", `refused-${partitions}`]]);
      assert.equal(unknown.status, 400, unknown.xml);
      assert.match(unknown.xml, /^<\?xml version="1.0"\?><ErrorResponse xmlns="http:\/\/queue.amazonaws.com\/doc\/2012-11-05\/"><Error><Type>Sender<\/Type><Code>InvalidAction<\/Code><Message>The action Frobnicate is not valid for this endpoint.<\/Message><Detail\/><\/Error><RequestId>[^<]+<\/RequestId><\/ErrorResponse>$/);
      const missing = await query([["QueueName", `refused-${partitions}`]]);
      assert.equal(missing.status, 400, missing.xml);
      assert.equal(xmlText(missing.xml, "Code"), "MissingParameter");
      assert.equal(xmlText(missing.xml, "Message"), "The request must contain the parameter Action.");
      const partial = await query([["Action", "CreateQueue"], ["QueueName", `refused-${partitions}`], ["Attribute.1.Name", "DelaySeconds"]]);
      assert.equal(partial.status, 400, partial.xml);
      assert.equal(xmlText(partial.xml, "Code"), "MissingParameter");
      assert.equal(xmlText(partial.xml, "Message"), "The request must contain the parameter Attribute.1.Value.");
      // Each isolate's scratch core draws its own seed: refusals do not share request ids.
      assert.notEqual(xmlText(unknown.xml, "RequestId"), xmlText(missing.xml, "RequestId"));
      const listed = await sqs.send(new S.ListQueuesCommand({ QueueNamePrefix: "refused-" }));
      assert.deepEqual(listed.QueueUrls ?? [], []);
    });

    test("move tasks answer in XML: start, list, cancel, and a Query error", async () => {
      const dlq = await create("qmt-dlq");
      const dlqArn = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
      await create("qmt-src", { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) });
      for (let i = 0; i < 3; i++) await sqs.send(new S.SendMessageCommand({ QueueUrl: dlq, MessageBody: `x${i}` }));
      const dest = await create("qmt-dest");
      const destArn = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: dest, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
      const started = await query([["Action", "StartMessageMoveTask"], ["SourceArn", dlqArn], ["DestinationArn", destArn], ["MaxNumberOfMessagesPerSecond", "1"]]);
      assert.equal(started.status, 200, started.xml);
      assert.match(started.xml, /^<\?xml version="1.0"\?><StartMessageMoveTaskResponse xmlns="http:\/\/queue.amazonaws.com\/doc\/2012-11-05\/"><StartMessageMoveTaskResult><TaskHandle>[^<]+<\/TaskHandle><\/StartMessageMoveTaskResult><ResponseMetadata><RequestId>[^<]+<\/RequestId><\/ResponseMetadata><\/StartMessageMoveTaskResponse>$/);
      const handle = xmlText(started.xml, "TaskHandle");
      const listed = await query([["Action", "ListMessageMoveTasks"], ["SourceArn", dlqArn], ["MaxResults", "10"]]);
      assert.equal(listed.status, 200, listed.xml);
      const [entry] = xmlAll(listed.xml, "ListMessageMoveTasksResultEntry");
      assert.match(entry, new RegExp(`^<TaskHandle>[^<]+</TaskHandle><Status>RUNNING</Status><SourceArn>${dlqArn}</SourceArn><DestinationArn>${destArn}</DestinationArn><MaxNumberOfMessagesPerSecond>1</MaxNumberOfMessagesPerSecond><ApproximateNumberOfMessagesMoved>\\d</ApproximateNumberOfMessagesMoved><ApproximateNumberOfMessagesToMove>3</ApproximateNumberOfMessagesToMove><StartedTimestamp>\\d+</StartedTimestamp>$`));
      const again = await query([["Action", "StartMessageMoveTask"], ["SourceArn", dlqArn]]);
      assert.equal(again.status, 400);
      assert.equal(xmlText(again.xml, "Code"), "InvalidParameterValue");
      assert.equal(xmlText(again.xml, "Message"), "There is already a task running. Only one active task is allowed for a source queue arn at a given time.");
      const cancelled = await query([["Action", "CancelMessageMoveTask"], ["TaskHandle", handle]]);
      assert.equal(cancelled.status, 200, cancelled.xml);
      assert.match(cancelled.xml, /<CancelMessageMoveTaskResult><ApproximateNumberOfMessagesMoved>\d<\/ApproximateNumberOfMessagesMoved><\/CancelMessageMoveTaskResult>/);
      const missing = await query([["Action", "CancelMessageMoveTask"], ["TaskHandle", Buffer.from(JSON.stringify({ sourceArn: dlqArn, taskId: "99" })).toString("base64")]]);
      assert.equal(missing.status, 404);
      assert.equal(xmlText(missing.xml, "Code"), "ResourceNotFoundException");
      assert.equal(xmlText(missing.xml, "Message"), "Task does not exist.");
    });
  });
}
