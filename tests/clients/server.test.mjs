// `wasq serve` as an HTTP server: SigV4 with --credentials, the page and the package, /health,
// Query on queue-URL paths and GET, the body limit per request and across all of them at once
// (--max-buffered-bytes, counted as bytes arrive), the time a body may take (--body-timeout),
// signatures refused from their headers before a body is held, --verbose, and the
// non-loopback warning.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CreateQueueCommand, ListQueuesCommand, ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { ACCESS_KEY, SECRET_KEY, client, rejection, repoRoot, sleep, startWasq } from "./helpers.mjs";

let server;

before(async () => {
  server = await startWasq(["--memory", "--verbose", "--www", join(repoRoot, "www")]);
});

after(async () => {
  await server?.stop();
});

/**
 * One raw HTTP exchange; `chunks` streams a body without a Content-Length; `headersOnly` sends
 * the headers and then waits for the answer without sending the body.
 */
function raw(url, { method = "GET", path = "/", headers = {}, body, chunks, headersOnly = false } = {}) {
  const { hostname, port } = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
      res.on("error", fail);
    });
    req.on("error", fail);
    if (headersOnly) {
      req.flushHeaders();
    } else if (chunks) {
      let i = 0;
      const pump = () => {
        while (i < chunks.count) {
          i++;
          if (!req.write(chunks.chunk)) return req.once("drain", pump);
        }
        req.end();
      };
      pump();
    } else {
      req.end(body);
    }
  });
}

/**
 * A request whose headers (with a declared Content-Length) are sent and whose body is not, or
 * only its first `sent` bytes (spaces, which JSON allows before a value): the server has admitted
 * it and waits. `answer` settles when the server answers or the request is cut off; `abort()`
 * hangs up, as a client that dies mid-upload does.
 */
function held(url, { headers, sent = 0, query = "" }) {
  const { hostname, port } = new URL(url);
  const req = request({ hostname, port, method: "POST", path: `/${query}`, headers });
  const answer = new Promise((ok) => {
    req.on("response", (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts).toString() }));
    });
    req.on("error", (err) => ok({ error: err }));
  });
  req.flushHeaders();
  if (sent > 0) req.write(Buffer.alloc(sent, 0x20));
  return { answer, abort: () => req.destroy() };
}

/**
 * A POST whose body goes out in `pieces`, `gapMs` apart, ended after the last unless `end` is
 * false (a client that stalls mid-body). Resolves with the answer.
 */
function trickle(url, headers, pieces, { gapMs = 0, end = true } = {}) {
  const { hostname, port } = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ hostname, port, method: "POST", path: "/", headers }, (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts).toString() }));
    });
    req.on("error", fail);
    pieces.forEach((piece, i) =>
      setTimeout(() => (end && i === pieces.length - 1 ? req.end(piece) : req.write(piece)), i * gapMs),
    );
  });
}

/** The headers of a JSON-protocol SendMessage whose body is `length` bytes. */
function jsonHeaders(length) {
  return {
    "content-type": "application/x-amz-json-1.0",
    "x-amz-target": "AmazonSQS.SendMessage",
    "content-length": String(length),
  };
}

/** A SendMessage of `body` padded with whitespace inside the JSON to exactly `size` bytes. */
function paddedSend(QueueUrl, body, size) {
  const json = JSON.stringify({ QueueUrl, MessageBody: body });
  const padded = Buffer.from(json.slice(0, -1) + " ".repeat(size - json.length) + "}");
  assert.equal(padded.length, size);
  return padded;
}

async function health(url) {
  return JSON.parse((await raw(url, { path: "/health" })).body.toString());
}

/** Poll /health until the server holds exactly `bytes` of request bodies (or fail after ~5 s). */
async function bufferedReaches(url, bytes) {
  let last;
  for (let i = 0; i < 100; i++) {
    last = (await health(url)).bufferedBodyBytes;
    if (last === bytes) return;
    await sleep(50);
  }
  assert.fail(`the server holds ${last} bytes of request bodies, expected ${bytes}`);
}

