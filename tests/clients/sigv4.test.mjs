// `wasq serve --credentials` against someone who holds a signed request and wants it to do
// something else: the body swapped under the original body's hash, an unsigned header changed,
// a presigned URL used past its expiry. Requests are signed by the AWS SDK v3 (its client, or its
// own SigV4 signer for the Query protocol and presigned URLs) and replayed over plain HTTP.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { request } from "node:http";
import { SignatureV4 } from "@smithy/signature-v4";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import * as S from "@aws-sdk/client-sqs";
import { startWasq, client, ACCESS_KEY, SECRET_KEY, uniqueName } from "./helpers.mjs";

const CREDENTIALS = { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY };
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** The SDK signer's hash interface over node:crypto. */
class Sha256 {
  constructor(secret) {
    this.hash = secret ? createHmac("sha256", secret) : createHash("sha256");
  }
  update(data) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
  reset() {}
}

const signer = new SignatureV4({ credentials: CREDENTIALS, region: "us-east-1", service: "sqs", sha256: Sha256 });

/** Send `{method, path, headers, body}` as is but for its length (the body may be swapped); `{status, text}`. */
function send(url, { method = "POST", path = "/", headers, body = "" }) {
  const { hostname, port } = new URL(url);
  const sent = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== "content-length"));
  return new Promise((ok, fail) => {
    const req = request({ hostname, port, method, path, headers: sent }, (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => ok({ status: res.statusCode, text: Buffer.concat(parts).toString() }));
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end(body);
  });
}

/** A request signed by the SDK's signer; `options` as SignatureV4.sign takes them. */
async function signed(url, { path = "/", headers, body }, options) {
  const { hostname, port, host } = new URL(url);
  const req = await signer.sign(
    { method: "POST", protocol: "http:", hostname, port: Number(port), path, headers: { host, ...headers }, body },
    options,
  );
  return { path, headers: req.headers, body };
}

const FORM = { "content-type": "application/x-www-form-urlencoded; charset=utf-8" };
const JSON_TYPE = "application/x-amz-json-1.0";
const errorCode = (text) => /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? JSON.parse(text).__type;

let server;
let sqs;
before(async () => {
  server = await startWasq(["--memory", "--credentials", `${ACCESS_KEY}:${SECRET_KEY}`]);
  sqs = client(server.url);
});
after(() => server.stop());

test("a signed Query ListQueues replayed as DeleteQueue under the original body's hash is refused; the queue stays", async () => {
  const victim = (await sqs.send(new S.CreateQueueCommand({ QueueName: uniqueName("victim") }))).QueueUrl;
  const captured = await signed(server.url, { headers: FORM, body: "Action=ListQueues&Version=2012-11-05" });
  const genuine = await send(server.url, captured);
  assert.equal(genuine.status, 200, genuine.text);
  assert.ok(genuine.text.includes(victim), genuine.text);

  const forged = await send(server.url, {
    ...captured,
    headers: { ...captured.headers, "x-amz-content-sha256": sha256(captured.body) },
    body: `Action=DeleteQueue&Version=2012-11-05&QueueUrl=${encodeURIComponent(victim)}`,
  });
  assert.equal(forged.status, 403, forged.text);
  assert.equal(errorCode(forged.text), "SignatureDoesNotMatch");
  const { QueueUrls } = await sqs.send(new S.ListQueuesCommand({}));
  assert.ok(QueueUrls.includes(victim), "the queue was deleted");
});

