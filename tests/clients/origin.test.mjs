// `wasq serve`'s web-page policy (pkg-template/bin/origin.mjs), over real sockets: what a hostile
// page can make a browser send (a cross-site form POST, an <img> GET, a DNS-rebound name) is
// refused with 403 AccessDenied in the request's protocol and changes nothing; pages on loopback
// origins, the server's own page and --allow-origin ones get CORS answers; clients that are not
// browsers (no Origin) are unaffected.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { CreateQueueCommand, GetQueueUrlCommand, ListQueuesCommand } from "@aws-sdk/client-sqs";
import { client, rejection, startWasq, uniqueName } from "./helpers.mjs";

let server;
let sqs;

before(async () => {
  server = await startWasq(["--memory", "--allow-origin", "http://myapp.test:8080,https://other.test"]);
  sqs = client(server.url);
});

after(async () => {
  sqs?.destroy();
  await server?.stop();
});

/** One raw HTTP exchange to 127.0.0.1:port with exactly these headers (Host included when given). */
function raw(port, { method = "POST", path = "/", headers = {}, body } = {}) {
  return new Promise((ok, fail) => {
    const req = request({ hostname: "127.0.0.1", port, method, path, headers, setHost: !("host" in headers) }, (res) => {
      const parts = [];
      res.on("data", (d) => parts.push(d));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts).toString() }));
    });
    req.on("error", fail);
    req.end(body);
  });
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function createQueue() {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName("origin") }));
  return QueueUrl;
}

async function queueExists(QueueUrl) {
  const name = QueueUrl.split("/").pop();
  const { QueueUrl: found } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  return found === QueueUrl;
}

test("a cross-site form POST of DeleteQueue is refused with 403 AccessDenied (Query XML) and the queue stays", async () => {
  const QueueUrl = await createQueue();
  const res = await raw(server.port, {
    headers: { ...FORM, origin: "http://evil.example", "sec-fetch-site": "cross-site" },
    body: `Action=DeleteQueue&QueueUrl=${encodeURIComponent(QueueUrl)}`,
  });
  assert.equal(res.status, 403);
  assert.equal(res.headers["content-type"], "text/xml");
  assert.match(res.body, /<Code>AccessDenied<\/Code>/);
  assert.match(res.body, /Origin &quot;http:\/\/evil.example&quot;|Origin "http:\/\/evil.example"/);
  assert.match(res.body, /--allow-origin http:\/\/evil.example/);
  assert.equal(res.headers["access-control-allow-origin"], undefined);
  assert.ok(await queueExists(QueueUrl));

  // An `Origin: null` page (a sandboxed frame, a file: page) is not a loopback origin either.
  const sandboxed = await raw(server.port, {
    headers: { ...FORM, origin: "null" },
    body: `Action=DeleteQueue&QueueUrl=${encodeURIComponent(QueueUrl)}`,
  });
  assert.equal(sandboxed.status, 403);
  assert.ok(await queueExists(QueueUrl));
});

test("the same refusal in the JSON protocol's shape", async () => {
  const QueueUrl = await createQueue();
  const res = await raw(server.port, {
    headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.DeleteQueue", origin: "https://evil.example" },
    body: JSON.stringify({ QueueUrl }),
  });
  assert.equal(res.status, 403);
  assert.equal(res.headers["x-amzn-query-error"], "AccessDenied;Sender");
  assert.equal(JSON.parse(res.body).__type, "com.amazon.coral.service#AccessDeniedException");
  assert.ok(await queueExists(QueueUrl));
});

