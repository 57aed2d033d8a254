// The storage contract every adapter must meet, as reusable checks. Each adapter's test file
// supplies how to make a fresh store and how to reopen one (a new adapter on the same backing
// data), so "survives a reopen" is checked for the real persistence path, not the mirror.

import assert from "node:assert/strict";

const enc = new TextEncoder();
export const bytes = (text) => enc.encode(text);

/** Every byte value, so encodings (base64, structured clone, binary log) are all exercised. */
export const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);

export function snapshot(adapter) {
  const out = {};
  for (const [key, value] of adapter.loadAll()) {
    assert.equal(typeof key, "string");
    assert.ok(value instanceof Uint8Array, `value of ${key} is a Uint8Array`);
    assert.ok(!(key in out), `key ${key} listed once`);
    out[key] = Array.from(value);
  }
  return out;
}

const asPlain = (entries) => Object.fromEntries(entries.map(([k, v]) => [k, Array.from(v)]));

/**
 * Applies a sequence of batches and checks loadAll after each, on the live adapter and on a
 * reopened one. `open()` returns a fresh adapter over empty storage; `reopen(adapter)` closes
 * it (as needed) and returns a new adapter over the same backing data.
 */
export async function roundTrip({ open, reopen }) {
  let adapter = await open();
  assert.deepEqual(snapshot(adapter), {}, "a fresh store is empty");
  const model = new Map();
  const batches = [
    { put: [["us-east-1/q/a", bytes("queue a")], ["us-east-1/m/a/1", allBytes]], del: [] },
    { put: [["us-east-1/m/a/2", new Uint8Array(0)], ["ключ/ü/😀", bytes("unicode key")]] },
    { put: [["us-east-1/m/a/1", bytes("overwritten")]], del: ["us-east-1/m/a/2", "never-existed"] },
    { del: ["ключ/ü/😀"] },
    { put: [["big", Uint8Array.from({ length: 70000 }, (_, i) => (i * 31) & 0xff)]], del: [] },
  ];
  for (const batch of batches) {
    adapter.commit(batch);
    for (const [k, v] of batch.put ?? []) model.set(k, v);
    for (const k of batch.del ?? []) model.delete(k);
    assert.deepEqual(snapshot(adapter), asPlain([...model]), "live adapter reflects the batch");
    adapter = await reopen(adapter);
    assert.deepEqual(snapshot(adapter), asPlain([...model]), "reopened adapter reflects the batch");
  }
  return adapter;
}

/** A value handed to commit and later mutated by the caller must not change what is stored. */
export async function isolatesBuffers({ open }) {
  const adapter = await open();
  const value = bytes("original");
  adapter.commit({ put: [["k", value]], del: [] });
  value.fill(0);
  const loaded = snapshot(adapter);
  assert.deepEqual(loaded.k, Array.from(bytes("original")));
  const [[, out]] = adapter.loadAll();
  out.fill(1);
  assert.deepEqual(snapshot(adapter).k, Array.from(bytes("original")));
  return adapter;
}

/** Malformed batches are refused with a TypeError and leave the store unchanged. */
export async function refusesBadBatches({ open }) {
  const adapter = await open();
  adapter.commit({ put: [["keep", bytes("x")]], del: [] });
  const before = snapshot(adapter);
  const bad = [
    null,
    "put",
    { put: "nope" },
    { put: [["ok", bytes("1")], ["bad", "not bytes"]] },
    { put: [[42, bytes("1")]] },
    { put: [["ok", bytes("1")]], del: [7] },
    { del: "keep" },
  ];
  for (const batch of bad) {
    assert.throws(() => adapter.commit(batch), TypeError, `refuses ${JSON.stringify(batch)}`);
    assert.deepEqual(snapshot(adapter), before, "nothing changed");
  }
  return adapter;
}