test("--credentials: correctly signed requests work, a wrong secret or an unsigned request is refused as AWS does", async () => {
  const authed = await startWasq(["--memory", "--credentials", `${ACCESS_KEY}:${SECRET_KEY}`]);
  const good = client(authed.url);
  const wrongSecret = client(authed.url, { secretAccessKey: "not-the-secret" });
  const wrongKey = client(authed.url, { accessKeyId: "AKIDSOMEONEELSE" });
  try {
    const { QueueUrl } = await good.send(new CreateQueueCommand({ QueueName: "signed" }));
    await good.send(new SendMessageCommand({ QueueUrl, MessageBody: "ok" }));

    const e1 = await rejection(wrongSecret.send(new ListQueuesCommand({})));
    assert.equal(e1.name, "SignatureDoesNotMatch");
    assert.equal(e1.$metadata.httpStatusCode, 403);
    assert.equal(
      e1.message,
      "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
    );

    const e2 = await rejection(wrongKey.send(new ListQueuesCommand({})));
    assert.equal(e2.name, "InvalidClientTokenId");
    assert.equal(e2.$metadata.httpStatusCode, 403);
    assert.equal(e2.message, "The security token included in the request is invalid.");

    const unsigned = await raw(authed.url, { path: "/?Action=ListQueues" });
    assert.equal(unsigned.status, 403);
    assert.match(unsigned.body.toString(), /<Code>MissingAuthenticationToken<\/Code>/);
  } finally {
    good.destroy();
    wrongSecret.destroy();
    wrongKey.destroy();
    await authed.stop();
  }
});

test("the page at /, the package at /pkg/ (wasm as application/wasm), /health", async () => {
  const page = await raw(server.url, { path: "/" });
  assert.equal(page.status, 200);
  assert.match(page.headers["content-type"], /^text\/html/);
  assert.equal(page.body.toString(), readFileSync(join(repoRoot, "www", "index.html"), "utf8"));

  const pkgJson = await raw(server.url, { path: "/pkg/package.json" });
  assert.equal(pkgJson.status, 200);
  const manifest = JSON.parse(pkgJson.body.toString());
  assert.equal(manifest.name, "wasq");

  const wasm = await raw(server.url, { path: "/pkg/wasq_bg.wasm" });
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers["content-type"], "application/wasm");
  assert.deepEqual([...wasm.body.subarray(0, 4)], [0x00, 0x61, 0x73, 0x6d]);

  const entry = await raw(server.url, { method: "HEAD", path: "/pkg/entry/browser.js" });
  assert.equal(entry.status, 200);
  assert.match(entry.headers["content-type"], /^text\/javascript/);
  assert.equal(entry.body.length, 0);

  assert.equal((await raw(server.url, { path: "/no-such-file.js" })).status, 404);
  assert.equal((await raw(server.url, { path: "/pkg/%2e%2e/%2e%2e/etc/passwd" })).status, 403);

  const healthy = await raw(server.url, { path: "/health" });
  assert.equal(healthy.status, 200);
  assert.deepEqual(JSON.parse(healthy.body.toString()), {
    status: "ok",
    storage: "memory",
    internalErrors: 0,
    bufferedBodyBytes: 0,
    maxBufferedBodyBytes: 64 * 1024 * 1024,
  });
});

test("Query protocol: POST on a queue URL path and GET with Action in the query string", async () => {
  const form = "Action=CreateQueue&QueueName=queryq&Version=2012-11-05";
  const created = await raw(server.url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", host: `localhost:${server.port}` },
    body: form,
  });
  assert.equal(created.status, 200);
  assert.equal(created.headers["content-type"], "text/xml");
  assert.match(created.body.toString(), new RegExp(`<QueueUrl>http://localhost:${server.port}/queue/us-east-1/000000000000/queryq</QueueUrl>`));

  const sent = await raw(server.url, {
    method: "POST",
    path: "/000000000000/queryq",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "Action=SendMessage&MessageBody=via%20path&Version=2012-11-05",
  });
  assert.equal(sent.status, 200);
  assert.match(sent.body.toString(), /<MD5OfMessageBody>[0-9a-f]{32}<\/MD5OfMessageBody>/);

  const got = await raw(server.url, { path: "/000000000000/queryq?Action=ReceiveMessage&Version=2012-11-05" });
  assert.equal(got.status, 200);
  assert.match(got.body.toString(), /<Body>via path<\/Body>/);

  const missing = await raw(server.url, { path: "/000000000000/nope?Action=ReceiveMessage" });
  assert.equal(missing.status, 400);
  assert.match(missing.body.toString(), /<Code>AWS.SimpleQueueService.NonExistentQueue<\/Code>/);
  assert.match(missing.body.toString(), /<Message>The specified queue does not exist for this wsdl version.<\/Message>/);
});

