// `GET /metrics` of the edge Worker in workerd: each queue's numbers per partition (label
// `partition`), summing to what GetQueueAttributes answers; refused unsigned while auth is on,
// unless WASQ_METRICS_PUBLIC is "on".

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import * as S from "@aws-sdk/client-sqs";
import { SignatureV4 } from "@smithy/signature-v4";
import { startWorker, client, HT_FIFO, createQueue, CREDENTIALS } from "./harness.mjs";

const PARTITIONS = 4;

/** node:crypto behind the hash interface SignatureV4 takes. */
class Sha256 {
  constructor(secret) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", secret);
  }
  update(data) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

async function scrape(mf, { credentials } = {}) {
  const origin = (await mf.ready).origin;
  let headers = {};
  if (credentials) {
    const signer = new SignatureV4({ credentials, region: "us-east-1", service: "sqs", sha256: Sha256 });
    const url = new URL(origin);
    const signed = await signer.sign({ method: "GET", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: "/metrics", headers: { host: url.host }, query: {} });
    headers = signed.headers;
  }
  const res = await mf.dispatchFetch(`${origin}/metrics`, { headers });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** The exposition's samples: `[{ name, labels, value }]` (the format's sample lines; HELP/TYPE checked apart). */
function parse(text) {
  const samples = [];
  const seen = new Set();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    assert.ok(!seen.has(m[1] + JSON.stringify(labels)), `sample twice: ${line}`);
    seen.add(m[1] + JSON.stringify(labels));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

const sum = (samples, name, match) =>
  samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

test("per-partition numbers that sum to GetQueueAttributes; refused unsigned unless public", async () => {
  const mf = startWorker({ partitions: PARTITIONS });
  try {
    const sqs = await client(mf);
    const fifo = await createQueue(sqs, "edge-m.fifo", HT_FIFO);
    const plain = await createQueue(sqs, "edge-m");
    const groups = ["a", "b", "c", "d", "e", "f", "g", "h"];
    for (const [i, g] of groups.entries()) {
      await sqs.send(new S.SendMessageCommand({ QueueUrl: fifo, MessageBody: `m${i}`, MessageGroupId: g, MessageDeduplicationId: `d${i}` }));
    }
    for (let i = 0; i < 3; i++) await sqs.send(new S.SendMessageCommand({ QueueUrl: plain, MessageBody: `p${i}` }));
    const got = (await sqs.send(new S.ReceiveMessageCommand({ QueueUrl: fifo, MaxNumberOfMessages: 3, VisibilityTimeout: 300 }))).Messages ?? [];
    assert.ok(got.length > 0);
    await sqs.send(new S.DeleteMessageCommand({ QueueUrl: fifo, ReceiptHandle: got[0].ReceiptHandle }));

    const refused = await scrape(mf);
    assert.equal(refused.status, 403, refused.text);
    assert.doesNotMatch(refused.text, /edge-m/);
    const wrong = await scrape(mf, { credentials: { ...CREDENTIALS, secretAccessKey: "wrong" } });
    assert.equal(wrong.status, 403, wrong.text);

    const { status, type, text } = await scrape(mf, { credentials: CREDENTIALS });
    assert.equal(status, 200, text);
    assert.match(type, /^text\/plain; version=0\.0\.4/);
    assert.match(text, /^# TYPE wasq_queue_messages gauge$/m);
    assert.match(text, /^# TYPE wasq_queue_messages_sent_total counter$/m);
    const samples = parse(text);
    for (const queue of ["edge-m.fifo", "edge-m"]) {
      const partitions = new Set(samples.filter((s) => s.labels.queue === queue).map((s) => s.labels.partition));
      assert.deepEqual([...partitions].sort(), ["0", "1", "2", "3"], queue);
    }
    // Eight groups over four partitions: the sends are spread, each counted where it landed.
    const perPartition = ["0", "1", "2", "3"].map((partition) => sum(samples, "wasq_queue_messages_sent_total", { queue: "edge-m.fifo", partition }));
    assert.ok(perPartition.filter((n) => n > 0).length > 1, `sends spread over partitions: ${perPartition}`);

    for (const [url, queue] of [
      [fifo, "edge-m.fifo"],
      [plain, "edge-m"],
    ]) {
      const a = (await sqs.send(new S.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
      assert.equal(sum(samples, "wasq_queue_messages", { queue, state: "visible" }), Number(a.ApproximateNumberOfMessages), queue);
      assert.equal(sum(samples, "wasq_queue_messages", { queue, state: "inflight" }), Number(a.ApproximateNumberOfMessagesNotVisible), queue);
      assert.equal(sum(samples, "wasq_queue_messages", { queue, state: "delayed" }), Number(a.ApproximateNumberOfMessagesDelayed), queue);
    }
    assert.equal(sum(samples, "wasq_queue_messages_sent_total", { queue: "edge-m.fifo" }), groups.length);
    assert.equal(sum(samples, "wasq_queue_messages_received_total", { queue: "edge-m.fifo" }), got.length);
    assert.equal(sum(samples, "wasq_queue_messages_deleted_total", { queue: "edge-m.fifo" }), 1);
    assert.equal(sum(samples, "wasq_queue_messages_sent_total", { queue: "edge-m" }), 3);
  } finally {
    await mf.dispose();
  }

  const open = startWorker({ partitions: 1, bindings: { WASQ_METRICS_PUBLIC: "on" } });
  try {
    const sqs = await client(open);
    await createQueue(sqs, "edge-open");
    const { status, text } = await scrape(open);
    assert.equal(status, 200, text);
    assert.equal(sum(parse(text), "wasq_queue_messages", { queue: "edge-open", state: "visible", partition: "0" }), 0);
    assert.ok(parse(text).some((s) => s.labels.queue === "edge-open"));
  } finally {
    await open.dispose();
  }
});
