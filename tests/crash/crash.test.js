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

const KILLS = Number(process.env.WASQ_CRASH_KILLS ?? 200);
const SEED = Number(process.env.WASQ_CRASH_SEED ?? 1);
const JOBS = Math.max(1, Math.min(KILLS, Number(process.env.WASQ_CRASH_JOBS ?? 4)));
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "child.js");
const NEVER_COMPACT = String(1e12);
const DEDUP_WINDOW_MS = 5 * 60 * 1000;

function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: small, seedable, good enough to pick operations.
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

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

/** What the acknowledged calls say the queues hold. */
class Model {
  constructor() {
    this.now = 1_700_000_000_000;
    this.queues = {}; // key → url
    this.msgs = new Map(); // body → message
    this.sent = 0;
    this.victim = null; // the call in flight when the child was killed, if unacknowledged
  }

  live(queue) {
    return [...this.msgs.values()].filter((m) => m.queue === queue && m.state !== "deleted");
  }

  isInflight(m) {
    return m.state === "inflight" && m.visibleAt > this.now;
  }
}

function nextOp(model, r) {
  const roll = r.next();
  const inflight = [...model.msgs.values()].filter((m) => model.isInflight(m));
  if (roll < 0.22) {
    const body = `std-${model.sent++}`;
    return { kind: "send", queue: "std", body, params: { QueueUrl: model.queues.std, MessageBody: body } };
  }
  if (roll < 0.44) {
    const body = `fifo-${model.sent++}`;
    const group = `g${r.int(3)}`;
    return {
      kind: "send",
      queue: "fifo",
      body,
      group,
      params: { QueueUrl: model.queues.fifo, MessageBody: body, MessageGroupId: group, MessageDeduplicationId: body },
    };
  }
  if (roll < 0.5) {
    const recent = [...model.msgs.values()].filter(
      (m) => m.queue === "fifo" && m.sentAt > model.now - DEDUP_WINDOW_MS + 60_000,
    );
    if (recent.length) {
      const m = r.pick(recent);
      const params = { QueueUrl: model.queues.fifo, MessageBody: m.body, MessageGroupId: m.group, MessageDeduplicationId: m.body };
      return { kind: "resend", queue: "fifo", body: m.body, params };
    }
  }
  if (roll < 0.7) {
    const queue = r.pick(["std", "fifo"]);
    const vis = 5 + r.int(56);
    const params = {
      QueueUrl: model.queues[queue],
      MaxNumberOfMessages: 1 + r.int(10),
      VisibilityTimeout: vis,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ["All"],
    };
    return { kind: "receive", queue, vis, params };
  }
  if (roll < 0.82 && inflight.length) {
    const m = r.pick(inflight);
    return { kind: "delete", queue: m.queue, body: m.body, params: { QueueUrl: model.queues[m.queue], ReceiptHandle: m.handle } };
  }
  if (roll < 0.9 && inflight.length) {
    const m = r.pick(inflight);
    const vis = r.int(61);
    const params = { QueueUrl: model.queues[m.queue], ReceiptHandle: m.handle, VisibilityTimeout: vis };
    return { kind: "cmv", queue: m.queue, body: m.body, vis, params };
  }
  return { kind: "advance", ms: 1000 + r.int(20_000) };
}

const ACTION = { send: "SendMessage", resend: "SendMessage", receive: "ReceiveMessage", delete: "DeleteMessage", cmv: "ChangeMessageVisibility" };

function command(op) {
  return op.kind === "advance" ? { op: "advance", ms: op.ms } : { op: "call", action: ACTION[op.kind], params: op.params };
}

