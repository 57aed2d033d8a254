// @aws-sdk/client-sqs v3 over real HTTP to `wasq serve`, MD5 checks on (the SDK default): every
// action, FIFO rules, long polling and errors as AWS reports them.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  AddPermissionCommand,
  CancelMessageMoveTaskCommand,
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  ListQueueTagsCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  RemovePermissionCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  StartMessageMoveTaskCommand,
  TagQueueCommand,
  UntagQueueCommand,
} from "@aws-sdk/client-sqs";
import { client, rejection, sleep, startWasq, uniqueName } from "./helpers.mjs";

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

const md5 = (text) => createHash("md5").update(text, "utf8").digest("hex");

async function createQueue(prefix, attributes = {}, fifo = false) {
  const name = uniqueName(prefix, fifo);
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: fifo ? { FifoQueue: "true", ...attributes } : attributes }),
  );
  return { name, url: QueueUrl };
}

async function arnOf(url) {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }));
  return Attributes.QueueArn;
}

test("queue URLs come from the Host the client used", async () => {
  const { name, url } = await createQueue("host");
  assert.equal(url, `${server.url}/queue/us-east-1/000000000000/${name}`);
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  assert.equal(QueueUrl, url);
});

test("queue lifecycle: create (idempotent), list with pagination, attributes, tags, delete", async () => {
  const prefix = uniqueName("life");
  const urls = [];
  for (const n of ["a", "b", "c"]) {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-${n}`, tags: { team: n } }));
    urls.push(QueueUrl);
  }
  // Same name and same attributes: the existing URL, no error.
  const again = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-a` }));
  assert.equal(again.QueueUrl, urls[0]);

  const all = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }));
  assert.deepEqual(all.QueueUrls, urls);
  assert.equal(all.NextToken, undefined);
  const page1 = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix, MaxResults: 2 }));
  assert.deepEqual(page1.QueueUrls, urls.slice(0, 2));
  assert.ok(page1.NextToken);
  const page2 = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix, MaxResults: 2, NextToken: page1.NextToken }));
  assert.deepEqual(page2.QueueUrls, urls.slice(2));
  assert.equal(page2.NextToken, undefined);

  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: urls[0], Attributes: { VisibilityTimeout: "45", DelaySeconds: "2" } }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: urls[0], AttributeNames: ["All"] }));
  assert.equal(Attributes.VisibilityTimeout, "45");
  assert.equal(Attributes.DelaySeconds, "2");
  assert.equal(Attributes.QueueArn, `arn:aws:sqs:us-east-1:000000000000:${prefix}-a`);
  assert.equal(Attributes.ApproximateNumberOfMessages, "0");

  // Different value for an attribute that exists: QueueNameExists.
  const clash = await rejection(sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-a`, Attributes: { DelaySeconds: "3" } })));
  assert.equal(clash.name, "QueueNameExists");
  assert.equal(clash.Code, "QueueAlreadyExists");
  assert.equal(clash.$metadata.httpStatusCode, 400);
  assert.equal(clash.message, "A queue already exists with the same name and a different value for attribute DelaySeconds");

  await sqs.send(new TagQueueCommand({ QueueUrl: urls[1], Tags: { env: "test", team: "z" } }));
  assert.deepEqual((await sqs.send(new ListQueueTagsCommand({ QueueUrl: urls[1] }))).Tags, { env: "test", team: "z" });
  await sqs.send(new UntagQueueCommand({ QueueUrl: urls[1], TagKeys: ["team", "missing"] }));
  assert.deepEqual((await sqs.send(new ListQueueTagsCommand({ QueueUrl: urls[1] }))).Tags, { env: "test" });

  for (const url of urls) await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
  const gone = await rejection(sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}-a` })));
  assert.equal(gone.name, "QueueDoesNotExist");
  assert.equal(gone.Code, "AWS.SimpleQueueService.NonExistentQueue");
  assert.equal(gone.$metadata.httpStatusCode, 400);
  assert.equal((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }))).QueueUrls, undefined);
});

