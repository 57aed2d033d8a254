// The Worker routes and splits requests before any engine sees them, so it must agree with the
// engine on which actions exist, which attributes a queue copy can be given, and which batches
// only one engine may answer. It reads all of that from the core (worker/facts.js); these tests
// hold the core's answers against what the engine actually does, so neither side can drift.
import { test } from "node:test";
import assert from "node:assert/strict";
import { internal } from "./internal.js";

const { Engine, ManualClock, ACTIONS, engineFacts, batchIdsValid } = internal;

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

test("the wrapper's action list is the engine's, and every action answers", () => {
  const { actions, messageActions } = engineFacts();
  assert.deepEqual([...ACTIONS].sort(), [...actions].sort());
  for (const action of messageActions) assert.ok(actions.has(action), action);
  const e = engine();
  // Whatever else an action says to no parameters, the engine knows it.
  const known = (action) => {
    try {
      e.dispatch(action, {});
    } catch (err) {
      return err.name !== "UnknownOperationException";
    }
    return true;
  };
  for (const action of actions) assert.ok(known(action), action);
  assert.equal(known("SendMessages"), false);
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
