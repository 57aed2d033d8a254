// Every action reaches the core one way: WasqCore.dispatch through its scratch buffer, by the one
// JS function src/io.js (dispatchText). Whatever the text's characters or size, it answers the
// engine's answer or throws the engine's error; the engine's internal operations take the same
// way only when flagged, so no caller of Engine.dispatch can name one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { START } from "./load.js";
import { internal } from "./internal.js";

const { Engine, ManualClock, WasqCore, dispatchText } = internal;

const MAX_BODY = 1_048_576;

/** Each call through the door on a fresh core: its answer (JSON text), or its error. */
function calls(t, list) {
  const core = new WasqCore({ seed: 11, persist: false }, undefined);
  t.after(() => core.free());
  return list.map(([action, params]) => {
    try {
      return { ok: dispatchText(core, START, action, JSON.stringify(params), undefined) };
    } catch (err) {
      return { err: { name: err.name, code: err.code, httpStatus: err.httpStatus, message: err.message } };
    }
  });
}

test("every UTF-8 length, a lone surrogate, refusals", (t) => {
  const url = "http://localhost:9324/000000000000/q";
  // A lone surrogate (a string cut inside a pair) reaches the core as a \ud800 escape.
  const bodies = ["plain", "é ü ß", "€ 中文", "😀 𝄞", "a\ud800b", "\ud83d", "x".repeat(1000), "\u0000"];
  const list = [["CreateQueue", { QueueName: "q" }]];
  for (const MessageBody of bodies) list.push(["SendMessage", { QueueUrl: url, MessageBody }]);
  list.push(["ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 10 }]);
  list.push(["SendMessage", { QueueUrl: `${url}-missing`, MessageBody: "x" }]);
  list.push(["NoSuchAction", {}]);
  list.push(["SendMessage", { QueueUrl: url }]);
  const answers = calls(t, list);
  const refused = answers.filter((a) => a.err).map((a) => a.err.name);
  assert.deepEqual(refused, [
    "InvalidMessageContents", // the two lone surrogates: characters SQS refuses (#xD800, #xD83D)
    "InvalidMessageContents",
    "InvalidMessageContents", // NUL
    "QueueDoesNotExist",
    "UnknownOperationException",
    "MissingRequiredParameterException",
  ]);
  // The MD5 the engine reports is of the UTF-8 bytes, and the bodies come back as sent.
  const sent = answers.slice(1, 1 + bodies.length);
  const accepted = bodies.filter((body, i) => {
    if (sent[i].err) return false;
    const md5 = createHash("md5").update(Buffer.from(body, "utf8")).digest("hex");
    assert.equal(JSON.parse(sent[i].ok).MD5OfMessageBody, md5, JSON.stringify(body));
    return true;
  });
  const received = JSON.parse(answers[1 + bodies.length].ok).Messages.map((m) => m.Body);
  assert.deepEqual(received.sort(), accepted.sort());
});

test("at the size limit: a 1 MiB body is taken, one byte more is refused, then small calls", (t) => {
  const url = "http://localhost:9324/000000000000/q";
  const answers = calls(t, [
    ["CreateQueue", { QueueName: "q" }],
    ["SendMessage", { QueueUrl: url, MessageBody: "y".repeat(MAX_BODY) }],
    ["SendMessage", { QueueUrl: url, MessageBody: "é".repeat(MAX_BODY / 2) }],
    ["SendMessage", { QueueUrl: url, MessageBody: "y".repeat(MAX_BODY + 1) }],
    ["SendMessage", { QueueUrl: url, MessageBody: "small" }],
    ["ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 10 }],
  ]);
  assert.ok(answers[1].ok && answers[2].ok, "exactly 1 MiB (1-byte and 2-byte characters) is accepted");
  assert.equal(answers[3].err?.name, "InvalidParameterValueException");
  const got = JSON.parse(answers[5].ok).Messages.map((m) => m.Body.length);
  assert.deepEqual(got.sort((a, b) => a - b), [5, MAX_BODY / 2, MAX_BODY]);
});

test("internal operations take the door only when flagged: Engine.dispatch cannot name them", (t) => {
  const core = new WasqCore({ seed: 11, persist: false }, undefined);
  t.after(() => core.free());
  const metrics = JSON.parse(dispatchText(core, START, "Metrics", "{}", undefined, true));
  assert.ok(metrics !== null && typeof metrics === "object");
  for (const op of ["Metrics", "ExportMessages", "ImportMessages", "RemoveMessages"]) {
    assert.throws(() => dispatchText(core, START, op, "{}", undefined), { name: "UnknownOperationException" }, op);
  }
  const engine = new Engine({ clock: new ManualClock(START), seed: 5 });
  t.after(() => engine.close());
  const { QueueUrl } = engine.createQueue({ QueueName: "kept" });
  engine.sendMessage({ QueueUrl, MessageBody: "stays" });
  for (const op of ["ExportMessages", "RemoveMessages", "ImportMessages"]) {
    assert.throws(() => engine.dispatch(op, { QueueUrl, MaxMessages: 10, Messages: [] }), { name: "UnknownOperationException" }, op);
  }
  assert.equal(engine.dispatch("ReceiveMessage", { QueueUrl }).Messages[0].Body, "stays");
});

test("Engine.dispatch keeps working while the wasm memory grows under it", () => {
  const engine = new Engine({ clock: new ManualClock(START), seed: 5 });
  const { QueueUrl } = engine.createQueue({ QueueName: "grow" });
  const memory = WasqCore.memory();
  const before = memory.buffer.byteLength;
  // Large bodies kept in the queue make the core grow its memory between and during calls:
  // more of them than the memory has room for already (earlier tests may have grown it).
  const body = (i) => `${i}:`.padEnd(256 * 1024, "z");
  const count = Math.ceil(before / (256 * 1024)) + 8;
  for (let i = 0; i < count; i++) engine.sendMessage({ QueueUrl, MessageBody: body(i) });
  assert.ok(memory.buffer.byteLength > before, "the memory grew");
  const seen = new Set();
  for (;;) {
    const { Messages = [] } = engine.dispatch("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 });
    if (Messages.length === 0) break;
    for (const m of Messages) {
      assert.equal(m.Body, body(Number(m.Body.split(":")[0])));
      seen.add(m.Body.split(":")[0]);
    }
  }
  assert.equal(seen.size, count);
  engine.close();
});

test("dispatch refuses lengths beyond its buffer instead of reading past it", (t) => {
  const core = new WasqCore({ seed: 1, persist: false }, undefined);
  t.after(() => core.free());
  core.ioBuffer(8);
  assert.throws(() => core.dispatch(START, 4, 100, undefined, false), RangeError);
});
