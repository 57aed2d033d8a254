// Parameters of the wrong JS type, through dispatch and the camelCase methods: each is refused
// with an SQS error (an Error with name, code and httpStatus), changes nothing and leaves the
// engine working. JSON alone would turn NaN and ±Infinity into null (an absent member) and throw
// on a BigInt; a non-string action name failed inside the text encoding.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setup } from "./load.js";

const serialization = (message) => ({ name: "SerializationException", code: "MalformedQueryString", httpStatus: 400, message });

/** The engine still sends and receives, and holds only what it held before plus that message. */
function assertWorks(engine, QueueUrl, before) {
  engine.sendMessage({ QueueUrl, MessageBody: "after" });
  const counts = engine.getQueueAttributes({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] });
  assert.equal(counts.Attributes.ApproximateNumberOfMessages, String(before + 1));
}

test("NaN and ±Infinity are refused for an integer member, not taken as absent", () => {
  for (const value of [NaN, Infinity, -Infinity]) {
    const { engine, QueueUrl } = setup();
    assert.throws(
      () => engine.sendMessage({ QueueUrl, MessageBody: "x", DelaySeconds: value }),
      serialization("Member DelaySeconds must be an integer."),
      String(value),
    );
    assert.throws(() => engine.dispatch("ReceiveMessage", { QueueUrl, VisibilityTimeout: value }), serialization("Member VisibilityTimeout must be an integer."));
    assert.throws(() => engine.dispatch("SendMessageBatch", { QueueUrl, Entries: [{ Id: "a", MessageBody: "x", DelaySeconds: value }] }), {
      code: "MalformedQueryString",
    });
    assertWorks(engine, QueueUrl, 0);
  }
});

test("NaN and Infinity are refused for string, map and list members", () => {
  const { engine, QueueUrl } = setup();
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: NaN }), serialization("Member MessageBody must be a string."));
  assert.throws(() => engine.sendMessage({ QueueUrl: Infinity, MessageBody: "x" }), serialization("Member QueueUrl must be a string."));
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "x", MessageAttributes: NaN }), serialization("Member MessageAttributes must be an object."));
  assert.throws(() => engine.sendMessageBatch({ QueueUrl, Entries: Infinity }), serialization("Member Entries must be a list."));
  assertWorks(engine, QueueUrl, 0);
});

test("a long poll with WaitTimeSeconds: Infinity is refused instead of waiting forever", async () => {
  const { engine, QueueUrl } = setup();
  await assert.rejects(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: Infinity }), serialization("Member WaitTimeSeconds must be an integer."));
  await assert.rejects(engine.receiveMessage({ QueueUrl, WaitTimeSeconds: NaN }), serialization("Member WaitTimeSeconds must be an integer."));
  assertWorks(engine, QueueUrl, 0);
});

test("a BigInt is the integer it holds", async () => {
  const { clock, engine, QueueUrl } = setup();
  engine.sendMessage({ QueueUrl, MessageBody: "x", DelaySeconds: 5n });
  assert.equal((await engine.receiveMessage({ QueueUrl })).Messages, undefined);
  clock.advance(5000);
  const [m] = (await engine.receiveMessage({ QueueUrl, MaxNumberOfMessages: 10n, VisibilityTimeout: 0n })).Messages;
  assert.equal(m.Body, "x");
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "x", DelaySeconds: 901n }), { code: "InvalidParameterValue", message: /^Value 901 for parameter DelaySeconds is invalid/ });
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: 1n }), serialization("Member MessageBody must be a string."));
  // A long poll on an empty queue waits the BigInt's seconds (this threw a TypeError, mixing BigInt and number).
  engine.deleteMessage({ QueueUrl, ReceiptHandle: m.ReceiptHandle });
  const poll = engine.receiveMessage({ QueueUrl, WaitTimeSeconds: 2n });
  clock.advance(2000);
  assert.deepEqual(await poll, {});
});

test("parameters that are a function or a symbol are refused like any non-object", () => {
  const { engine, QueueUrl } = setup();
  for (const params of [() => 1, Symbol("s")]) {
    assert.throws(() => engine.dispatch("SendMessage", params), serialization("Start of structure or map expected."));
    assert.throws(() => engine.sendMessage(params), serialization("Start of structure or map expected."));
  }
  assertWorks(engine, QueueUrl, 0);
});

test("an action name that is not a string is an unknown action", () => {
  const { engine, QueueUrl } = setup();
  for (const [action, shown] of [
    [1, "1"],
    [null, "null"],
    [undefined, "undefined"],
    [true, "true"],
    [10n, "10"],
    [Symbol("s"), "Symbol(s)"],
    [{}, "[object Object]"],
    [["SendMessage"], "[object Array]"],
    [() => "SendMessage", "[object Function]"],
  ]) {
    assert.throws(() => engine.dispatch(action, { QueueUrl, MessageBody: "x" }), {
      name: "UnknownOperationException",
      code: "InvalidAction",
      httpStatus: 400,
      message: `The action ${shown} is not valid for this endpoint.`,
    });
  }
  assertWorks(engine, QueueUrl, 0);
});

test("a string that reads null is still a string (the replacer path changes nothing else)", () => {
  const { engine, QueueUrl } = setup();
  engine.sendMessage({ QueueUrl, MessageBody: "null", MessageAttributes: { n: { DataType: "String", StringValue: "null" } } });
  engine.sendMessage({ QueueUrl, MessageBody: "x", DelaySeconds: null });
  assertWorks(engine, QueueUrl, 2);
});

test("peek, setRealism and realismFor refuse a non-string queue URL or region with a TypeError, not a wasm trap", () => {
  const { engine, QueueUrl } = setup();
  for (const value of [5, {}, [], () => 1, 1n, null]) {
    assert.throws(() => engine.peek(value), TypeError);
    if (value !== null) {
      assert.throws(() => engine.setRealism(QueueUrl, "aws", { region: value }), TypeError);
      assert.throws(() => engine.realismFor(QueueUrl, { region: value }), TypeError);
    }
  }
  // Nothing was set, and the engine works.
  assert.equal(engine.realismFor(QueueUrl).duplicateDelivery, engine.realismFor("other").duplicateDelivery);
  assert.equal(engine.peek(QueueUrl).messages?.length ?? 0, 0);
  assertWorks(engine, QueueUrl, 0);
});