test("bodies over the limit are refused with a well-formed 413, declared or streamed, and the server keeps serving", async () => {
  // A declared 64 MiB body is answered from the headers alone: the client never sends it.
  const declared = await raw(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/x-amz-json-1.0",
      "x-amz-target": "AmazonSQS.SendMessage",
      "content-length": String(64 * 1024 * 1024),
    },
    headersOnly: true,
  });
  assert.equal(declared.status, 413);
  assert.equal(declared.headers["x-amzn-query-error"], "RequestEntityTooLarge;Sender");
  assert.equal(JSON.parse(declared.body.toString()).__type, "com.amazon.coral.service#RequestEntityTooLargeException");

  const streamed = await raw(server.url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" },
    chunks: { chunk: Buffer.alloc(1 << 20, 0x61), count: 24 },
  });
  assert.equal(streamed.status, 413);
  assert.equal(streamed.headers["content-type"], "text/xml");
  assert.match(streamed.body.toString(), /<Code>RequestEntityTooLarge<\/Code>/);

  assert.equal((await raw(server.url, { path: "/health" })).status, 200);
});

// A timeout, because without the bound the requests it expects refused are admitted and wait for
// bodies that never come.
test("request bodies held at once are bounded across connections: over it RequestThrottled, and every refused or abandoned body gives its bytes back", { timeout: 30_000 }, async () => {
  const MiB = 1024 * 1024;
  const bounded = await startWasq(["--memory", "--max-buffered-bytes", "8M"]);
  const sqs = client(bounded.url);
  try {
    assert.equal((await health(bounded.url)).maxBufferedBodyBytes, 8 * MiB);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "bounded" }));

    // A slow client: 6 MiB declared, 5 MiB of it sent so far. The server holds those 5 MiB.
    const slow = held(bounded.url, { headers: jsonHeaders(6 * MiB), sent: 5 * MiB });
    await bufferedReaches(bounded.url, 5 * MiB);

    // Another 4 MiB would make 9: refused once it passes the bound, in the JSON protocol's shape.
    const second = paddedSend(QueueUrl, "refused", 4 * MiB);
    const declared = await raw(bounded.url, { method: "POST", headers: jsonHeaders(second.length), body: second });
    assert.equal(declared.status, 400);
    assert.equal(declared.headers["x-amzn-query-error"], "RequestThrottled;Sender");
    assert.equal(JSON.parse(declared.body.toString()).__type, "com.amazonaws.sqs#RequestThrottled");
    assert.match(declared.headers["x-amzn-requestid"], /^[0-9a-f-]{36}$/);

    // Streamed without a length, counted as it arrives: refused once it passes 8 MiB, in Query's.
    const streamed = await raw(bounded.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" },
      chunks: { chunk: Buffer.alloc(MiB, 0x61), count: 4 },
    });
    assert.equal(streamed.status, 400);
    assert.equal(streamed.headers["content-type"], "text/xml");
    assert.match(streamed.body.toString(), /<Code>RequestThrottled<\/Code>/);

    // A real client sees SQS's throttling error (which the SDK's retry strategy backs off on).
    const sdk = await rejection(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "x".repeat(4 * MiB) })));
    assert.equal(sdk.name, "RequestThrottled");
    assert.equal(sdk.$metadata.httpStatusCode, 400);

    // The refused bodies gave back what they had reserved; small requests still fit.
    await bufferedReaches(bounded.url, 5 * MiB);
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "small" }));

    // The slow client hangs up mid-body: its 5 MiB are released, not leaked.
    slow.abort();
    assert.ok((await slow.answer).error, "the abandoned request got no answer");
    await bufferedReaches(bounded.url, 0);

    // Now a 5 MiB body (whitespace padding inside the JSON) is read and served.
    const big = paddedSend(QueueUrl, "after", 5 * MiB);
    const accepted = await raw(bounded.url, { method: "POST", headers: jsonHeaders(big.length), body: big });
    assert.equal(accepted.status, 200, accepted.body.toString());
    await bufferedReaches(bounded.url, 0);

    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    assert.deepEqual(got.Messages.map((m) => m.Body).sort(), ["after", "small"]);
  } finally {
    sqs.destroy();
    await bounded.stop();
  }
});