/** Apply an acknowledged reply to the model, checking it is what the model allows. */
function applyAck(model, op, reply) {
  const where = `${op.kind} ${op.body ?? ""}`;
  if (op.kind === "advance") {
    assert.ok(reply.ok);
    return;
  }
  assert.ok(reply.ok, `${where} failed: ${JSON.stringify(reply.error)}`);
  const out = reply.result;
  switch (op.kind) {
    case "send":
      model.msgs.set(op.body, {
        body: op.body,
        queue: op.queue,
        group: op.group,
        index: Number(op.body.split("-")[1]),
        messageId: out.MessageId,
        state: "visible",
        visibleAt: 0,
        receiveCount: 0,
        handle: null,
        sentAt: model.now,
      });
      break;
    case "resend":
      assert.equal(out.MessageId, model.msgs.get(op.body).messageId, `dedup of ${op.body} returns the original id`);
      break;
    case "receive":
      for (const got of out.Messages ?? []) {
        const m = model.msgs.get(got.Body);
        assert.ok(m, `received unknown body ${got.Body}`);
        assert.ok(m.state !== "deleted", `received deleted ${got.Body}`);
        assert.ok(!model.isInflight(m), `received in-flight ${got.Body}`);
        assert.equal(got.MessageId, m.messageId);
        m.receiveCount++;
        assert.equal(Number(got.Attributes.ApproximateReceiveCount), m.receiveCount, `receive count of ${got.Body}`);
        m.state = "inflight";
        m.visibleAt = model.now + op.vis * 1000;
        m.handle = got.ReceiptHandle;
      }
      break;
    case "delete":
      model.msgs.get(op.body).state = "deleted";
      break;
    case "cmv": {
      const m = model.msgs.get(op.body);
      m.visibleAt = model.now + op.vis * 1000;
      break;
    }
  }
}

/**
 * Compare the restarted engine's view with the model. Only what the unacknowledged call could
 * have touched may differ, and that is then taken from the engine (it is allowed either way).
 */
function checkAndResolve(model, peeks) {
  const victim = model.victim;
  model.victim = null;
  for (const queue of ["std", "fifo"]) {
    const view = peeks[queue];
    const live = view.messages.filter((m) => ["stored", "in-flight", "delayed"].includes(m.state));
    const seen = new Map();
    for (const m of live) {
      assert.ok(!seen.has(m.body), `${m.body} present twice`);
      seen.set(m.body, m);
    }
    const mayDiffer = (m) =>
      victim &&
      victim.queue === queue &&
      (victim.kind === "receive" || ((victim.kind === "delete" || victim.kind === "cmv") && victim.body === m.body));
    for (const m of model.live(queue)) {
      const got = seen.get(m.body);
      seen.delete(m.body);
      if (victim?.kind === "delete" && victim.body === m.body && !got) {
        m.state = "deleted";
        continue;
      }
      assert.ok(got, `acknowledged send ${m.body} lost`);
      assert.equal(got.messageId, m.messageId, `${m.body} keeps its id`);
      if (mayDiffer(m) && (got.receiveCount !== m.receiveCount || (got.state === "in-flight") !== model.isInflight(m) || (got.state === "in-flight" && got.visibleAt !== m.visibleAt))) {
        // The unacknowledged receive or visibility change took effect: adopt it.
        if (victim.kind === "receive") assert.equal(got.receiveCount, m.receiveCount + 1, `${m.body} receive count`);
        else assert.equal(got.receiveCount, m.receiveCount);
        m.receiveCount = got.receiveCount;
        m.state = got.state === "in-flight" ? "inflight" : "visible";
        m.visibleAt = got.visibleAt ?? 0;
        m.handle = got.receiptHandle ?? m.handle;
        continue;
      }
      assert.equal(got.receiveCount, m.receiveCount, `${m.body} receive count`);
      if (model.isInflight(m)) {
        assert.equal(got.state, "in-flight", `${m.body} still in flight`);
        assert.equal(got.visibleAt, m.visibleAt, `${m.body} keeps its visibility deadline`);
        assert.equal(got.receiptHandle, m.handle, `${m.body} keeps its receipt handle`);
      } else {
        assert.equal(got.state, "stored", `${m.body} visible`);
      }
    }
    for (const [body, got] of seen) {
      assert.ok(victim?.kind === "send" && victim.body === body, `unexpected message ${body} (deleted or never sent)`);
      applyAck(model, victim, { ok: true, result: { MessageId: got.messageId } });
    }
    if (queue === "fifo") {
      const byGroup = {};
      for (const m of live) (byGroup[m.groupId] ??= []).push(Number(m.body.split("-")[1]));
      for (const [group, order] of Object.entries(byGroup)) {
        assert.deepEqual(order, [...order].sort((a, b) => a - b), `group ${group} in send order`);
      }
    }
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
