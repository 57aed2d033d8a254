// The JS around the core must agree with it on which actions exist (the Engine's camelCase
// methods, the server's metrics labels, the Worker's routing), which attributes a queue copy can
// be given, and which batches only one engine may answer. It reads all of that from the core
// (src/facts.js); these tests hold the core's answers against what the engine actually does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { internal } from "./internal.js";

const { Engine, ManualClock, engineFacts, batchIdsValid } = internal;

function engine() {
  return new Engine({ clock: new ManualClock(Date.UTC(2026, 0, 1)), seed: 7 });
}

test("the settable attributes are those GetQueueAttributes All shows that SetQueueAttributes takes", () => {
  const e = engine();
  const dlq = e.createQueue({ QueueName: "dlq.fifo", Attributes: { FifoQueue: "true" } }).QueueUrl;
  const dlqArn = e.getQueueAttributes({ QueueUrl: dlq, AttributeNames: ["QueueArn"] }).Attributes.QueueArn;
  // Every optional attribute set, so that All lists every name the queue can have.
  const url = e.createQueue({
    QueueName: "q.fifo",
    Attributes: {
      FifoQueue: "true",
      ContentBasedDeduplication: "true",
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }),
      RedriveAllowPolicy: JSON.stringify({ redrivePermission: "allowAll" }),
      Policy: JSON.stringify({ Version: "2012-10-17", Statement: [] }),
      KmsMasterKeyId: "alias/aws/sqs",
    },
  }).QueueUrl;
  const all = e.getQueueAttributes({ QueueUrl: url, AttributeNames: ["All"] }).Attributes;
  const takes = new Set();
  for (const [name, value] of Object.entries(all)) {
    try {
      e.setQueueAttributes({ QueueUrl: url, Attributes: { [name]: value } });
      takes.add(name);
    } catch (err) {
      assert.equal(err.code, "InvalidAttributeName", `${name}: ${err.message}`);
    }
  }
  assert.deepEqual([...takes].sort(), [...engineFacts().settable].sort());
});

/** What an action answers to `params`: its result, or its error's name, code and message. */
async function outcome(call) {
  try {
    return { ok: await call() };
  } catch (err) {
    return { error: { name: err.name, code: err.code, message: err.message } };
  }
}

function camel(action) {
  return action[0].toLowerCase() + action.slice(1);
}

test("every action in the core's list is a method of an Engine that answers through dispatch", async () => {
  const { actions, messageActions, moveActions } = engineFacts();
  assert.ok(actions.size > 0);
  for (const action of [...messageActions, ...moveActions]) assert.ok(actions.has(action), action);
  // Two engines on one seed and clock: each call goes to one as a method, to the other through
  // dispatch, so both answer the same thing (ids included) when the method is dispatch.
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const byMethod = new Engine({ clock, seed: 7 });
  const byDispatch = new Engine({ clock, seed: 7 });
  const dispatched = [];
  const dispatch = byMethod.dispatch;
  byMethod.dispatch = function (action, params) {
    dispatched.push(action);
    return dispatch.call(this, action, params);
  };
  for (const e of [byMethod, byDispatch]) e.dispatch("CreateQueue", { QueueName: "q" });
  const QueueUrl = byDispatch.dispatch("GetQueueUrl", { QueueName: "q" }).QueueUrl;
  const paramsFor = (action) => (action === "CreateQueue" ? { QueueName: "q2" } : { QueueUrl, QueueName: "q", MessageBody: "m" });
  for (const action of actions) {
    const method = byMethod[camel(action)];
    assert.equal(typeof method, "function", `engine.${camel(action)}`);
    dispatched.length = 0;
    const got = await outcome(() => method.call(byMethod, paramsFor(action)));
    assert.equal(dispatched[0], action, `engine.${camel(action)} goes through dispatch`);
    assert.notEqual(got.error?.name, "UnknownOperationException", action);
    assert.deepEqual(got, await outcome(() => byDispatch.dispatch(action, paramsFor(action))), action);
  }
  byMethod.close();
  byDispatch.close();
  assert.equal((await outcome(() => engine().dispatch("SendMessages", {}))).error.name, "UnknownOperationException");
});

test("a batch the Worker would split passes the engine's shape check, and one it would not fails it", () => {
  const e = engine();
  const url = e.createQueue({ QueueName: "b" }).QueueUrl;
  const cases = [
    [],
    ["a"],
    ["a", "b"],
    ["a", "a"],
    ["x".repeat(80)],
    ["x".repeat(81)],
    ["a b"],
    ["é"],
    [""],
    [null],
    [7],
    Array.from({ length: 10 }, (_, i) => `e${i}`),
    Array.from({ length: 11 }, (_, i) => `e${i}`),
  ];
  for (const ids of cases) {
    const entries = ids.map((id) => ({ ...(id === null ? {} : { Id: id }), MessageBody: "m" }));
    // The queue exists and every body is valid: a refusal here is about the batch as a whole.
    let refused = false;
    try {
      e.sendMessageBatch({ QueueUrl: url, Entries: entries });
    } catch {
      refused = true;
    }
    assert.equal(batchIdsValid(ids), !refused, JSON.stringify(ids));
  }
});

test("the batch byte limit is the one the engine enforces", () => {
  const { maxBatchBytes } = engineFacts();
  const e = engine();
  const url = e.createQueue({ QueueName: "big", Attributes: { MaximumMessageSize: "1048576" } }).QueueUrl;
  const half = "x".repeat(maxBatchBytes / 2);
  e.sendMessageBatch({ QueueUrl: url, Entries: [{ Id: "a", MessageBody: half }, { Id: "b", MessageBody: half }] });
  assert.throws(
    () => e.sendMessageBatch({ QueueUrl: url, Entries: [{ Id: "a", MessageBody: half }, { Id: "b", MessageBody: half + "x" }] }),
    (err) => err.name === "BatchRequestTooLong",
  );
});
