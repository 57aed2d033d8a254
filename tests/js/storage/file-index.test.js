// FileStorage's in-memory index (where each live entry lies, keys compared against the file)
// against a plain model: random puts, overwrites and deletes over many keys, so that its hash
// table grows, wraps around and shifts slots back on delete.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { FileStorage } from "./adapters.js";
import { snapshot, bytes } from "./contract.js";

const tmpDirs = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-index-"));
  tmpDirs.push(dir);
  return dir;
}
process.on("exit", () => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test("the index agrees with a model under random puts, overwrites and deletes, across compactions and reopens", () => {
  const dir = tempDir();
  const random = rng(31);
  const model = new Map();
  let compactions = 0;
  let s = new FileStorage(dir, { fsync: false, compactMinBytes: 64 << 10 });
  const keys = Array.from({ length: 1500 }, (_, i) => `us-east-1/${"msdq"[i % 4]}/${(i * 7919).toString(16).padStart(16, "0")}`);
  for (let op = 0; op < 12_000; op++) {
    const put = [];
    const del = [];
    for (let n = 1 + Math.floor(random() * 10); n > 0; n--) {
      const key = keys[Math.floor(random() * keys.length)];
      if (put.some(([k]) => k === key) || del.includes(key)) continue;
      if (random() < 0.4) del.push(key);
      else put.push([key, bytes(`${op}:${key}`.repeat(1 + Math.floor(random() * 3)))]);
    }
    s.commit({ put, del });
    for (const [k, v] of put) model.set(k, [...v]);
    for (const k of del) model.delete(k);
    assert.equal(s.stats.records, model.size, `record count after op ${op}`);
    if (op % 3000 === 2999) {
      assert.deepEqual(snapshot(s), Object.fromEntries(model), `after op ${op}`);
      compactions += s.stats.compactions;
      s.close();
      s = new FileStorage(dir, { fsync: false, compactMinBytes: 64 << 10 });
      assert.deepEqual(snapshot(s), Object.fromEntries(model), `reopened after op ${op}`);
    }
  }
  assert.ok(compactions > 0);
  // Deleting everything leaves an empty index, and nothing to restore.
  s.commit({ put: [], del: [...model.keys()] });
  assert.equal(s.stats.records, 0);
  assert.equal(s.stats.liveBytes, 0);
  assert.deepEqual(snapshot(s), {});
  s.close();
});

test("keys are compared as the UTF-8 they are stored as", () => {
  const dir = tempDir();
  const s = new FileStorage(dir);
  // "Ã©" as Latin-1 code units is the UTF-8 of "é": two different keys.
  const keys = ["é", "Ã©", "😀", "\ud83d", "a", "ключ"];
  s.commit({ put: keys.map((k, i) => [k, bytes(String(i))]), del: [] });
  assert.equal(s.stats.records, keys.length);
  // A lone surrogate is stored (and read back) as U+FFFD, so it is that key.
  s.commit({ put: [["Ã©", bytes("new")]], del: ["é", "\ufffd"] });
  assert.deepEqual(snapshot(s), { "Ã©": [...bytes("new")], "😀": [...bytes("2")], a: [...bytes("4")], ключ: [...bytes("5")] });
  s.close();
});
