// The crash workload shared by the file and IndexedDB crash tests: seeded operations, the model
// of what acknowledged calls imply, and the check of a restarted engine's peek against it.
import assert from "node:assert/strict";

export const DEDUP_WINDOW_MS = 5 * 60 * 1000;

export function rng(seed) {
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

/** What the acknowledged calls say the queues hold. */
export class Model {
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

export function nextOp(model, r) {
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

export function command(op) {
  return op.kind === "advance" ? { op: "advance", ms: op.ms } : { op: "call", action: ACTION[op.kind], params: op.params };
}

/** Apply an acknowledged reply to the model, checking it is what the model allows. */
export function applyAck(model, op, reply) {
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
export function checkAndResolve(model, peeks) {
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

