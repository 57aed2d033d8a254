import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { wasq, setup, START } from "./load.js";

const { Engine, ManualClock, MemoryStorage, init } = wasq;

test("every documented name is exported, under its own name, and init() resolves", async () => {
  for (const name of ["init", "Engine", "ManualClock", "SystemClock", "MemoryStorage", "FileStorage",
    "IndexedDbStorage", "LocalStorageStorage", "DurableObjectStorage", "createRequestHandler",
    "createFetchHandler", "Consumer"]) {
    assert.equal(typeof wasq[name], "function", name);
    // The bundle is minified without --keep-names; src/names.js restores the public names.
    assert.equal(wasq[name].name, name);
  }
  assert.equal(await init(), undefined);
});

test("send, receive, delete through dispatch and the camelCase methods", () => {
  const { engine, QueueUrl } = setup();
  const sent = engine.dispatch("SendMessage", { QueueUrl, MessageBody: "héllo" });
  assert.equal(sent.MD5OfMessageBody, createHash("md5").update("héllo", "utf8").digest("hex"));
  const { Messages } = engine.dispatch("ReceiveMessage", { QueueUrl });
  assert.equal(Messages.length, 1);
  assert.equal(Messages[0].Body, "héllo");
  assert.equal(Messages[0].MessageId, sent.MessageId);
  assert.deepEqual(engine.deleteMessage({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }), {});
  assert.deepEqual(engine.receiveMessage.constructor.name, "AsyncFunction");
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl }).Messages, undefined);
  assert.deepEqual(engine.listQueues({}).QueueUrls, [QueueUrl]);
});

test("defaultHost and accountId are checked, since they go verbatim into every queue URL", () => {
  assert.equal(new Engine({ defaultHost: "sqs.local:4566", accountId: "123456789012" }).createQueue({ QueueName: "a" }).QueueUrl,
    "http://sqs.local:4566/queue/us-east-1/123456789012/a");
  assert.equal(new Engine({ defaultHost: "[::1]:9324" }).createQueue({ QueueName: "a" }).QueueUrl, "http://[::1]:9324/queue/us-east-1/000000000000/a");
  // The SDK's endpoint pasted in made "http://http://sqs.local/000000000000/a".
  for (const defaultHost of ["http://sqs.local", "sqs.local/path", "", "a b"]) {
    assert.throws(() => new Engine({ defaultHost }), { name: "TypeError", message: /options\.defaultHost must be host\[:port\]/ });
  }
  assert.throws(() => new Engine({ accountId: "my-account" }), { name: "TypeError", message: /options\.accountId must be digits/ });
});

test("the same seed and the same calls give the same ids", () => {
  const a = setup();
  const b = setup();
  const ids = (s) => {
    const sent = s.engine.sendMessage({ QueueUrl: s.QueueUrl, MessageBody: "x" });
    const got = s.engine.dispatch("ReceiveMessage", { QueueUrl: s.QueueUrl }).Messages[0];
    return [sent.MessageId, got.ReceiptHandle];
  };
  assert.deepEqual(ids(a), ids(b));
  const c = new Engine({ clock: new ManualClock(START), seed: 8 });
  const url = c.createQueue({ QueueName: "q" }).QueueUrl;
  assert.notEqual(c.sendMessage({ QueueUrl: url, MessageBody: "x" }).MessageId, ids(setup())[0]);
});

test("without a seed each engine draws its own", () => {
  const make = () => {
    const e = new Engine({ clock: new ManualClock(START) });
    const url = e.createQueue({ QueueName: "q" }).QueueUrl;
    return e.sendMessage({ QueueUrl: url, MessageBody: "x" }).MessageId;
  };
  assert.notEqual(make(), make());
  // Seeds are drawn in batches: engines past a batch's end still each get their own.
  const ids = new Set(Array.from({ length: 200 }, make));
  assert.equal(ids.size, 200);
});

test("peek shows messages and their state without receiving them", () => {
  const { engine, QueueUrl } = setup();
  engine.sendMessage({ QueueUrl, MessageBody: "a" });
  const before = JSON.stringify(engine.peek(QueueUrl));
  assert.match(before, /"a"/);
  assert.equal(JSON.stringify(engine.peek(QueueUrl)), before);
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl }).Messages.length, 1);
});

test("events: on() receives each transition in order, off() stops them", () => {
  const { engine, QueueUrl } = setup();
  const seen = [];
  const listener = (e) => seen.push(e.type);
  engine.on("event", listener);
  engine.sendMessage({ QueueUrl, MessageBody: "a" });
  const m = engine.dispatch("ReceiveMessage", { QueueUrl }).Messages[0];
  engine.deleteMessage({ QueueUrl, ReceiptHandle: m.ReceiptHandle });
  assert.deepEqual(seen, ["sent", "received", "deleted"]);
  engine.off("event", listener);
  engine.sendMessage({ QueueUrl, MessageBody: "b" });
  assert.equal(seen.length, 3);
  // A misspelt name is refused rather than subscribing to nothing.
  assert.throws(() => engine.on("events", listener), { name: "TypeError", message: /unknown event "events"/ });
});

