// The packed HTTP form (src/wasm/http.rs): a request may cross into the core as `{head, body}`,
// method, path, query and header names and values joined by NUL, and is then answered as
// `{status, head, body}`. It must answer exactly as the fields form does. The handlers
// (src/http.js) fall back to the fields form when any part holds a NUL, which the packed head
// could not carry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { SQSClient, CreateQueueCommand, SendMessageCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { START } from "./load.js";
import { internal } from "./internal.js";

const { Engine, ManualClock, createRequestHandler, WasqCore } = internal;

const NUL = "\0";
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
// Not the engine's default host: queue URLs show that the host header was read.
const HOST = "sqs.test:4566";
const QUEUE = `http://${HOST}/queue/us-east-1/000000000000/q`;
const md5 = (text) => createHash("md5").update(text, "utf8").digest("hex");

function pack({ method, path, query, headers, body }) {
  return { head: [method, path, query, ...headers.flat()].join(NUL), body };
}

function pairs(head) {
  const flat = head.split(NUL);
  const out = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

function json(action, params) {
  return {
    method: "POST",
    path: "/",
    query: "",
    headers: [["host", HOST], ["content-type", "application/x-amz-json-1.0"], ["x-amz-target", `AmazonSQS.${action}`]],
    body: encoder.encode(JSON.stringify(params)),
  };
}

function form(params, path = "/") {
  return {
    method: "POST",
    path,
    query: "",
    headers: [["host", HOST], ["content-type", "application/x-www-form-urlencoded"]],
    body: encoder.encode(new URLSearchParams(params).toString()),
  };
}

function get(params, path = "/") {
  return { method: "GET", path, query: new URLSearchParams(params).toString(), headers: [["host", HOST]], body: new Uint8Array(0) };
}

/**
 * Every request through two cores of the same seed, one in the fields form and one packed; the
 * answers must be identical and each in its request's form. Returns the fields-form answers.
 */
function sideBySide(requests, { options, now = START } = {}) {
  const fields = new WasqCore({ seed: 5 }, undefined);
  const packed = new WasqCore({ seed: 5 }, undefined);
  const answers = [];
  try {
    for (const request of requests) {
      const a = fields.handleHttp(now, request, options);
      const b = packed.handleHttp(now, pack(request), options);
      assert.equal(a.head, undefined, "a fields request is answered in fields");
      assert.ok(Array.isArray(a.headers));
      assert.equal(typeof b.head, "string", "a packed request is answered packed");
      assert.equal(b.headers, undefined);
      const body = decoder.decode(a.body);
      assert.deepEqual(
        { status: b.status, headers: pairs(b.head), body: decoder.decode(b.body) },
        { status: a.status, headers: a.headers, body },
        `${request.method} ${request.path}?${request.query}`,
      );
      answers.push({ status: a.status, headers: new Map(a.headers.map(([k, v]) => [k.toLowerCase(), v])), body });
    }
  } finally {
    fields.free();
    packed.free();
  }
  return answers;
}

test("AWS JSON: a packed request gets the fields form's answer", () => {
  const [created, sent, received, missing, unknown] = sideBySide([
    json("CreateQueue", { QueueName: "q", Attributes: { VisibilityTimeout: "7" } }),
    json("SendMessage", { QueueUrl: QUEUE, MessageBody: "héllo", MessageAttributes: { k: { DataType: "String", StringValue: "v" } } }),
    json("ReceiveMessage", { QueueUrl: QUEUE, MessageAttributeNames: ["All"] }),
    json("SendMessage", { QueueUrl: `http://${HOST}/000000000000/nope`, MessageBody: "x" }),
    json("NoSuchAction", {}),
  ]);
  assert.equal(created.status, 200);
  assert.equal(JSON.parse(created.body).QueueUrl, QUEUE);
  assert.equal(JSON.parse(sent.body).MD5OfMessageBody, md5("héllo"));
  const [message] = JSON.parse(received.body).Messages;
  assert.equal(message.Body, "héllo");
  assert.equal(message.MessageAttributes.k.StringValue, "v");
  assert.equal(missing.status, 400);
  assert.equal(missing.headers.get("x-amzn-query-error"), "AWS.SimpleQueueService.NonExistentQueue;Sender");
  assert.equal(unknown.status, 400);
  assert.match(unknown.body, /UnknownOperation|InvalidAction/);
});

test("Query: a packed request (form body, GET query string, queue path) gets the fields form's answer", () => {
  const [created, sent, got, attrs, missing] = sideBySide([
    form({ Action: "CreateQueue", QueueName: "q" }),
    get({ Action: "SendMessage", MessageBody: "a b&c" }, "/000000000000/q"),
    form({ Action: "ReceiveMessage", QueueUrl: QUEUE }),
    get({ Action: "GetQueueAttributes", "AttributeName.1": "ApproximateNumberOfMessagesNotVisible" }, "/000000000000/q"),
    form({ Action: "GetQueueUrl", QueueName: "nope" }),
  ]);
  assert.equal(created.status, 200);
  assert.ok(created.body.includes(`<QueueUrl>${QUEUE}</QueueUrl>`), created.body);
  assert.equal(sent.status, 200);
  assert.match(sent.body, new RegExp(`<MD5OfMessageBody>${md5("a b&c")}</MD5OfMessageBody>`));
  assert.match(got.body, /<Body>a b&amp;c<\/Body>/);
  assert.match(attrs.body, /<Name>ApproximateNumberOfMessagesNotVisible<\/Name>\s*<Value>1<\/Value>/);
  assert.equal(missing.status, 400);
  assert.match(missing.body, /AWS\.SimpleQueueService\.NonExistentQueue/);
});

/** The SDK's signed requests as the handlers receive them, recorded while a real engine answers. */
async function signedRequests() {
  const engine = new Engine({ seed: 5 });
  const inner = createRequestHandler(engine, { credentials });
  const seen = [];
  const requestHandler = {
    ...inner,
    handle(request, options) {
      seen.push({
        method: request.method,
        path: request.path,
        query: new URLSearchParams(request.query ?? {}).toString(),
        headers: Object.entries(request.headers),
        body: typeof request.body === "string" ? encoder.encode(request.body) : new Uint8Array(request.body),
      });
      return inner.handle(request, options);
    },
  };
  const sqs = new SQSClient({ region: "us-east-1", endpoint: "http://localhost:9324", credentials, requestHandler, maxAttempts: 1 });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "q" }));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "signed" }));
  await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  engine.close();
  return seen;
}

