// `wasq serve` when its engine fills up or stops (issue #31, item 6): --max-stored-bytes refuses
// sends with RequestThrottled while the rest goes on; an internal error is logged once, answered
// with an SQS-shaped 500, and the server carries on from its --data (or, in --memory, where
// nothing is left to restore, exits non-zero for a supervisor to restart it), instead of
// answering 500 to every request from then on.
//
// The internal errors are asked for with bodies only the test package acts on
// (scripts/build-test-pkg.sh, target/pkg-test; src/test_hooks.rs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
import { client, rejection, removeDir, repoRoot, startWasq, tempDir, uniqueName } from "./helpers.mjs";

const testBin = join(repoRoot, "target", "pkg-test", "bin", "wasq.mjs");
if (!existsSync(testBin)) throw new Error(`no ${testBin}: run scripts/build-test-pkg.sh first`);

const BODY = "x".repeat(1000);

async function health(url) {
  const res = await fetch(`${url}/health`);
  return { status: res.status, body: await res.json() };
}

test("--max-stored-bytes: sends past it are RequestThrottled, receives, deletes and purges go on", async () => {
  const server = await startWasq(["--memory", "--max-stored-bytes", String(5 * (1000 + 256))]);
  try {
    const sqs = client(server.url);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName("full") }));
    for (let i = 0; i < 5; i++) await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: BODY }));
    const err = await rejection(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: BODY })));
    assert.equal(err.name, "RequestThrottled");
    assert.equal(err.$metadata.httpStatusCode, 400);
    assert.match(err.message, /maxStoredBytes/);
    const batch = await rejection(sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: [{ Id: "a", MessageBody: "y" }] })));
    assert.equal(batch.name, "RequestThrottled");

    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }));
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: BODY }));
    await sqs.send(new PurgeQueueCommand({ QueueUrl }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: BODY }));
    assert.equal((await health(server.url)).status, 200);
  } finally {
    await server.stop();
  }
});

test("--data: an internal error is answered 500 InternalFailure, logged once, and the server goes on from its storage", async () => {
  const dir = tempDir();
  const server = await startWasq(["--data", dir], { bin: testBin });
  try {
    const sqs = client(server.url);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName("panic") }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "acknowledged" }));

    const err = await rejection(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "wasq-test-panic" })));
    assert.equal(err.name, "InternalFailure");
    assert.equal(err.$metadata.httpStatusCode, 500);
    assert.match(err.message, /test hook: a panic on request, at src[\\/]test_hooks\.rs:\d+:\d+/);

    // Serving again, with what was acknowledged before.
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    assert.deepEqual(got.Messages.map((m) => m.Body), ["acknowledged"]);
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "after" }));
    const h = await health(server.url);
    assert.equal(h.status, 200);
    assert.equal(h.body.status, "ok");
    assert.equal(h.body.internalErrors, 1);
    const logged = server.stderr().match(/internal error, the engine stopped/g) ?? [];
    assert.equal(logged.length, 1, server.stderr());
    assert.match(server.stderr(), /test hook: a panic on request/);
    assert.match(server.stderr(), /restored the engine from its storage/);

    // A trap with no panic (as when memory runs out) is handled the same way.
    const trap = await rejection(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "wasq-test-abort" })));
    assert.equal(trap.$metadata.httpStatusCode, 500);
    assert.match(trap.message, /RuntimeError: unreachable/);
    const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
    assert.deepEqual(again.Messages.map((m) => m.Body), ["after"]);
    assert.equal((await health(server.url)).body.internalErrors, 2);

    // In the Query protocol too, a fault of the receiver (what makes the SDKs retry it), as the
    // Worker answers it and as SQS marks its own InternalFailure.
    const query = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `Action=SendMessage&QueueUrl=${encodeURIComponent(QueueUrl)}&MessageBody=wasq-test-panic`,
    });
    const xml = await query.text();
    assert.equal(query.status, 500);
    assert.match(xml, /<Type>Receiver<\/Type>\s*<Code>InternalFailure<\/Code>/);
    assert.match(xml, /test hook: a panic on request/);
    assert.equal((await health(server.url)).body.internalErrors, 3);
  } finally {
    const code = await server.stop();
    assert.equal(code, 0, server.stderr());
    assert.doesNotMatch(server.stderr(), /while it was borrowed|recursive use of an object/);
    removeDir(dir);
  }
});

test("--memory: an internal error leaves nothing to restore, so the server exits non-zero", async () => {
  const server = await startWasq(["--memory"], { bin: testBin });
  const sqs = client(server.url);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName("gone") }));
  const err = await rejection(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "wasq-test-panic" })));
  assert.equal(err.$metadata.httpStatusCode, 500);
  assert.equal(await server.exited, 70);
  assert.match(server.stderr(), /internal error, the engine stopped/);
  assert.match(server.stderr(), /the engine cannot be restored/);
});
