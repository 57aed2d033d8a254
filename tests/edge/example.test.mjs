// The deployable example (examples/edge/) and the paths docs/edge.md sends readers to. The example
// was deleted by an unrelated commit (fc095e4) while docs/edge.md kept pointing at it — "Example
// deployment: `examples/edge/`", "set in `examples/edge/wrangler.toml`" — and no test noticed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from "./harness.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (p) => readFileSync(join(ROOT, p), "utf8");

test("every repository path docs/edge.md and the example's README name exists", () => {
  for (const doc of ["docs/edge.md", "examples/edge/README.md"]) {
    const paths = read(doc).match(/\b(?:examples|src|tests|scripts|pkg-template|docs|benches)\/[\w./-]*[\w/]/g) ?? [];
    assert.ok(paths.length > 0, doc);
    for (const p of new Set(paths)) assert.ok(existsSync(join(ROOT, p)), `${doc} names ${p}, which does not exist`);
  }
});

test("examples/edge deploys what the tests run: same compatibility date and flags, both classes as SQLite objects", () => {
  const toml = read("examples/edge/wrangler.toml");
  assert.match(toml, /^main = "worker\.js"$/m);
  assert.equal(toml.match(/^compatibility_date = "([^"]+)"$/m)?.[1], COMPATIBILITY_DATE);
  const flags = JSON.parse(toml.match(/^compatibility_flags = (\[.*\])$/m)?.[1] ?? "[]");
  // Without enable_request_signal an abandoned long poll keeps waiting in its object and takes
  // the next message (docs/edge.md, "Abandoned long polls").
  assert.deepEqual(flags.toSorted(), [...COMPATIBILITY_FLAGS].toSorted());
  for (const [binding, cls] of [["WASQ_QUEUE", "WasqQueue"], ["WASQ_DIRECTORY", "WasqDirectory"]]) {
    assert.match(toml, new RegExp(`name = "${binding}"\\s*\\nclass_name = "${cls}"`));
  }
  assert.match(toml, /new_sqlite_classes = \["WasqQueue", "WasqDirectory"\]/);
  assert.match(read("examples/edge/worker.js"), /export \{ default, WasqQueue, WasqDirectory \} from "wasq\/worker";/);
  const pkg = JSON.parse(read("examples/edge/package.json"));
  assert.equal(pkg.dependencies.wasq, "file:../../pkg");
  // `npm run dev` / `npm run deploy` need no global wrangler (example-wrangler.test.mjs runs it).
  assert.ok(pkg.devDependencies?.wrangler, "wrangler is a devDependency");
  assert.deepEqual(pkg.scripts, { dev: "wrangler dev", deploy: "wrangler deploy" });
  // `wrangler dev` answers 500 without the signing secrets: the example says where they go.
  const vars = read("examples/edge/.dev.vars.example");
  assert.match(vars, /^WASQ_ACCESS_KEY_ID=\S+$/m);
  assert.match(vars, /^WASQ_SECRET_ACCESS_KEY=\S+$/m);
  for (const doc of ["docs/edge.md", "examples/edge/README.md"]) assert.match(read(doc), /\.dev\.vars/, doc);
});
