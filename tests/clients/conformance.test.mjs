// Behaviours recorded against real AWS (issue #33), through the AWS SDK v3 and raw HTTP against
// `wasq serve`: the order of ready FIFO groups, a bare queue name as QueueUrl, move-task handles,
// Query requests on a queue URL, queue URLs that name their region, and batch answers.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  StartMessageMoveTaskCommand,
  CancelMessageMoveTaskCommand,
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

const bodies = (r) => (r.Messages ?? []).map((m) => m.Body);

// Recorded against AWS, issue #33 item 1: a group whose lock ends joins the back of the ready groups.
test("FIFO: ready groups are served in the order they became ready", async () => {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: uniqueName("order", true), Attributes: { FifoQueue: "true", VisibilityTimeout: "1" } }),
  );
  for (const [g, body] of [["g1", "g1-m1"], ["g1", "g1-m2"], ["g1", "g1-m3"], ["g1", "g1-m4"], ["g2", "g2-m1"], ["g3", "g3-m1"]]) {
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body, MessageGroupId: g, MessageDeduplicationId: body }));
  }
  assert.deepEqual(bodies(await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 2 }))), ["g1-m1", "g1-m2"]);
  assert.deepEqual(bodies(await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }))), ["g2-m1"]);
  await sleep(2100); // both locks (1 s) end
  const all = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
  assert.deepEqual(bodies(all), ["g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1"]);
});

// Recorded against AWS, issue #33 item 2.
test("a bare queue name works where a QueueUrl is expected", async () => {
  const name = uniqueName("bare");
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  await sqs.send(new SendMessageCommand({ QueueUrl: name, MessageBody: "by name" }));
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: name, Attributes: { DelaySeconds: "0", VisibilityTimeout: "7" } }));
  const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: name, AttributeNames: ["All"] }));
  assert.equal(attrs.Attributes.VisibilityTimeout, "7");
  assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "1");
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: name }));
  assert.deepEqual(bodies(got), ["by name"]);
  await sqs.send(new DeleteMessageCommand({ QueueUrl: name, ReceiptHandle: got.Messages[0].ReceiptHandle }));
  const after = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessagesNotVisible"] }));
  assert.equal(after.Attributes.ApproximateNumberOfMessagesNotVisible, "0");
  const missing = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: `${name}-none`, MessageBody: "x" })));
  assert.equal(missing.name, "QueueDoesNotExist");
});

// Recorded against AWS, issue #33 item 3.
test("move-task handles are base64 of a UUID taskId and the sourceArn; cancel's three refusals", async () => {
  const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: uniqueName("mt-dlq") }))).QueueUrl;
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
  const srcName = uniqueName("mt-src");
  await sqs.send(
    new CreateQueueCommand({ QueueName: srcName, Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) } }),
  );
  for (const b of ["a", "b", "c"]) await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: b }));
  const DestinationArn = dlqArn.replace(/[^:]+$/, srcName);
  const { TaskHandle } = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn, MaxNumberOfMessagesPerSecond: 1 }));
  const decoded = JSON.parse(Buffer.from(TaskHandle, "base64").toString("utf8"));
  assert.deepEqual(Object.keys(decoded), ["taskId", "sourceArn"]);
  assert.match(decoded.taskId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(decoded.sourceArn, dlqArn);
  const handle = (o) => Buffer.from(JSON.stringify(o)).toString("base64");
  const unknown = await rejection(
    sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle: handle({ taskId: "3f2504e0-4f89-41d3-9a0c-0305e82c3301", sourceArn: dlqArn }) })),
  );
  assert.equal(unknown.name, "ResourceNotFoundException");
  assert.equal(unknown.message, "Task does not exist.");
  assert.equal(unknown.$metadata.httpStatusCode, 404);
  const noSource = await rejection(
    sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle: handle({ taskId: decoded.taskId, sourceArn: `${dlqArn}-none` }) })),
  );
  assert.equal(noSource.name, "ResourceNotFoundException");
  assert.equal(noSource.message, "The resource that you specified for the SourceArn parameter doesn't exist.");
  assert.equal(noSource.$metadata.httpStatusCode, 404);
  const bad = await rejection(sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle: "not a handle" })));
  assert.equal(bad.name, "InvalidParameterValue");
  assert.equal(bad.message, "Value for parameter TaskHandle is invalid.");
  assert.equal(bad.$metadata.httpStatusCode, 400);
  await sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle }));
});

