// `new Engine({ storage: null })`: an engine with no storage. It works like any other, commits
// nothing, and its core (`persist: false`) does not even encode changes for a commit nobody makes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { START } from "./load.js";
import { internal } from "./internal.js";

const { Engine, ManualClock, MemoryStorage, WasqCore, dispatchText } = internal;

/** Records every core the engines of this test construct, and counts takeChanges calls. */
function spyOnCores(t) {
  const spy = { cores: new Set(), takeChanges: 0 };
  const { dispatch, takeChanges } = WasqCore.prototype;
  // Every action reaches the core through dispatch (src/io.js).
  WasqCore.prototype.dispatch = function (...args) {
    spy.cores.add(this);
    return dispatch.apply(this, args);
  };
  WasqCore.prototype.takeChanges = function () {
    spy.takeChanges++;
    return takeChanges.call(this);
  };
  t.after(() => Object.assign(WasqCore.prototype, { dispatch, takeChanges }));
  return { spy, takeChanges };
}

/** Create a queue, send two, receive one and delete it, change the other's visibility, let it expire. */
function workload(engine, clock) {
  const QueueUrl = engine.createQueue({ QueueName: "q", Attributes: { VisibilityTimeout: "5" } }).QueueUrl;
  const a = engine.sendMessage({ QueueUrl, MessageBody: "a" }).MessageId;
  const b = engine.sendMessage({ QueueUrl, MessageBody: "b" }).MessageId;
  const got = engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 }).Messages;
  assert.deepEqual(got.map((m) => m.MessageId).sort(), [a, b].sort());
  const first = got.find((m) => m.MessageId === a);
  engine.deleteMessage({ QueueUrl, ReceiptHandle: first.ReceiptHandle });
  clock.advance(6_000); // b's visibility timeout ends: a timer-driven change
  return { QueueUrl, a, b };
}

test("storage: null — the engine works, peek and events work", (t) => {
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 3, storage: null });
  t.after(() => engine.close());
  const events = [];
  engine.on("event", (e) => events.push([e.type, e.messageId]));
  const { QueueUrl, a, b } = workload(engine, clock);

  const peek = engine.peek(QueueUrl);
  const byId = new Map(peek.messages.map((m) => [m.messageId, m]));
  assert.equal(byId.get(b).state, "stored", "b is visible again after its timeout");
  assert.equal(byId.get(b).receiveCount, 1);
  assert.equal(peek.queue.attributes.ApproximateNumberOfMessages, "1");
  assert.deepEqual(
    events.filter(([, id]) => id === a).map(([type]) => type),
    ["sent", "received", "deleted"],
  );
  assert.ok(events.some(([type, id]) => type === "visibility-expired" && id === b), JSON.stringify(events));
  const again = engine.dispatch("ReceiveMessage", { QueueUrl }).Messages;
  assert.equal(again[0].MessageId, b);
});

test("storage: null — nothing is committed and the core records no changes", (t) => {
  const { spy, takeChanges } = spyOnCores(t);
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 3, storage: null });
  workload(engine, clock);
  assert.equal(spy.takeChanges, 0, "the wrapper asks for no changes to commit");
  assert.equal(spy.cores.size, 1);
  const [core] = spy.cores;
  // Were the core persisting, everything above would still be waiting here, encoded.
  assert.equal(takeChanges.call(core), undefined, "the core was built with persist: false");
  engine.close(); // no storage to close: must not throw
  assert.equal(engine.closed, true);
});

test("no storage option: in memory and private, so no change is encoded or committed", (t) => {
  const { spy, takeChanges } = spyOnCores(t);
  const clock = new ManualClock(START);
  for (const options of [{ clock, seed: 3 }, { clock, seed: 3, storage: undefined }]) {
    spy.cores.clear();
    const engine = new Engine(options);
    const { QueueUrl, b } = workload(engine, clock);
    // The engine still holds everything: the state a private MemoryStorage would have mirrored.
    const held = engine.peek(QueueUrl).messages.filter((m) => m.state !== "deleted");
    assert.deepEqual(
      held.map((m) => [m.messageId, m.state, m.receiveCount]),
      [[b, "stored", 1]],
    );
    assert.equal(spy.cores.size, 1);
    const [core] = spy.cores;
    assert.equal(takeChanges.call(core), undefined, "the core was built with persist: false");
    engine.close();
  }
  assert.equal(spy.takeChanges, 0, "nothing was drained for a commit");
});

test("storage: null keeps nothing: a second engine starts empty", () => {
  const clock = new ManualClock(START);
  const first = new Engine({ clock, seed: 3, storage: null });
  workload(first, clock);
  first.close();
  const second = new Engine({ clock, seed: 3, storage: null });
  assert.deepEqual(second.listQueues({}).QueueUrls ?? [], []);
  second.close();
});

test("a normal engine is unchanged: every change is committed and restores", (t) => {
  const { spy } = spyOnCores(t);
  const batches = [];
  const storage = new MemoryStorage();
  const commit = storage.commit.bind(storage);
  storage.commit = (batch) => {
    batches.push(batch);
    commit(batch);
  };
  const clock = new ManualClock(START);
  const engine = new Engine({ clock, seed: 3, storage });
  const { QueueUrl, b } = workload(engine, clock);
  // createQueue, two sends, receive, delete, and the expiry tick each changed durable state.
  assert.ok(batches.length >= 6, `${batches.length} commits`);
  assert.ok(spy.takeChanges >= batches.length);
  assert.ok(batches.every((batch) => batch.put.length + batch.del.length > 0));
  engine.close();
  const restored = new Engine({ clock, seed: 3, storage });
  const messages = restored.peek(QueueUrl).messages;
  assert.deepEqual(messages.map((m) => [m.messageId, m.state, m.receiveCount]), [[b, "stored", 1]]);
  restored.close();
});

test("storage must be null or an adapter", () => {
  assert.throws(() => new Engine({ storage: {} }), TypeError);
  assert.throws(() => new Engine({ storage: 0 }), TypeError);
});

test("the core's persist option: a boolean, on by default", () => {
  const create = '{"QueueName":"q"}';
  const on = new WasqCore({ seed: 1 }, undefined);
  dispatchText(on, START, "CreateQueue", create, undefined);
  assert.ok(on.takeChanges() instanceof Uint8Array);
  on.free();
  const off = new WasqCore({ seed: 1, persist: false }, undefined);
  dispatchText(off, START, "CreateQueue", create, undefined);
  assert.equal(off.takeChanges(), undefined);
  off.free();
  assert.throws(() => new WasqCore({ persist: "no" }, undefined), { name: "TypeError", message: /persist must be a boolean/ });
});
