// FileStorage keeps no second copy of what the engine holds: the values it stores stay in the
// file, and memory holds only where each one is. (bench/memory-per-message.mjs measures the
// whole server, `--data` against `--memory`.)
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { FileStorage } from "./adapters.js";
import { snapshot } from "./contract.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");

const tmpDirs = [];
process.on("exit", () => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function held() {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

test("FileStorage holds no copy of the values it stores", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-mem-"));
  tmpDirs.push(dir);
  const s = new FileStorage(dir, { fsync: false });
  const before = held();
  const MiB = 1 << 20;
  for (let i = 0; i < 48; i++) s.commit({ put: [[`us-east-1/m/q/${i}`, new Uint8Array(MiB).fill(i)]], del: [] });
  const grown = held() - before;
  // 48 MiB stored: a copy would be all of it; where each value lies is a few bytes per key.
  assert.ok(grown < 4 * MiB, `memory grew by ${(grown / MiB).toFixed(1)} MiB storing 48 MiB`);
  // Still all there, read back from the file.
  const values = snapshot(s);
  assert.equal(Object.keys(values).length, 48);
  assert.ok(values["us-east-1/m/q/47"].every((b) => b === 47));
  s.close();
});

test("FileStorage's index costs a few tens of bytes a stored record, keys included", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-mem-"));
  tmpDirs.push(dir);
  const s = new FileStorage(dir, { fsync: false });
  const RECORDS = 50_000;
  const value = new Uint8Array(100).fill(1);
  const before = held();
  for (let b = 0; b < RECORDS / 10; b++) {
    const put = [];
    for (let i = b * 10; i < b * 10 + 10; i++) put.push([`us-east-1/m/00000000000000a1/${i.toString(16).padStart(16, "0")}`, value]);
    s.commit({ put, del: [] });
  }
  const perRecord = (held() - before) / RECORDS;
  // Keys as strings in a Map cost ~100 bytes a record; copies of the values more again.
  assert.ok(perRecord < 80, `${perRecord.toFixed(0)} bytes a record`);
  assert.equal(s.stats.records, RECORDS);
  s.close();
});
