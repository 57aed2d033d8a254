import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import fsDefault from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { FileStorage } from "./adapters.js";
import { roundTrip, isolatesBuffers, refusesBadBatches, snapshot, bytes } from "./contract.js";

const tmpDirs = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-file-"));
  tmpDirs.push(dir);
  return dir;
}
process.on("exit", () => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const logOf = (dir) => path.join(dir, "wasq.log");
const open = () => new FileStorage(tempDir());
const reopen = (adapter) => {
  const dir = adapter._dir;
  adapter.close();
  const next = new FileStorage(dir);
  next._dir = dir;
  return next;
};
const openTracked = () => {
  const dir = tempDir();
  const adapter = new FileStorage(dir);
  adapter._dir = dir;
  return adapter;
};

test("FileStorage round-trips batches across reopen", async () => {
  (await roundTrip({ open: openTracked, reopen })).close();
});
test("FileStorage copies buffers in and out", async () => (await isolatesBuffers({ open })).close());
test("FileStorage refuses malformed batches unchanged", async () => (await refusesBadBatches({ open })).close());

test("FileStorage: an empty batch writes nothing", () => {
  const dir = tempDir();
  const s = new FileStorage(dir);
  const size = fs.statSync(logOf(dir)).size;
  s.commit({ put: [], del: [] });
  assert.equal(fs.statSync(logOf(dir)).size, size);
  s.close();
});

// Three batches, then a fourth whose record is the last in the log; returns the byte offset
// where that last record starts, and the expected states with and without it.
function logWithLastBatch() {
  const dir = tempDir();
  const s = new FileStorage(dir);
  s.commit({ put: [["a", bytes("1")], ["b", bytes("2")]], del: [] });
  s.commit({ put: [["c", bytes("3")]], del: ["a"] });
  s.commit({ put: [["b", bytes("22")]], del: [] });
  const without = snapshot(s);
  const lastStart = fs.statSync(logOf(dir)).size;
  s.commit({ put: [["d", bytes("4")], ["b", bytes("222")]], del: ["c"] });
  const withLast = snapshot(s);
  s.close();
  return { dir, lastStart, without, withLast, full: fs.readFileSync(logOf(dir)) };
}

test("FileStorage: truncating the last record at every byte offset drops exactly that batch", () => {
  const { dir, lastStart, without, withLast, full } = logWithLastBatch();
  for (let cut = lastStart; cut <= full.length; cut++) {
    fs.writeFileSync(logOf(dir), full.subarray(0, cut));
    const s = new FileStorage(dir);
    const expected = cut === full.length ? withLast : without;
    assert.deepEqual(snapshot(s), expected, `cut at ${cut}`);
    assert.equal(s.recovery.droppedBytes, cut === full.length ? 0 : cut - lastStart, `dropped at ${cut}`);
    // Recovery cut the torn bytes off, so new appends follow the last whole record.
    assert.equal(fs.statSync(logOf(dir)).size, cut === full.length ? full.length : lastStart);
    s.commit({ put: [["after", bytes("x")]], del: [] });
    s.close();
    const again = new FileStorage(dir);
    assert.deepEqual(snapshot(again), { ...expected, after: [120] }, `append after recovery at ${cut}`);
    again.close();
  }
});

test("FileStorage: a zero-filled or garbled last record is a torn tail", () => {
  const { dir, lastStart, without, full } = logWithLastBatch();
  // The size grew but the data never landed (zeros): header checksum fails, rest all zero.
  const zeroed = Buffer.from(full);
  zeroed.fill(0, lastStart);
  fs.writeFileSync(logOf(dir), zeroed);
  let s = new FileStorage(dir);
  assert.deepEqual(snapshot(s), without);
  s.close();
  // Whole header, payload damaged, record runs exactly to the end: torn.
  const garbled = Buffer.from(full);
  garbled[full.length - 1] ^= 0xff;
  fs.writeFileSync(logOf(dir), garbled);
  s = new FileStorage(dir);
  assert.deepEqual(snapshot(s), without);
  s.close();
});

test("FileStorage: corruption before the last record is refused, at every byte", () => {
  const { dir, lastStart, full } = logWithLastBatch();
  for (let at = 16; at < lastStart; at++) {
    const bad = Buffer.from(full);
    bad[at] ^= 0x5a;
    fs.writeFileSync(logOf(dir), bad);
    assert.throws(() => new FileStorage(dir), /corrupt at byte \d+/, `flip at ${at}`);
    assert.ok(!fs.existsSync(path.join(dir, "LOCK")), "a refused open releases the lock");
  }
  // The refused opens did not modify the file.
  const bad = Buffer.from(full);
  bad[20] ^= 0x5a;
  fs.writeFileSync(logOf(dir), bad);
  assert.throws(() => new FileStorage(dir));
  assert.deepEqual(fs.readFileSync(logOf(dir)), bad);
});

test("FileStorage refuses a newer format version and a file that is not a log", () => {
  const dir = tempDir();
  new FileStorage(dir).close();
  const log = fs.readFileSync(logOf(dir));
  // The version the adapter writes, read from its header (the constant is not a package export).
  const version = log.readUInt32LE(8);
  log.writeUInt32LE(version + 1, 8);
  fs.writeFileSync(logOf(dir), log);
  assert.throws(() => new FileStorage(dir), new RegExp(`format version ${version + 1}, newer`));
  fs.writeFileSync(logOf(dir), "hello, this is not a log");
  assert.throws(() => new FileStorage(dir), /not a wasq log/);
});

test("FileStorage compacts when the log outgrows live data, and keeps the state", () => {
  const dir = tempDir();
  const s = new FileStorage(dir, { compactRatio: 3, compactMinBytes: 4096 });
  const model = {};
  for (let i = 0; i < 400; i++) {
    const key = `m/${i % 7}`;
    const value = bytes(`value ${i} `.repeat(5));
    if (i % 5 === 4) {
      s.commit({ put: [], del: [key] });
      delete model[key];
    } else {
      s.commit({ put: [[key, value]], del: [] });
      model[key] = [...value];
    }
    // Compaction runs at the end of the commit that takes the log past the bound.
    assert.ok(s.stats.logBytes <= 3 * s.stats.liveBytes + 4096, "log stays bounded");
  }
  assert.ok(s.stats.compactions > 0, "compaction ran");
  assert.deepEqual(snapshot(s), model);
  assert.equal(fs.statSync(logOf(dir)).size, s.stats.logBytes);
  s.close();
  const again = new FileStorage(dir);
  assert.deepEqual(snapshot(again), model);
  again.close();
  assert.ok(!fs.existsSync(path.join(dir, "wasq.log.tmp")));
});

test("FileStorage: explicit compact() rewrites to live records only; a stale tmp file is ignored", () => {
  const dir = tempDir();
  const s = new FileStorage(dir);
  for (let i = 0; i < 50; i++) s.commit({ put: [["k", bytes(`v${i}`)]], del: [] });
  const before = fs.statSync(logOf(dir)).size;
  s.compact();
  const after = fs.statSync(logOf(dir)).size;
  assert.ok(after < before / 10, `${after} < ${before}/10`);
  s.commit({ put: [["k2", bytes("x")]], del: [] });
  s.close();
  // A compaction that crashed before its rename leaves a tmp file; the log is what counts.
  fs.writeFileSync(path.join(dir, "wasq.log.tmp"), "partial garbage");
  const again = new FileStorage(dir);
  assert.deepEqual(snapshot(again), { k: [...bytes("v49")], k2: [120] });
  assert.ok(!fs.existsSync(path.join(dir, "wasq.log.tmp")));
  again.close();
});

test("FileStorage locks its directory against a second open, and a dead holder's lock is taken over", () => {
  const dir = tempDir();
  const s = new FileStorage(dir);
  assert.throws(() => new FileStorage(dir), new RegExp(`already open in process ${process.pid}`));
  s.close();
  new FileStorage(dir).close();
  // A process that died holding the lock.
  const child = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
  fs.writeFileSync(path.join(dir, "LOCK"), `${child.stdout.trim()}\n`);
  const t = new FileStorage(dir);
  assert.equal(fs.readFileSync(path.join(dir, "LOCK"), "utf8").trim().split(" ")[0], String(process.pid));
  t.close();
  assert.ok(!fs.existsSync(path.join(dir, "LOCK")));
});

test("a lock held by a killed but unreaped process (a zombie) is taken over", { skip: process.platform !== "linux" }, async () => {
  // `wasq serve` killed by a test harness (Python's Popen.kill() before wait()) and restarted at
  // once: the killed server is a zombie until its parent reaps it, and kill(pid, 0) still
  // succeeds for it, so the restart was refused with "already open in process N" for as long as
  // the parent did not wait. Here: a Python parent forks a child that exits at once and never
  // waits for it (a shell's `true & exec sleep` raced: the shell could reap the child first).
  const dir = tempDir();
  const { spawn } = await import("node:child_process");
  const script = "import os, sys, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)";
  const parent = spawn("python3", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const zombie = Number.parseInt(await new Promise((resolve) => parent.stdout.once("data", (d) => resolve(String(d)))), 10);
    const state = () => fs.readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1][0];
    for (let i = 0; i < 200 && state() !== "Z"; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(state(), "Z");
    fs.writeFileSync(path.join(dir, "LOCK"), `${zombie} ${Date.now()}\n`);
    const s = new FileStorage(dir);
    assert.equal(fs.readFileSync(path.join(dir, "LOCK"), "utf8").trim().split(" ")[0], String(process.pid));
    s.close();
  } finally {
    parent.kill("SIGKILL");
  }
});

test("a lock left by an earlier process with this process's pid (a restarted container's pid 1) is taken over", () => {
  const dir = tempDir();
  // The crashed incarnation had the same pid and started a minute before this one.
  const earlierStart = Math.round(Date.now() - process.uptime() * 1000) - 60_000;
  fs.writeFileSync(path.join(dir, "LOCK"), `${process.pid} ${earlierStart}\n`);
  const s = new FileStorage(dir);
  // Still refused while this process holds it, from this thread or another one.
  assert.throws(() => new FileStorage(dir), new RegExp(`already open in process ${process.pid}`));
  s.close();
  assert.ok(!fs.existsSync(path.join(dir, "LOCK")));
  const adapters = new URL("./adapters.js", import.meta.url).href;
  const fromThread = spawnSync(process.execPath, ["--input-type=module", "-e", `
    import { Worker } from "node:worker_threads";
    import { FileStorage } from ${JSON.stringify(adapters)};
    const held = new FileStorage(${JSON.stringify(dir)});
    const code = 'import(${JSON.stringify(adapters)}).then(({ FileStorage }) => { try { new FileStorage(${JSON.stringify(dir)}); console.log("opened"); } catch (e) { console.log(e.message); } })';
    await new Promise((resolve) => new Worker(code, { eval: true }).on("exit", resolve));
    held.close();
  `], { encoding: "utf8" });
  assert.match(fromThread.stdout, /already open in process/, fromThread.stderr);
});

test("FileStorage with fsync: false reports relaxed durability and flush() makes it durable", async () => {
  const dir = tempDir();
  const s = new FileStorage(dir, { fsync: false });
  assert.equal(s.durability, "relaxed");
  s.commit({ put: [["a", bytes("1")]], del: [] });
  await s.flush();
  s.close();
  const again = new FileStorage(dir);
  assert.equal(again.durability, "full");
  assert.deepEqual(snapshot(again), { a: [49] });
  again.close();
  assert.throws(() => again.commit({ put: [["b", bytes("2")]] }), /closed/);
});

test('FileStorage with fsync: "group": overlapping flushes share one sync, and every flushed commit is on disk', async () => {
  const dir = tempDir();
  const s = new FileStorage(dir, { fsync: "group" });
  assert.equal(s.durability, "full");
  assert.equal(s.stats.syncs, 0);
  // Nothing written: nothing to sync.
  await s.flush();
  assert.equal(s.stats.syncs, 0);

  const logBefore = fs.statSync(logOf(dir)).size;
  s.commit({ put: [["k0", bytes("0")]], del: [] });
  // Written before commit returns (a killed process loses nothing), synced later.
  assert.ok(fs.statSync(logOf(dir)).size > logBefore);
  const first = s.flush(); // starts sync 1
  assert.equal(s.stats.syncs, 1);
  // Commits made while sync 1 runs are not covered by it: they all wait for sync 2.
  const later = [];
  for (let i = 1; i <= 10; i++) {
    s.commit({ put: [[`k${i}`, bytes(String(i))]], del: [] });
    later.push(s.flush());
  }
  assert.equal(s.stats.syncs, 1, "no second sync while the first runs");
  await first;
  await Promise.all(later);
  assert.equal(s.stats.syncs, 2, "ten flushes after sync 1 began shared sync 2");
  // A flush with nothing written since the last sync began needs no new one.
  await s.flush();
  assert.equal(s.stats.syncs, 2);

  // close() with a sync running and flushes waiting for the next: it syncs what is left, and
  // every waiting flush still resolves.
  s.commit({ put: [["a", bytes("a")]], del: [] });
  const running = s.flush();
  s.commit({ put: [["b", bytes("b")]], del: ["k0"] });
  const waiting = s.flush();
  s.close();
  await Promise.all([running, waiting]);
  await assert.rejects(s.flush(), /closed/);

  const again = new FileStorage(dir);
  const expected = { a: [97], b: [98] };
  for (let i = 1; i <= 10; i++) expected[`k${i}`] = [...bytes(String(i))];
  assert.deepEqual(snapshot(again), expected);
  again.close();
});

test('FileStorage with fsync: "group": a failed sync rejects its flushes and refuses every later commit', async () => {
  const dir = tempDir();
  const s = new FileStorage(dir, { fsync: "group" });
  s.commit({ put: [["a", bytes("1")]], del: [] });
  const realSync = fsDefault.fdatasync;
  fsDefault.fdatasync = (fd, cb) => process.nextTick(cb, Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
  syncBuiltinESMExports();
  try {
    await assert.rejects(s.flush(), /syncing .* failed: EIO/);
  } finally {
    fsDefault.fdatasync = realSync;
    syncBuiltinESMExports();
  }
  // The kernel may have dropped the written pages: nothing more is acknowledged.
  assert.throws(() => s.commit({ put: [["b", bytes("2")]], del: [] }), /syncing .* failed/);
  await assert.rejects(s.flush(), /syncing .* failed/);
  s.close();
});

test("FileStorage refuses an fsync option it does not know", () => {
  for (const fsync of ["yes", 1, null]) {
    assert.throws(() => new FileStorage(tempDir(), { fsync }), { name: "TypeError", message: /fsync must be/ });
  }
});

test('HTTP answers from an Engine on fsync: "group" FileStorage wait for a shared sync', async () => {
  const { Engine, ManualClock, createFetchHandler } = await import("../../../pkg/entry/node.js");
  const dir = tempDir();
  const storage = new FileStorage(dir, { fsync: "group" });
  const engine = new Engine({ clock: new ManualClock(Date.parse("2026-01-01T00:00:00Z")), storage, seed: 3 });
  const fetch = createFetchHandler(engine);
  const call = (action, params) =>
    fetch(
      new Request("http://localhost:9324/", {
        method: "POST",
        headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${action}` },
        body: JSON.stringify(params),
      }),
    );
  const created = await call("CreateQueue", { QueueName: "grouped" });
  assert.equal(created.status, 200);
  const { QueueUrl } = await created.json();
  const syncsBefore = storage.stats.syncs;
  assert.ok(syncsBefore >= 1, "the CreateQueue answer waited for a sync");
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => call("SendMessage", { QueueUrl, MessageBody: `m${i}` })),
  );
  for (const a of answers) assert.equal(a.status, 200);
  const syncs = storage.stats.syncs - syncsBefore;
  assert.ok(syncs >= 1 && syncs < 20, `20 concurrent sends shared their syncs (${syncs})`);

  // An answer is held until its sync completes: with the syncs held back, nothing is answered.
  const held = [];
  const realSync = fsDefault.fdatasync;
  fsDefault.fdatasync = (fd, cb) => held.push(() => realSync(fd, cb));
  syncBuiltinESMExports();
  try {
    let answered = false;
    const pending = call("SendMessage", { QueueUrl, MessageBody: "held" }).then((r) => ((answered = true), r));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false, "answered before its sync completed");
    assert.equal(held.length, 1);
    held.shift()();
    assert.equal((await pending).status, 200);
  } finally {
    fsDefault.fdatasync = realSync;
    syncBuiltinESMExports();
  }
  engine.close();
  const reopened = new Engine({ storage: new FileStorage(dir), seed: 3 });
  assert.deepEqual(
    reopened.peek(QueueUrl).messages.map((m) => m.body).sort(),
    [...Array.from({ length: 20 }, (_, i) => `m${i}`), "held"].sort(),
  );
  reopened.close();
});

test("an Engine recovers from FileStorage, and through loadAll() when a subclass replaces it", async () => {
  const { Engine, ManualClock } = await import("../../../pkg/entry/node.js");
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  const dir = tempDir();
  const a = new Engine({ clock, storage: new FileStorage(dir), seed: 2 });
  const QueueUrl = a.createQueue({ QueueName: "q" }).QueueUrl;
  a.sendMessage({ QueueUrl, MessageBody: "on disk" });
  a.close();
  const b = new Engine({ clock, storage: new FileStorage(dir), seed: 2 });
  assert.equal(b.peek(QueueUrl).messages[0].body, "on disk");
  b.close();
  let loads = 0;
  class Filtered extends FileStorage {
    loadAll() {
      loads++;
      // What a subclass's loadAll answers is what the Engine restores from: here, no messages.
      return super.loadAll().filter(([key]) => !/\/[ms]\//.test(key));
    }
  }
  const c = new Engine({ clock, storage: new Filtered(dir), seed: 2 });
  assert.equal(loads, 1);
  assert.equal(c.peek(QueueUrl).messages.length, 0);
  c.close();
});