test("a body not sent within --body-timeout is answered 408 RequestTimeout and its reserved bytes are given back; a slow one that makes it is served", { timeout: 30_000 }, async () => {
  const MiB = 1024 * 1024;
  const timed = await startWasq(["--memory", "--max-buffered-bytes", "8M", "--body-timeout", "1.5"]);
  const sqs = client(timed.url);
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "timed" }));
    // Headers declaring 6 MiB, 5 MiB of it sent, then nothing: the server holds the 5 MiB...
    const started = Date.now();
    const stalled = held(timed.url, { headers: jsonHeaders(6 * MiB), sent: 5 * MiB });
    await bufferedReaches(timed.url, 5 * MiB);
    // ...so a second large body does not fit while it waits.
    const refused = await rejection(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "x".repeat(4 * MiB) })));
    assert.equal(refused.name, "RequestThrottled");
    // At the deadline the stalled request is answered, and the bytes come back.
    const answer = await stalled.answer;
    assert.equal(answer.status, 408, JSON.stringify(answer));
    assert.ok(Date.now() - started >= 1400, "answered before its deadline");
    await bufferedReaches(timed.url, 0);
    // A 5 MiB body (whitespace padding inside the JSON) fits again and is served.
    const big = paddedSend(QueueUrl, "after", 5 * MiB);
    const accepted = await raw(timed.url, { method: "POST", headers: jsonHeaders(big.length), body: big });
    assert.equal(accepted.status, 200, accepted.body.toString());

    // The answer's shape, in Query: a body that trickles in and stops halfway.
    const query = await trickle(
      timed.url,
      { "content-type": "application/x-www-form-urlencoded", "content-length": "100" },
      ["Action=SendMessage&"],
      { end: false },
    );
    assert.equal(query.status, 408);
    assert.equal(query.headers.connection, "close");
    assert.match(query.body, /<Code>RequestTimeout<\/Code>/);
    assert.match(query.body, /--body-timeout/);

    // Slow is not too slow: a body sent in pieces over ~1 s, inside the deadline, is served.
    const json = Buffer.from(JSON.stringify({ QueueUrl, MessageBody: "trickled" }));
    const slow = await trickle(timed.url, jsonHeaders(json.length), [json.subarray(0, 10), json.subarray(10, 30), json.subarray(30)], {
      gapMs: 400,
    });
    assert.equal(slow.status, 200, slow.body);
    await bufferedReaches(timed.url, 0);
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    assert.deepEqual(got.Messages.map((m) => m.Body).sort(), ["after", "trickled"]);
  } finally {
    sqs.destroy();
    await timed.stop();
  }
});

test("connections that only declare large bodies cannot lock others out: bytes are counted as they arrive", { timeout: 30_000 }, async () => {
  const MiB = 1024 * 1024;
  const server64 = await startWasq(["--memory"]);
  const sqs = client(server64.url);
  const idle = [];
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "declared" }));
    // Eight connections declare the largest body (8 × 8 MiB = the whole default budget), send
    // 1 KiB of it and then nothing.
    for (let i = 0; i < 8; i++) idle.push(held(server64.url, { headers: jsonHeaders(8 * MiB), sent: 1024 }));
    await bufferedReaches(server64.url, 8 * 1024);
    // Everyone else is served: a 1 MiB message, and a 5 MiB body.
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "x".repeat(MiB) }));
    const big = paddedSend(QueueUrl, "five", 5 * MiB);
    const accepted = await raw(server64.url, { method: "POST", headers: jsonHeaders(big.length), body: big });
    assert.equal(accepted.status, 200, accepted.body.toString());
    await bufferedReaches(server64.url, 8 * 1024);
  } finally {
    for (const request of idle) request.abort();
    sqs.destroy();
    await server64.stop();
  }
});

test("--credentials: a request whose signature cannot pass is answered from its headers, before its body is held", { timeout: 30_000 }, async () => {
  const MiB = 1024 * 1024;
  // A short --body-timeout: were the body awaited, the answer would be a 408 after it.
  const authed = await startWasq(["--memory", "--credentials", `${ACCESS_KEY}:${SECRET_KEY}`, "--max-buffered-bytes", "8M", "--body-timeout", "5"]);
  const stalled = [];
  try {
    const now = new Date();
    const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, "");
    const day = amzDate.slice(0, 8);
    const stale = new Date(now.getTime() - 20 * 60 * 1000).toISOString().replace(/[-:]|\.\d{3}/g, "");
    const signed = (key, date) => ({
      ...jsonHeaders(8 * MiB),
      "x-amz-date": date,
      authorization: `AWS4-HMAC-SHA256 Credential=${key}/${date.slice(0, 8)}/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=${"0".repeat(64)}`,
    });
    const cases = [
      // Each declares the largest body and sends 1 MiB of it, then stalls.
      [jsonHeaders(8 * MiB), "com.amazon.coral.service#MissingAuthenticationTokenException", /Request is missing Authentication Token/],
      [signed("AKIDSOMEONEELSE", amzDate), "com.amazon.coral.service#UnrecognizedClientException", /security token included in the request is invalid/],
      [signed(ACCESS_KEY, stale), "com.amazon.coral.service#InvalidSignatureException", /Signature expired/],
    ];
    for (const [headers, type, message] of cases) {
      const request = held(authed.url, { headers, sent: MiB });
      stalled.push(request);
      const answer = await request.answer;
      assert.equal(answer.status, 403, JSON.stringify(answer));
      const body = JSON.parse(answer.body);
      assert.equal(body.__type, type);
      assert.match(body.message, message);
    }
    // Presigned in the query, naming another key: the same, in Query XML.
    const presigned = held(authed.url, {
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(8 * MiB) },
      query: `?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDOTHER%2F${day}%2Fus-east-1%2Fsqs%2Faws4_request&X-Amz-Date=${amzDate}&X-Amz-SignedHeaders=host&X-Amz-Signature=00`,
      sent: MiB,
    });
    stalled.push(presigned);
    const answer = await presigned.answer;
    assert.equal(answer.status, 403);
    assert.match(answer.body, /<Code>InvalidClientTokenId<\/Code>/);
    // None of it was held, and a signed client is served as ever.
    assert.equal((await health(authed.url)).bufferedBodyBytes, 0);
    const good = client(authed.url);
    try {
      const { QueueUrl } = await good.send(new CreateQueueCommand({ QueueName: "signed-large" }));
      await good.send(new SendMessageCommand({ QueueUrl, MessageBody: "y".repeat(MiB / 2) }));
    } finally {
      good.destroy();
    }
  } finally {
    for (const request of stalled) request.abort();
    await authed.stop();
  }
});