test("an SDK ReceiveMessage captured on one queue and pointed at another is refused; the other queue's message stays", async () => {
  // Names of one length: the SDK signs Content-Length, so a forger keeps the body's length.
  const base = uniqueName("rx");
  const mine = (await sqs.send(new S.CreateQueueCommand({ QueueName: `${base}-mine` }))).QueueUrl;
  const theirs = (await sqs.send(new S.CreateQueueCommand({ QueueName: `${base}-them` }))).QueueUrl;
  await sqs.send(new S.SendMessageCommand({ QueueUrl: theirs, MessageBody: "not yours" }));

  // The SDK's own request, exactly as it went on the wire.
  let captured;
  const inner = new NodeHttpHandler();
  const capturing = client(server.url, {
    requestHandler: {
      metadata: { handlerProtocol: "http/1.1" },
      handle(req, options) {
        captured = { path: req.path, headers: { ...req.headers }, body: Buffer.from(req.body).toString() };
        return inner.handle(req, options);
      },
      updateHttpClientConfig() {},
      httpHandlerConfigs: () => ({}),
      destroy() {},
    },
  });
  const got = await capturing.send(new S.ReceiveMessageCommand({ QueueUrl: mine, WaitTimeSeconds: 0 }));
  assert.equal(got.Messages, undefined);
  assert.equal(captured.headers["x-amz-target"], "AmazonSQS.ReceiveMessage");
  assert.ok(captured.body.includes(JSON.stringify(mine)), captured.body);

  const forged = await send(server.url, {
    ...captured,
    headers: { ...captured.headers, "x-amz-content-sha256": sha256(captured.body) },
    body: captured.body.replace(JSON.stringify(mine), JSON.stringify(theirs)),
  });
  assert.equal(forged.status, 403, forged.text);
  assert.equal(errorCode(forged.text), "com.amazon.coral.service#InvalidSignatureException");
  const left = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: theirs, AttributeNames: ["All"] }));
  assert.equal(left.Attributes.ApproximateNumberOfMessages, "1");
  assert.equal(left.Attributes.ApproximateNumberOfMessagesNotVisible, "0");
});

test("a request signed without host is refused, and so is its target switched to PurgeQueue", async () => {
  const queue = (await sqs.send(new S.CreateQueueCommand({ QueueName: uniqueName("kept") }))).QueueUrl;
  await sqs.send(new S.SendMessageCommand({ QueueUrl: queue, MessageBody: "keep me" }));
  const captured = await signed(
    server.url,
    {
      headers: { "content-type": JSON_TYPE, "x-amz-target": "AmazonSQS.GetQueueAttributes" },
      body: JSON.stringify({ QueueUrl: queue }),
    },
    // Signed over x-amz-date (and the payload hash the signer adds) only.
    { unsignableHeaders: new Set(["host", "content-type", "x-amz-target"]) },
  );
  assert.match(captured.headers.authorization, /SignedHeaders=x-amz-content-sha256;x-amz-date,/);
  for (const target of ["AmazonSQS.GetQueueAttributes", "AmazonSQS.PurgeQueue"]) {
    const res = await send(server.url, { ...captured, headers: { ...captured.headers, "x-amz-target": target } });
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(JSON.parse(res.text), {
      __type: "com.amazon.coral.service#InvalidSignatureException",
      message: "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
    });
  }
  const left = await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ["All"] }));
  assert.equal(left.Attributes.ApproximateNumberOfMessages, "1");
});

test("a presigned URL lives as long as its X-Amz-Expires: one of 1 s is refused 10 s on, one of 1 h accepted 20 min on", async () => {
  const { hostname, port, host } = new URL(server.url);
  const presigned = async (expiresIn, agoMs) => {
    const req = await signer.presign(
      { method: "GET", protocol: "http:", hostname, port: Number(port), path: "/", headers: { host },
        query: { Action: "ListQueues", Version: "2012-11-05" } },
      { expiresIn, signingDate: new Date(Date.now() - agoMs) },
    );
    const path = `/?${new URLSearchParams(req.query).toString()}`;
    return send(server.url, { method: "GET", path, headers: { host } });
  };
  const expired = await presigned(1, 10_000);
  assert.equal(expired.status, 403, expired.text);
  assert.equal(errorCode(expired.text), "RequestExpired");
  const hourOld20min = await presigned(3600, 20 * 60_000);
  assert.equal(hourOld20min.status, 200, hourOld20min.text);
});