test("send, receive with attributes, change visibility, delete (MD5s verified by the SDK)", async () => {
  const { url } = await createQueue("msg");
  const body = "héllo wörld ✓";
  const attrs = {
    kind: { DataType: "String", StringValue: "greeting" },
    n: { DataType: "Number", StringValue: "42" },
    raw: { DataType: "Binary", BinaryValue: new Uint8Array([0, 1, 2, 255]) },
  };
  const sent = await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageAttributes: attrs }));
  assert.equal(sent.MD5OfMessageBody, md5(body));
  assert.match(sent.MD5OfMessageAttributes, /^[0-9a-f]{32}$/);
  assert.equal(sent.SequenceNumber, undefined);

  const got = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ["All"],
      MessageSystemAttributeNames: ["All"],
      VisibilityTimeout: 30,
    }),
  );
  assert.equal(got.Messages.length, 1);
  const [m] = got.Messages;
  assert.equal(m.MessageId, sent.MessageId);
  assert.equal(m.Body, body);
  assert.equal(m.MD5OfBody, md5(body));
  assert.equal(m.MD5OfMessageAttributes, sent.MD5OfMessageAttributes);
  assert.equal(m.MessageAttributes.kind.StringValue, "greeting");
  assert.equal(m.MessageAttributes.n.StringValue, "42");
  assert.deepEqual([...m.MessageAttributes.raw.BinaryValue], [0, 1, 2, 255]);
  assert.equal(m.Attributes.ApproximateReceiveCount, "1");
  assert.match(m.Attributes.SentTimestamp, /^\d{13}$/);

  // In flight: not receivable; visibility 0 makes it receivable again at once.
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages, undefined);
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }));
  const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
  assert.equal(again.Messages[0].MessageId, m.MessageId);
  assert.equal(again.Messages[0].Attributes.ApproximateReceiveCount, "2");
  assert.notEqual(again.Messages[0].ReceiptHandle, m.ReceiptHandle);

  await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: again.Messages[0].ReceiptHandle }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }));
  assert.equal(Attributes.ApproximateNumberOfMessages, "0");
  assert.equal(Attributes.ApproximateNumberOfMessagesNotVisible, "0");
});

test("batches: send, change visibility, delete, with per-entry failures", async () => {
  const { url } = await createQueue("batch");
  const entries = Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: `body ${i}` }));
  const sent = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
  assert.equal(sent.Successful.length, 10);
  assert.equal(sent.Failed, undefined);
  for (const s of sent.Successful) assert.equal(s.MD5OfMessageBody, md5(`body ${s.Id.slice(1)}`));

  // A control character fails only its entry.
  const mixed = await sqs.send(
    new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: "ok", MessageBody: "fine" }, { Id: "bad", MessageBody: "bell\u0007" }] }),
  );
  assert.deepEqual(mixed.Successful.map((s) => s.Id), ["ok"]);
  assert.equal(mixed.Failed[0].Id, "bad");
  assert.equal(mixed.Failed[0].Code, "InvalidMessageContents");
  assert.equal(mixed.Failed[0].SenderFault, true);

  const received = [];
  while (received.length < 11) {
    const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
    assert.ok(r.Messages?.length, "messages remain receivable");
    received.push(...r.Messages);
  }
  assert.equal(received.length, 11);

  const vis = await sqs.send(
    new ChangeMessageVisibilityBatchCommand({
      QueueUrl: url,
      Entries: [
        { Id: "a", ReceiptHandle: received[0].ReceiptHandle, VisibilityTimeout: 120 },
        { Id: "b", ReceiptHandle: "garbage", VisibilityTimeout: 10 },
      ],
    }),
  );
  assert.deepEqual(vis.Successful.map((s) => s.Id), ["a"]);
  assert.equal(vis.Failed[0].Id, "b");
  assert.equal(vis.Failed[0].Code, "ReceiptHandleIsInvalid");

  const del = await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: url,
      Entries: received.slice(0, 10).map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })),
    }),
  );
  assert.equal(del.Successful.length, 10);
  await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: received[10].ReceiptHandle }));

  const tooMany = await rejection(
    sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: Array.from({ length: 11 }, (_, i) => ({ Id: `x${i}`, MessageBody: "x" })) })),
  );
  assert.equal(tooMany.name, "TooManyEntriesInBatchRequest");
  assert.equal(tooMany.Code, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest");
  assert.equal(tooMany.message, "Maximum number of entries per request are 10. You have sent 11.");
  assert.equal(tooMany.$metadata.httpStatusCode, 400);
});