test("--verbose logs one line per request: SQS ones with their action, files and /health too", async () => {
  // The log arrives over a pipe, after the answers: lines are matched by a token of this test.
  const token = `verbose${Date.now()}`;
  await raw(server.url, { path: `/?Action=ListQueues&QueueNamePrefix=${token}` });
  await raw(server.url, { path: `/pkg/package.json?${token}` });
  await raw(server.url, { path: `/health?${token}` });
  let lines = [];
  for (let i = 0; i < 40 && lines.length < 3; i++) {
    await new Promise((r) => setTimeout(r, 50));
    lines = server.stdout().split("\n").filter((l) => l.includes(token));
  }
  assert.equal(lines.length, 3, lines.join("\n"));
  assert.match(lines[0], new RegExp(`Z GET /\\?Action=ListQueues&QueueNamePrefix=${token} ListQueues 200 [\\d.]+ms$`));
  assert.match(lines[1], new RegExp(`Z GET /pkg/package\\.json\\?${token} - 200 [\\d.]+ms$`));
  assert.match(lines[2], new RegExp(`Z GET /health\\?${token} - 200 [\\d.]+ms$`));
});

test("listening on a non-loopback address without credentials prints a warning; with credentials it does not", async () => {
  const open = await startWasq(["--memory", "--host", "0.0.0.0"]);
  try {
    await new Promise((r) => setTimeout(r, 100));
    assert.match(open.stderr(), /WARNING: listening on 0\.0\.0\.0.*without --credentials/);
  } finally {
    await open.stop();
  }
  const closed = await startWasq(["--memory", "--host", "0.0.0.0", "--credentials", "k:s"]);
  try {
    await new Promise((r) => setTimeout(r, 100));
    assert.doesNotMatch(closed.stderr(), /WARNING/);
  } finally {
    await closed.stop();
  }
  const local = await startWasq(["--memory"]);
  try {
    await new Promise((r) => setTimeout(r, 100));
    assert.doesNotMatch(local.stderr(), /WARNING/);
  } finally {
    await local.stop();
  }
});

test("bad flags exit 2 with usage", async () => {
  const err = await rejection(startWasq(["--memory", "--data", "/tmp/x"]));
  assert.match(err.message, /exited with 2/);
  assert.match(err.message, /--memory and --data exclude each other/);
  const bad = await rejection(startWasq(["--credentials", "nocolon"]));
  assert.match(bad.message, /--credentials must be KEY:SECRET/);
  const small = await rejection(startWasq(["--memory", "--max-buffered-bytes", "1M"]));
  assert.match(small.message, /exited with 2/);
  assert.match(small.message, /--max-buffered-bytes must be at least 8388608/);
  const word = await rejection(startWasq(["--memory", "--max-buffered-bytes", "lots"]));
  assert.match(word.message, /--max-buffered-bytes must be a byte count/);
  for (const timeout of ["0", "-1", "soon", "90000"]) {
    const t = await rejection(startWasq(["--memory", `--body-timeout=${timeout}`]));
    assert.match(t.message, /exited with 2/);
    assert.match(t.message, /--body-timeout must be seconds/);
  }
});
