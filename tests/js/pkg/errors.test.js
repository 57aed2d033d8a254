import { test } from "node:test";
import assert from "node:assert/strict";
import { wasq, setup, START } from "./load.js";

const { Engine, ManualClock } = wasq;

test("SQS errors are real Error objects with name, code, httpStatus and the exact message", () => {
  const { engine } = setup();
  let caught;
  try {
    engine.sendMessage({ QueueUrl: "http://localhost:9324/000000000000/missing", MessageBody: "x" });
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, "QueueDoesNotExist");
  assert.equal(caught.code, "AWS.SimpleQueueService.NonExistentQueue");
  assert.equal(caught.httpStatus, 400);
  assert.equal(caught.message, "The specified queue does not exist.");
  assert.match(caught.stack, /QueueDoesNotExist/);
});

test("validation errors carry the SQS shape and change nothing", () => {
  const { engine, QueueUrl } = setup();
  const events = [];
  engine.on("event", (e) => events.push(e));
  assert.throws(() => engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 11 }), {
    name: "InvalidParameterValueException",
    code: "InvalidParameterValue",
    httpStatus: 400,
    message: "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.",
  });
  assert.throws(() => engine.dispatch("SendMessageBatch", { QueueUrl, Entries: [] }), {
    name: "EmptyBatchRequest",
    code: "AWS.SimpleQueueService.EmptyBatchRequest",
  });
  assert.deepEqual(events, []);
});

test("an unknown action is UnknownOperationException", () => {
  const { engine } = setup();
  assert.throws(() => engine.dispatch("LaunchRockets", {}), {
    name: "UnknownOperationException",
    code: "InvalidAction",
    httpStatus: 400,
    message: "The action LaunchRockets is not valid for this endpoint.",
  });
});

test("bad constructor options and clock readings throw TypeError/RangeError, not strings", () => {
  assert.throws(() => new Engine({ seed: -1 }), RangeError);
  assert.throws(() => new Engine({ seed: 1.5 }), RangeError);
  assert.throws(() => new Engine({ seed: "1" }), TypeError);
  assert.throws(() => new Engine({ region: 5 }), TypeError);
  assert.throws(() => new Engine({ clock: {} }), TypeError);
  assert.throws(() => new Engine({ storage: {} }), TypeError);
  const e = new Engine({ seed: 2n ** 64n - 1n, clock: { now: () => Number.NaN } });
  assert.throws(() => e.createQueue({ QueueName: "q" }), RangeError);
  assert.throws(() => new Engine({ seed: 2n ** 64n }), RangeError);
});

test("a refused number is shown as JS shows it", () => {
  assert.throws(() => new Engine({ seed: 1.5 }), { name: "RangeError", message: /got 1\.5$/ });
  assert.throws(() => new Engine({ standardInflightLimit: -Infinity }), { message: /got -Infinity$/ });
  assert.throws(() => new Engine({ seed: 2 ** 80 }), { message: /got 1\.2089258196146292e\+24$/ });
  const e = new Engine({ clock: { now: () => -0.5 } });
  assert.throws(() => e.createQueue({ QueueName: "q" }), { name: "RangeError", message: /got -0\.5$/ });
  e.close();
});

test("ManualClock refuses to go backwards", () => {
  const clock = new ManualClock(START);
  assert.throws(() => clock.set(START - 1), RangeError);
  assert.throws(() => clock.advance(-5), RangeError);
  clock.advance(5);
  assert.equal(clock.now(), START + 5);
});
