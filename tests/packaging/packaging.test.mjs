// One tiny consumer per runtime, each importing the PACKED tarball (`npm pack pkg/`) by its
// package name, so the exports conditions, the `files` list and every entry's wasm loading are
// what is tested — not the sources.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const bin = (name) => join(repo, "node_modules", ".bin", name);
let work;
let tarball;

/** A fresh project directory with the packed package installed as node_modules/wasq. */
function project(name) {
  const dir = join(work, name);
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", dir]);
  renameSync(join(dir, "package"), join(dir, "node_modules", "wasq"));
  return dir;
}

before(() => {
  if (!existsSync(join(repo, "pkg", "package.json"))) throw new Error("no built package: run `make pkg` first");
  work = mkdtempSync(join(tmpdir(), "wasq-packaging-"));
  const out = JSON.parse(execFileSync("npm", ["pack", join(repo, "pkg"), "--pack-destination", work, "--json"], { encoding: "utf8" }));
  tarball = join(work, out[0].filename);
});

after(() => rmSync(work, { recursive: true, force: true }));

test("the tarball holds the entries, the wasm and the types, and nothing from the build", () => {
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").map((f) => f.replace(/^package\//, ""));
  for (const f of ["package.json", "README.md", "index.d.ts", "index.d.cts", "wasq_bg.wasm",
    "entry/node.js", "entry/node.cjs", "entry/browser.js", "entry/workerd.js", "chunks/workerd.js",
    "worker/index.js", "bin/wasq.mjs",
    // The playground page (`npx wasq serve` serves it at /), its element (`wasq/playground`) with
    // the stylesheet module that make pkg generates for it, and the bundles' source maps.
    "www/index.html", "www/app.js", "www/loader.js", "www/element.js", "www/style.css.js", "entry/node.cjs.map", "entry/browser.js.map", "chunks/workerd.js.map"]) {
    assert.ok(files.includes(f), `missing ${f}`);
  }
  // Each runtime's JS is bundled: the template's modules (src/, worker/'s other files, the raw
  // wasm-bindgen glue) are not shipped, so nothing can load a second copy of one of them.
  assert.ok(!files.some((f) => f.startsWith("entry-src/")), "build-only sources are not shipped");
  assert.ok(!files.some((f) => f.startsWith("src/")), "src/ is bundled, not shipped");
  assert.ok(!files.includes("wasq.js"), "the glue is bundled, not shipped");
  assert.ok(!files.some((f) => f.startsWith("internal/")), "the tests' internal bundle is not shipped");
  assert.deepEqual(files.filter((f) => f.startsWith("worker/")).sort(), ["worker/index.d.ts", "worker/index.js", "worker/index.js.map"]);
  const pkg = JSON.parse(readFileSync(join(repo, "pkg", "package.json"), "utf8"));
  const conditions = Object.keys(pkg.exports["."]);
  assert.ok(conditions.indexOf("workerd") < conditions.indexOf("browser"), "workerd must come before browser");
  assert.equal(conditions.at(-1), "default");
});

test("Node ESM consumer", () => {
  const dir = project("node-esm");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  copyFileSync(join(fixtures, "node-esm.mjs"), join(dir, "index.mjs"));
  const out = JSON.parse(execFileSync("node", ["index.mjs"], { cwd: dir, encoding: "utf8" }));
  assert.deepEqual(out, {
    body: "from esm",
    same: true,
    error: { isError: true, name: "QueueDoesNotExist", code: "AWS.SimpleQueueService.NonExistentQueue" },
    oneCopy: true,
  });
});

test("Node CommonJS consumer", () => {
  const dir = project("node-cjs");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "commonjs" }));
  copyFileSync(join(fixtures, "node-cjs.cjs"), join(dir, "index.cjs"));
  const out = JSON.parse(execFileSync("node", ["index.cjs"], { cwd: dir, encoding: "utf8" }));
  // The bundles are minified without --keep-names: the public names come from src/names.js.
  assert.deepEqual(out, { body: "from cjs", md5: true, status: 200, names: "init,Engine,ManualClock,createRequestHandler" });
});

