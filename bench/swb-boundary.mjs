// JSON text against serde-wasm-bindgen across the wasm boundary, end to end from JS: the same
// engine calls with their parameters and answers as JSON text (JSON.stringify → the UTF-8 copy
// io.js makes → the engine's reader; its writer → JSON.parse), as the package does, or as JS
// values (`serde_wasm_bindgen::from_value` / `to_value` with the JSON-compatible serializer).
// Cases: SendMessage (two message attributes), ReceiveMessage (10 messages with every attribute),
// GetQueueAttributes (All), peek() of 0, 10 and 1,000 messages, event batches of 1, 10 and 100.
//
// The serde-wasm-bindgen methods exist only in a build with the `bench-swb` feature:
//
//   WASQ_PKG_OUT=target/bench-swb/pkg WASQ_PKG_FEATURES=bench-swb scripts/build-pkg.sh
//   cp target/wasq-bindgen/wasq.js target/bench-swb/
//   $(scripts/ensure-node.sh)/node bench/swb-boundary.mjs target/bench-swb [rounds]
//
// CPU time (process.cpuUsage), the variants alternating in short rounds (which goes first
// alternates too); per case the median µs per call of each and the median of the per-round
// ratios. peek exists only as JSON text, and GetQueueAttributes is taken as the wire's JSON text, so
// their serde-wasm-bindgen variant first reads that text into a `Value`; that step is timed alone in
// the same rounds and taken out ("swb, net"), which is what a typed `to_value` would cost at best.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { deepStrictEqual } from "node:assert";
import { dispatchText } from "../pkg-template/src/io.js";

const [dir = "target/bench-swb", roundsArg = "25"] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const glue = await import(pathToFileURL(`${dir}/wasq.js`).href);
glue.initSync({ module: readFileSync(`${dir}/pkg/wasq_bg.wasm`) });
const { WasqCore } = glue;

const core = new WasqCore({ seed: 7, persist: false }, undefined);
core.setEventFeed(false);
let now = Date.parse("2026-01-01T00:00:00Z");
const json = (action, params) => {
  // As Engine.dispatch writes parameters (paramsJson) and reads the answer.
  let text = JSON.stringify(params);
  if (text.includes("null")) text = JSON.stringify(params, (_k, v) => v);
  return JSON.parse(dispatchText(core, now, action, text, undefined));
};
const url = (name) => json("CreateQueue", { QueueName: name }).QueueUrl;
const attrs = { Kind: { DataType: "String", StringValue: "order" }, Amount: { DataType: "Number", StringValue: "42" } };
const body = "x".repeat(200);

const sendQ = url("send");
const sendP = { QueueUrl: sendQ, MessageBody: body, MessageAttributes: attrs };
const recvQ = url("recv");
for (let i = 0; i < 10; i++) json("SendMessage", { QueueUrl: recvQ, MessageBody: body, MessageAttributes: attrs });
const recvP = { QueueUrl: recvQ, MaxNumberOfMessages: 10, VisibilityTimeout: 0, AttributeNames: ["All"], MessageAttributeNames: ["All"] };
const gqaP = { QueueUrl: recvQ, AttributeNames: ["All"] };
const peekQ = {};
for (const n of [0, 10, 1000]) {
  peekQ[n] = url(`peek${n}`);
  for (let i = 0; i < n; i++) json("SendMessage", { QueueUrl: peekQ[n], MessageBody: body });
}

// Each case: [name, json variant, swb variant, optional [with the Value step, without it]].
const cases = [
  ["SendMessage", () => json("SendMessage", sendP), () => core.swbSend(now, sendP)],
  ["ReceiveMessage, 10 messages", () => json("ReceiveMessage", recvP), () => core.swbReceive(now, recvP)],
  [
    "GetQueueAttributes (All)",
    () => json("GetQueueAttributes", gqaP),
    () => core.swbDispatch(now, "GetQueueAttributes", gqaP),
    [() => core.swbDispatchRustOnly(now, "GetQueueAttributes", gqaP, true), () => core.swbDispatchRustOnly(now, "GetQueueAttributes", gqaP, false)],
  ],
  ...[0, 10, 1000].map((n) => [
    `peek(), ${n} messages`,
    () => JSON.parse(core.peek(now, peekQ[n], undefined)),
    () => core.swbPeek(now, peekQ[n]),
    [() => core.swbPeekRustOnly(now, peekQ[n], true), () => core.swbPeekRustOnly(now, peekQ[n], false)],
  ]),
  ...[1, 10, 100].map((n) => [
    `events, batch of ${n}`,
    () => JSON.parse(WasqCore.stagedEventsJson()),
    () => WasqCore.stagedEventsValue(),
    undefined,
    () => WasqCore.stageEvents(n),
  ]),
];

function cpu(fn, k) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < k; i++) fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / k;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`| case | JSON text µs | swb µs | swb, net µs | swb / JSON (median of ${ROUNDS} rounds) |`);
console.log("|---|---:|---:|---:|---:|");
for (const [name, viaJson, viaSwb, valueStep, setup] of cases) {
  setup?.();
  // The two variants must hand JS the same thing, but for what each call mints anew.
  const minted = new Set(["MessageId", "ReceiptHandle", "ApproximateReceiveCount"]);
  const same = (x) => JSON.parse(JSON.stringify(x, (k, v) => (minted.has(k) ? "*" : v)));
  deepStrictEqual(same(viaSwb()), same(viaJson()));
  // Short rounds: as many calls as take ~10 ms.
  let k = 1;
  while (cpu(viaJson, k) * k < 10_000) k *= 2;
  const rows = { json: [], swb: [], net: [], ratio: [], netRatio: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [viaSwb, viaJson] : [viaJson, viaSwb];
    const t = new Map(order.map((fn) => [fn, cpu(fn, k)]));
    const [j, s] = [t.get(viaJson), t.get(viaSwb)];
    rows.json.push(j);
    rows.swb.push(s);
    rows.ratio.push(s / j);
    if (valueStep) {
      const net = s - (cpu(valueStep[0], k) - cpu(valueStep[1], k));
      rows.net.push(net);
      rows.netRatio.push(net / j);
    }
  }
  const f = (x) => x.toFixed(x < 10 ? 2 : 1);
  const net = valueStep ? f(median(rows.net)) : "—";
  const ratio = valueStep ? `${median(rows.ratio).toFixed(2)} (net ${median(rows.netRatio).toFixed(2)})` : median(rows.ratio).toFixed(2);
  console.log(`| ${name} | ${f(median(rows.json))} | ${f(median(rows.swb))} | ${net} | ${ratio} |`);
}
