import { test } from "node:test";
import assert from "node:assert/strict";
import { LocalStorageStorage } from "./adapters.js";
import { roundTrip, isolatesBuffers, refusesBadBatches, snapshot, bytes } from "./contract.js";

class Crash extends Error {}

// Web Storage semantics (string values, key(i)/length, QuotaExceededError on setItem) over a
// Map, plus two fault injections: a quota in characters and a crash after N mutating calls.
class FakeWebStorage {
  constructor(map = new Map()) {
    this.map = map;
    this.quota = Infinity;
    this.crashAfter = Infinity;
  }
  get length() {
    return this.map.size;
  }
  key(i) {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k) {
    return this.map.has(k) ? this.map.get(k) : null;
  }
  #mutate() {
    if (this.crashAfter-- <= 0) throw new Crash("simulated crash");
  }
  setItem(k, v) {
    this.#mutate();
    const used = [...this.map].reduce((n, [key, val]) => n + (key === k ? 0 : key.length + val.length), 0);
    if (used + k.length + String(v).length > this.quota) {
      const err = new Error("quota exceeded");
      err.name = "QuotaExceededError";
      throw err;
    }
    this.map.set(k, String(v));
  }
  removeItem(k) {
    this.#mutate();
    this.map.delete(k);
  }
}

const open = () => new LocalStorageStorage("t:", new FakeWebStorage());

// Keep a handle on the backing store so reopen can find it.
function openTracked() {
  const web = new FakeWebStorage();
  const adapter = new LocalStorageStorage("t:", web);
  adapter._web = web;
  return adapter;
}
function reopenTracked(adapter) {
  const next = new LocalStorageStorage("t:", adapter._web);
  next._web = adapter._web;
  return next;
}

test("LocalStorageStorage round-trips batches (values base64 in string storage)", () =>
  roundTrip({ open: openTracked, reopen: reopenTracked }));
test("LocalStorageStorage copies buffers in and out", () => isolatesBuffers({ open }));
test("LocalStorageStorage refuses malformed batches unchanged", () => refusesBadBatches({ open }));

test("LocalStorageStorage ignores keys outside its prefix and clear() removes only its own", () => {
  const web = new FakeWebStorage();
  web.setItem("other", "keep me");
  const a = new LocalStorageStorage("t:", web);
  const b = new LocalStorageStorage("u:", web);
  a.commit({ put: [["k", bytes("a")]] });
  b.commit({ put: [["k", bytes("b")]] });
  assert.deepEqual(snapshot(a), { k: [97] });
  assert.deepEqual(snapshot(b), { k: [98] });
  a.clear();
  assert.deepEqual(snapshot(a), {});
  assert.deepEqual(snapshot(b), { k: [98] });
  assert.equal(web.getItem("other"), "keep me");
});

test("LocalStorageStorage: a crash at any point of a commit leaves the batch all or nothing", () => {
  const before = { keep: bytes("k0"), gone: bytes("g0"), over: bytes("o0") };
  const batch = { put: [["over", bytes("o1")], ["new1", bytes("n1")], ["new2", bytes("n2")]], del: ["gone"] };
  const after = { keep: [...bytes("k0")], over: [...bytes("o1")], new1: [...bytes("n1")], new2: [...bytes("n2")] };
  const beforePlain = Object.fromEntries(Object.entries(before).map(([k, v]) => [k, [...v]]));
  let sawBefore = false;
  let sawAfter = false;
  for (let crashAt = 0; ; crashAt++) {
    const web = new FakeWebStorage();
    new LocalStorageStorage("t:", web).commit({ put: Object.entries(before) });
    web.crashAfter = crashAt;
    let crashed = false;
    try {
      new LocalStorageStorage("t:", web).commit(batch);
    } catch (err) {
      assert.ok(err instanceof Crash);
      crashed = true;
    }
    web.crashAfter = Infinity;
    const state = snapshot(new LocalStorageStorage("t:", web));
    if (JSON.stringify(state) === JSON.stringify(beforePlain)) sawBefore = true;
    else {
      assert.deepEqual(state, after, `crash after ${crashAt} writes`);
      sawAfter = true;
    }
    assert.equal(web.getItem("t:journal"), null, "reopening consumed the journal");
    if (!crashed) break;
  }
  assert.ok(sawBefore && sawAfter, "both outcomes occur across crash points");
});

test("LocalStorageStorage: a quota error mid-commit rolls back and throws", () => {
  const web = new FakeWebStorage();
  const adapter = new LocalStorageStorage("t:", web);
  adapter.commit({ put: [["a", bytes("small")]] });
  const before = snapshot(adapter);
  // Room for the journal but not for the journal plus the applied value.
  const big = new Uint8Array(300).fill(7);
  const usedNow = [...web.map].reduce((n, [k, v]) => n + k.length + v.length, 0);
  web.quota = usedNow + 600;
  assert.throws(() => adapter.commit({ put: [["b", big]], del: ["a"] }), { name: "QuotaExceededError" });
  web.quota = Infinity;
  assert.deepEqual(snapshot(adapter), before);
  assert.deepEqual(snapshot(new LocalStorageStorage("t:", web)), before);
  assert.equal(web.getItem("t:journal"), null);
});

test("LocalStorageStorage without a Storage object fails clearly", () => {
  assert.throws(() => new LocalStorageStorage("t:", undefined), /Web Storage/);
});