test("a browser's no-cors GET from another site (an <img>, a link: no Origin, Sec-Fetch-Site cross-site) is refused", async () => {
  const QueueUrl = await createQueue();
  const path = `/?Action=DeleteQueue&QueueUrl=${encodeURIComponent(QueueUrl)}`;
  const img = await raw(server.port, { method: "GET", path, headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" } });
  assert.equal(img.status, 403);
  assert.match(img.body, /<Code>AccessDenied<\/Code>/);
  const sameSite = await raw(server.port, { method: "GET", path, headers: { "sec-fetch-site": "same-site", "sec-fetch-mode": "navigate" } });
  assert.equal(sameSite.status, 403);
  assert.ok(await queueExists(QueueUrl));
  // Typed into the address bar (Sec-Fetch-Site: none) it is the user's own request.
  const typed = await raw(server.port, { method: "GET", path: "/?Action=ListQueues", headers: { "sec-fetch-site": "none" } });
  assert.equal(typed.status, 200);
});

test("a Host that is not a loopback name is refused on a loopback server (DNS rebinding) and never echoed into a QueueUrl", async () => {
  const name = uniqueName("rebound");
  const rebound = await raw(server.port, {
    headers: { ...FORM, host: `evil.example:${server.port}` },
    body: `Action=CreateQueue&QueueName=${name}`,
  });
  assert.equal(rebound.status, 403);
  assert.match(rebound.body, /<Code>AccessDenied<\/Code>/);
  assert.doesNotMatch(rebound.body, /<QueueUrl>/);
  // Nothing was created.
  const err = await rejection(sqs.send(new GetQueueUrlCommand({ QueueName: name })));
  assert.equal(err.name, "QueueDoesNotExist");
  // The page and /health are not served under that name either (a rebound page could read them).
  assert.equal((await raw(server.port, { method: "GET", path: "/health", headers: { host: "evil.example" } })).status, 403);

  // Every loopback name, with any port (an SSH tunnel or port forward keeps its own).
  for (const host of [`localhost:${server.port}`, "127.0.0.1:1234", "[::1]:9324", "app.localhost:5000", "127.1.2.3", "LOCALHOST"]) {
    const ok = await raw(server.port, { method: "GET", path: "/?Action=ListQueues", headers: { host } });
    assert.equal(ok.status, 200, `${host}: ${ok.body}`);
  }
  for (const host of ["localhost.evil.example", "127.0.0.1.nip.io", "[::2]:1", "0.0.0.0"]) {
    const refused = await raw(server.port, { method: "GET", path: "/?Action=ListQueues", headers: { host } });
    assert.equal(refused.status, 403, host);
  }
});

test("pages on loopback origins, the allowed origins and the server's own page get CORS answers; a preflight is granted", async () => {
  for (const origin of ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080", "https://localhost", "http://myapp.test:8080", "https://other.test", `http://127.0.0.1:${server.port}`]) {
    const res = await raw(server.port, { method: "GET", path: "/?Action=ListQueues", headers: { origin } });
    assert.equal(res.status, 200, `${origin}: ${res.body}`);
    assert.equal(res.headers["access-control-allow-origin"], origin);
    assert.match(res.headers["access-control-expose-headers"], /x-amzn-RequestId/);
    assert.match(res.headers["access-control-expose-headers"], /x-amzn-query-error/);
    assert.match(res.headers.vary, /Origin/);
  }
  // An allowed origin's error answers carry them too: the page's SDK must read the error code.
  const missing = await raw(server.port, {
    headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.GetQueueUrl", origin: "http://localhost:5173" },
    body: JSON.stringify({ QueueName: "no-such-queue" }),
  });
  assert.equal(missing.status, 400);
  assert.equal(missing.headers["access-control-allow-origin"], "http://localhost:5173");

  // The preflight the AWS SDK's fetch handler causes.
  const asked = "amz-sdk-invocation-id,amz-sdk-request,authorization,content-type,x-amz-date,x-amz-target,x-amz-user-agent";
  const pre = await raw(server.port, {
    method: "OPTIONS",
    headers: { origin: "http://localhost:5173", "access-control-request-method": "POST", "access-control-request-headers": asked },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers["access-control-allow-origin"], "http://localhost:5173");
  assert.match(pre.headers["access-control-allow-methods"], /POST/);
  assert.equal(pre.headers["access-control-allow-headers"], asked);
  assert.ok(Number(pre.headers["access-control-max-age"]) > 0);

  // Private Network Access: an allowed public origin calling this loopback server.
  const pna = await raw(server.port, {
    method: "OPTIONS",
    headers: { origin: "https://other.test", "access-control-request-method": "POST", "access-control-request-private-network": "true" },
  });
  assert.equal(pna.status, 204);
  assert.equal(pna.headers["access-control-allow-private-network"], "true");

  // A disallowed origin's preflight is refused and grants nothing.
  const evil = await raw(server.port, {
    method: "OPTIONS",
    headers: { origin: "http://evil.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-amz-target" },
  });
  assert.equal(evil.status, 403);
  assert.equal(evil.headers["access-control-allow-origin"], undefined);
  assert.equal(evil.headers["access-control-allow-headers"], undefined);
  assert.equal(JSON.parse(evil.body).__type, "com.amazon.coral.service#AccessDeniedException");
});

test("clients that are not browsers (no Origin) are unaffected: the AWS SDK works as before", async () => {
  const QueueUrl = await createQueue();
  const { QueueUrls } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: "origin-" }));
  assert.ok(QueueUrls.includes(QueueUrl));
});

