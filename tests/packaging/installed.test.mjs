// The packed tarball (`npm pack pkg/`) installed by npm into an empty project, used the way a new
// user first does: `npx wasq serve` and its playground page, and an error from inside wasq, whose
// stack must name a real source file and line rather than a column of a minified one-line bundle.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));
let work;
let project;
const children = new Set(); // process groups to stop, even after a test that timed out

before(() => {
  if (!existsSync(join(repo, "pkg", "package.json"))) throw new Error("no built package: run `make pkg` first");
  work = mkdtempSync(join(tmpdir(), "wasq-installed-"));
  const out = JSON.parse(execFileSync("npm", ["pack", join(repo, "pkg"), "--pack-destination", work, "--json"], { encoding: "utf8" }));
  project = join(work, "app");
  execFileSync("mkdir", [project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true }));
  // The package has no dependencies: the install needs nothing but the tarball.
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(work, out[0].filename)], { cwd: project, encoding: "utf8" });
});

after(() => {
  for (const pid of children) stopGroup(pid);
  rmSync(work, { recursive: true, force: true });
});

function stopGroup(pid) {
  try {
    process.kill(-pid, "SIGTERM");
  } catch {}
}

/** `npx wasq serve --port 0 --memory` in the project; resolves with its URL once it listens. */
function serve() {
  const child = spawn("npx", ["--no-install", "wasq", "serve", "--port", "0", "--memory"], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // npx's child too is stopped with the process group
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  children.add(child.pid);
  const stop = () => {
    stopGroup(child.pid);
    children.delete(child.pid);
  };
  return new Promise((resolve, reject) => {
    child.stdout.on("data", () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], out: () => out, stop });
    });
    child.once("exit", (code) => reject(new Error(`npx wasq serve exited with ${code}\nstdout: ${out}\nstderr: ${err}`)));
  });
}

// A server that never starts fails the test instead of hanging the suite (a bound, not a measurement).
test("npx wasq serve from the installed tarball serves the playground page at /, and every file it loads", { timeout: 120_000 }, async () => {
  const server = await serve();
  try {
    const get = async (path) => {
      const res = await fetch(new URL(path, server.url + "/"));
      assert.equal(res.status, 200, `GET ${path}`);
      return res;
    };
    const html = await (await get("/")).text();
    assert.match(server.out(), /playground at http:\/\//, "the server found the page in the package");
    assert.match(html, /<title>/);
    assert.doesNotMatch(html, /No page directory/);
    // The page's own files: its stylesheet and module scripts, and every module they import.
    const assets = [...html.matchAll(/(?:href|src)="(\.\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.includes("./style.css") && assets.includes("./app.js"), assets.join(" "));
    const seen = new Set();
    const queue = [...assets];
    while (queue.length) {
      const path = new URL(queue.shift(), server.url + "/").pathname;
      if (seen.has(path)) continue;
      seen.add(path);
      const text = await (await get(path)).text();
      if (path.endsWith(".js")) {
        for (const m of text.matchAll(/^import\s[^"]*"(\.\/[^"]+)"/gm)) queue.push(new URL(m[1], server.url + path).pathname);
      }
    }
    assert.ok(seen.has("/loader.js"), "the module graph was followed");
    // What the page's loader fetches: the package's manifest, its browser entry and the wasm.
    const manifest = await (await get("/pkg/package.json")).json();
    await get("/pkg/" + manifest.exports["."].browser.default.replace(/^\.\//, ""));
    const wasm = await get("/pkg/wasq_bg.wasm");
    assert.equal(wasm.headers.get("content-type"), "application/wasm");
  } finally {
    server.stop();
  }
});

/** The line of `needle` in one of pkg-template's sources (1-based). */
function lineOf(file, needle) {
  const lines = readFileSync(join(repo, "pkg-template", file), "utf8").split("\n");
  const index = lines.findIndex((l) => l.includes(needle));
  assert.ok(index >= 0, `${needle} in ${file}`);
  return index + 1;
}

for (const [kind, load, file] of [
  ["require", "const { Engine } = require('wasq');", "index.cjs"],
  ["import", "const { Engine } = await import('wasq');", "index.mjs"],
]) {
  test(`an error thrown inside wasq (${kind}) names pkg-template's source file and line under --enable-source-maps`, () => {
    writeFileSync(
      join(project, file),
      `(async () => { ${load}
        try { new Engine().on("events", () => {}); } catch (err) { process.stdout.write(err.stack); }
      })();`,
    );
    const stack = execFileSync("node", ["--enable-source-maps", file], { cwd: project, encoding: "utf8" });
    assert.match(stack, /^TypeError: unknown event "events"/);
    // The throwing frame is engine.js's `on`, at the line that throws.
    const line = lineOf("src/engine.js", "throw new TypeError(`unknown event");
    const frame = stack.split("\n")[1];
    assert.match(frame, new RegExp(`pkg-template/src/engine\\.js:${line}:\\d+\\)?$`), stack);
  });
}
