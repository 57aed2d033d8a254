// FileStorage recovery of a log's tail: whatever follows the last whole record, with no whole
// record after it, is dropped as a torn write, and the store says what it dropped; damage with a
// whole record after it is still refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { FileStorage } from "./adapters.js";
import { snapshot, bytes } from "./contract.js";

const tmpDirs = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-tail-"));
  tmpDirs.push(dir);
  return dir;
}
process.on("exit", () => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const logOf = (dir) => path.join(dir, "wasq.log");

/** 40 batches of one message each; the log, and where its last record starts. */
function fortyMessages() {
  const dir = tempDir();
  const s = new FileStorage(dir);
  let lastStart = 0;
  for (let i = 0; i < 40; i++) {
    lastStart = fs.statSync(logOf(dir)).size;
    s.commit({ put: [[`us-east-1/m/q/${i}`, bytes(`message ${i}`)]], del: [] });
  }
  s.close();
  return { dir, lastStart, full: fs.readFileSync(logOf(dir)) };
}

function openWarned(dir, options = {}) {
  const warnings = [];
  const s = new FileStorage(dir, { ...options, warn: (message) => warnings.push(message) });
  return { s, warnings };
}

test("a log cut one byte short opens with its last batch dropped, and says how much it dropped", () => {
  const { dir, lastStart, full } = fortyMessages();
  fs.truncateSync(logOf(dir), full.length - 1); // truncate -s -1
  const { s, warnings } = openWarned(dir);
  assert.equal(Object.keys(snapshot(s)).length, 39);
  assert.deepEqual(s.recovery, { droppedBytes: full.length - 1 - lastStart, droppedRecords: 1, records: 39 });
  assert.equal(warnings.length, 1, "one warning");
  assert.match(warnings[0], new RegExp(`dropped a torn last record: ${full.length - 1 - lastStart} bytes`));
  assert.match(warnings[0], /kept the 39 whole records/);
  assert.ok(warnings[0].includes(logOf(dir)), "the warning names the log");
  s.close();
  // The tail is gone from the file: the next open finds nothing to drop and says nothing.
  const again = openWarned(dir);
  assert.equal(again.warnings.length, 0);
  assert.equal(again.s.recovery.droppedBytes, 0);
  again.s.close();
});

test("by default the warning goes to console.warn", () => {
  const { dir, full } = fortyMessages();
  fs.truncateSync(logOf(dir), full.length - 1);
  const warned = [];
  const original = console.warn;
  console.warn = (...args) => warned.push(args.join(" "));
  try {
    new FileStorage(dir).close();
  } finally {
    console.warn = original;
  }
  assert.equal(warned.length, 1);
  assert.match(warned[0], /wasq FileStorage: .* dropped a torn last record/);
});

test("a flipped byte in the last record drops that record, with a warning", () => {
  const { dir, lastStart, full } = fortyMessages();
  for (const at of [lastStart + 2, lastStart + 13, full.length - 1]) {
    const bad = Buffer.from(full);
    bad[at] ^= 0x10;
    fs.writeFileSync(logOf(dir), bad);
    const { s, warnings } = openWarned(dir);
    assert.equal(Object.keys(snapshot(s)).length, 39, `flip at ${at}`);
    assert.equal(s.recovery.droppedBytes, full.length - lastStart);
    assert.equal(warnings.length, 1);
    s.close();
  }
});

test("garbage after the last record is a torn tail: dropped and reported, not refused", () => {
  const { dir, full } = fortyMessages();
  // 17 bytes was refused "with more records after it", though none followed.
  for (const garbage of [Buffer.alloc(17, 0xab), Buffer.from("x".repeat(5)), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 11) & 0xff))]) {
    fs.writeFileSync(logOf(dir), Buffer.concat([full, garbage]));
    const { s, warnings } = openWarned(dir);
    assert.equal(Object.keys(snapshot(s)).length, 40, `${garbage.length} garbage bytes`);
    assert.deepEqual(s.recovery, { droppedBytes: garbage.length, droppedRecords: 1, records: 40 });
    assert.equal(warnings.length, 1);
    assert.equal(fs.statSync(logOf(dir)).size, full.length, "the garbage was cut off");
    s.commit({ put: [["after", bytes("x")]], del: [] });
    s.close();
    const again = openWarned(dir);
    assert.equal(Object.keys(snapshot(again.s)).length, 41);
    assert.equal(again.warnings.length, 0);
    again.s.close();
  }
});

