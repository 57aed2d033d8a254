// What crosses the wasm boundary and how: change batches and recovered records as one buffer
// (storage adapters still see the documented `{ put, del }` batches and `loadAll()` entries),
// and events collected only while someone listens.
import { test } from "node:test";
import assert from "node:assert/strict";
import { START } from "./load.js";
import { internal } from "./internal.js";

const { Engine, ManualClock, MemoryStorage, WasqCore, COMMIT_PACKED, packRecords } = internal;

/** Counts the core's takeEvents calls and records every setEventFeed, for the test's duration. */
function spyOnCore(t) {
  const spy = { takeEvents: 0, feed: [] };
  const { takeEvents, setEventFeed } = WasqCore.prototype;
  WasqCore.prototype.takeEvents = function () {
    spy.takeEvents++;
    return takeEvents.call(this);
  };
  WasqCore.prototype.setEventFeed = function (on) {
    spy.feed.push(on);
    return setEventFeed.call(this, on);
  };
  t.after(() => Object.assign(WasqCore.prototype, { takeEvents, setEventFeed }));
  return spy;
}

test("events are collected only while an event listener is subscribed", (t) => {
  const spy = spyOnCore(t);
  const engine = new Engine({ clock: new ManualClock(START), seed: 1 });
  const QueueUrl = engine.createQueue({ QueueName: "q" }).QueueUrl;
  const early = engine.sendMessage({ QueueUrl, MessageBody: "before" }).MessageId;
  assert.deepEqual(spy.feed, [false], "a new engine with no listener turns the feed off");
  assert.equal(spy.takeEvents, 0, "with no listener no events are drained");

  const seen = [];
  const listener = (e) => seen.push([e.type, e.messageId]);
  engine.on("error", () => {});
  assert.deepEqual(spy.feed, [false], "an error listener does not turn the feed on");
  engine.on("event", listener);
  assert.deepEqual(spy.feed, [false, true]);
  const late = engine.sendMessage({ QueueUrl, MessageBody: "after" }).MessageId;
  assert.deepEqual(seen, [["sent", late]], "the listener sees the calls made after it was added");

  engine.on("event", () => {});
  assert.deepEqual(spy.feed, [false, true], "a second listener changes nothing");
  engine.off("event", listener);
  assert.deepEqual(spy.feed, [false, true], "one listener is left");
  engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 });
  assert.equal(seen.length, 1);
  engine.close();
  assert.ok(early !== late);
});

test("removing the last event listener turns the feed off; adding one turns it on again", (t) => {
  const spy = spyOnCore(t);
  const engine = new Engine({ clock: new ManualClock(START), seed: 1 });
  const QueueUrl = engine.createQueue({ QueueName: "q" }).QueueUrl;
  const seen = [];
  const listener = (e) => seen.push(e.type);
  engine.on("event", listener);
  engine.sendMessage({ QueueUrl, MessageBody: "a" });
  engine.off("event", listener);
  assert.deepEqual(spy.feed, [false, true, false]);
  const drained = spy.takeEvents;
  engine.sendMessage({ QueueUrl, MessageBody: "b" });
  assert.equal(spy.takeEvents, drained, "no drain while nobody listens");
  engine.on("event", listener);
  const m = engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 1 }).Messages[0];
  engine.deleteMessage({ QueueUrl, ReceiptHandle: m.ReceiptHandle });
  assert.deepEqual(seen, ["sent", "received", "deleted"], "b's send was never reported");
  engine.close();
});

test("an engine rebuilt after a failed commit keeps its event feed", (t) => {
  const spy = spyOnCore(t);
  const inner = new MemoryStorage();
  let fail = false;
  const storage = {
    loadAll: () => inner.loadAll(),
    commit(batch) {
      if (fail) throw new Error("disk full");
      inner.commit(batch);
    },
  };
  const engine = new Engine({ clock: new ManualClock(START), storage, seed: 1 });
  const QueueUrl = engine.createQueue({ QueueName: "q" }).QueueUrl;
  const seen = [];
  engine.on("event", (e) => seen.push(e.type));
  fail = true;
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "lost" }), /disk full/);
  fail = false;
  assert.deepEqual(spy.feed, [false, true, true], "the rebuilt core gets the feed on");
  engine.sendMessage({ QueueUrl, MessageBody: "kept" });
  assert.deepEqual(seen.slice(-1), ["sent"]);
  engine.close();
});

