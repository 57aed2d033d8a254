// Inputs at the edge of what JS can hand the engine: a string holding a lone UTF-16 surrogate,
// and clock readings past what the engine takes (issue #31, item 11).
import { test } from "node:test";
import assert from "node:assert/strict";
import { wasq, setup, START } from "./load.js";

const { Engine, ManualClock } = wasq;

const ALLOWED = "#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]";

test("a body with a lone surrogate is InvalidMessageContents naming it, through dispatch and sendMessage", () => {
  const { engine, QueueUrl } = setup();
  const expected = {
    name: "InvalidMessageContents",
    code: "InvalidMessageContents",
    httpStatus: 400,
    message: `Invalid binary character '#xD800' was found in the message body, the set of allowed characters is ${ALLOWED}.`,
  };
  assert.throws(() => engine.dispatch("SendMessage", { QueueUrl, MessageBody: "a\uD800b" }), expected);
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "a\uD800b" }), expected);
  // A low one alone, at the end.
  assert.throws(() => engine.sendMessage({ QueueUrl, MessageBody: "x\uDC01" }), { name: "InvalidMessageContents", message: /'#xDC01'/ });
  assert.equal(engine.peek(QueueUrl).messages.length, 0);
  // A pair is one character, and is kept.
  engine.sendMessage({ QueueUrl, MessageBody: "ok \uD83D\uDE00" });
  assert.equal(engine.peek(QueueUrl).messages[0].body, "ok 😀");
});

test("a lone surrogate fails only its own batch entry, and an attribute value names it too", () => {
  const { engine, QueueUrl } = setup();
  const out = engine.sendMessageBatch({
    QueueUrl,
    Entries: [
      { Id: "good", MessageBody: "fine" },
      { Id: "bad", MessageBody: "\uD83Dx" },
    ],
  });
  assert.deepEqual(out.Successful.map((e) => e.Id), ["good"]);
  assert.equal(out.Failed.length, 1);
  assert.equal(out.Failed[0].Id, "bad");
  assert.equal(out.Failed[0].Code, "InvalidMessageContents");
  assert.match(out.Failed[0].Message, /'#xD83D'/);
  assert.throws(
    () =>
      engine.sendMessage({
        QueueUrl,
        MessageBody: "x",
        MessageAttributes: { a: { DataType: "String", StringValue: "v\uDFFF" } },
      }),
    { name: "InvalidParameterValueException", message: /'#xDFFF'/ },
  );
  assert.equal(engine.peek(QueueUrl).messages.length, 1);
});

test("ManualClock refuses a time past what the engine takes before changing anything", () => {
  const { clock, engine, QueueUrl } = setup();
  for (const bad of [1e300, Number.MAX_SAFE_INTEGER, NaN, -1, Infinity]) {
    assert.throws(() => clock.advance(bad), RangeError, `advance(${bad})`);
    assert.equal(clock.now(), START, `advance(${bad}) left the clock alone`);
  }
  for (const bad of [1e300, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity]) {
    assert.throws(() => clock.set(bad), RangeError, `set(${bad})`);
    assert.equal(clock.now(), START);
  }
  assert.throws(() => new ManualClock(1e300), RangeError);
  // The engine is untouched and still runs on the clock.
  engine.sendMessage({ QueueUrl, MessageBody: "after", DelaySeconds: 5 });
  clock.advance(5_000);
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "after");
  // The last millisecond the engine takes is still a time.
  const edge = new ManualClock(0);
  const e2 = new Engine({ clock: edge, seed: 1 });
  edge.set(Number.MAX_SAFE_INTEGER);
  e2.createQueue({ QueueName: "edge" });
  e2.close();
  engine.close();
});
