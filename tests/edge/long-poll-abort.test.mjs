// A long poll whose caller gives up must stop waiting inside the queue objects: the Worker passes
// its request's abort signal to the object (one partition: the whole receive runs there and hands
// the signal to the engine's [WAIT]; several: each object's /wait). Observable effect: a message
// sent after the abort goes to the next receiver, instead of being received (and hidden for a
// visibility timeout) by the abandoned poll. Needs the `enable_request_signal` compatibility
// flag, without which an object's request.signal never fires.

import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, miniflareHandler, createQueue, sleep, PKG, CREDENTIALS } from "./harness.mjs";

const dir = mkdtempSync(join(tmpdir(), "wasq-abort-"));
cpSync(PKG, dir, { recursive: true });
copyFileSync(fileURLToPath(new URL("./abort-entry.js", import.meta.url)), join(dir, "abort-entry.js"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

/** A client whose requests are aborted at the Worker after `ms` (see abort-entry.js). */
async function abandoningClient(mf, ms) {
  const endpoint = (await mf.ready).origin;
  const base = miniflareHandler(() => mf, endpoint);
  const handler = { ...base, handle: (req, opts) => base.handle({ ...req, headers: { ...req.headers, "x-test-abort-after-ms": String(ms) } }, opts) };
  return new S.SQSClient({ region: "us-east-1", endpoint, credentials: CREDENTIALS, requestHandler: handler, maxAttempts: 1 });
}

for (const partitions of [1, 4]) {
  test(`${partitions} partition(s): an abandoned long poll does not take a later message`, async () => {
    const mf = startWorker({ partitions, pkgDir: dir, script: "abort-entry.js" });
    try {
      const sqs = await client(mf);
      const quitter = await abandoningClient(mf, 300);
      const url = await createQueue(sqs, `abort-${partitions}`, { VisibilityTimeout: "60" });
      for (let round = 0; round < 3; round++) {
        const poll = await quitter
          .send(new S.ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 20, MaxNumberOfMessages: 1 }))
          .then(() => "answered", (err) => err.$metadata?.httpStatusCode);
        assert.equal(poll, 499, "the poll was abandoned, not answered");
        const body = `after-${round}`;
        await sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: body }));
        // The abandoned poll, were it still waiting in an object, would take this message now.
        await sleep(200);
        const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 0, MaxNumberOfMessages: 1 }));
        assert.deepEqual((got.Messages ?? []).map((m) => m.Body), [body], "the next receiver gets the message");
        await sqs.send(new S.DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: got.Messages[0].ReceiptHandle }));
      }
    } finally {
      await mf.dispose();
    }
  });
}
