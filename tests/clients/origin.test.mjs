// `wasq serve`'s web-page policy (pkg-template/bin/origin.mjs), over real sockets: what a hostile
// page can make a browser send (a cross-site form POST, an <img> GET, a DNS-rebound name) is
// refused with 403 AccessDenied in the request's protocol and changes nothing; pages on loopback
// origins, the server's own page and --allow-origin ones get CORS answers; clients that are not
// browsers (no Origin) are unaffected.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { lookup as dnsLookup } from "node:dns";
import { once } from "node:events";
import { hostname } from "node:os";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
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

// --allow-host: names the user mapped to this machine (/etc/hosts, a dev stack's resolver) that a
// loopback server answers to besides the loopback ones.

/** The refusal of a Host on a loopback server, as origin.mjs words it. */
function hostRefusal(host, name) {
  return (
    `Host ${JSON.stringify(host)} is not a name of this server: it listens on loopback and answers only to localhost, ` +
    "127.0.0.1, [::1] and the names given with --allow-host (another name is how DNS rebinding reaches a local server). " +
    `If ${name} is this machine, start wasq serve with --allow-host ${name} to allow it.`
  );
}

/** The Code and Message of a Query (XML) error answer, entities decoded. */
function xmlError(body) {
  const text = (tag) => {
    const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(body);
    assert.ok(m, `no <${tag}> in ${body}`);
    return m[1].replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  };
  return { code: text("Code"), message: text("Message") };
}

test("--allow-host: a listed name passes the Host check under any port and case; an unlisted one gets the exact 403 in XML and JSON", async () => {
  const named = await startWasq(["--memory", "--allow-host", "sqs.dev.test,Wasq.Internal.", "--allow-host", "10.9.8.7"]);
  try {
    const port = named.port;
    for (const host of [`sqs.dev.test:${port}`, "sqs.dev.test", "SQS.Dev.Test.:1234", `wasq.internal:${port}`, "10.9.8.7:80", `localhost:${port}`]) {
      const ok = await raw(port, { method: "GET", path: "/?Action=ListQueues", headers: { host } });
      assert.equal(ok.status, 200, `${host}: ${ok.body}`);
    }
    // An SQS action under the name acts, and the queue's URL names the server as the client did.
    const name = uniqueName("named");
    const created = await raw(port, { headers: { ...FORM, host: `sqs.dev.test:${port}` }, body: `Action=CreateQueue&QueueName=${name}` });
    assert.equal(created.status, 200, created.body);
    const url = /<QueueUrl>([^<]*)<\/QueueUrl>/.exec(created.body)?.[1] ?? "";
    assert.ok(url.startsWith(`http://sqs.dev.test:${port}/`) && url.endsWith(`/${name}`), url);
    // The page and /health are served under it too.
    assert.equal((await raw(port, { method: "GET", path: "/health", headers: { host: `sqs.dev.test:${port}` } })).status, 200);

    // Names are exact: not one under a listed name, not one that merely starts like it.
    for (const host of [`other.dev.test:${port}`, `x.sqs.dev.test:${port}`, `sqs.dev.test.evil.example:${port}`, "10.9.8.6"]) {
      const refused = await raw(port, { method: "GET", path: "/?Action=ListQueues", headers: { host } });
      assert.equal(refused.status, 403, host);
    }
    const host = `other.dev.test:${port}`;
    const other = uniqueName("unlisted");
    const xml = await raw(port, { headers: { ...FORM, host }, body: `Action=CreateQueue&QueueName=${other}` });
    assert.equal(xml.status, 403);
    assert.equal(xml.headers["content-type"], "text/xml");
    assert.deepEqual(xmlError(xml.body), { code: "AccessDenied", message: hostRefusal(host, "other.dev.test") });
    const json = await raw(port, {
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.CreateQueue", host },
      body: JSON.stringify({ QueueName: other }),
    });
    assert.equal(json.status, 403);
    assert.equal(json.headers["x-amzn-query-error"], "AccessDenied;Sender");
    assert.deepEqual(JSON.parse(json.body), { __type: "com.amazon.coral.service#AccessDeniedException", message: hostRefusal(host, "other.dev.test") });
    // Neither refusal created anything.
    const local = client(named.url);
    try {
      assert.equal((await rejection(local.send(new GetQueueUrlCommand({ QueueName: other })))).name, "QueueDoesNotExist");
    } finally {
      local.destroy();
    }
  } finally {
    await named.stop();
  }
});

test("--allow-host: the server's page under a listed name is its own origin; other ports of that name are other pages", async () => {
  const named = await startWasq(["--memory", "--allow-host", "sqs.dev.test"]);
  try {
    const host = `sqs.dev.test:${named.port}`;
    const own = await raw(named.port, { method: "GET", path: "/?Action=ListQueues", headers: { host, origin: `http://${host}` } });
    assert.equal(own.status, 200, own.body);
    assert.equal(own.headers["access-control-allow-origin"], `http://${host}`);
    const page = await raw(named.port, { method: "GET", path: "/", headers: { host, "sec-fetch-site": "none" } });
    assert.equal(page.status, 200);
    assert.match(page.headers["content-type"], /text\/html/);
    // A page at the same name on another port is another origin: --allow-origin decides for it.
    const elsewhere = await raw(named.port, { method: "GET", path: "/?Action=ListQueues", headers: { host, origin: "http://sqs.dev.test:5173" } });
    assert.equal(elsewhere.status, 403);
    assert.match(xmlError(elsewhere.body).message, /--allow-origin http:\/\/sqs\.dev\.test:5173/);
  } finally {
    await named.stop();
  }
});

