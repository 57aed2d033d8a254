// `wasq serve` when it, not the request, fails: answered with SQS-shaped server faults in the
// request's protocol, which the AWS SDKs retry, instead of text/plain.
// - --data storage that cannot write (a full disk): the request that could not be stored gets a
//   503 ServiceUnavailable, and nothing unstored is acknowledged or left visible. The disk is made
//   full by enospc-preload.mjs (the child's file writes fail with ENOSPC while it says so), and,
//   where the test may mount one (root), by filling a 1 MiB tmpfs for real.
// - A long poll the server ends because it is stopping: 503 ServiceUnavailable.

import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { client, rejection, removeDir, startWasq, tempDir } from "./helpers.mjs";

const PRELOAD = new URL("./enospc-preload.mjs", import.meta.url).href;

function start(dir, flag) {
  return startWasq(["--data", dir], { nodeArgs: ["--import", PRELOAD], env: { ...process.env, WASQ_TEST_ENOSPC: flag } });
}

function post(url, headers, body) {
  const { hostname, port } = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ hostname, port, method: "POST", path: "/", headers }, (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts).toString() }));
    });
    req.on("error", fail);
    req.end(body);
  });
}

async function heldBytesReach(url, bytes) {
  const { hostname, port } = new URL(url);
  for (let i = 0; i < 200; i++) {
    const held = await new Promise((ok, fail) => {
      request({ hostname, port, path: "/health" }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => ok(JSON.parse(text).bufferedBodyBytes));
      })
        .on("error", fail)
        .end();
    });
    if (held === bytes) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the server never held ${bytes} bytes of request bodies`);
}

test("out of disk: sends answer 503 ServiceUnavailable in JSON and Query XML, the SDK retries, and only acknowledged messages exist, also after a restart", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const flag = join(dir, "..", `${dir.split("/").pop()}-enospc`);
  writeFileSync(flag, "0");
  let server = await start(dir, flag);
  let sqs = client(server.url);
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "full-disk" }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "before" }));

    // The disk is full: the AWS SDK (JSON protocol) sees SQS's server fault, not a text/plain 500.
    writeFileSync(flag, "1000");
    const err = await rejection(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "lost-json" })));
    assert.equal(err.name, "ServiceUnavailable");
    assert.equal(err.$metadata.httpStatusCode, 503);
    assert.equal(err.$fault, "server");
    assert.match(err.message, /temporary failure of the server: its storage could not write \(ENOSPC\)/);

    // Query XML, raw.
    const xml = await post(
      server.url,
      { "content-type": "application/x-www-form-urlencoded" },
      `Action=SendMessage&QueueUrl=${encodeURIComponent(QueueUrl)}&MessageBody=lost-query`,
    );
    assert.equal(xml.status, 503);
    assert.equal(xml.headers["content-type"], "text/xml");
    assert.match(xml.body, /<Type>Receiver<\/Type><Code>ServiceUnavailable<\/Code>/);
    assert.match(xml.body, /<RequestId>[0-9a-f-]{36}<\/RequestId>/);
    const json = await post(
      server.url,
      { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.SendMessage" },
      JSON.stringify({ QueueUrl, MessageBody: "lost-raw" }),
    );
    assert.equal(json.status, 503);
    assert.equal(json.headers["x-amzn-query-error"], "ServiceUnavailable;Receiver");
    assert.equal(JSON.parse(json.body).__type, "com.amazon.coral.service#ServiceUnavailableException");
    assert.match(server.stderr(), /storage failed: ENOSPC: no space left on device/);

    // One write fails, then the disk has room again: the SDK's own retry gets the send through.
    writeFileSync(flag, "1");
    const retrying = client(server.url, { maxAttempts: 3 });
    try {
      const sent = await retrying.send(new SendMessageCommand({ QueueUrl, MessageBody: "retried" }));
      assert.equal(sent.$metadata.attempts, 2);
    } finally {
      retrying.destroy();
    }

    // Only what was acknowledged is there, now and after a restart.
    const bodies = async () => {
      const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
      return (got.Messages ?? []).map((m) => m.Body).sort();
    };
    assert.deepEqual(await bodies(), ["before", "retried"]);
    sqs.destroy();
    assert.equal(await server.stop(), 0);
    server = await start(dir, flag);
    sqs = client(server.url);
    assert.deepEqual(await bodies(), ["before", "retried"]);
  } finally {
    sqs.destroy();
    await server.stop();
    removeDir(dir);
    removeDir(flag);
  }
});

/** A 1 MiB tmpfs mounted at a new directory, or null where mounting is not permitted. */
function tinyDisk() {
  const dir = tempDir("wasq-tiny-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    removeDir(dir);
    return null;
  }
}

test("on a real full filesystem (a 1 MiB tmpfs): sends past the space get 503 ServiceUnavailable; the log holds exactly the acknowledged ones", { timeout: 60_000 }, async (t) => {
  const tiny = tinyDisk();
  if (tiny === null) return t.skip("mounting a tmpfs needs root");
  const dir = join(tiny, "data");
  mkdirSync(dir);
  let server = await startWasq(["--data", dir]);
  let sqs = client(server.url);
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "tmpfs" }));
    const body = (i) => `${i}:`.padEnd(60_000, "m");
    let acknowledged = 0;
    let refusal;
    for (let i = 0; i < 40 && refusal === undefined; i++) {
      try {
        await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body(i) }));
        acknowledged++;
      } catch (err) {
        refusal = err;
      }
    }
    assert.ok(refusal, "1 MiB filled up");
    assert.equal(refusal.name, "ServiceUnavailable");
    assert.equal(refusal.$metadata.httpStatusCode, 503);
    assert.ok(acknowledged > 5, `${acknowledged} sends fitted`);
    // Receiving writes too (receive counts, visibility), so on the full disk only counting works.
    const count = async () => {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }));
      return Number(Attributes.ApproximateNumberOfMessages);
    };
    assert.equal(await count(), acknowledged);
    sqs.destroy();
    assert.equal(await server.stop(), 0);
    // The log, read back on a disk with room: exactly the acknowledged messages.
    const roomy = tempDir();
    cpSync(dir, roomy, { recursive: true, filter: (src) => !src.endsWith("LOCK") });
    server = await startWasq(["--data", roomy]);
    sqs = client(server.url);
    try {
      const got = new Set();
      for (let round = 0; round < 20 && got.size < acknowledged; round++) {
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: QueueUrl.replace(/:\d+\//, `:${server.port}/`), MaxNumberOfMessages: 10 }));
        for (const m of Messages) {
          assert.equal(m.Body, body(Number(m.Body.split(":")[0])));
          got.add(Number(m.Body.split(":")[0]));
        }
      }
      assert.deepEqual([...got].sort((a, b) => a - b), Array.from({ length: acknowledged }, (_, i) => i));
    } finally {
      removeDir(roomy);
    }
  } finally {
    sqs.destroy();
    await server.stop();
    execFileSync("umount", [tiny]);
    removeDir(tiny);
  }
});

test("a long poll pending when the server stops is answered 503 ServiceUnavailable in its protocol", { timeout: 30_000 }, async () => {
  const server = await startWasq(["--memory"]);
  const sqs = client(server.url);
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "stopping" }));
    const jsonBody = JSON.stringify({ QueueUrl, WaitTimeSeconds: 20 });
    const formBody = `Action=ReceiveMessage&WaitTimeSeconds=20&QueueUrl=${encodeURIComponent(QueueUrl)}`;
    const polls = [
      post(server.url, { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.ReceiveMessage" }, jsonBody),
      post(server.url, { "content-type": "application/x-www-form-urlencoded" }, formBody),
    ];
    // A waiting poll holds its body (it answers it again when it wakes): once /health counts
    // both bodies, both polls are waiting.
    await heldBytesReach(server.url, jsonBody.length + formBody.length);
    server.child.kill("SIGTERM");
    const [json, xml] = await Promise.all(polls);
    assert.equal(json.status, 503);
    assert.equal(json.headers["x-amzn-query-error"], "ServiceUnavailable;Receiver");
    assert.match(JSON.parse(json.body).message, /shutting down/);
    assert.equal(xml.status, 503);
    assert.match(xml.body, /<Type>Receiver<\/Type><Code>ServiceUnavailable<\/Code>/);
  } finally {
    sqs.destroy();
    await server.stop();
  }
});
