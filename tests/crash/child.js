// One life of the crash workload: an Engine on FileStorage, driven by JSON commands on stdin.
// After each call returns it writes one ack line to stdout (with the log's size, so the parent
// knows which bytes are acknowledged). The parent kills this process with SIGKILL at will.
//
// argv: <dir> <startMs> [compactMinBytes]
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { Engine, ManualClock, FileStorage } from "../../pkg/entry/node.js";

const [dir, startArg, compactArg] = process.argv.slice(2);
const clock = new ManualClock(Number(startArg));
const storage = new FileStorage(dir, {
  ...(compactArg && { compactMinBytes: Number(compactArg), compactRatio: 2 }),
});
// A fixed seed: receipt handles are derived from it, and the engine does not (yet) persist a
// drawn seed, so without one every handle issued before a crash would be invalid after it.
const engine = new Engine({ clock, storage, seed: 20240601 });
const logPath = path.join(dir, "wasq.log");

function reply(obj) {
  obj.logBytes = fs.statSync(logPath).size;
  obj.now = clock.now();
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

function errorOf(err) {
  return { name: err?.name, code: err?.code ?? err?.name, message: String(err?.message ?? err) };
}

async function run(cmd) {
  switch (cmd.op) {
    case "call":
      return cmd.action === "ReceiveMessage"
        ? await engine.receiveMessage(cmd.params)
        : engine.dispatch(cmd.action, cmd.params);
    case "advance":
      clock.advance(cmd.ms);
      return {};
    case "peek":
      return engine.peek(cmd.queueUrl);
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

reply({ ready: true, recovery: storage.recovery });
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  try {
    reply({ id: cmd.id, ok: true, result: await run(cmd) });
  } catch (err) {
    reply({ id: cmd.id, ok: false, error: errorOf(err) });
  }
}
engine.close();
