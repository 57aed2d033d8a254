// @aws-sdk/client-sqs in-process through createRequestHandler, with the SDK's MD5 checks ON.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SQSClient, CreateQueueCommand, SendMessageCommand, SendMessageBatchCommand, ReceiveMessageCommand,
  DeleteMessageCommand, GetQueueAttributesCommand, ChangeMessageVisibilityCommand,
} from "@aws-sdk/client-sqs";
import { wasq, START } from "./load.js";

const { Engine, ManualClock, SystemClock, createRequestHandler } = wasq;
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };

function client(engine, handlerOptions, clientCredentials = credentials) {
  return new SQSClient({
    region: "us-east-1",
    endpoint: "http://localhost:9324",
    credentials: clientCredentials,
    requestHandler: createRequestHandler(engine, handlerOptions),
    maxAttempts: 1,
  });
}

test("create, send (MD5 verified by the SDK), receive, delete", async () => {
  const engine = new Engine({ clock: new SystemClock(), seed: 11 });
  const sqs = client(engine);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "sdk" }));
  assert.equal(QueueUrl, "http://localhost:9324/queue/us-east-1/000000000000/sdk");
  const sent = await sqs.send(new SendMessageCommand({
    QueueUrl, MessageBody: "héllo wörld ✓",
    MessageAttributes: { kind: { DataType: "String", StringValue: "greeting" } },
  }));
  assert.match(sent.MessageId, /^[0-9a-f-]{36}$/);
  assert.match(sent.$metadata.requestId, /\S/);
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ["All"] }));
  assert.equal(got.Messages[0].Body, "héllo wörld ✓");
  assert.equal(got.Messages[0].MessageAttributes.kind.StringValue, "greeting");
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle }));
  const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["All"] }));
  assert.equal(attrs.Attributes.ApproximateNumberOfMessages, "0");
  assert.equal(attrs.Attributes.ApproximateNumberOfMessagesNotVisible, "0");
  engine.close();
});

test("batch send: every entry's MD5 passes the SDK's check", async () => {
  const engine = new Engine({ seed: 12 });
  const sqs = client(engine);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "batch" }));
  const out = await sqs.send(new SendMessageBatchCommand({
    QueueUrl, Entries: [{ Id: "a", MessageBody: "one" }, { Id: "b", MessageBody: "twö" }],
  }));
  assert.deepEqual(out.Successful.map((s) => s.Id).sort(), ["a", "b"]);
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  assert.deepEqual(got.Messages.map((m) => m.Body).sort(), ["one", "twö"]);
  engine.close();
});

test("SQS errors reach the SDK as its modelled exceptions", async () => {
  const engine = new Engine({ seed: 13 });
  const sqs = client(engine);
  await assert.rejects(
    sqs.send(new SendMessageCommand({ QueueUrl: "http://localhost:9324/000000000000/none", MessageBody: "x" })),
    (err) => {
      assert.equal(err.name, "QueueDoesNotExist");
      assert.equal(err.Code, "AWS.SimpleQueueService.NonExistentQueue");
      assert.equal(err.$metadata.httpStatusCode, 400);
      return true;
    },
  );
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "e" }));
  await assert.rejects(
    sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: "bogus", VisibilityTimeout: 5 })),
    { name: "ReceiptHandleIsInvalid" },
  );
  engine.close();
});

test("long polling through the SDK waits on the engine's clock and wakes on a send", async () => {
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 14 });
  const sqs = client(engine);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "lp" }));
  let done = false;
  const pending = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 })).then((r) => { done = true; return r; });
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(done, false);
  engine.sendMessage({ QueueUrl, MessageBody: "via engine" });
  const got = await pending;
  assert.equal(got.Messages[0].Body, "via engine");

  const empty = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 2 }));
  await new Promise((r) => setTimeout(r, 30));
  clock.advance(2000);
  assert.equal((await empty).Messages, undefined);
  engine.close();
});

test("the SDK's abortSignal ends a long poll", async () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 15 });
  const sqs = client(engine);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "ab" }));
  const controller = new AbortController();
  const pending = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }), { abortSignal: controller.signal });
  await new Promise((r) => setTimeout(r, 30));
  controller.abort();
  await assert.rejects(pending, (err) => /abort/i.test(err.name + err.message));
  engine.close();
});

test("a deprecated @aws-sdk/abort-controller signal (aborted/onabort only) also ends a long poll", async () => {
  // HttpHandlerOptions admits it (index.d.ts must, for `new SQSClient({ requestHandler })` to
  // type-check under strict), so the handler must not call AbortSignal methods it lacks.
  const engine = new Engine({ clock: new ManualClock(START), seed: 15 });
  const sqs = client(engine);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "old" }));
  const signal = { aborted: false, onabort: null };
  const controller = { signal, abort() { signal.aborted = true; signal.onabort?.(); } };
  const pending = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }), { abortSignal: signal });
  await new Promise((r) => setTimeout(r, 30));
  controller.abort();
  await assert.rejects(pending, (err) => /abort/i.test(err.name + err.message));
  engine.close();
});

test("with no endpoint the client's https AWS endpoint gives https queue URLs, and the SDK has nothing to warn about", async () => {
  // Production code handed an in-process requestHandler often sets no endpoint at all.
  const engine = new Engine({ clock: new ManualClock(START), seed: 17 });
  const warnings = [];
  const sqs = new SQSClient({
    region: "us-east-1",
    credentials,
    requestHandler: createRequestHandler(engine),
    logger: { trace() {}, debug() {}, info() {}, warn: (...a) => warnings.push(a.join(" ")), error() {} },
  });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "prod" }));
  assert.equal(QueueUrl, "https://sqs.us-east-1.amazonaws.com/queue/us-east-1/000000000000/prod");
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "x" }));
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  assert.equal(got.Messages[0].Body, "x");
  assert.deepEqual(warnings, []);
  engine.close();
});

test("with credentials, SigV4 signatures are verified", async () => {
  const engine = new Engine({ seed: 16 });
  const good = client(engine, { credentials });
  const { QueueUrl } = await good.send(new CreateQueueCommand({ QueueName: "auth" }));
  assert.ok(QueueUrl.endsWith("/auth"));
  const bad = client(engine, { credentials }, { ...credentials, secretAccessKey: "wrong" });
  await assert.rejects(bad.send(new CreateQueueCommand({ QueueName: "nope" })), (err) => {
    assert.equal(err.$metadata.httpStatusCode, 403);
    assert.match(err.name, /Signature/);
    return true;
  });
  engine.close();
});