test("TypeScript consumer type-checks against index.d.ts (and a wrong one does not)", () => {
  const dir = project("typescript");
  const tsconfig = (file) => ({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom"], skipLibCheck: false, types: [] },
    files: [file],
  });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  copyFileSync(join(fixtures, "consumer.ts"), join(dir, "consumer.ts"));
  copyFileSync(join(fixtures, "consumer-bad.ts"), join(dir, "consumer-bad.ts"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig("consumer.ts")));
  writeFileSync(join(dir, "tsconfig.bad.json"), JSON.stringify(tsconfig("consumer-bad.ts")));
  execFileSync(bin("tsc"), ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  let failure = "";
  try {
    execFileSync(bin("tsc"), ["-p", "tsconfig.bad.json"], { cwd: dir, encoding: "utf8" });
  } catch (err) {
    failure = String(err.stdout);
  }
  assert.match(failure, /noSuchMethod/);
  assert.match(failure, /consumer-bad.ts\(3,\d+\): error TS2322/, "a string seed is refused");
  assert.match(failure, /consumer-bad.ts\(7,\d+\): error TS2339: Property 'visibleAt'/, "peek's message states are typed");
});

// Typos must fail tsc, not the call at run time: the fixture's @ts-expect-error lines are the
// common mistakes (QueueURL, MessageBody: 1, an unknown action), and tsc itself fails on any of
// them that finds no error.
test("every action's parameters and result are typed: common mistakes fail tsc", () => {
  const dir = project("typescript-actions");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  copyFileSync(join(fixtures, "typed-actions.ts"), join(dir, "typed-actions.ts"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom"], types: [], skipLibCheck: false },
    files: ["typed-actions.ts"],
  }));
  try {
    execFileSync(bin("tsc"), ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  } catch (err) {
    assert.fail(String(err.stdout));
  }
});

test("index.d.ts type-checks in a Node project with no DOM lib (skipLibCheck off)", () => {
  const dir = project("typescript-node");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  copyFileSync(join(fixtures, "node-only.ts"), join(dir, "node-only.ts"));
  copyFileSync(join(fixtures, "node-globals.d.ts"), join(dir, "node-globals.d.ts"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022"], types: [], skipLibCheck: false },
    files: ["node-globals.d.ts", "node-only.ts"],
  }));
  try {
    execFileSync(bin("tsc"), ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  } catch (err) {
    assert.fail(String(err.stdout));
  }
});

test("the README's SQSClient({ requestHandler: createRequestHandler(engine) }) type-checks against the SDK's types", () => {
  const dir = project("typescript-sdk");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  // The SDK as the repo installed it (tsc follows the link to its real path, where its own
  // dependencies are).
  mkdirSync(join(dir, "node_modules", "@aws-sdk"), { recursive: true });
  symlinkSync(join(repo, "node_modules", "@aws-sdk", "client-sqs"), join(dir, "node_modules", "@aws-sdk", "client-sqs"), "dir");
  copyFileSync(join(fixtures, "sdk-handler.ts"), join(dir, "sdk-handler.ts"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    // skipLibCheck: the SDK's own declarations need @types/node, which is not what is tested.
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom"], types: [], skipLibCheck: true },
    files: ["sdk-handler.ts"],
  }));
  try {
    execFileSync(bin("tsc"), ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  } catch (err) {
    assert.fail(String(err.stdout));
  }
});

/** The core's action list, as the built package's wasm answers it (src/facts.js). */
async function coreActions() {
  const { engineFacts } = await import(join(repo, "pkg", "internal", "node.js"));
  const actions = [...engineFacts().actions];
  assert.ok(actions.length > 0);
  return actions;
}

const MIME = { ".js": "text/javascript", ".html": "text/html", ".wasm": "application/wasm", ".json": "application/json" };

test("browser consumer in Chromium (playwright-core), resolved through the `browser` condition", async () => {
  const dir = project("browser");
  const pkg = JSON.parse(readFileSync(join(dir, "node_modules/wasq/package.json"), "utf8"));
  const entry = pkg.exports["."].browser.default.replace(/^\.\//, "/node_modules/wasq/");
  const html = readFileSync(join(fixtures, "browser.html"), "utf8")
    .replace("__IMPORT_MAP__", JSON.stringify({ imports: { wasq: entry } }))
    .replace("__ACTIONS__", JSON.stringify(await coreActions()));
  writeFileSync(join(dir, "index.html"), html);
  const server = createServer((req, res) => {
    const path = join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!path.startsWith(dir) || !existsSync(path)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": MIME[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 20_000 });
    const result = await page.evaluate(() => window.result);
    assert.deepEqual(errors, []);
    assert.equal(result.error, undefined, result.error);
    assert.equal(result.body, "from the page");
    assert.equal(result.again, true, "the visibility timeout expired when the ManualClock advanced");
    assert.equal(result.inflight, "1", "state restored from localStorage");
    assert.match(result.fileError, /FileStorage needs Node/);
    assert.equal(result.names, "init,Engine,ManualClock,LocalStorageStorage,FileStorage,createFetchHandler");
    assert.deepEqual(result.broken, [], "every action of the core is a method of the browser entry's Engine");
  } finally {
    await browser.close();
    server.close();
  }
});

/** A consumer project holding `fixture` as its Worker, bundled into `dist/` as wrangler does it:
 *  workerd conditions first, the .wasm imported as a compiled module. */
async function bundleWorker(name, fixture) {
  const dir = project(name);
  copyFileSync(join(fixtures, fixture), join(dir, "worker.js"));
  const { build } = await import("esbuild");
  const out = join(dir, "dist");
  await build({
    absWorkingDir: dir, entryPoints: ["worker.js"], bundle: true, format: "esm", platform: "neutral",
    conditions: ["workerd", "worker", "browser"], loader: { ".wasm": "copy" }, outdir: out, logLevel: "warning",
  });
  return out;
}

test("workerd consumer (miniflare): a Durable Object serving SQS, state kept across restarts", async () => {
  const out = await bundleWorker("workerd", "worker.js");
  const { Miniflare } = await import("miniflare");
  const persist = join(work, "do-state");
  const start = () => new Miniflare({
    modules: true,
    scriptPath: join(out, "worker.js"),
    modulesRoot: out,
    modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
    compatibilityDate: "2026-07-30",
    durableObjects: { QUEUES: { className: "QueueObject", useSQLite: true } },
    durableObjectsPersist: persist,
  });
  const call = async (mf, action, body) => {
    const res = await mf.dispatchFetch("http://sqs.local/", {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${action}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  let mf = start();
  let QueueUrl;
  try {
    const created = await call(mf, "CreateQueue", { QueueName: "do", Attributes: { VisibilityTimeout: "1" } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    QueueUrl = created.body.QueueUrl;
    assert.equal((await call(mf, "SendMessage", { QueueUrl, MessageBody: "durable" })).status, 200);
    const first = await call(mf, "ReceiveMessage", { QueueUrl });
    assert.equal(first.body.Messages[0].Body, "durable");
    const missing = await call(mf, "GetQueueUrl", { QueueName: "nope" });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.__type, "com.amazonaws.sqs#QueueDoesNotExist");
  } finally {
    await mf.dispose();
  }
  await new Promise((r) => setTimeout(r, 1100));
  mf = start();
  try {
    const again = await call(mf, "ReceiveMessage", { QueueUrl, AttributeNames: ["ApproximateReceiveCount"] });
    assert.equal(again.body.Messages?.[0]?.Body, "durable", "restored from Durable Object storage after a restart");
    assert.equal(again.body.Messages[0].Attributes.ApproximateReceiveCount, "2");
  } finally {
    await mf.dispose();
  }
});

test("workerd consumer of both `wasq` and `wasq/worker`: one copy of the engine and the wasm", async () => {
  const out = await bundleWorker("workerd-both", "worker-both.js");
  const bundled = readFileSync(join(out, "worker.js"), "utf8");
  const count = (text) => bundled.split(text).length - 1;
  assert.equal(count('Symbol("wasq.dispatch")'), 1, "one copy of the Engine's private symbols");
  assert.equal(count("wasq is not initialised"), 1, "one copy of bindings.js");
  assert.equal(bundled.match(/\bimport\s*[\w$]+\s*from\s*"[^"]*\.wasm"/g)?.length, 1, "one import of the wasm");
  const { Miniflare } = await import("miniflare");
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(out, "worker.js"),
    modulesRoot: out,
    modulesRules: [{ type: "ESModule", include: ["**/*.js"] }, { type: "CompiledWasm", include: ["**/*.wasm"] }],
    compatibilityDate: "2026-07-30",
    durableObjects: {
      WASQ_QUEUE: { className: "WasqQueue", useSQLite: true },
      WASQ_DIRECTORY: { className: "WasqDirectory", useSQLite: true },
    },
    bindings: { WASQ_AUTH: "off" },
  });
  try {
    const same = await mf.dispatchFetch("http://sqs.local/same-engine");
    assert.deepEqual(await same.json(), { same: true }, "the queue object's engine is an instance of wasq's Engine");
    const own = await mf.dispatchFetch("http://sqs.local/own-engine");
    assert.match((await own.json()).url, /\/own$/);
    const methods = await mf.dispatchFetch("http://sqs.local/methods", { method: "POST", body: JSON.stringify(await coreActions()) });
    assert.deepEqual((await methods.json()).broken, [], "every action of the core is a method of the workerd entry's Engine");
    const created = await mf.dispatchFetch("http://sqs.local/", {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.CreateQueue" },
      body: JSON.stringify({ QueueName: "through-the-worker" }),
    });
    const body = await created.json();
    assert.equal(created.status, 200, JSON.stringify(body));
    assert.match(body.QueueUrl, /\/through-the-worker$/);
  } finally {
    await mf.dispose();
  }
});
