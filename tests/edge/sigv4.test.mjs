// The edge Worker in workerd against someone who holds a signed request and wants it to do
// something else: the body swapped under the original body's hash, unsigned headers changed
// (the target, the Host). Requests are signed by the AWS SDK v3 (its client, or its own SigV4
// signer for the Query protocol) and replayed through miniflare.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";
import { SQSClient } from "@aws-sdk/client-sqs";
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client, miniflareHandler, CREDENTIALS, createQueue } from "./harness.mjs";
import { Sha256 } from "./util.mjs";

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const signer = new SignatureV4({ credentials: CREDENTIALS, region: "us-east-1", service: "sqs", sha256: Sha256 });
const FORM = { "content-type": "application/x-www-form-urlencoded; charset=utf-8" };

let mf;
let sqs;
let origin;
before(async () => {
  mf = startWorker();
  sqs = await client(mf);
  origin = (await mf.ready).origin;
});
after(() => mf.dispose());

/** Send `{headers, body}` (a POST to /) as is; `{status, text}`. */
async function send({ headers, body }) {
  const res = await mf.dispatchFetch(`${origin}/`, { method: "POST", headers, body });
  return { status: res.status, text: await res.text() };
}

/** A POST to / signed by the SDK's signer; `options` as SignatureV4.sign takes them. */
async function signed(headers, body, options) {
  const { hostname, port, host } = new URL(origin);
  const req = await signer.sign(
    { method: "POST", protocol: "http:", hostname, port: Number(port), path: "/", headers: { host, ...headers }, body },
    options,
  );
  return { headers: req.headers, body };
}

test("a signed Query ListQueues replayed as DeleteQueue under the original body's hash is refused; the queue stays", async () => {
  const victim = await createQueue(sqs, "victim");
  const captured = await signed(FORM, "Action=ListQueues&Version=2012-11-05");
  const genuine = await send(captured);
  assert.equal(genuine.status, 200, genuine.text);
  assert.ok(genuine.text.includes(victim), genuine.text);

  const forged = await send({
    headers: { ...captured.headers, "x-amz-content-sha256": sha256(captured.body) },
    body: `Action=DeleteQueue&Version=2012-11-05&QueueUrl=${encodeURIComponent(victim)}`,
  });
  assert.equal(forged.status, 403, forged.text);
  assert.match(forged.text, /<Code>SignatureDoesNotMatch<\/Code>/);
  const { QueueUrls } = await sqs.send(new S.ListQueuesCommand({}));
  assert.ok(QueueUrls.includes(victim), "the queue was deleted");
});

test("an SDK ReceiveMessage captured on one queue and pointed at another is refused; the other queue's message stays", async () => {
  // Names of one length: the SDK signs Content-Length, so a forger keeps the body's length.
  const mine = await createQueue(sqs, "rx-mine");
  const theirs = await createQueue(sqs, "rx-them");
  await sqs.send(new S.SendMessageCommand({ QueueUrl: theirs, MessageBody: "not yours" }));

  let captured;
  const base = miniflareHandler(() => mf, origin);
  const capturing = new SQSClient({
    region: "us-east-1",
    endpoint: origin,
    credentials: CREDENTIALS,
    maxAttempts: 1,
    requestHandler: {
      ...base,
      handle(req, options) {
        captured = { headers: { ...req.headers }, body: Buffer.from(req.body).toString() };
        return base.handle(req, options);
      },
    },
  });
  const got = await capturing.send(new S.ReceiveMessageCommand({ QueueUrl: mine, WaitTimeSeconds: 0 }));
  assert.equal(got.Messages, undefined);
  assert.ok(captured.body.includes(JSON.stringify(mine)), captured.body);

  const forgedBody = captured.body.replace(JSON.stringify(mine), JSON.stringify(theirs));
  assert.equal(forgedBody.length, captured.body.length);
  const forged = await send({
    headers: { ...captured.headers, "x-amz-content-sha256": sha256(captured.body) },
    body: forgedBody,
  });
  assert.equal(forged.status, 403, forged.text);
  assert.equal(JSON.parse(forged.text).__type, "com.amazon.coral.service#InvalidSignatureException");
  const left = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: theirs, AttributeNames: ["All"] }));
  assert.equal(left.Attributes.ApproximateNumberOfMessages, "1");
  assert.equal(left.Attributes.ApproximateNumberOfMessagesNotVisible, "0");
});

test("without host signed, a switched target or a second Host value gets an SQS error, and nothing runs", async () => {
  const queue = await createQueue(sqs, "kept");
  await sqs.send(new S.SendMessageCommand({ QueueUrl: queue, MessageBody: "keep me" }));
  const captured = await signed(
    { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.GetQueueAttributes" },
    JSON.stringify({ QueueUrl: queue }),
    // Signed over x-amz-date (and the payload hash the signer adds) only.
    { unsignableHeaders: new Set(["host", "content-type", "x-amz-target"]) },
  );
  const refusal = {
    __type: "com.amazon.coral.service#InvalidSignatureException",
    message: "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
  };
  const purge = await send({ ...captured, headers: { ...captured.headers, "x-amz-target": "AmazonSQS.PurgeQueue" } });
  assert.equal(purge.status, 403, purge.text);
  assert.deepEqual(JSON.parse(purge.text), refusal);

  // Two Host values reach the Worker as one comma-joined header (fetch joins them). A request
  // with two Host lines on the wire never reaches it: workerd's own listener refuses it.
  const headers = new Headers(captured.headers);
  headers.append("host", "evil.example");
  const res = await mf.dispatchFetch(`${origin}/`, { method: "POST", headers, body: captured.body });
  assert.equal(res.status, 403);
  assert.deepEqual(await res.json(), refusal);

  const left = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ["All"] }));
  assert.equal(left.Attributes.ApproximateNumberOfMessages, "1");
});