// Recorded against AWS, issue #33 item 4.
test("Query on a queue URL: service actions refused, no action is 404, Accept: application/json answers JSON", async () => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName("query") }));
  for (const action of ["CreateQueue", "ListQueues"]) {
    const res = await fetch(`${QueueUrl}?Action=${action}&QueueName=${uniqueName("never")}`);
    assert.equal(res.status, 400, action);
    const text = await res.text();
    assert.match(text, /<Code>InvalidAction<\/Code>/);
    assert.match(text, new RegExp(`<Message>The action ${action} is not valid for this endpoint`));
  }
  const bare = await fetch(QueueUrl);
  assert.equal(bare.status, 404);
  assert.equal(await bare.text(), "<UnknownOperationException/>");
  for (const method of ["GET", "POST"]) {
    const res =
      method === "GET"
        ? await fetch(`${server.url}/?Action=ListQueues`, { headers: { Accept: "application/json" } })
        : await fetch(`${server.url}/`, {
            method,
            headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
            body: "Action=ListQueues",
          });
    assert.equal(res.status, 200, method);
    assert.match(res.headers.get("content-type"), /application\/json/);
    const body = await res.json();
    assert.ok(body.ListQueuesResponse.ListQueuesResult.QueueUrls.includes(QueueUrl), method);
  }
  const xml = await fetch(`${server.url}/?Action=ListQueues`);
  assert.match(await xml.text(), /^<\?xml/);
});

// Issue #33 item 5: the URL names the region, and reaches the queue whatever region the client signs for.
test("queue URLs name their region and reach it from a client of another region", async () => {
  const name = uniqueName("regions");
  const east = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl;
  const westClient = client(server.url, { region: "eu-west-1" });
  try {
    // Before eu-west-1 has any queue: the URL still reaches us-east-1's (users hit this in-process).
    await westClient.send(new SendMessageCommand({ QueueUrl: east, MessageBody: "first" }));
    assert.deepEqual(bodies(await sqs.send(new ReceiveMessageCommand({ QueueUrl: east, VisibilityTimeout: 0 }))), ["first"]);
    await sqs.send(new PurgeQueueCommand({ QueueUrl: east }));
    const west = (await westClient.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl;
    assert.equal(new URL(east).pathname, `/queue/us-east-1/000000000000/${name}`);
    assert.equal(new URL(west).pathname, `/queue/eu-west-1/000000000000/${name}`);
    assert.equal((await westClient.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl, west);
    assert.ok((await westClient.send(new ListQueuesCommand({ QueueNamePrefix: name }))).QueueUrls.includes(west));
    const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: west, AttributeNames: ["QueueArn"] }))).Attributes.QueueArn;
    assert.equal(arn, `arn:aws:sqs:eu-west-1:000000000000:${name}`);
    // The east client sends to the west queue by its URL; the west client receives it there.
    await sqs.send(new SendMessageCommand({ QueueUrl: west, MessageBody: "crossed" }));
    assert.deepEqual(bodies(await westClient.send(new ReceiveMessageCommand({ QueueUrl: west }))), ["crossed"]);
    assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: east }))).Messages, undefined);
    // The form without a region resolves in the signing region.
    const legacy = `${server.url}/000000000000/${name}`;
    await westClient.send(new SendMessageCommand({ QueueUrl: legacy, MessageBody: "west by the old form" }));
    assert.deepEqual(bodies(await sqs.send(new ReceiveMessageCommand({ QueueUrl: west }))), ["west by the old form"]);
  } finally {
    westClient.destroy();
  }
});

// Issue #33 item 6 (one engine's answers, which the edge Worker must match).
test("batch answers in entry order, no empty Failed, errors quote the handle sent", async () => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName("batch") }));
  const Entries = Array.from({ length: 6 }, (_, i) => ({ Id: `message-${i}`, MessageBody: `m${i}` }));
  const sent = await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
  assert.deepEqual(sent.Successful.map((e) => e.Id), Entries.map((e) => e.Id));
  assert.equal(sent.Failed, undefined);
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  const del = await sqs.send(
    new DeleteMessageBatchCommand({ QueueUrl, Entries: got.Messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })) }),
  );
  assert.deepEqual(del.Successful.map((e) => e.Id), got.Messages.map((_, i) => `d${i}`));
  assert.equal(del.Failed, undefined);
  const handle = got.Messages[0].ReceiptHandle;
  const e = await rejection(sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: handle, VisibilityTimeout: 5 })));
  assert.equal(e.name, "InvalidParameterValue");
  assert.ok(e.message.startsWith(`Value ${handle} for parameter ReceiptHandle is invalid.`), e.message);
});
