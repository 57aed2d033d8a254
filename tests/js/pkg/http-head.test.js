// The one HTTP form of the core (src/wasm/http.rs, src/http-head.js): a request crosses as its
// head, method, path, query and header names and values joined by NUL, and its body; it is
// answered as `{status, head, body}`. No HTTP request can hold a NUL in those parts, and the
// handlers refuse one built in-process that does, as Node's HTTP client does, before anything runs.
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

function headOf({ method, path, query, headers }) {
  return [method, path, query, ...headers.flat()].join(NUL);
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

/** Every request through one core, in order: `{status, headers (a Map, lower-case names), body}`. */
function through(requests, { options, now = START } = {}) {
  const core = new WasqCore({ seed: 5 }, undefined);
  try {
    return requests.map((request) => {
      const res = core.handleHttp(now, headOf(request), request.body, options);
      assert.equal(typeof res.head, "string");
      assert.ok(res.body instanceof Uint8Array);
      return { status: res.status, headers: new Map(pairs(res.head).map(([k, v]) => [k.toLowerCase(), v])), body: decoder.decode(res.body) };
    });
  } finally {
    core.free();
  }
}

test("AWS JSON through the head form", () => {
  const [created, sent, received, missing, unknown] = through([
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

test("Query through the head form: form body, GET query string, queue path", () => {
  const [created, sent, got, attrs, missing] = through([
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

test("SigV4: signed requests verify through the head form; a tampered one fails", async () => {
  const requests = await signedRequests();
  assert.equal(requests.length, 3);
  const forged = { ...requests[1], headers: requests[1].headers.map(([k, v]) => [k, k === "x-amz-target" ? "AmazonSQS.PurgeQueue" : v]) };
  const answers = through([...requests, forged], { options: { credentials }, now: Date.now() });
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 403]);
  assert.equal(JSON.parse(answers[2].body).Messages[0].Body, "signed");
  assert.match(answers[3].body, /InvalidSignatureException/);
});

/** Records the head of every request that reaches the core. */
function spyOnHttp(t) {
  const seen = [];
  const { handleHttp } = WasqCore.prototype;
  WasqCore.prototype.handleHttp = function (now, head, body, options) {
    seen.push(pairs(head.split(NUL).slice(3).join(NUL)));
    return handleHttp.call(this, now, head, body, options);
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

test("SDK: a signed header reaches the core intact", async (t) => {
  const seen = spyOnHttp(t);
  const engine = new Engine({ seed: 6 });
  t.after(() => engine.close());
  const sqs = sdkClient(engine, "a b");
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "note" }));
  const sent = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "noted" }));
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  assert.equal(got.Messages[0].MessageId, sent.MessageId);
  assert.equal(seen.length, 3);
  assert.ok(seen.every((headers) => headers.some(([k, v]) => k === "x-note" && v === "a b")));
});

test("SDK: a header value holding NUL is refused as Node's HTTP client refuses it, and nothing runs", async (t) => {
  const seen = spyOnHttp(t);
  const engine = new Engine({ seed: 6 });
  t.after(() => engine.close());
  await assert.rejects(sdkClient(engine, `a${NUL}b`).send(new CreateQueueCommand({ QueueName: "nul" })), {
    name: "TypeError",
    code: "ERR_INVALID_CHAR",
    message: 'Invalid character in header content ["x-note"]',
  });
  assert.equal(seen.length, 0);
  assert.deepEqual(engine.listQueues({}).QueueUrls ?? [], []);
});

test("raw handler requests with a NUL in a header name, a value or the path are refused before the core", async (t) => {
  const seen = spyOnHttp(t);
  const engine = new Engine({ clock: new ManualClock(START), seed: 6 });
  t.after(() => engine.close());
  const handler = createRequestHandler(engine);
  const create = (headers, path = "/") =>
    handler.handle({
      method: "POST",
      path,
      headers: { host: HOST, "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.CreateQueue", ...headers },
      body: JSON.stringify({ QueueName: "q" }),
    });
  await assert.rejects(create({ "x-note": `one${NUL}two` }), { name: "TypeError", code: "ERR_INVALID_CHAR" });
  await assert.rejects(create({ [`x-${NUL}`]: "v" }), { name: "TypeError", code: "ERR_INVALID_HTTP_TOKEN" });
  await assert.rejects(create({}, `/${NUL}`), { name: "TypeError", code: "ERR_UNESCAPED_CHARACTERS" });
  assert.equal(seen.length, 0);
  assert.deepEqual(engine.listQueues({}).QueueUrls ?? [], []);
  // The same request without one is answered.
  const created = await create({ "x-note": "one two" });
  assert.equal(created.response.statusCode, 200);
  assert.equal(JSON.parse(decoder.decode(created.response.body)).QueueUrl, QUEUE);
});
