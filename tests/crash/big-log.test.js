// A FileStorage log past 2 GiB, built for real (no sparse file: that would hold no valid
// records) through an Engine, opens again with everything in it. Node's readFileSync refuses
// files over 2 GiB, which made such a log unopenable, with every acknowledged message in it out
// of reach; and a log could get there with ~0.55 GiB live under the old 4× compaction rule.
//
// Slow (it writes ~2.1 GiB) and needs that much free space in the temp directory: not part of
// `make test`; run it with `make test-big-log`. The same reading in chunks, with chunks far
// smaller than the records, is in tests/js/storage/file-streaming.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Engine, ManualClock, FileStorage } from "../../pkg/entry/node.js";

const GiB = 2 ** 30;
const KEPT = 48;

test("a log over 2 GiB opens, restores every acknowledged message, and compacts to its live size", { timeout: 3_600_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-big-log-"));
  const logPath = path.join(dir, "wasq.log");
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  try {
    // No compaction while it is built, so the log passes 2 GiB with little live data.
    let storage = new FileStorage(dir, { fsync: false, compactMinBytes: Number.MAX_SAFE_INTEGER });
    let engine = new Engine({ clock, storage, seed: 7 });
    const kept = engine.createQueue({ QueueName: "kept" }).QueueUrl;
    const churn = engine.createQueue({ QueueName: "churn" }).QueueUrl;
    const bodies = [];
    for (let i = 0; i < KEPT; i++) {
      bodies.push(`kept ${i} `.padEnd(256 * 1024, String.fromCharCode(97 + (i % 26))));
      engine.sendMessage({ QueueUrl: kept, MessageBody: bodies[i] });
    }
    const big = "c".repeat(1_000_000);
    let rounds = 0;
    while (fs.statSync(logPath).size < 2 * GiB + 64 * 2 ** 20) {
      engine.sendMessage({ QueueUrl: churn, MessageBody: big });
      const [m] = engine.dispatch("ReceiveMessage", { QueueUrl: churn }).Messages;
      engine.dispatch("DeleteMessage", { QueueUrl: churn, ReceiptHandle: m.ReceiptHandle });
      rounds++;
    }
    engine.close();
    const size = fs.statSync(logPath).size;
    console.log(`big log: ${size} bytes after ${rounds} rounds of 1 MB send/receive/delete`);
    assert.ok(size > 2 * GiB);

    // Opened with the defaults, as `wasq serve --data` does.
    const warnings = [];
    storage = new FileStorage(dir, { warn: (w) => warnings.push(w) });
    assert.deepEqual(storage.recovery, { droppedBytes: 0, droppedRecords: 0, records: storage.recovery.records });
    assert.equal(warnings.length, 0);
    engine = new Engine({ clock, storage, seed: 7 });
    assert.deepEqual(engine.peek(kept).messages.map((m) => m.body).sort(), [...bodies].sort());
    assert.equal(engine.peek(churn).messages.length, 0);
    // The first commit finds the log far past 2 × live + 1 MiB and compacts it.
    engine.sendMessage({ QueueUrl: kept, MessageBody: "after" });
    const { logBytes, liveBytes, compactions } = storage.stats;
    assert.equal(compactions, 1);
    assert.ok(logBytes <= 2 * liveBytes + 2 ** 20, `compacted to ${logBytes} bytes for ${liveBytes} live`);
    assert.equal(fs.statSync(logPath).size, logBytes);
    engine.close();

    engine = new Engine({ clock, storage: new FileStorage(dir), seed: 7 });
    assert.deepEqual(engine.peek(kept).messages.map((m) => m.body).sort(), [...bodies, "after"].sort());
    engine.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
