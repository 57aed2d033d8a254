// FileStorage reads its log in bounded chunks (so a log of any size opens: Node's readFileSync
// refuses files over 2 GiB), and compacts it so it stays within a small multiple of the live data.
// The >2 GiB log itself is tests/crash/big-log.test.js (`make test-big-log`, slow); here the
// chunked reading is exercised with chunks far smaller than the records.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import fsDefault from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { syncBuiltinESMExports } from "node:module";
import { FileStorage } from "./adapters.js";
import { snapshot, bytes } from "./contract.js";

const tmpDirs = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-stream-"));
  tmpDirs.push(dir);
  return dir;
}
process.on("exit", () => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const logOf = (dir) => path.join(dir, "wasq.log");
const quiet = { warn: () => {} };

/** `fn()` with every fs.readSync call's length recorded. */
function recordingReads(fn) {
  const real = fsDefault.readSync;
  const lengths = [];
  lengths.max = () => lengths.reduce((a, b) => Math.max(a, b), 0);
  fsDefault.readSync = function (fd, buffer, offset, length, position) {
    lengths.push(length);
    return real.apply(this, arguments);
  };
  syncBuiltinESMExports();
  try {
    return { result: fn(), lengths };
  } finally {
    fsDefault.readSync = real;
    syncBuiltinESMExports();
  }
}

/** Records from a few bytes to 30 KB (several 4 KiB chunks), overwrites and deletes; the expected state. */
function mixedLog(dir) {
  const s = new FileStorage(dir, { fsync: false });
  const model = {};
  for (let i = 0; i < 60; i++) {
    const key = `us-east-1/m/${i % 17}`;
    const value = Uint8Array.from({ length: i % 10 === 9 ? 30_000 : (i * 97) % 700 }, (_, j) => (i + j) & 0xff);
    const del = i % 4 === 3 ? [`us-east-1/m/${(i + 5) % 17}`] : [];
    s.commit({ put: [[key, value]], del });
    model[key] = [...value];
    for (const k of del) if (k !== key) delete model[k];
  }
  assert.deepEqual(snapshot(s), model);
  s.close();
  return model;
}

test("opening reads the log in chunks no larger than readChunkBytes, records spanning them", () => {
  const dir = tempDir();
  const model = mixedLog(dir);
  const size = fs.statSync(logOf(dir)).size;
  for (const readChunkBytes of [1, 7, 16, 4096, 1 << 20]) {
    const { result: s, lengths } = recordingReads(() => new FileStorage(dir, { readChunkBytes }));
    assert.ok(lengths.length > 0, "the log was read with readSync");
    assert.ok(lengths.max() <= readChunkBytes, `no read over ${readChunkBytes} bytes (largest ${lengths.max()})`);
    assert.ok(lengths.length >= Math.floor(size / readChunkBytes), "the whole log was read in chunks");
    assert.deepEqual(snapshot(s), model, `state read back in ${readChunkBytes}-byte chunks`);
    assert.equal(s.recovery.droppedBytes, 0);
    s.close();
  }
});

test("with a 7-byte read buffer, a log cut anywhere in its last record drops exactly that record", () => {
  const dir = tempDir();
  const s = new FileStorage(dir);
  s.commit({ put: [["a", bytes("1")], ["b", bytes("2".repeat(40))]], del: [] });
  s.commit({ put: [["c", bytes("3")]], del: ["a"] });
  const lastStart = fs.statSync(logOf(dir)).size;
  s.commit({ put: [["d", bytes("4".repeat(30))]], del: ["c"] });
  s.close();
  const full = fs.readFileSync(logOf(dir));
  const without = { b: [...bytes("2".repeat(40))], c: [...bytes("3")] };
  for (let cut = lastStart; cut < full.length; cut++) {
    fs.writeFileSync(logOf(dir), full.subarray(0, cut));
    const t = new FileStorage(dir, { readChunkBytes: 7, ...quiet });
    assert.deepEqual(snapshot(t), without, `cut at ${cut}`);
    assert.equal(t.recovery.droppedBytes, cut - lastStart);
    t.close();
  }
});

test("with the default options the log stays within 2× the live data + 1 MiB", () => {
  const dir = tempDir();
  const s = new FileStorage(dir, { fsync: false });
  const value = new Uint8Array(64 << 10).fill(7);
  for (let i = 0; i < 64; i++) s.commit({ put: [[`live/${i}`, value]], del: [] });
  // Churn: each commit makes the previous 64 KiB dead.
  for (let i = 0; i < 400; i++) {
    s.commit({ put: [["churn", value]], del: [] });
    const { logBytes, liveBytes } = s.stats;
    assert.ok(logBytes <= 2 * liveBytes + (1 << 20), `log ${logBytes} within 2 × live ${liveBytes} + 1 MiB`);
  }
  assert.ok(s.stats.compactions > 0);
  s.close();
  const again = new FileStorage(dir);
  assert.equal(Object.keys(snapshot(again)).length, 65);
  again.close();
});

test("compaction reads the live entries back from the log, in bounded chunks", () => {
  const dir = tempDir();
  const model = mixedLog(dir);
  const s = new FileStorage(dir, { readChunkBytes: 5 });
  const before = fs.statSync(logOf(dir)).size;
  const { lengths } = recordingReads(() => s.compact());
  assert.ok(lengths.length > 0 && lengths.max() <= 5);
  assert.ok(fs.statSync(logOf(dir)).size < before);
  assert.deepEqual(snapshot(s), model, "the live store after compaction");
  s.commit({ put: [["after", bytes("x")]], del: [] });
  s.close();
  const again = new FileStorage(dir, { readChunkBytes: 3 });
  assert.deepEqual(snapshot(again), { ...model, after: [120] });
  again.close();
});

test("an Engine restores from a compacting FileStorage read in tiny chunks", async () => {
  const { Engine, ManualClock } = await import("../../../pkg/entry/node.js");
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  const dir = tempDir();
  const storage = new FileStorage(dir, { fsync: false, compactMinBytes: 8192, readChunkBytes: 100 });
  const a = new Engine({ clock, storage, seed: 4 });
  const QueueUrl = a.createQueue({ QueueName: "q" }).QueueUrl;
  const sent = new Map();
  for (let i = 0; i < 200; i++) {
    const body = `${i}:`.padEnd(10 + ((i * 131) % 3000), "b");
    sent.set(a.sendMessage({ QueueUrl, MessageBody: body }).MessageId, body);
    if (i % 2 === 1) {
      // Received and deleted: dead records for compaction to leave behind.
      const [m] = a.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 1 }).Messages;
      a.dispatch("DeleteMessage", { QueueUrl, ReceiptHandle: m.ReceiptHandle });
      sent.delete(m.MessageId);
    }
  }
  assert.ok(storage.stats.compactions > 0, "compactions ran");
  a.close();
  const expected = [...sent.values()].sort();
  assert.equal(expected.length, 100);
  for (const readChunkBytes of [100, 1, 1 << 20]) {
    const b = new Engine({ clock, storage: new FileStorage(dir, { readChunkBytes }), seed: 4 });
    assert.deepEqual(b.peek(QueueUrl).messages.map((m) => m.body).sort(), expected, `restored in ${readChunkBytes}-byte chunks`);
    b.close();
  }
});
