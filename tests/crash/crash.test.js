// Crash test: a seeded SQS workload against an Engine on FileStorage, in a child process that is
// SIGKILLed at many points. The parent keeps a model of every acknowledged call and, after each
// restart, checks it against the engine's own view (peek): every acknowledged send present
// exactly once (FIFO in order, still deduplicated), every acknowledged delete still deleted,
// in-flight messages with the deadlines they were given. Some lives also get their log cut short
// at a random offset past the last acknowledged byte, as a torn write would leave it.
//
// WASQ_CRASH_KILLS (default 200) kill points; WASQ_CRASH_SEED (default 1) the workload;
// WASQ_CRASH_JOBS (default 4) workloads run side by side, sharing the kills.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { rng, Model, nextOp, command, applyAck, checkAndResolve } from "./workload.js";

const KILLS = Number(process.env.WASQ_CRASH_KILLS ?? 200);
const SEED = Number(process.env.WASQ_CRASH_SEED ?? 1);
const JOBS = Math.max(1, Math.min(KILLS, Number(process.env.WASQ_CRASH_JOBS ?? 4)));
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "child.js");
const NEVER_COMPACT = String(1e12);

/** One child process: request/reply over JSON lines; every reply line is an acknowledgement. */
class Life {
  constructor(dir, start, compact) {
    this.proc = spawn(process.execPath, [CHILD, dir, String(start), compact], { stdio: ["pipe", "pipe", "pipe"] });
    this.stderr = "";
    this.proc.stderr.on("data", (d) => (this.stderr += d));
    this.replies = [];
    this.waiting = null;
    this.exited = new Promise((resolve) => this.proc.on("close", (code, signal) => resolve({ code, signal })));
    readline.createInterface({ input: this.proc.stdout }).on("line", (line) => {
      this.replies.push(JSON.parse(line));
      this.waiting?.();
    });
    this.proc.stdin.on("error", () => {}); // writing to a killed child
    this.nextId = 1;
  }

  async #reply() {
    for (;;) {
      if (this.replies.length) return this.replies.shift();
      const died = this.exited.then(({ code, signal }) => {
        throw new Error(`child exited (code ${code}, signal ${signal}) before replying:\n${this.stderr}`);
      });
      await Promise.race([new Promise((resolve) => (this.waiting = resolve)), died]);
    }
  }

  ready() {
    return this.#reply();
  }

  /** The next reply, read but not treated as an acknowledgement by the caller. */
  unseenReply() {
    return this.#reply();
  }

  send(cmd) {
    const id = this.nextId++;
    this.proc.stdin.write(`${JSON.stringify({ ...cmd, id })}\n`);
    return id;
  }

  async request(cmd) {
    const id = this.send(cmd);
    const reply = await this.#reply();
    assert.equal(reply.id, id);
    return reply;
  }

  /**
   * SIGKILL. Replies not read before the kill are dropped: the client never saw them, so those
   * calls are in doubt (either outcome is allowed), as for a client that crashed with its server.
   */
  async kill() {
    this.proc.kill("SIGKILL");
    await this.exited;
    this.replies = [];
  }
}

async function crashRun(seed, kills) {
  const r = rng(seed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-crash-"));
  const logPath = path.join(dir, "wasq.log");
  const model = new Model();
  const stats = { acked: 0, torn: 0, compactLives: 0, droppedBytes: 0 };
  try {
    let life = new Life(dir, model.now, NEVER_COMPACT);
    await life.ready();
    for (const [key, name, attrs] of [["std", "std", {}], ["fifo", "fifo.fifo", { FifoQueue: "true" }]]) {
      const reply = await life.request({ op: "call", action: "CreateQueue", params: { QueueName: name, Attributes: attrs } });
      assert.ok(reply.ok, JSON.stringify(reply.error));
      model.queues[key] = reply.result.QueueUrl;
    }
    let lastAckLogBytes = 0;
    for (let kill = 0; kill < kills; kill++) {
      const ops = 1 + r.int(12);
      for (let i = 0; i < ops; i++) {
        const op = nextOp(model, r);
        if (op.kind === "advance") model.now += op.ms;
        const reply = await life.request(command(op));
        applyAck(model, op, reply);
        lastAckLogBytes = reply.logBytes;
        stats.acked++;
      }
      // How this life ends: killed idle, killed racing a call, or killed after a call's record
      // was written and then that record torn (the log cut at a random offset inside it).
      const compactLife = kill % 3 === 2;
      const mode = r.next() < 0.2 ? "idle" : !compactLife && r.next() < 0.75 ? "torn" : "race";
      if (mode !== "idle") {
        const victim = nextOp(model, r);
        if (victim.kind === "advance") model.now += victim.ms;
        life.send(command(victim));
        if (mode === "race") {
          const delay = r.int(6);
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay - 1));
          model.victim = victim;
        } else {
          await life.unseenReply();
        }
      }
      await life.kill();
      if (mode === "torn") {
        const size = fs.statSync(logPath).size;
        if (size > lastAckLogBytes) {
          fs.truncateSync(logPath, lastAckLogBytes + r.int(size - lastAckLogBytes));
          stats.torn++;
        }
        // Its record is torn, so the call must have left no trace: checked strictly (no victim).
      }
      // Compaction lives rewrite the log constantly; their kills can land mid-compaction.
      const nextCompact = (kill + 1) % 3 === 2;
      if (nextCompact) stats.compactLives++;
      life = new Life(dir, model.now, nextCompact ? "2048" : NEVER_COMPACT);
      const ready = await life.ready();
      stats.droppedBytes += ready.recovery.droppedBytes;
      const peeks = {};
      for (const queue of ["std", "fifo"]) {
        const reply = await life.request({ op: "peek", queueUrl: model.queues[queue] });
        assert.ok(reply.ok, JSON.stringify(reply.error));
        peeks[queue] = reply.result;
      }
      try {
        checkAndResolve(model, peeks);
      } catch (err) {
        err.message = `after kill ${kill}: ${err.message}`;
        throw err;
      }
      lastAckLogBytes = fs.statSync(logPath).size;
    }
    await life.kill();
    stats.sent = model.msgs.size;
    stats.live = [...model.msgs.values()].filter((m) => m.state !== "deleted").length;
    return stats;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test(`crash: ${KILLS} SIGKILLs (some with torn log tails) lose no acknowledged operation`, { timeout: 600_000 }, async () => {
  // Independent workloads in parallel (their own directories and seeds) to use every core.
  const shares = Array.from({ length: JOBS }, (_, j) => Math.floor(KILLS / JOBS) + (j < KILLS % JOBS ? 1 : 0));
  const all = await Promise.all(shares.map((kills, j) => crashRun(SEED * 1000 + j, kills)));
  const total = (k) => all.reduce((n, s) => n + s[k], 0);
  console.log(
    `# crash: ${KILLS} kills, ${total("acked")} acknowledged calls, ${total("torn")} logs torn ` +
      `(${total("droppedBytes")} bytes dropped by recovery), ${total("compactLives")} compacting lives, ` +
      `${total("sent")} messages sent, ${total("live")} live`,
  );
  assert.ok(total("torn") >= KILLS / 10, "torn tails were exercised");
  assert.ok(total("droppedBytes") > 0, "recovery dropped torn bytes");
});
