// `wasq serve`'s web-page policy in a real browser (Chromium through playwright-core): an app on
// another loopback port using the AWS SDK for JavaScript v3 works (CORS preflight and all), while a
// page on another site can neither call it with the SDK, nor delete a queue with a plain HTML form
// (which a browser sends without asking), nor reach it under its own name by DNS rebinding.
//
// `evil.example` is mapped to 127.0.0.1 inside Chromium (--host-resolver-rules), so a page can
// come from a non-loopback origin while every server runs on this machine. So is `sqs.dev.test`,
// the name a developer gives the server in /etc/hosts and allows with --allow-host.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { CreateQueueCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import { client, rejection, repoRoot, startWasq } from "./helpers.mjs";

let wasq;
let app;
let browser;
let sqs;

/** The AWS SDK for the browser, as an app's bundler would make it. */
async function sdkBundle() {
  const out = await build({
    stdin: {
      contents:
        'export { SQSClient, CreateQueueCommand, SendMessageCommand, ReceiveMessageCommand, DeleteQueueCommand } from "@aws-sdk/client-sqs";',
      resolveDir: repoRoot,
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    minify: true,
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0].contents;
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>app</title>
<script type="module">import * as sdk from "/sdk.js"; window.sdk = sdk; document.documentElement.dataset.ready = "true";</script>`;

/** A page that deletes a queue with a form posted into a frame, as a hostile site would. */
function formPage(target, queueUrl) {
  return `<!doctype html><meta charset="utf-8"><title>form</title>
<iframe name="sink"></iframe>
<form method="POST" action="${target}" target="sink" enctype="application/x-www-form-urlencoded">
<input name="Action" value="DeleteQueue"><input name="QueueUrl" value="${queueUrl}"></form>`;
}

/** The app's own server: the page, the SDK bundle, and the hostile form page. */
function startApp(bundle) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/sdk.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      return res.end(bundle);
    }
    if (url.pathname === "/form.html") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(formPage(url.searchParams.get("target"), url.searchParams.get("queue")));
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(PAGE);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ port: server.address().port, close: () => server.close() })));
}

before(async () => {
  const [bundle, started] = await Promise.all([sdkBundle(), startWasq(["--memory"])]);
  wasq = started;
  app = await startApp(bundle);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP evil.example 127.0.0.1, MAP sqs.dev.test 127.0.0.1",
    ],
  });
  sqs = client(wasq.url);
});

after(async () => {
  await browser?.close();
  app?.close();
  sqs?.destroy();
  await wasq?.stop();
});

async function open(url) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector("html[data-ready=true]", { state: "attached", timeout: 10_000 });
  return page;
}

/** In the page: create a queue, send to it and receive, with the SDK, against `endpoint`. */
function roundTrip(page, endpoint, name) {
  return page.evaluate(
    async ({ endpoint, name }) => {
      const { SQSClient, CreateQueueCommand, SendMessageCommand, ReceiveMessageCommand } = window.sdk;
      const sqs = new SQSClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "AKIDPAGE", secretAccessKey: "secret" }, maxAttempts: 1 });
      try {
        const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
        await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "from the page" }));
        const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
        return { ok: true, bodies: (got.Messages ?? []).map((m) => m.Body), requestId: got.$metadata.requestId };
      } catch (err) {
        return { ok: false, name: err.name, message: err.message };
      }
    },
    { endpoint, name },
  );
}

test("an app on another loopback port uses the AWS SDK v3 against wasq serve (CORS preflight granted, request ids readable)", async () => {
  const page = await open(`http://localhost:${app.port}/`);
  try {
    const result = await roundTrip(page, wasq.url, "from-browser");
    assert.deepEqual(result.ok && result.bodies, ["from the page"], JSON.stringify(result));
    assert.match(result.requestId, /^[0-9a-f-]{36}$/, "x-amzn-RequestId is exposed to the page");
  } finally {
    await page.close();
  }
});

test("a page on another site cannot use the SDK against it, and its HTML form cannot delete a queue", async () => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "kept" }));
  const page = await open(`http://evil.example:${app.port}/`);
  try {
    const result = await roundTrip(page, wasq.url, "from-evil");
    assert.equal(result.ok, false, JSON.stringify(result));
    const err = await rejection(sqs.send(new GetQueueUrlCommand({ QueueName: "from-evil" })));
    assert.equal(err.name, "QueueDoesNotExist");

    // The form is sent (browsers do not preflight one) and answered 403; the queue stays.
    const target = `${wasq.url}/`;
    await page.goto(`http://evil.example:${app.port}/form.html?target=${encodeURIComponent(target)}&queue=${encodeURIComponent(QueueUrl)}`);
    const answered = page.waitForResponse((res) => res.url() === target);
    await page.evaluate(() => document.forms[0].submit());
    const response = await answered;
    assert.equal(response.status(), 403);
    assert.match(await response.text(), /<Code>AccessDenied<\/Code>/);
    const { QueueUrl: still } = await sqs.send(new GetQueueUrlCommand({ QueueName: "kept" }));
    assert.equal(still, QueueUrl);
  } finally {
    await page.close();
  }
});

test("DNS rebinding: under a name that is not its own, the server answers neither its page nor SQS", async () => {
  const page = await browser.newPage();
  try {
    const rebound = `http://evil.example:${wasq.port}/`;
    const response = await page.goto(rebound);
    assert.equal(response.status(), 403);
    // Same-origin for the browser, so no CORS stands in the way: only the Host check does.
    const created = await page.evaluate(async () => {
      const res = await fetch("/", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "Action=CreateQueue&QueueName=rebound",
      });
      return { status: res.status, text: await res.text() };
    });
    assert.equal(created.status, 403, created.text);
    const err = await rejection(sqs.send(new GetQueueUrlCommand({ QueueName: "rebound" })));
    assert.equal(err.name, "QueueDoesNotExist");
  } finally {
    await page.close();
  }
});

test("--allow-host: the server's page under a name mapped to this machine comes up, and its own calls are served", async () => {
  const named = await startWasq(["--memory", "--allow-host", "sqs.dev.test"]);
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));
  try {
    const origin = `http://sqs.dev.test:${named.port}`;
    const response = await page.goto(`${origin}/`);
    assert.equal(response.status(), 200);
    // The page's modules, the package and its wasm, all from the server under that name.
    await page.waitForSelector("html[data-ready=true]", { state: "attached", timeout: 30_000 });
    // A POST carries the page's Origin, which is the server's own under this name.
    const created = await page.evaluate(async () => {
      const res = await fetch("/", {
        method: "POST",
        headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.CreateQueue" },
        body: JSON.stringify({ QueueName: "by-alias" }),
      });
      return { status: res.status, text: await res.text() };
    });
    assert.equal(created.status, 200, created.text);
    const { QueueUrl } = JSON.parse(created.text);
    assert.ok(QueueUrl.startsWith(`${origin}/`) && QueueUrl.endsWith("/by-alias"), QueueUrl);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await named.stop();
  }
});
