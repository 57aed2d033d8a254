// DurableObjectStorage inside real workerd (miniflare), with SQLite-backed storage persisted to
// a directory so "reopen" is a fresh runtime reading what the last one wrote.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { DurableObjectStorage } from "./adapters.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");

function start(persistDir) {
  return new Miniflare({
    modules: true,
    modulesRoot: repo,
    // The workerd entry imports the wasm as a compiled module, as Workers do.
    modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
    scriptPath: path.join(here, "do-worker.js"),
    compatibilityDate: "2026-07-30",
    durableObjects: { STORE: { className: "Store", useSQLite: true } },
    durableObjectsPersist: persistDir,
  });
}

async function call(mf, what, body) {
  const res = await mf.dispatchFetch(`http://do/${what}`, {
    method: body ? "POST" : "GET",
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

const b = (text) => [...new TextEncoder().encode(text)];

test("DurableObjectStorage round-trips batches atomically in workerd and across restarts", async () => {
  const persist = fs.mkdtempSync(path.join(os.tmpdir(), "wasq-do-"));
  let mf = start(persist);
  try {
    assert.deepEqual((await call(mf, "load")).body, {});
    const all = Array.from({ length: 256 }, (_, i) => i);
    assert.equal((await call(mf, "commit", { put: [["q/a", b("queue")], ["m/1", all]], del: [] })).status, 200);
    assert.equal((await call(mf, "commit", { put: [["m/2", []], ["m/1", b("x")]], del: ["q/a"] })).status, 200);
    const foreign = await call(mf, "foreign");
    assert.equal(foreign.body.durability, "full");
    assert.deepEqual((await call(mf, "load")).body, { "m/1": b("x"), "m/2": [] });

    // The fixture's kv.put throws for a key ending in "boom": the last put of this batch fails,
    // so transactionSync must roll back the earlier put of the same batch.
    const failed = await call(mf, "commit", { put: [["m/1", b("changed")], ["m/3", b("3")], ["boom", b("!")]], del: [] });
    assert.equal(failed.status, 500, JSON.stringify(failed.body));
    assert.equal(failed.body.message, "injected write failure");
    assert.deepEqual((await call(mf, "load")).body, { "m/1": b("x"), "m/2": [] }, "failed batch left nothing");

    await mf.dispose();
    mf = start(persist);
    assert.deepEqual((await call(mf, "load")).body, { "m/1": b("x"), "m/2": [] }, "state survives a restart");
  } finally {
    await mf.dispose();
    fs.rmSync(persist, { recursive: true, force: true });
  }
});

test("DurableObjectStorage refuses storage without the synchronous API", () => {
  assert.throws(() => new DurableObjectStorage({ get() {}, put() {} }), /SQLite-backed Durable Object/);
  assert.throws(() => new DurableObjectStorage(undefined), TypeError);
});
