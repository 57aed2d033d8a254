// The floor of `Engine.dispatch`'s JS contract: JSON.stringify of the params and JSON.parse of the
// answers of one send → receive → delete cycle (and with the UTF-8 encoding and decoding that
// carry those texts across the wasm boundary), timed as if the engine took no time at all.
//
//   node bench/json-floor.mjs PKG_DIR [single|batch]
import { pathToFileURL } from "node:url";
const [pkg, work = "single"] = process.argv.slice(2);
const wasq = await import(pathToFileURL(pkg + "/entry/node.js").href);
await wasq.init();
const e = new wasq.Engine({ clock: new wasq.ManualClock(Date.parse("2026-01-01T00:00:00Z")), seed: 1 });
const url = e.dispatch("CreateQueue", { QueueName: "bench" }).QueueUrl;
const BODY = "x".repeat(100);
const batch = work === "batch";
const n = batch ? 10 : 1;
const entries = Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: BODY }));
const sendP = batch ? { QueueUrl: url, Entries: entries } : { QueueUrl: url, MessageBody: BODY };
const sent = e.dispatch(batch ? "SendMessageBatch" : "SendMessage", sendP);
const recvP = { QueueUrl: url, MaxNumberOfMessages: n };
const got = e.dispatch("ReceiveMessage", recvP);
const delP = batch
  ? { QueueUrl: url, Entries: got.Messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })) }
  : { QueueUrl: url, ReceiptHandle: got.Messages[0].ReceiptHandle };
const deleted = e.dispatch(batch ? "DeleteMessageBatch" : "DeleteMessage", delP);
const texts = [sent, got, deleted].map((o) => JSON.stringify(o));
const enc = new TextEncoder(), dec = new TextDecoder();
const buf = new Uint8Array(1 << 16);
function floor(withText) {
  let k = 0;
  for (const p of [sendP, recvP, delP]) {
    const s = JSON.stringify(p);
    if (withText) k += enc.encodeInto(s, buf).written;
  }
  for (const t of texts) {
    let s = t;
    if (withText) { const w = enc.encodeInto(t, buf).written; s = dec.decode(buf.subarray(0, w)); }
    k += JSON.parse(s) ? 1 : 0;
  }
  return k;
}
for (const withText of [false, true]) {
  const cycles = batch ? 40000 : 300000;
  for (let i = 0; i < cycles / 5; i++) floor(withText);
  const c0 = process.cpuUsage();
  for (let i = 0; i < cycles; i++) floor(withText);
  const c = process.cpuUsage(c0);
  const us = (c.user + c.system) / (cycles * n);
  console.log(`${work}: JSON ${withText ? "+ UTF-8 in and out " : ""}${us.toFixed(3)} µs/msg -> at most ${(1e6 / us).toFixed(0)} msg/s with a free engine`);
}
