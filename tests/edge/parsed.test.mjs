// The split the Worker reads requests with, through the packaged wasm: `admitHttp` then
// `dispatchParsed` (the parsed form carried as JSON text, as between the Worker and an object)
// answers every request as `handleHttp` does on a twin core, refusals included, request ids too.

import { test } from "node:test";
import assert from "node:assert/strict";
import { PKG } from "./harness.mjs";

// WasqCore is not a package export: the unshipped internal/node.js bundle exports it (build-pkg.sh).
const { WasqCore } = await import(new URL("internal/node.js", `file://${PKG}/`).href);

const HOST = "edge.test:8787";
const URL_ = `http://${HOST}/000000000000/split`;
const enc = new TextEncoder();
const json = (action, body) => ({
  method: "POST",
  path: "/",
  query: "",
  headers: [["x-amz-target", `AmazonSQS.${action}`], ["content-type", "application/x-amz-json-1.0"], ["host", HOST]],
  body: enc.encode(body),
});
const form = (body, path = "/") => ({
  method: "POST",
  path,
  query: "",
  headers: [["content-type", "application/x-www-form-urlencoded"], ["host", HOST]],
  body: enc.encode(body),
});
// The one HTTP form of the core (src/wasm/http.rs): a NUL-separated head and a body in,
// `{status, head, body}` out.
const headOf = (req) => [req.method, req.path, req.query, ...req.headers.flat()].join("\0");
const pairs = (head) => {
  const flat = head.split("\0");
  const out = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
};
const plain = (res) => ({ status: res.status, headers: pairs(res.head), body: new TextDecoder().decode(res.body) });

test("admitHttp + dispatchParsed answer as handleHttp, JSON and Query, refusals included", (t) => {
  const whole = new WasqCore({ seed: 5 }, undefined);
  const split = new WasqCore({ seed: 5 }, undefined);
  t.after(() => {
    whole.free();
    split.free();
  });
  const q = encodeURIComponent(URL_);
  const steps = [
    [json("CreateQueue", '{"QueueName":"split"}'), "json"],
    [json("SendMessage", JSON.stringify({ QueueUrl: URL_, MessageBody: "héllo" })), "json"],
    [form("Action=SendMessage&MessageBody=by%20path", "/000000000000/split"), "query"],
    [form(`Action=ReceiveMessage&QueueUrl=${q}&MaxNumberOfMessages=10&AttributeName.1=All`), "query"],
    [json("GetQueueAttributes", JSON.stringify({ QueueUrl: URL_, AttributeNames: ["All"] })), "json"],
    [json("DeleteMessage", JSON.stringify({ QueueUrl: URL_, ReceiptHandle: "bogus" })), "json"],
    [json("SendMessage", "{not json"), null],
    [json("Frobnicate", "{}"), null],
    [form("QueueName=x"), null],
    [form(`Action=ReceiveMessage&QueueUrl=${q}&MaxNumberOfMessages=ten`), null],
    [form("Action=ListQueues"), "query"],
  ];
  const now = 1_700_000_000_000;
  steps.forEach(([req, protocol], i) => {
    const a = whole.handleHttp(now + i, headOf(req), req.body, undefined);
    const admitted = split.admitHttp(now + i, headOf(req), req.body, undefined);
    if (protocol === null) {
      assert.ok(admitted.response, `step ${i} is refused`);
      assert.deepEqual(plain(admitted.response), plain(a), `step ${i}`);
      return;
    }
    assert.equal(admitted.response, undefined, `step ${i}: ${plain(a).body}`);
    assert.equal(admitted.protocol, protocol);
    const carried = JSON.parse(JSON.stringify(admitted));
    const b = split.dispatchParsed(now + i, carried, undefined);
    assert.deepEqual(plain(b), plain(a), `step ${i}`);
  });
  // An explicit request id is echoed; a carried form naming no known action is answered in its protocol.
  const list = json("ListQueues", "{}");
  const parsed = split.admitHttp(now, headOf(list), list.body, undefined);
  const echoed = plain(split.dispatchParsed(now, parsed, "rid-1"));
  assert.ok(echoed.headers.some(([k, v]) => k === "x-amzn-RequestId" && v === "rid-1"), JSON.stringify(echoed.headers));
  const unknown = plain(split.dispatchParsed(now, { ...parsed, protocol: "query", action: "Nope" }, "rid-2"));
  assert.equal(unknown.status, 400);
  assert.match(unknown.body, /<Code>InvalidAction<\/Code><Message>The action Nope is not valid for this endpoint.<\/Message>/);
  assert.throws(() => split.dispatchParsed(now, { ...parsed, protocol: "xml" }, undefined), TypeError);
});