test("purge empties the queue and a second purge within 60 s is refused with 403", async () => {
  const { name, url } = await createQueue("purge");
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "x" }));
  await sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages, undefined);
  const err = await rejection(sqs.send(new PurgeQueueCommand({ QueueUrl: url })));
  assert.equal(err.name, "PurgeQueueInProgress");
  assert.equal(err.Code, "AWS.SimpleQueueService.PurgeQueueInProgress");
  assert.equal(err.$metadata.httpStatusCode, 403);
  assert.equal(err.message, `Only one PurgeQueue operation on ${name} is allowed every 60 seconds.`);
});

test("permissions: AddPermission writes the policy, RemovePermission removes it", async () => {
  const { url } = await createQueue("perm");
  await sqs.send(new AddPermissionCommand({ QueueUrl: url, Label: "l1", AWSAccountIds: ["111111111111"], Actions: ["ReceiveMessage"] }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["Policy"] }));
  const policy = JSON.parse(Attributes.Policy);
  assert.equal(policy.Statement[0].Sid, "l1");
  assert.equal(policy.Statement[0].Action, "SQS:ReceiveMessage");
  assert.equal(policy.Statement[0].Principal.AWS, "arn:aws:iam::111111111111:root");
  const dup = await rejection(
    sqs.send(new AddPermissionCommand({ QueueUrl: url, Label: "l1", AWSAccountIds: ["111111111111"], Actions: ["SendMessage"] })),
  );
  assert.equal(dup.Code, "InvalidParameterValue");
  assert.equal(dup.message, "Value l1 for parameter Label is invalid. Reason: Already exists.");
  await sqs.send(new RemovePermissionCommand({ QueueUrl: url, Label: "l1" }));
  const after = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["Policy"] }));
  assert.equal(after.Attributes?.Policy, undefined);
});

test("dead-letter queue: the receive after maxReceiveCount moves it; sources listed; a move task redrives it", async () => {
  const dlq = await createQueue("dlq");
  const dlqArn = await arnOf(dlq.url);
  const src = await createQueue("src", {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }),
  });
  const { queueUrls } = await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq.url }));
  assert.deepEqual(queueUrls, [src.url]);

  const sent = await sqs.send(new SendMessageCommand({ QueueUrl: src.url, MessageBody: "poison" }));
  const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl: src.url, VisibilityTimeout: 0 }));
  assert.equal(first.Messages[0].MessageId, sent.MessageId);
  // The second receive would deliver it a second time: it moves instead, and returns nothing.
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: src.url }))).Messages, undefined);
  const dead = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: dlq.url, MessageSystemAttributeNames: ["All"], VisibilityTimeout: 0 }),
  );
  assert.equal(dead.Messages[0].MessageId, sent.MessageId);
  assert.equal(dead.Messages[0].Attributes.DeadLetterQueueSourceArn, await arnOf(src.url));

  const { TaskHandle } = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn }));
  assert.ok(TaskHandle);
  let results;
  for (let i = 0; i < 50; i++) {
    ({ Results: results } = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 10 })));
    if (results[0].Status === "COMPLETED") break;
    await sleep(100);
  }
  assert.equal(results[0].Status, "COMPLETED");
  assert.equal(results[0].ApproximateNumberOfMessagesMoved, 1);
  const back = await sqs.send(new ReceiveMessageCommand({ QueueUrl: src.url, WaitTimeSeconds: 2 }));
  assert.equal(back.Messages[0].Body, "poison");
  // Redriven messages are new messages.
  assert.notEqual(back.Messages[0].MessageId, sent.MessageId);

  // Only a RUNNING task can be cancelled.
  const notRunning = await rejection(sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle })));
  assert.ok(notRunning.$metadata.httpStatusCode >= 400 && notRunning.$metadata.httpStatusCode < 500);
});

