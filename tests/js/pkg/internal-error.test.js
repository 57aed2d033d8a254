// A panic or trap inside the wasm (issue #32, item 3; #31, item 6): the engine names it, refuses
// every later call with it, and a new engine over the same storage carries on.
//
// The failures are asked for with message bodies that only the test package's wasm acts on
// (src/test_hooks.rs, cargo feature `test-hooks`; scripts/build-test-pkg.sh builds it into
// target/pkg-test). The shipped package is checked to have no such hook.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { wasq as shipped, START } from "./load.js";

const testPkg = fileURLToPath(new URL("../../../target/pkg-test/entry/node.js", import.meta.url));
if (!existsSync(testPkg)) throw new Error(`no ${testPkg}: run scripts/build-test-pkg.sh first`);
const { Engine, ManualClock, MemoryStorage } = await import(testPkg);

function engineWithQueue(options = {}) {
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 3, ...options });
  const { QueueUrl } = engine.createQueue({ QueueName: "q" });
  return { clock, engine, QueueUrl };
}

test("a panic is a WasqInternalError with the panic's message and source location", () => {
  const { engine, QueueUrl } = engineWithQueue();
  let caught;
  try {
    engine.sendMessage({ QueueUrl, MessageBody: "wasq-test-panic" });
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof Error, `threw ${caught}`);
  assert.equal(caught.name, "WasqInternalError");
  assert.equal(caught.panicMessage, "test hook: a panic on request");
  assert.match(caught.panicLocation, /^src[\\/]test_hooks\.rs:\d+:\d+$/);
  assert.match(caught.message, /test hook: a panic on request, at src[\\/]test_hooks\.rs:\d+:\d+/);
  assert.equal(caught.httpStatus, 500);
});

test("the engine that panicked refuses every later call with that error", async () => {
  const { engine, QueueUrl } = engineWithQueue();
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "wasq-test-panic" }), { name: "WasqInternalError" });
  const calls = [
    () => engine.sendMessage({ QueueUrl, MessageBody: "x" }),
    () => engine.dispatch("ListQueues", {}),
    () => engine.peek(QueueUrl),
    () => engine.tick(),
    () => engine.nextDeadline(),
  ];
  for (const call of calls) {
    assert.throws(call, (err) => {
      assert.equal(err.name, "WasqInternalError");
      assert.match(err.message, /test hook: a panic on request/);
      assert.match(err.message, /refuses every call/);
      assert.equal(err.cause.panicMessage, "test hook: a panic on request");
      return true;
    });
  }
  await assert.rejects(engine.receiveMessage({ QueueUrl }), { name: "WasqInternalError" });
  await assert.rejects(engine.whenPolling(), { name: "WasqInternalError" });
  engine.close(); // no throw
});

test("a new engine over the same storage has everything acknowledged before the panic", () => {
  const storage = new MemoryStorage();
  const { engine, QueueUrl } = engineWithQueue({ storage });
  engine.sendMessage({ QueueUrl, MessageBody: "kept 1" });
  engine.sendMessage({ QueueUrl, MessageBody: "kept 2" });
  assert.throws(
    () =>
      engine.sendMessageBatch({
        QueueUrl,
        Entries: [
          { Id: "a", MessageBody: "in the failed call" },
          { Id: "b", MessageBody: "wasq-test-panic" },
        ],
      }),
    { name: "WasqInternalError" },
  );
  engine.close(); // leaves the storage open for the next engine

  const again = new Engine({ clock: new ManualClock(START), storage });
  const bodies = again.peek(QueueUrl).messages.map((m) => m.body).sort();
  assert.deepEqual(bodies, ["kept 1", "kept 2"]);
  again.sendMessage({ QueueUrl, MessageBody: "after" });
  const got = again.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 });
  assert.equal(got.Messages.length, 3);
  again.close();
});

test("a trap with no panic before it (memory exhausted) is a WasqInternalError naming the trap", () => {
  const storage = new MemoryStorage();
  const { engine, QueueUrl } = engineWithQueue({ storage });
  engine.sendMessage({ QueueUrl, MessageBody: "kept" });
  assert.throws(
    () => engine.sendMessage({ QueueUrl, MessageBody: "wasq-test-abort" }),
    (err) => {
      assert.equal(err.name, "WasqInternalError");
      assert.ok(err.cause instanceof WebAssembly.RuntimeError, `cause: ${err.cause}`);
      assert.match(err.message, /the wasm stopped with no panic reported \(RuntimeError: unreachable/);
      return true;
    },
  );
  assert.throws(() => engine.dispatch("ListQueues", {}), { name: "WasqInternalError" });
  const again = new Engine({ clock: new ManualClock(START), storage });
  assert.deepEqual(again.peek(QueueUrl).messages.map((m) => m.body), ["kept"]);
  again.close();
});

test("other engines: with storage they rebuild from it, without one they say their queues are lost", () => {
  const storage = new MemoryStorage();
  const stored = engineWithQueue({ storage });
  stored.engine.sendMessage({ QueueUrl: stored.QueueUrl, MessageBody: "survives" });
  const bare = engineWithQueue({ storage: null });
  const failing = engineWithQueue();
  assert.throws(() => failing.engine.sendMessage({ QueueUrl: failing.QueueUrl, MessageBody: "wasq-test-panic" }), {
    name: "WasqInternalError",
  });

  const got = stored.engine.dispatch("ReceiveMessage", { QueueUrl: stored.QueueUrl });
  assert.equal(got.Messages[0].Body, "survives");
  stored.engine.deleteMessage({ QueueUrl: stored.QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle });

  assert.throws(() => bare.engine.sendMessage({ QueueUrl: bare.QueueUrl, MessageBody: "x" }), (err) => {
    assert.equal(err.name, "WasqInternalError");
    assert.match(err.message, /lost when another engine's internal error restarted the wasm/);
    return true;
  });
  assert.throws(() => bare.engine.dispatch("ListQueues", {}), { name: "WasqInternalError" });
  // Engines made from now on are on the fresh instance.
  const fresh = engineWithQueue();
  fresh.engine.sendMessage({ QueueUrl: fresh.QueueUrl, MessageBody: "fresh" });
  assert.equal(fresh.engine.dispatch("ReceiveMessage", { QueueUrl: fresh.QueueUrl }).Messages[0].Body, "fresh");
  for (const e of [stored, bare, failing, fresh]) e.engine.close();
});

test("a panic during a ManualClock tick stops that engine only, and the clock goes on", () => {
  const clock = new ManualClock(START);
  const storage = new MemoryStorage();
  const engine = new Engine({ clock, storage, seed: 5 });
  const { QueueUrl } = engine.createQueue({ QueueName: "t" });
  engine.sendMessage({ QueueUrl, MessageBody: "later", DelaySeconds: 10 });
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "wasq-test-panic" }), { name: "WasqInternalError" });
  // The stopped engine is no longer subscribed: advancing the clock does not throw its error.
  clock.advance(10_000);
  const again = new Engine({ clock, storage });
  assert.equal(again.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "later");
  again.close();
});

test("the shipped package has no test hook: those bodies are ordinary messages", () => {
  const engine = new shipped.Engine({ clock: new shipped.ManualClock(START), seed: 1 });
  const { QueueUrl } = engine.createQueue({ QueueName: "plain" });
  engine.sendMessage({ QueueUrl, MessageBody: "wasq-test-panic" });
  engine.sendMessage({ QueueUrl, MessageBody: "wasq-test-abort" });
  assert.equal(engine.peek(QueueUrl).messages.length, 2);
  engine.close();
});
