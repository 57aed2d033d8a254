// What a project's existing test setup brings along when it adds wasq: globals that differ from
// plain Node's (Jest's jsdom environment), fake timers. Each case runs the built package the way
// the framework would, in a child process or a vm context, without the framework itself.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { pkgDir } from "./load.js";

// jest-environment-jsdom gives each test file a jsdom window as its globals, and that window has
// no TextDecoder/TextEncoder: the wasm glue builds both at load, so loading wasq threw
// "ReferenceError: TextDecoder is not defined". The Node entries now define the missing ones
// before the glue runs; both (require and import) are checked with the two names removed.
for (const [kind, load] of [
  ["require (entry/node.cjs)", `require(${JSON.stringify(pkgDir + "entry/node.cjs")})`],
  ["import (entry/node.js)", `await import(${JSON.stringify(pkgDir + "entry/node.js")})`],
]) {
  test(`${kind} loads and runs in a global scope without TextDecoder/TextEncoder (Jest's jsdom)`, () => {
    const script = `
      delete globalThis.TextDecoder;
      delete globalThis.TextEncoder;
      (async () => {
        const { Engine, ManualClock } = ${load};
        const engine = new Engine({ clock: new ManualClock(0) });
        const { QueueUrl } = engine.createQueue({ QueueName: "q" });
        engine.sendMessage({ QueueUrl, MessageBody: "héllo ✓" });
        const { Messages } = await engine.receiveMessage({ QueueUrl });
        engine.close();
        process.stdout.write(Messages[0].Body + " " + typeof TextDecoder);
      })().catch((err) => { console.error(err); process.exit(1); });
    `;
    const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8" });
    assert.equal(out, "héllo ✓ function");
  });
}

test("a global scope that has its own TextDecoder keeps it", () => {
  const script = `
    class Own extends TextDecoder {}
    globalThis.TextDecoder = Own;
    require(${JSON.stringify(pkgDir + "entry/node.cjs")});
    process.stdout.write(String(globalThis.TextDecoder === Own));
  `;
  assert.equal(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }), "true");
});

/** A SendMessage request as the AWS SDK's fetch-based clients make it. */
function sendRequest(QueueUrl) {
  return new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.SendMessage" },
    body: JSON.stringify({ QueueUrl, MessageBody: "x" }),
  });
}

// One process that both imports and requires wasq (an ESM test file over CommonJS app code that
// requires it) loads one copy: entry/node.js re-exports entry/node.cjs. They were two bundles, two
// copies, and an Engine made through `import` was refused by a handler made through `require`.
test("import and require reach one copy: one Engine class, and either's handler takes the other's engine", async () => {
  const { createRequire } = await import("node:module");
  const viaRequire = createRequire(import.meta.url)(pkgDir + "entry/node.cjs");
  const viaImport = await import(pkgDir + "entry/node.js");
  assert.equal(viaImport.Engine, viaRequire.Engine);
  assert.deepEqual(Object.keys(viaImport).sort(), Object.keys(viaRequire).sort());
  const engine = new viaImport.Engine();
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  const handle = viaRequire.createFetchHandler(engine);
  const res = await handle(sendRequest(QueueUrl));
  assert.equal(res.status, 200);
  assert.equal(engine.getQueueAttributes({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }).Attributes.ApproximateNumberOfMessages, "1");
  engine.close();
});

// Jest's resetModules()/isolateModules() give a test a second copy, whose handlers cannot reach an
// Engine of the first (they talk through symbols private to each copy): the first request failed
// with a minified "n[B] is not a function". The handlers now refuse such an engine when made,
// saying why. A second copy here: the CommonJS bundle loaded again after leaving require's cache.
test("a handler refuses an Engine from another copy of the package, saying so", async () => {
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  const path = require.resolve(pkgDir + "entry/node.cjs");
  const first = require(path);
  delete require.cache[path];
  const second = require(path);
  delete require.cache[path];
  assert.notEqual(first.Engine, second.Engine, "a second copy was loaded");
  const engine = new first.Engine();
  for (const make of [second.createRequestHandler, second.createFetchHandler]) {
    assert.throws(() => make(engine), { name: "TypeError", message: /another copy of wasq.*resetModules/ });
  }
  assert.throws(() => first.createRequestHandler(undefined), { name: "TypeError", message: /must be a wasq Engine, got undefined/ });
  assert.throws(() => first.createFetchHandler({}), { name: "TypeError", message: /must be a wasq Engine, got object/ });
  // The same copy's handler works as before.
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  const handle = first.createFetchHandler(engine);
  const res = await handle(sendRequest(QueueUrl));
  assert.equal(res.status, 200);
  engine.close();
});