test("a zero-filled tail is dropped as holding no record", () => {
  const { dir, full } = fortyMessages();
  fs.writeFileSync(logOf(dir), Buffer.concat([full, Buffer.alloc(4096)]));
  const { s, warnings } = openWarned(dir);
  assert.deepEqual(s.recovery, { droppedBytes: 4096, droppedRecords: 0, records: 40 });
  assert.match(warnings[0], /dropped 4096 zero bytes/);
  s.close();
});

test("damage with a whole record after it is still refused, and the file left as it was", () => {
  const { dir, lastStart, full } = fortyMessages();
  // Garbage between the last two records: a whole record follows it.
  const spliced = Buffer.concat([full.subarray(0, lastStart), Buffer.alloc(17, 0xab), full.subarray(lastStart)]);
  fs.writeFileSync(logOf(dir), spliced);
  assert.throws(() => openWarned(dir), new RegExp(`corrupt at byte ${lastStart} .*with more records after it \\(a whole one at byte ${lastStart + 17}\\)`));
  assert.deepEqual(fs.readFileSync(logOf(dir)), spliced);
  // A flipped payload byte in the second-last record: its head says where the next one starts.
  const flipped = Buffer.from(full);
  flipped[lastStart - 1] ^= 0x01;
  fs.writeFileSync(logOf(dir), flipped);
  assert.throws(() => openWarned(dir), /payload checksum mismatch\) with more records after it/);
  // The same with a tiny read buffer, so the search for a whole record spans reads.
  assert.throws(() => openWarned(dir, { readChunkBytes: 3 }), /with more records after it/);
  assert.deepEqual(fs.readFileSync(logOf(dir)), flipped);
});

test("wasq serve --data says on stderr what it dropped from a torn log", async () => {
  const { spawn } = await import("node:child_process");
  const { Engine } = await import("../../../pkg/entry/node.js");
  const dir = tempDir();
  const engine = new Engine({ storage: new FileStorage(dir) });
  const { QueueUrl } = engine.createQueue({ QueueName: "torn" });
  for (let i = 0; i < 40; i++) engine.sendMessage({ QueueUrl, MessageBody: `message ${i}` });
  engine.close();
  fs.truncateSync(logOf(dir), fs.statSync(logOf(dir)).size - 1); // truncate -s -1
  const bin = new URL("../../../pkg/bin/wasq.mjs", import.meta.url).pathname;
  const server = spawn(process.execPath, [bin, "serve", "--port", "0", "--data", dir], { stdio: ["ignore", "pipe", "pipe"] });
  const closed = new Promise((resolve) => server.once("close", resolve));
  let stderr = "";
  server.stderr.on("data", (d) => (stderr += d));
  let url;
  try {
    url = await Promise.race([
      new Promise((resolve) => server.stdout.on("data", (d) => /listening on (\S+)/.test(String(d)) && resolve(/listening on (\S+)/.exec(String(d))[1]))),
      closed.then((code) => Promise.reject(new Error(`wasq serve exited (${code}): ${stderr}`))),
    ]);
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.GetQueueAttributes" },
      body: JSON.stringify({ QueueUrl: `${url}/000000000000/torn`, AttributeNames: ["ApproximateNumberOfMessages"] }),
    });
    assert.equal((await res.json()).Attributes.ApproximateNumberOfMessages, "39");
  } finally {
    server.kill("SIGTERM");
    await closed;
  }
  assert.match(stderr, /wasq FileStorage: .*wasq\.log: dropped a torn last record: \d+ bytes .*kept the \d+ whole records/);
});