test("move task can be cancelled while running", async () => {
  const dlq = await createQueue("dlq2");
  const dlqArn = await arnOf(dlq.url);
  await createQueue("src2", { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) });
  const dest = await createQueue("dest2");
  for (let i = 0; i < 3; i++) {
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: dlq.url, Entries: Array.from({ length: 10 }, (_, j) => ({ Id: `e${j}`, MessageBody: `m${i}-${j}` })) }));
  }
  const { TaskHandle } = await sqs.send(
    new StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: await arnOf(dest.url), MaxNumberOfMessagesPerSecond: 1 }),
  );
  const running = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn }));
  assert.equal(running.Results[0].Status, "RUNNING");
  assert.equal(running.Results[0].TaskHandle, TaskHandle);
  const cancelled = await sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle }));
  assert.equal(typeof cancelled.ApproximateNumberOfMessagesMoved, "number");
  assert.ok(cancelled.ApproximateNumberOfMessagesMoved < 30);
});

test("FIFO: group order, group locking, deduplication, sequence numbers, FIFO-only validation", async () => {
  const { url } = await createQueue("fifo", { ContentBasedDeduplication: "true" }, true);
  const send = (body, group) => sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: group }));
  const s1 = await send("g1-m1", "g1");
  await send("g2-m1", "g2");
  await send("g1-m2", "g1");
  const s4 = await send("g1-m3", "g1");
  assert.match(s1.SequenceNumber, /^\d+$/);
  assert.ok(BigInt(s4.SequenceNumber) > BigInt(s1.SequenceNumber));

  // Content-based dedup: the same body within 5 minutes is accepted but not enqueued again.
  const dup = await send("g1-m1", "g1");
  assert.equal(dup.MessageId, s1.MessageId);

  const r1 = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 2 }));
  assert.deepEqual(r1.Messages.map((m) => m.Body), ["g1-m1", "g1-m2"]);
  // g1 is locked while any of its messages is in flight; g2 is still served.
  const r2 = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
  assert.deepEqual(r2.Messages.map((m) => m.Body), ["g2-m1"]);
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }))).Messages, undefined);
  for (const m of r1.Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
  const r3 = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
  assert.deepEqual(r3.Messages.map((m) => m.Body), ["g1-m3"]);

  const noGroup = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "x" })));
  // Unmodelled (coral) errors: in query-compatible mode the SDK names them by the query code.
  assert.equal(noGroup.name, "MissingParameter");
  assert.equal(noGroup.Code, "MissingParameter");
  assert.equal(noGroup.message, "The request must contain the parameter MessageGroupId.");
  const delayed = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "x", MessageGroupId: "g", DelaySeconds: 2 })));
  assert.equal(delayed.Code, "InvalidParameterValue");
  assert.equal(delayed.$metadata.httpStatusCode, 400);
  assert.equal(
    delayed.message,
    "Value 2 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.",
  );

  const plain = await createQueue("fifo-nodedup", {}, true);
  const noDedup = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: plain.url, MessageBody: "x", MessageGroupId: "g" })));
  assert.equal(noDedup.Code, "InvalidParameterValue");
  assert.equal(
    noDedup.message,
    "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
  );
  const suffix = await rejection(sqs.send(new CreateQueueCommand({ QueueName: uniqueName("nofifo"), Attributes: { FifoQueue: "true" } })));
  assert.equal(suffix.Code, "InvalidParameterValue");
});

test("FIFO batch: entries enqueue in request order with increasing sequence numbers", async () => {
  const { url } = await createQueue("fifob", {}, true);
  const out = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: ["a", "b", "c"].map((b, i) => ({ Id: b, MessageBody: b, MessageGroupId: "g", MessageDeduplicationId: `d${i}` })),
    }),
  );
  const seq = out.Successful.map((s) => BigInt(s.SequenceNumber));
  assert.ok(seq[0] < seq[1] && seq[1] < seq[2]);
  const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
  assert.deepEqual(r.Messages.map((m) => m.Body), ["a", "b", "c"]);
});

