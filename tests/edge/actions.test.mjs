// The Worker routes every action the core lists (src/facts.js: the data plane to a queue's
// partitions, the move tasks to the directory's task runner, the rest to the directory) to an
// engine that knows it, and refuses a name the core does not list as SQS does.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startWorker, PKG } from "./harness.mjs";

const { engineFacts } = await import(join(PKG, "internal", "node.js"));

async function call(mf, action, params) {
  const res = await mf.dispatchFetch("http://sqs.local/", {
    method: "POST",
    headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${action}` },
    body: JSON.stringify(params),
  });
  return { status: res.status, body: await res.json() };
}

test("every action of the core is answered through the Worker by an engine that knows it", async () => {
  const mf = startWorker({ partitions: 2, bindings: { WASQ_AUTH: "off" } });
  try {
    const dlq = await call(mf, "CreateQueue", { QueueName: "actions-dlq" });
    const QueueUrl = (await call(mf, "CreateQueue", { QueueName: "actions" })).body.QueueUrl;
    const { QueueArn } = (await call(mf, "GetQueueAttributes", { QueueUrl: dlq.body.QueueUrl, AttributeNames: ["QueueArn"] })).body.Attributes;
    // Parameters that let most actions succeed, so that each is routed past admission.
    const params = { QueueUrl, QueueName: "actions-2", MessageBody: "m", SourceArn: QueueArn, Tags: { a: "b" }, TagKeys: ["a"], Attributes: {} };
    const { actions } = engineFacts();
    assert.ok(actions.size > 0);
    const statuses = {};
    for (const action of actions) {
      if (action === "DeleteQueue") continue; // last, below: the others need the queue
      const res = await call(mf, action, params);
      assert.ok(res.status === 200 || res.status === 400, `${action}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.doesNotMatch(String(res.body.__type), /UnknownOperation/, action);
      statuses[action] = res.status;
    }
    assert.equal((await call(mf, "DeleteQueue", params)).status, 200);
    // The data plane and the move tasks were reached, not refused on the way.
    for (const action of ["SendMessage", "ReceiveMessage", "ListMessageMoveTasks", "ListQueues", "TagQueue"]) assert.equal(statuses[action], 200, action);
    const unknown = await call(mf, "SendMessages", params);
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.__type, /UnknownOperation/);
  } finally {
    await mf.dispose();
  }
});
