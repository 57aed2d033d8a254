// `import "wasq/playground"` through webpack 5, as Docusaurus builds a site's client modules: the
// element's `new URL("../wasq_bg.wasm", import.meta.url)` is emitted as an asset with its URL in
// the bundle, and the package's entry and the element's modules (its stylesheet among them) are
// bundled chunks. Served from the build's own folder, with nothing of the package beside it, the
// element needs no attribute to find its files.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import webpack from "webpack";
import { launch, REPO } from "./helpers.mjs";
import { packageDir, startStaticServer } from "./server.mjs";
import { openElement } from "./bundled.mjs";

let browser;
let site;
let work;
let stats;
before(async () => {
  work = mkdtempSync(join(tmpdir(), "wasq-webpack-"));
  mkdirSync(join(work, "node_modules"));
  symlinkSync(packageDir(REPO), join(work, "node_modules", "wasq"));
  writeFileSync(join(work, "client.js"), `import "wasq/playground";\n`);
  const dist = join(work, "build");
  // Docusaurus's layout: scripts under assets/js/, other assets by hash, public path "/".
  const compiler = webpack({
    mode: "production", context: work, entry: "./client.js", target: "web",
    output: { path: dist, publicPath: "/", filename: "assets/js/[name].[contenthash:8].js", chunkFilename: "assets/js/[name].[contenthash:8].js" },
  });
  stats = await new Promise((ok, fail) => compiler.run((err, s) => (err ? fail(err) : compiler.close(() => ok(s)))));
  const main = readdirSync(join(dist, "assets", "js")).find((f) => f.startsWith("main."));
  writeFileSync(join(dist, "index.html"), `<!doctype html><link rel="icon" href="data:,"><script src="/assets/js/${main}" defer></script><wasq-playground scenario="visibility" step="1"></wasq-playground>`);
  site = await startStaticServer(REPO, [["/", dist]]);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("webpack 5 builds the element without errors or warnings, and emits the package's wasm", () => {
  const info = stats.toJson({ all: false, errors: true, warnings: true, assets: true });
  assert.deepEqual(info.errors.map((e) => e.message), []);
  assert.deepEqual(info.warnings.map((e) => e.message).filter((m) => !/asset size limit|entrypoint size limit|performance/i.test(m)), []);
  assert.ok(info.assets.some((a) => a.name.endsWith(".wasm")), info.assets.map((a) => a.name).join(" "));
});

test("the element bundled by webpack 5 finds its wasm and stylesheet with no attribute, and draws its cards", async () => {
  const shown = await openElement(browser, new URL("index.html", site.url).href);
  assert.deepEqual(shown.problems, []);
  assert.deepEqual(shown.failed, []);
  assert.deepEqual(shown.state, { ready: "true", error: null, cards: 1, display: "block", stylesheets: 1 });
  assert.ok(shown.requested.some((p) => /\.wasm$/.test(p)), shown.requested.join(" "));
});

test("the element's module imports where there is no DOM (a docs site's server render) and defines nothing", async () => {
  // Docusaurus renders each page in Node with the site's client modules imported; an element
  // class extending a missing HTMLElement failed that build.
  const { pathToFileURL } = await import("node:url");
  const mod = await import(pathToFileURL(join(packageDir(REPO), "www", "element.js")).href);
  assert.equal(typeof mod.WasqPlaygroundElement, "function");
  assert.equal(globalThis.customElements, undefined);
});
