// Engine.dispatch reaches the core through its scratch buffer (WasqCore.dispatchIo, src/io.js),
// not through the bindings' string passing (WasqCore.dispatch). The two must be one behaviour:
// the same answers byte for byte, the same errors, whatever the text's characters or size.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { START } from "./load.js";
import { internal } from "./internal.js";

const { Engine, ManualClock, WasqCore, dispatchText } = internal;

const MAX_BODY = 1_048_576;

/** Each call on two same-seeded cores, one per path: equal answers, or equal errors. */
function bothPaths(t, calls) {
  const plain = new WasqCore({ seed: 11, persist: false }, undefined);
  const io = new WasqCore({ seed: 11, persist: false }, undefined);
  t.after(() => {
    plain.free();
    io.free();
  });
  const run = (f) => {
    try {
      return { ok: f() };
    } catch (err) {
      return { err: { name: err.name, code: err.code, httpStatus: err.httpStatus, message: err.message } };
    }
  };
  const answers = [];
  for (const [action, params] of calls) {
    const json = JSON.stringify(params);
    const a = run(() => plain.dispatch(START, action, json, undefined));
    const b = run(() => dispatchText(io, START, action, json, undefined));
    assert.deepEqual(b, a, `${action} ${json.slice(0, 80)}`);
    answers.push(a);
  }
  return answers;
}

test("both paths answer alike: every UTF-8 length, a lone surrogate, refusals", (t) => {
  const url = "http://localhost:9324/000000000000/q";
  // A lone surrogate (a string cut inside a pair) reaches the core as a \ud800 escape.
  const bodies = ["plain", "é ü ß", "€ 中文", "😀 𝄞", "a\ud800b", "\ud83d", "x".repeat(1000), "\u0000"];
  const calls = [["CreateQueue", { QueueName: "q" }]];
  for (const MessageBody of bodies) calls.push(["SendMessage", { QueueUrl: url, MessageBody }]);
  calls.push(["ReceiveMessage", { QueueUrl: url, MaxNumberOfMessages: 10 }]);
  calls.push(["SendMessage", { QueueUrl: `${url}-missing`, MessageBody: "x" }]);
  calls.push(["NoSuchAction", {}]);
  calls.push(["SendMessage", { QueueUrl: url }]);
  const answers = bothPaths(t, calls);
  const refused = answers.filter((a) => a.err).map((a) => a.err.name);
  assert.deepEqual(refused, [
    "InvalidMessageContents", // the two lone surrogates: characters SQS refuses (#xD800, #xD83D)
    "InvalidMessageContents",
    "InvalidMessageContents", // NUL
    "QueueDoesNotExist",
    "UnknownOperationException",
    "MissingRequiredParameterException",
  ]);
  // Sanity: the MD5 the engine reports is of the UTF-8 bytes (a lone surrogate as U+FFFD).
  const sent = answers.slice(1, 1 + bodies.length);
  bodies.forEach((body, i) => {
    if (sent[i].err) return;
    const md5 = createHash("md5").update(Buffer.from(body, "utf8")).digest("hex");
    assert.equal(JSON.parse(sent[i].ok).MD5OfMessageBody, md5, JSON.stringify(body));
  });
});

test("both paths at the size limit: a 1 MiB body is taken, one byte more is refused, then small calls", (t) => {
  const url = "http://localhost:9324/000000000000/q";
  const answers = bothPaths(t, [
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

test("dispatchIo refuses lengths beyond its buffer instead of reading past it", (t) => {
  const core = new WasqCore({ seed: 1, persist: false }, undefined);
  t.after(() => core.free());
  core.ioBuffer(8);
  assert.throws(() => core.dispatchIo(START, 4, 100, undefined), RangeError);
});