test("WASQ_ALLOW_ORIGINS and EXTRA_CORS_ALLOWED_ORIGINS allow origins too; `*` allows any; a bad origin exits 2", async () => {
  const env = { ...process.env, WASQ_ALLOW_ORIGINS: "http://a.test", EXTRA_CORS_ALLOWED_ORIGINS: "http://b.test:81" };
  const viaEnv = await startWasq(["--memory"], { env });
  try {
    for (const origin of ["http://a.test", "http://b.test:81"]) {
      const res = await raw(viaEnv.port, { method: "GET", path: "/?Action=ListQueues", headers: { origin } });
      assert.equal(res.status, 200, origin);
      assert.equal(res.headers["access-control-allow-origin"], origin);
    }
    assert.equal((await raw(viaEnv.port, { method: "GET", path: "/?Action=ListQueues", headers: { origin: "http://c.test" } })).status, 403);
  } finally {
    await viaEnv.stop();
  }
  const any = await startWasq(["--memory", "--allow-origin", "*"]);
  try {
    const res = await raw(any.port, { method: "GET", path: "/?Action=ListQueues", headers: { origin: "http://c.test" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers["access-control-allow-origin"], "http://c.test");
    // `*` is about pages, not names: a rebound Host is still refused.
    assert.equal((await raw(any.port, { method: "GET", path: "/?Action=ListQueues", headers: { host: "evil.example" } })).status, 403);
  } finally {
    await any.stop();
  }
  const bad = await rejection(startWasq(["--memory", "--allow-origin", "localhost:5173"]));
  assert.match(bad.message, /exited with 2/);
  assert.match(bad.message, /--allow-origin: "localhost:5173" is not an origin/);
});

test("listening beyond loopback, the Host is not checked (clients use the machine's names); the Origin still is", async () => {
  const open = await startWasq(["--memory", "--host", "0.0.0.0"]);
  try {
    const res = await raw(open.port, { method: "GET", path: "/?Action=ListQueues", headers: { host: `sqs.internal:${open.port}` } });
    assert.equal(res.status, 200);
    const own = await raw(open.port, {
      method: "GET",
      path: "/?Action=ListQueues",
      headers: { host: `sqs.internal:${open.port}`, origin: `http://sqs.internal:${open.port}` },
    });
    assert.equal(own.status, 200, "the server's own page");
    const evil = await raw(open.port, { method: "GET", path: "/?Action=ListQueues", headers: { host: `sqs.internal:${open.port}`, origin: "http://evil.example" } });
    assert.equal(evil.status, 403);
  } finally {
    await open.stop();
  }
});
