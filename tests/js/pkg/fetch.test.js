import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { wasq, START } from "./load.js";

const { Engine, ManualClock, createFetchHandler } = wasq;

const json = (action, body, init = {}) =>
  new Request("http://localhost:9324/", {
    method: "POST",
    headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${action}` },
    body: JSON.stringify(body),
    ...init,
  });

test("AWS JSON requests: create, send, receive; errors as JSON with the query error header", async () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 21 });
  const handle = createFetchHandler(engine);
  let res = await handle(json("CreateQueue", { QueueName: "f" }));
  assert.equal(res.status, 200);
  assert.ok(res.headers.get("x-amzn-requestid"));
  const { QueueUrl } = await res.json();
  assert.equal(QueueUrl, "http://localhost:9324/queue/us-east-1/000000000000/f");
  res = await handle(json("SendMessage", { QueueUrl, MessageBody: "fetch" }));
  assert.equal((await res.json()).MD5OfMessageBody, createHash("md5").update("fetch").digest("hex"));
  res = await handle(json("ReceiveMessage", { QueueUrl }));
  assert.equal((await res.json()).Messages[0].Body, "fetch");
  res = await handle(json("GetQueueUrl", { QueueName: "missing" }));
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("x-amzn-query-error"), "AWS.SimpleQueueService.NonExistentQueue;Sender");
  assert.equal((await res.json()).__type, "com.amazonaws.sqs#QueueDoesNotExist");
  engine.close();
});

test("a request to an https URL gets https queue URLs, unless a proxy's x-forwarded-proto says otherwise", async () => {
  // Deno.serve / Bun.serve over TLS, or a Worker's public URL: clients follow the URL they get.
  const engine = new Engine({ clock: new ManualClock(START), seed: 21 });
  const handle = createFetchHandler(engine);
  const create = (url, headers = {}) =>
    handle(new Request(url, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.CreateQueue", ...headers },
      body: JSON.stringify({ QueueName: "tls" }),
    })).then((res) => res.json());
  assert.equal((await create("https://q.example.com/")).QueueUrl, "https://q.example.com/queue/us-east-1/000000000000/tls");
  assert.equal((await create("https://q.example.com/", { "x-forwarded-proto": "http" })).QueueUrl, "http://q.example.com/queue/us-east-1/000000000000/tls");
  assert.equal((await create("http://localhost:9324/")).QueueUrl, "http://localhost:9324/queue/us-east-1/000000000000/tls");
});

test("Query protocol requests get XML answers", async () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 22 });
  const handle = createFetchHandler(engine);
  const form = (params) => new Request("http://localhost:9324/", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
  });
  let res = await handle(form({ Action: "CreateQueue", QueueName: "xml" }));
  assert.equal(res.status, 200);
  assert.match(await res.text(), /<QueueUrl>http:\/\/localhost:9324\/queue\/us-east-1\/000000000000\/xml<\/QueueUrl>/);
  res = await handle(form({ Action: "SendMessage", QueueUrl: "http://localhost:9324/000000000000/xml", MessageBody: "q" }));
  assert.match(await res.text(), /<MD5OfMessageBody>7694f4a66316e53c8cdd9d9954bd611d<\/MD5OfMessageBody>/);
  engine.close();
});

test("a long poll over fetch waits on the engine's clock, then answers empty", async () => {
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 23 });
  const handle = createFetchHandler(engine);
  const { QueueUrl } = await (await handle(json("CreateQueue", { QueueName: "lp" }))).json();
  let done = false;
  const pending = handle(json("ReceiveMessage", { QueueUrl, WaitTimeSeconds: 3 })).then((r) => { done = true; return r; });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false);
  clock.advance(3000);
  const res = await pending;
  assert.deepEqual(await res.json(), {});
  // Woken by a send during the wait.
  const woken = handle(json("ReceiveMessage", { QueueUrl, WaitTimeSeconds: 20 }));
  await new Promise((r) => setTimeout(r, 20));
  engine.sendMessage({ QueueUrl, MessageBody: "now" });
  assert.equal((await (await woken).json()).Messages[0].Body, "now");
  engine.close();
});

test("aborting the Request ends its long poll", async () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 24 });
  const handle = createFetchHandler(engine);
  const { QueueUrl } = await (await handle(json("CreateQueue", { QueueName: "ab" }))).json();
  const controller = new AbortController();
  const pending = handle(json("ReceiveMessage", { QueueUrl, WaitTimeSeconds: 20 }, { signal: controller.signal }));
  await new Promise((r) => setTimeout(r, 20));
  controller.abort();
  await assert.rejects(pending, { name: "AbortError" });
  engine.close();
});