test("SigV4: signed requests verify the same packed as in fields; a tampered one fails the same", async () => {
  const requests = await signedRequests();
  assert.equal(requests.length, 3);
  const forged = { ...requests[1], headers: requests[1].headers.map(([k, v]) => [k, k === "x-amz-target" ? "AmazonSQS.PurgeQueue" : v]) };
  const answers = sideBySide([...requests, forged], { options: { credentials }, now: Date.now() });
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 403]);
  assert.equal(JSON.parse(answers[2].body).Messages[0].Body, "signed");
  assert.match(answers[3].body, /InvalidSignatureException/);
});

/** Records the form (packed or fields) of every request that reaches the core, and its headers. */
function spyOnHttp(t) {
  const seen = [];
  const { handleHttp } = WasqCore.prototype;
  WasqCore.prototype.handleHttp = function (now, request, options) {
    seen.push(request.head === undefined ? { form: "fields", headers: request.headers } : { form: "packed", headers: pairs(request.head.split(NUL).slice(3).join(NUL)) });
    return handleHttp.call(this, now, request, options);
  };
  t.after(() => {
    WasqCore.prototype.handleHttp = handleHttp;
  });
  return seen;
}

function sdkClient(engine, header) {
  const sqs = new SQSClient({
    region: "us-east-1",
    endpoint: "http://localhost:9324",
    credentials,
    requestHandler: createRequestHandler(engine, { credentials }),
    maxAttempts: 1,
  });
  if (header !== undefined) {
    // At the build step, so the header is signed: the signature verifies only if the value
    // reaches the core intact.
    sqs.middlewareStack.add((next) => (args) => {
      args.request.headers["x-note"] = header;
      return next(args);
    }, { step: "build", name: "note" });
  }
  return sqs;
}

