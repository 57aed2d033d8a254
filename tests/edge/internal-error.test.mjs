// A Durable Object whose engine stopped on an internal error (a panic or a trap in the wasm,
// issue #32): the request that failed is answered 500 InternalFailure, as `wasq serve` answers
// it, and the next request is served by a new engine over the object's storage, with everything
// acknowledged before. Without that, the object refused every request until workerd evicted it.
//
// The failures are asked for with message bodies that only the test package's wasm acts on
// (src/test_hooks.rs; scripts/build-test-pkg.sh builds it into target/pkg-test, Worker included).

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, createQueue, CREDENTIALS } from "./harness.mjs";
import { signedQuery, xmlText } from "./util.mjs";

const testPkg = fileURLToPath(new URL("../../target/pkg-test", import.meta.url));
if (!existsSync(`${testPkg}/worker/index.js`)) throw new Error(`no ${testPkg}/worker/index.js: run scripts/build-test-pkg.sh first`);

async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("the call succeeded");
}

const FAILURES = [
  ["a panic", "wasq-test-panic", /test hook: a panic on request, at src[\\/]test_hooks\.rs:\d+:\d+/],
  ["a trap with no panic before it", "wasq-test-abort", /the wasm stopped with no panic reported \(RuntimeError: unreachable/],
];

for (const [what, body, message] of FAILURES) {
  test(`after ${what} in a queue's object, the failing request is InternalFailure and the next ones are served`, async () => {
    const mf = startWorker({ pkgDir: testPkg, partitions: 2 });
    try {
      const sqs = await client(mf);
      const QueueUrl = await createQueue(sqs, "panics");
      await sqs.send(new S.SendMessageBatchCommand({
        QueueUrl,
        Entries: [0, 1, 2, 3].map((i) => ({ Id: `e${i}`, MessageBody: `acknowledged ${i}` })),
      }));

      // Sent until the failure lands in each partition's object (sends spread over them).
      for (let i = 0; i < 4; i++) {
        const err = await rejection(sqs.send(new S.SendMessageCommand({ QueueUrl, MessageBody: body })));
        assert.equal(err.name, "InternalFailure", `${err.name}: ${err.message}`);
        assert.equal(err.$metadata.httpStatusCode, 500);
        assert.match(err.message, message);
      }

      // The same objects answer again, from their storage.
      await sqs.send(new S.SendMessageCommand({ QueueUrl, MessageBody: "after" }));
      const bodies = [];
      for (let i = 0; i < 10 && bodies.length < 5; i++) {
        const got = await sqs.send(new S.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
        bodies.push(...(got.Messages ?? []).map((m) => m.Body));
      }
      assert.deepEqual(bodies.sort(), ["acknowledged 0", "acknowledged 1", "acknowledged 2", "acknowledged 3", "after"]);
      // The control plane and the Worker's own admission too (they share the isolate's wasm,
      // which the failure replaced).
      const listed = await sqs.send(new S.ListQueuesCommand({}));
      assert.deepEqual(listed.QueueUrls, [QueueUrl]);
      await createQueue(sqs, "made-after");
    } finally {
      await mf.dispose();
    }
  });
}

test("the Query protocol gets InternalFailure in its XML shape", async () => {
  const mf = startWorker({ pkgDir: testPkg });
  try {
    const sqs = await client(mf);
    const QueueUrl = await createQueue(sqs, "panics-query");
    const query = (body) => signedQuery(mf, [["Action", "SendMessage"], ["QueueUrl", QueueUrl], ["MessageBody", body]], { credentials: CREDENTIALS });
    const { status, xml } = await query("wasq-test-panic");
    assert.equal(status, 500);
    assert.equal(xmlText(xml, "Code"), "InternalFailure");
    assert.equal(xmlText(xml, "Type"), "Receiver");
    assert.match(xmlText(xml, "Message"), /test hook: a panic on request/);
    const ok = await query("after");
    assert.equal(ok.status, 200, ok.xml);
  } finally {
    await mf.dispose();
  }
});