test("a throwing event listener does not fail the committed call, nor cost other listeners their events", () => {
  const { clock, engine, QueueUrl } = setup({ VisibilityTimeout: "5" });
  const seen = [];
  const errors = [];
  engine.on("event", (e) => {
    if (e.type === "sent") throw new Error("listener bug");
  });
  engine.on("event", (e) => seen.push(e.type));
  engine.on("error", (err) => errors.push(err.message));
  const sent = engine.sendMessage({ QueueUrl, MessageBody: "a" });
  assert.match(sent.MessageId, /^[0-9a-f-]{36}$/, "the send succeeded and says so");
  engine.sendMessageBatch({ QueueUrl, Entries: [{ Id: "1", MessageBody: "b" }, { Id: "2", MessageBody: "c" }] });
  assert.deepEqual(seen, ["sent", "sent", "sent"], "every event reached the other listener");
  assert.deepEqual(errors, ["listener bug", "listener bug", "listener bug"], "each failure went to the error listeners");
  engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 });
  clock.advance(5000); // listeners run inside advance() too: it must not throw
  assert.equal(seen.filter((t) => t === "visibility-expired").length, 3);
  assert.equal(engine.peek(QueueUrl).messages.length, 3);
});

test("state survives in storage: a second engine on the same storage sees it", () => {
  const storage = new MemoryStorage();
  const clock = new ManualClock(START);
  const first = new Engine({ clock, storage, seed: 1 });
  const url = first.createQueue({ QueueName: "kept" }).QueueUrl;
  first.sendMessage({ QueueUrl: url, MessageBody: "persisted" });
  first.close();
  assert.ok(storage.size > 0);
  const second = new Engine({ clock, storage, seed: 1 });
  assert.equal(second.dispatch("ReceiveMessage", { QueueUrl: url }).Messages[0].Body, "persisted");
});

test("commit is called once per mutating call, before it returns", () => {
  const batches = [];
  const inner = new MemoryStorage();
  const storage = { loadAll: () => inner.loadAll(), commit: (b) => { batches.push(b); inner.commit(b); } };
  const engine = new Engine({ clock: new ManualClock(START), storage, seed: 1 });
  const url = engine.createQueue({ QueueName: "q" }).QueueUrl;
  assert.equal(batches.length, 1);
  engine.getQueueAttributes({ QueueUrl: url, AttributeNames: ["All"] });
  assert.equal(batches.length, 1, "a read commits nothing");
  engine.sendMessage({ QueueUrl: url, MessageBody: "x" });
  assert.equal(batches.length, 2);
  assert.ok(batches[1].put.every(([k, v]) => typeof k === "string" && v instanceof Uint8Array));
});

test("a failing commit is rethrown and the unstored change is not visible", () => {
  const inner = new MemoryStorage();
  let fail = false;
  const storage = {
    loadAll: () => inner.loadAll(),
    commit(b) {
      if (fail) throw new Error("disk full");
      inner.commit(b);
    },
  };
  const engine = new Engine({ clock: new ManualClock(START), storage, seed: 1 });
  const url = engine.createQueue({ QueueName: "q" }).QueueUrl;
  fail = true;
  assert.throws(() => engine.sendMessage({ QueueUrl: url, MessageBody: "lost" }), /disk full/);
  fail = false;
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl: url }).Messages, undefined);
  engine.sendMessage({ QueueUrl: url, MessageBody: "kept" });
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl: url }).Messages[0].Body, "kept");
});

test("close() releases the engine; later calls throw EngineClosedError", () => {
  const { engine, QueueUrl } = setup();
  engine.close();
  assert.equal(engine.closed, true);
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "x" }), { name: "EngineClosedError" });
  engine.close(); // idempotent
});

test("FileStorage is usable from the Node entry", async () => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(tmpdir() + "/wasq-pkg-");
  try {
    const clock = new ManualClock(START);
    const a = new Engine({ clock, storage: new wasq.FileStorage(dir), seed: 3 });
    const url = a.createQueue({ QueueName: "f" }).QueueUrl;
    a.sendMessage({ QueueUrl: url, MessageBody: "on disk" });
    a.close();
    const b = new Engine({ clock, storage: new wasq.FileStorage(dir), seed: 3 });
    assert.equal(b.dispatch("ReceiveMessage", { QueueUrl: url }).Messages[0].Body, "on disk");
    b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