test("custom adapters get documented batches and may return any iterable from loadAll", () => {
  const records = new Map();
  const batches = [];
  const storage = {
    *loadAll() {
      // A one-shot generator: the engine must read it only once.
      for (const [key, value] of records) yield [key, value.slice()];
    },
    commit(batch) {
      batches.push(batch);
      for (const [key, value] of batch.put) records.set(key, value.slice());
      for (const key of batch.del) records.delete(key);
    },
  };
  const clock = new ManualClock(START);
  const a = new Engine({ clock, storage, seed: 2 });
  const QueueUrl = a.createQueue({ QueueName: "custom" }).QueueUrl;
  a.sendMessage({ QueueUrl, MessageBody: "one" });
  const m = a.dispatch("ReceiveMessage", { QueueUrl }).Messages[0];
  a.deleteMessage({ QueueUrl, ReceiptHandle: m.ReceiptHandle });
  a.sendMessage({ QueueUrl, MessageBody: "two" });
  a.close();
  for (const batch of batches) {
    assert.ok(Array.isArray(batch.put) && Array.isArray(batch.del));
    for (const entry of batch.put) {
      assert.ok(Array.isArray(entry) && entry.length === 2);
      assert.equal(typeof entry[0], "string");
      assert.ok(entry[1] instanceof Uint8Array);
    }
    for (const key of batch.del) assert.equal(typeof key, "string");
  }
  assert.ok(batches.some((b) => b.del.length > 0), "the delete reached storage as deletes");
  const b = new Engine({ clock, storage, seed: 2 });
  const got = b.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 }).Messages;
  assert.deepEqual(got.map((x) => x.Body), ["two"]);
  b.close();
});

test("a loadAll entry that is not [string, Uint8Array] is refused with a TypeError", () => {
  const storage = { loadAll: () => [["k", [1, 2, 3]]], commit() {} };
  assert.throws(() => new Engine({ clock: new ManualClock(START), storage }), {
    name: "TypeError",
    message: /record 0 is not a \[string, Uint8Array\] pair/,
  });
});

test("non-ASCII keys (a region name) survive the round trip through every path", () => {
  const region = "région-ü-1";
  const clock = new ManualClock(START);
  const memory = new MemoryStorage();
  const a = new Engine({ clock, storage: memory, seed: 4, region });
  const QueueUrl = a.createQueue({ QueueName: "q" }).QueueUrl;
  a.sendMessage({ QueueUrl, MessageBody: "kept" });
  a.close();
  assert.ok([...memory.loadAll()].some(([key]) => key.startsWith(region + "/")));
  // MemoryStorage's own path, then a copy behind a custom adapter (the generic path).
  const b = new Engine({ clock, storage: memory, seed: 4, region });
  assert.equal(b.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "kept");
  b.close();
  const copy = new MemoryStorage(memory.loadAll());
  const custom = { loadAll: () => copy.loadAll(), commit: (batch) => copy.commit(batch) };
  const c = new Engine({ clock, storage: custom, seed: 4, region });
  assert.equal(c.peek(QueueUrl).messages.length, 1);
  c.close();
});

test("a MemoryStorage whose commit or loadAll is overridden sees every batch and load", () => {
  const batches = [];
  let loads = 0;
  class Counting extends MemoryStorage {
    commit(batch) {
      batches.push(batch);
      super.commit(batch);
    }
    loadAll() {
      loads++;
      return super.loadAll();
    }
  }
  const storage = new Counting();
  const clock = new ManualClock(START);
  const a = new Engine({ clock, storage, seed: 5 });
  const QueueUrl = a.createQueue({ QueueName: "q" }).QueueUrl;
  a.sendMessage({ QueueUrl, MessageBody: "x" });
  assert.equal(batches.length, 2);
  assert.ok(batches[1].put.every(([k, v]) => typeof k === "string" && v instanceof Uint8Array));
  a.close();
  const b = new Engine({ clock, storage, seed: 5 });
  assert.equal(loads, 2);
  assert.equal(b.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "x");
  b.close();
});