async function roundTrip(sqs) {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "nul" }));
  const sent = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "through the fallback" }));
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  assert.equal(got.Messages[0].MessageId, sent.MessageId);
  assert.equal(got.Messages[0].Body, "through the fallback");
}

test("SDK: a header value holding NUL is answered correctly, through the fields form", async (t) => {
  const seen = spyOnHttp(t);
  const engine = new Engine({ seed: 6 });
  t.after(() => engine.close());
  await roundTrip(sdkClient(engine, `a${NUL}b`));
  assert.equal(seen.length, 3);
  for (const { form, headers } of seen) {
    assert.equal(form, "fields");
    assert.deepEqual(headers.filter(([k]) => k === "x-note"), [["x-note", `a${NUL}b`]]);
  }
});

test("SDK: the same calls without a NUL go packed", async (t) => {
  const seen = spyOnHttp(t);
  const engine = new Engine({ seed: 6 });
  t.after(() => engine.close());
  await roundTrip(sdkClient(engine, "a b"));
  assert.deepEqual(seen.map((s) => s.form), ["packed", "packed", "packed"]);
  assert.ok(seen.every(({ headers }) => headers.some(([k, v]) => k === "x-note" && v === "a b")));
});

test("raw handler requests with a NUL in a header: JSON, Query, and a long poll that waits", async (t) => {
  const seen = spyOnHttp(t);
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 6 });
  t.after(() => engine.close());
  const handler = createRequestHandler(engine);
  // First, so that were it packed, every header after it would be misread.
  const note = { "x-note": `one${NUL}two` };
  const call = (action, params) =>
    handler.handle({
      method: "POST",
      path: "/",
      headers: { ...note, host: HOST, "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${action}` },
      body: JSON.stringify(params),
    });
  const created = await call("CreateQueue", { QueueName: "q" });
  assert.equal(created.response.statusCode, 200);
  assert.equal(JSON.parse(decoder.decode(created.response.body)).QueueUrl, QUEUE);

  const query = await handler.handle({
    method: "POST",
    path: "/000000000000/q",
    headers: { ...note, host: HOST, "content-type": "application/x-www-form-urlencoded" },
    body: "Action=SendMessage&MessageBody=first",
  });
  assert.equal(query.response.statusCode, 200);
  assert.match(decoder.decode(query.response.body), new RegExp(`<MD5OfMessageBody>${md5("first")}</MD5OfMessageBody>`));
  assert.match(query.response.headers["content-type"], /xml/);

  const first = JSON.parse(decoder.decode((await call("ReceiveMessage", { QueueUrl: QUEUE })).response.body));
  assert.equal(first.Messages[0].Body, "first");

  // Nothing receivable: the poll waits (its context read from the fields-form request) until a send.
  const poll = call("ReceiveMessage", { QueueUrl: QUEUE, WaitTimeSeconds: 10 });
  await new Promise((resolve) => setImmediate(resolve));
  clock.advance(2_000);
  engine.sendMessage({ QueueUrl: QUEUE, MessageBody: "second" });
  const waited = await poll;
  assert.equal(waited.response.statusCode, 200);
  assert.equal(JSON.parse(decoder.decode(waited.response.body)).Messages[0].Body, "second");

  assert.ok(seen.length >= 5);
  assert.ok(seen.every((s) => s.form === "fields"), JSON.stringify(seen.map((s) => s.form)));
});
