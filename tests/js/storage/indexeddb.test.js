// IndexedDbStorage against fake-indexeddb (a spec-following in-memory IndexedDB for Node).
// Real-browser behaviour, including a browser killed mid-write, is covered by tests/crash.
import { test } from "node:test";
import assert from "node:assert/strict";
import { IDBFactory } from "fake-indexeddb";
import { IndexedDbStorage } from "./adapters.js";
import { roundTrip, isolatesBuffers, refusesBadBatches, snapshot, bytes } from "./contract.js";

let n = 0;
function fresh() {
  return { indexedDB: new IDBFactory(), name: `wasq-test-${n++}` };
}

async function openTracked(durability = "full") {
  const where = fresh();
  const adapter = await IndexedDbStorage.open(where.name, { indexedDB: where.indexedDB, durability });
  adapter._where = where;
  return adapter;
}
async function reopen(adapter) {
  await adapter.close();
  const next = await IndexedDbStorage.open(adapter._where.name, { indexedDB: adapter._where.indexedDB });
  next._where = adapter._where;
  return next;
}

test("IndexedDbStorage round-trips batches across reopen", async () => {
  await (await roundTrip({ open: openTracked, reopen })).close();
});
test("IndexedDbStorage copies buffers in and out", async () => {
  await (await isolatesBuffers({ open: openTracked })).close();
});
test("IndexedDbStorage refuses malformed batches unchanged", async () => {
  await (await refusesBadBatches({ open: openTracked })).close();
});

test("IndexedDbStorage: commits are synchronous on the mirror, written behind in order, durable after flush", async () => {
  const adapter = await openTracked("relaxed");
  assert.equal(adapter.durability, "relaxed");
  // Many batches before the first write finishes: coalesced, and order decides the outcome.
  adapter.commit({ put: [["k", bytes("1")], ["gone", bytes("g")]], del: [] });
  adapter.commit({ put: [["k", bytes("2")]], del: ["gone"] });
  adapter.commit({ put: [], del: ["k"] });
  adapter.commit({ put: [["k", bytes("3")], ["gone", bytes("back")]], del: [] });
  adapter.commit({ put: [], del: ["gone"] });
  assert.deepEqual(snapshot(adapter), { k: [51] }, "mirror is up to date immediately");
  await adapter.flush();
  const { name, indexedDB } = adapter._where;
  // A second connection sees the flushed state without the first being closed.
  const other = await IndexedDbStorage.open(name, { indexedDB });
  assert.deepEqual(snapshot(other), { k: [51] });
  await other.close();
  // Commits during an in-progress write land in a later transaction, still in order.
  for (let i = 0; i < 20; i++) {
    adapter.commit({ put: [[`n${i}`, bytes(String(i))]], del: i > 0 ? [`n${i - 1}`] : [] });
    if (i % 3 === 0) await Promise.resolve();
  }
  await adapter.flush();
  const third = await IndexedDbStorage.open(name, { indexedDB });
  assert.deepEqual(snapshot(third), { k: [51], n19: [...bytes("19")] });
  await third.close();
  await adapter.close();
});

test("IndexedDbStorage: a failed write surfaces on the next flush and stops further commits", async () => {
  const real = new IDBFactory();
  let failWrites = false;
  // Wrap the factory so the database's write transactions can be made to fail (as a full disk would).
  const indexedDB = {
    open(name, version) {
      const req = real.open(name, version);
      req.addEventListener("success", () => {
        const db = req.result;
        const transaction = db.transaction.bind(db);
        db.transaction = (stores, mode, options) => {
          if (failWrites && mode === "readwrite") throw new DOMException("disk is full", "QuotaExceededError");
          return transaction(stores, mode, options);
        };
      });
      return req;
    },
  };
  const adapter = await IndexedDbStorage.open("failing", { indexedDB });
  adapter.commit({ put: [["ok", bytes("1")]], del: [] });
  await adapter.flush();
  failWrites = true;
  adapter.commit({ put: [["lost", bytes("2")]], del: [] });
  await assert.rejects(adapter.flush(), { name: "QuotaExceededError" });
  await assert.rejects(adapter.flush(), { name: "QuotaExceededError" }, "the error stays");
  assert.throws(() => adapter.commit({ put: [["later", bytes("3")]], del: [] }), { name: "QuotaExceededError" });
  failWrites = false;
  const check = await IndexedDbStorage.open("failing", { indexedDB: real });
  assert.deepEqual(snapshot(check), { ok: [49] }, "only the durable batch is stored");
  await check.close();
});

test("IndexedDbStorage.open validates options", async () => {
  await assert.rejects(IndexedDbStorage.open("x", { durability: "sometimes", indexedDB: new IDBFactory() }), TypeError);
  await assert.rejects(IndexedDbStorage.open("x", { indexedDB: null }), /needs IndexedDB/);
});

test("IndexedDbStorage.destroy removes the database", async () => {
  const { name, indexedDB } = fresh();
  const a = await IndexedDbStorage.open(name, { indexedDB });
  a.commit({ put: [["x", bytes("1")]], del: [] });
  await a.close();
  await IndexedDbStorage.destroy(name, { indexedDB });
  const b = await IndexedDbStorage.open(name, { indexedDB });
  assert.deepEqual(snapshot(b), {});
  await b.close();
});
