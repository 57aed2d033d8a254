// What a project's existing test setup brings along when it adds wasq: globals that differ from
// plain Node's (Jest's jsdom environment), fake timers. Each case runs the built package the way
// the framework would, in a child process or a vm context, without the framework itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { pkgDir } from "./load.js";

// jest-environment-jsdom gives each test file a jsdom window as its globals, and that window has
// no TextDecoder/TextEncoder: the wasm glue builds both at load, so loading wasq threw
// "ReferenceError: TextDecoder is not defined". The Node entries now define the missing ones
// before the glue runs; both (require and import) are checked with the two names removed.
for (const [kind, load] of [
  ["require (entry/node.cjs)", `require(${JSON.stringify(pkgDir + "entry/node.cjs")})`],
  ["import (entry/node.js)", `await import(${JSON.stringify(pkgDir + "entry/node.js")})`],
]) {
  test(`${kind} loads and runs in a global scope without TextDecoder/TextEncoder (Jest's jsdom)`, () => {
    const script = `
      delete globalThis.TextDecoder;
      delete globalThis.TextEncoder;
      (async () => {
        const { Engine, ManualClock } = ${load};
        const engine = new Engine({ clock: new ManualClock(0) });
        const { QueueUrl } = engine.createQueue({ QueueName: "q" });
        engine.sendMessage({ QueueUrl, MessageBody: "héllo ✓" });
        const { Messages } = await engine.receiveMessage({ QueueUrl });
        engine.close();
        process.stdout.write(Messages[0].Body + " " + typeof TextDecoder);
      })().catch((err) => { console.error(err); process.exit(1); });
    `;
    const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8" });
    assert.equal(out, "héllo ✓ function");
  });
}

test("a global scope that has its own TextDecoder keeps it", () => {
  const script = `
    class Own extends TextDecoder {}
    globalThis.TextDecoder = Own;
    require(${JSON.stringify(pkgDir + "entry/node.cjs")});
    process.stdout.write(String(globalThis.TextDecoder === Own));
  `;
  assert.equal(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }), "true");
});