// The virtual clock's trap for a test that long-polls through the AWS SDK: the request reaches the
// engine some ticks after send() returns (several macrotasks on a client's first call), so a
// clock.advance() made at once passed the poll by, and the poll then waited its full
// WaitTimeSeconds from the new time: forever, on a ManualClock nobody advances again (a Jest
// timeout). engine.whenPolling() resolves once the poll waits, with no timer, real or fake.
test("whenPolling orders an SDK long poll before clock.advance (a fresh client's first call)", async () => {
  const { SQSClient, ReceiveMessageCommand } = await import("@aws-sdk/client-sqs");
  const { Engine, ManualClock, createRequestHandler } = await import(pkgDir + "entry/node.js");
  const clock = new ManualClock(0);
  const engine = new Engine({ clock, defaultHost: "sqs.local" });
  const sqs = new SQSClient({
    region: "us-east-1",
    endpoint: "http://sqs.local",
    credentials: { accessKeyId: "x", secretAccessKey: "y" },
    requestHandler: createRequestHandler(engine),
  });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  let polling = false;
  const watched = engine.whenPolling(QueueUrl).then(() => (polling = true));
  const other = engine.whenPolling("other-queue");
  const polled = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  assert.equal(polling, false); // not yet: the SDK's middleware has not reached the engine
  await watched;
  clock.advance(20_000);
  assert.equal((await polled).Messages, undefined);
  // A poll already waiting resolves a later call at once; by name as well as by URL.
  const again = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  await engine.whenPolling("jobs");
  await engine.whenPolling("jobs");
  await engine.whenPolling();
  clock.advance(20_000);
  await again;
  // A watch whose poll never comes ends with the engine.
  engine.close();
  await assert.rejects(other, { name: "EngineClosedError" });
  await assert.rejects(engine.whenPolling(), { name: "EngineClosedError" });
});

// Fake timers installed or removed while an engine on the SystemClock has its timer armed. The
// engine kept a timer that fired no later than it needed, whichever setTimeout had made it: a
// real one (the engine made in a beforeAll, before jest.useFakeTimers()) ignored the fake
// advance, so a long poll hung until the real delay passed; a fake one from an earlier test,
// whose fake timers were since uninstalled, never fired. node:test's mock.timers stands in for
// Jest's and Vitest's fakes here: all three replace the global setTimeout and Date.
const realSetTimeout = setTimeout;
const settlesSoon = (promise) =>
  Promise.race([promise, new Promise((resolve) => realSetTimeout(() => resolve("still pending after 1 s"), 1000))]);

test("a timer armed before fake timers were installed does not hold a long poll past the fake advance", async (t) => {
  const { Engine } = await import(pkgDir + "entry/node.js");
  const engine = new Engine();
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  engine.sendMessage({ QueueUrl, MessageBody: "later", DelaySeconds: 5 }); // a real 5 s timer
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.now() });
  try {
    const polled = engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 20 });
    t.mock.timers.tick(5_000);
    const result = await settlesSoon(polled);
    assert.equal(result.Messages?.[0]?.Body, "later", String(result));
  } finally {
    mock.timers.reset();
    t.mock.timers.reset();
    engine.close();
  }
});

test("a fake timer left by an earlier test's fake timers does not hold a later long poll", async (t) => {
  const { Engine } = await import(pkgDir + "entry/node.js");
  const engine = new Engine();
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  try {
    // "Test 1", with its own fake timers (node:test's module-level mock here, as each Jest test's
    // useFakeTimers() makes a new fake clock): a message left in flight arms a fake timer at
    // +10 s; the fakes are removed with it unfired.
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.now() });
    engine.sendMessage({ QueueUrl, MessageBody: "x" });
    assert.equal((await engine.receiveMessage({ QueueUrl, VisibilityTimeout: 10 })).Messages.length, 1);
    mock.timers.reset();
    // "Test 2": new fake timers; a 20 s poll on another queue ends with the fake advance.
    t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.now() });
    const other = engine.createQueue({ QueueName: "other" }).QueueUrl;
    const polled = engine.receiveMessage({ QueueUrl: other, WaitTimeSeconds: 20 });
    t.mock.timers.tick(20_000);
    const result = await settlesSoon(polled);
    assert.equal(typeof result, "object", String(result));
    assert.equal(result.Messages, undefined);
  } finally {
    mock.timers.reset();
    t.mock.timers.reset();
    engine.close();
  }
});