test("MemoryStorage keeps the engine's records apart from what loadAll hands out", () => {
  const storage = new MemoryStorage();
  const clock = new ManualClock(START);
  const a = new Engine({ clock, storage, seed: 6 });
  const QueueUrl = a.createQueue({ QueueName: "q" }).QueueUrl;
  a.sendMessage({ QueueUrl, MessageBody: "intact" });
  for (const [, value] of storage.loadAll()) value.fill(0);
  a.close();
  const b = new Engine({ clock, storage, seed: 6 });
  assert.equal(b.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "intact");
  b.close();
});

test("a malformed batch buffer is refused before anything is applied", () => {
  const storage = new MemoryStorage();
  const engine = new Engine({ clock: new ManualClock(START), storage, seed: 3 });
  engine.createQueue({ QueueName: "q" });
  engine.close();
  const before = JSON.stringify([...storage.loadAll()].map(([k, v]) => [k, [...v]]));
  const u32 = (n) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
  const key = [...new TextEncoder().encode("x")];
  const good = [...u32(1), ...u32(1), ...u32(1), ...key, ...u32(2), 7, 8, ...u32(1), ...key];
  for (const bad of [
    good.slice(0, 6), // shorter than the two counts
    good.slice(0, good.length - 1), // the last key cut short
    [...good, 0], // a byte after the last delete
    [...u32(2), ...good.slice(4)], // one put more than there is
  ]) {
    assert.throws(() => storage[COMMIT_PACKED](new Uint8Array(bad)), TypeError);
    assert.equal(JSON.stringify([...storage.loadAll()].map(([k, v]) => [k, [...v]])), before);
  }
  storage[COMMIT_PACKED](new Uint8Array(good));
  assert.equal(storage.size, JSON.parse(before).length, "x was put, then deleted");
});

test("packRecords writes keys as TextEncoder does, into a buffer of exactly the size it asks for", () => {
  const keys = ["ascii/1", "é", "ü-€", "😀x", "a\ud800", "\udc00b", "\ud83d", "x😀\ud83d\ude00"];
  const entries = keys.map((key, i) => [key, new Uint8Array([i, 255])]);
  const reference = [];
  const u32 = (n) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
  for (const [key, value] of entries) {
    const bytes = new TextEncoder().encode(key);
    reference.push(...u32(bytes.length), ...bytes, ...u32(value.length), ...value);
  }
  const sizes = [];
  const out = packRecords(entries, (size) => {
    sizes.push(size);
    return new Uint8Array(size).fill(0xaa); // every byte must be written over
  });
  assert.deepEqual(sizes, [reference.length]);
  assert.deepEqual([...out], reference);
  assert.equal(packRecords([], () => assert.fail("no buffer for no records")), undefined);
});

test("an engine restores through the records buffer in the wasm memory, once per restore", (t) => {
  const { recordsBuffer } = WasqCore;
  const sizes = [];
  WasqCore.recordsBuffer = (size) => {
    sizes.push(size);
    return recordsBuffer.call(WasqCore, size);
  };
  t.after(() => {
    WasqCore.recordsBuffer = recordsBuffer;
  });
  const clock = new ManualClock(START);
  const memory = new MemoryStorage();
  const a = new Engine({ clock, storage: memory, seed: 8 });
  assert.deepEqual(sizes, [], "an empty storage needs no buffer");
  const QueueUrl = a.createQueue({ QueueName: "q" }).QueueUrl;
  a.sendMessage({ QueueUrl, MessageBody: "one copy" });
  a.close();
  const packedSize = () => [...memory.loadAll()].reduce((n, [k, v]) => n + 8 + new TextEncoder().encode(k).length + v.length, 0);
  const expected = [packedSize()];
  const b = new Engine({ clock, storage: memory, seed: 8 });
  assert.equal(b.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "one copy");
  b.close();
  expected.push(packedSize()); // the receive changed the message's state record
  // The same records behind a custom adapter: the generic path, written into the wasm the same way.
  const custom = { loadAll: () => memory.loadAll(), commit: (batch) => memory.commit(batch) };
  const c = new Engine({ clock, storage: custom, seed: 8 });
  assert.equal(c.peek(QueueUrl).messages.length, 1);
  c.close();
  assert.deepEqual(sizes, expected);
});
