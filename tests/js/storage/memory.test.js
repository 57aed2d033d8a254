import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStorage } from "./adapters.js";
import { roundTrip, isolatesBuffers, refusesBadBatches, snapshot, bytes } from "./contract.js";

// Memory does not persist: "reopen" hands the records to a new adapter, which is how a
// playground copies state between engines.
const open = () => new MemoryStorage();
const reopen = (adapter) => new MemoryStorage(adapter.loadAll());

test("MemoryStorage round-trips batches", () => roundTrip({ open, reopen }));
test("MemoryStorage copies buffers in and out", () => isolatesBuffers({ open }));
test("MemoryStorage refuses malformed batches unchanged", () => refusesBadBatches({ open }));

test("MemoryStorage reports full durability and its size", () => {
  const m = new MemoryStorage();
  assert.equal(m.durability, "full");
  m.commit({ put: [["a", bytes("1")], ["b", bytes("2")]], del: [] });
  m.commit({ put: [], del: ["a"] });
  assert.equal(m.size, 1);
  assert.deepEqual(snapshot(m), { b: [50] });
});