test("long polling: a message sent during the wait is returned promptly; other requests are not blocked", async () => {
  const { url } = await createQueue("poll");
  const other = client(server.url);
  try {
    const started = Date.now();
    const poll = sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 10 }));
    await sleep(300);
    // While the poll waits, the server answers others at once.
    const t0 = Date.now();
    await other.send(new ListQueuesCommand({}));
    assert.ok(Date.now() - t0 < 1000, "a request during a long poll is answered without waiting for it");
    await other.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "wake up" }));
    const got = await poll;
    const elapsed = Date.now() - started;
    assert.equal(got.Messages[0].Body, "wake up");
    assert.ok(elapsed >= 300 && elapsed < 2000, `returned after ${elapsed} ms`);
  } finally {
    other.destroy();
  }
});

test("long polling: an empty poll lasts WaitTimeSeconds; the queue's ReceiveMessageWaitTimeSeconds applies by default", async () => {
  const { url } = await createQueue("pollempty", { ReceiveMessageWaitTimeSeconds: "1" });
  let t = Date.now();
  const explicit = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 2 }));
  let elapsed = Date.now() - t;
  assert.equal(explicit.Messages, undefined);
  assert.ok(elapsed >= 1900 && elapsed < 3500, `explicit wait took ${elapsed} ms`);
  t = Date.now();
  await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
  elapsed = Date.now() - t;
  assert.ok(elapsed >= 900 && elapsed < 2500, `queue default wait took ${elapsed} ms`);
});

test("timers follow the engine's deadlines: an expiring visibility timeout and a delay end wake a long poll", async () => {
  const { url } = await createQueue("timers");
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "again" }));
  const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 1 }));
  assert.equal(first.Messages.length, 1);
  let t = Date.now();
  const back = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 10 }));
  let elapsed = Date.now() - t;
  assert.equal(back.Messages[0].Body, "again");
  assert.ok(elapsed < 2500, `visible again after ${elapsed} ms`);
  await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: back.Messages[0].ReceiptHandle }));

  t = Date.now();
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "later", DelaySeconds: 1 }));
  const delayed = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 10 }));
  elapsed = Date.now() - t;
  assert.equal(delayed.Messages[0].Body, "later");
  assert.ok(elapsed >= 900 && elapsed < 2500, `delayed message arrived after ${elapsed} ms`);
});

test("errors carry AWS's name, query code, status and message", async () => {
  const missing = `${server.url}/000000000000/${uniqueName("nope")}`;
  const e1 = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: missing, MessageBody: "x" })));
  assert.equal(e1.name, "QueueDoesNotExist");
  assert.equal(e1.Code, "AWS.SimpleQueueService.NonExistentQueue");
  assert.equal(e1.Type, "Sender");
  assert.equal(e1.$metadata.httpStatusCode, 400);
  assert.equal(e1.message, "The specified queue does not exist.");
  assert.match(e1.$metadata.requestId, /^[0-9a-f-]{36}$/);

  const { url } = await createQueue("errs");
  const e2 = await rejection(sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 11 })));
  assert.equal(e2.name, "InvalidParameterValue");
  assert.equal(e2.Code, "InvalidParameterValue");
  assert.equal(e2.message, "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.");

  const e3 = await rejection(sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 21 })));
  assert.equal(e3.message, "Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.");

  const e4 = await rejection(sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: "garbage" })));
  assert.equal(e4.name, "ReceiptHandleIsInvalid");
  assert.equal(e4.Code, "ReceiptHandleIsInvalid");
  assert.equal(e4.message, 'The input receipt handle "garbage" is not a valid receipt handle.');

  const e5 = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "" })));
  assert.equal(e5.Code, "MissingParameter");
  assert.equal(e5.message, "The request must contain the parameter MessageBody.");

  const e6 = await rejection(sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["FifoQueue", "Bogus"] })));
  assert.equal(e6.name, "InvalidAttributeName");
  assert.equal(e6.$metadata.httpStatusCode, 400);

  const e7 = await rejection(sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { VisibilityTimeout: "43201" } })));
  assert.equal(e7.name, "InvalidAttributeValue");
  assert.equal(e7.message, "Invalid value for the parameter VisibilityTimeout.");
});