test("WASQ_ALLOW_HOSTS adds names; a bad --allow-host or WASQ_ALLOW_HOSTS is a usage error (exit 2)", async () => {
  const viaEnv = await startWasq(["--memory", "--allow-host", "a.test"], { env: { ...process.env, WASQ_ALLOW_HOSTS: "b.test, c.test" } });
  try {
    for (const host of ["a.test", "b.test:1", "c.test"]) {
      assert.equal((await raw(viaEnv.port, { method: "GET", path: "/?Action=ListQueues", headers: { host } })).status, 200, host);
    }
    assert.equal((await raw(viaEnv.port, { method: "GET", path: "/?Action=ListQueues", headers: { host: "d.test" } })).status, 403);
  } finally {
    await viaEnv.stop();
  }
  for (const [value, shown] of [
    ["sqs.dev.test:9324", "sqs.dev.test:9324"],
    ["*.dev.test", "*.dev.test"],
    ["*", "*"],
    ["http://sqs.dev.test", "http://sqs.dev.test"],
    ["ok.test,bad..test", "bad..test"],
  ]) {
    const bad = await rejection(startWasq(["--memory", "--allow-host", value]));
    assert.match(bad.message, /exited with 2/, value);
    assert.ok(bad.message.includes(`--allow-host: "${shown}" is not a host name`), bad.message);
  }
  const badEnv = await rejection(startWasq(["--memory"], { env: { ...process.env, WASQ_ALLOW_HOSTS: "sqs.dev.test/x" } }));
  assert.match(badEnv.message, /exited with 2/);
  assert.ok(badEnv.message.includes('WASQ_ALLOW_HOSTS: "sqs.dev.test/x" is not a host name'), badEnv.message);
});

test("--allow-host beside a --host other machines reach: every name is answered, as before, and the flag says it changes nothing", async () => {
  const open = await startWasq(["--memory", "--host", "0.0.0.0", "--allow-host", "sqs.dev.test"]);
  try {
    for (const host of ["sqs.dev.test", `unlisted.example:${open.port}`]) {
      assert.equal((await raw(open.port, { method: "GET", path: "/?Action=ListQueues", headers: { host } })).status, 200, host);
    }
    const note = /--allow-host changes nothing: listening on 0\.0\.0\.0/;
    while (!note.test(open.stderr())) await once(open.child.stderr, "data");
  } finally {
    await open.stop();
  }
});

/**
 * An http.Agent that resolves `alias` to 127.0.0.1 and every other name as usual: curl's
 * --resolve, for a client that calls the server by a name /etc/hosts does not have.
 */
function agentResolving(alias) {
  const lookup = (name, options, callback) => {
    if (name !== alias) return dnsLookup(name, options, callback);
    // Node asks for every address (`all`) when it may try several families in turn.
    if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
    else callback(null, "127.0.0.1", 4);
  };
  return new Agent({ keepAlive: true, lookup });
}

test("the AWS SDK v3 with endpoint http://sqs.dev.test:PORT (resolved to 127.0.0.1) works against --allow-host sqs.dev.test, and is refused without it", async () => {
  const named = await startWasq(["--memory", "--allow-host", "sqs.dev.test"]);
  const agent = agentResolving("sqs.dev.test");
  const sdk = client(`http://sqs.dev.test:${named.port}`, { requestHandler: { httpAgent: agent } });
  try {
    const QueueName = uniqueName("alias");
    const { QueueUrl } = await sdk.send(new CreateQueueCommand({ QueueName }));
    assert.ok(QueueUrl.startsWith(`http://sqs.dev.test:${named.port}/`) && QueueUrl.endsWith(`/${QueueName}`), QueueUrl);
    await sdk.send(new SendMessageCommand({ QueueUrl, MessageBody: "by name" }));
    const { Messages } = await sdk.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    assert.equal(Messages?.[0]?.Body, "by name");
    await sdk.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }));
  } finally {
    sdk.destroy();
    await named.stop();
  }

  const plainServer = await startWasq(["--memory"]);
  const refused = client(`http://sqs.dev.test:${plainServer.port}`, { requestHandler: { httpAgent: agent } });
  try {
    const err = await rejection(refused.send(new ListQueuesCommand({})));
    assert.equal(err.$metadata.httpStatusCode, 403);
    assert.equal(err.name, "AccessDenied");
    assert.equal(err.message, hostRefusal(`sqs.dev.test:${plainServer.port}`, "sqs.dev.test"));
  } finally {
    refused.destroy();
    agent.destroy();
    await plainServer.stop();
  }
});

test("the name given to --host is one of the server's names when it resolves to loopback", async (t) => {
  // This machine's own name is the one a test can count on resolving without editing /etc/hosts;
  // where it does not resolve to loopback, listening on it would not be a loopback server.
  const name = hostname().toLowerCase();
  const address = await new Promise((done) => dnsLookup(name, (err, addr) => done(err ? null : addr)));
  if (address === null || !/^127\./.test(address)) {
    t.skip(`${name} does not resolve to a 127.x address here (${address})`);
    return;
  }
  const server = await startWasq(["--memory", "--host", name]);
  try {
    const ok = await raw(server.port, { method: "GET", path: "/?Action=ListQueues", headers: { host: `${name}:${server.port}` } });
    assert.equal(ok.status, 200, ok.body);
    assert.equal((await raw(server.port, { method: "GET", path: "/?Action=ListQueues", headers: { host: "evil.example" } })).status, 403);
  } finally {
    await server.stop();
  }
});
