// `import "wasq/playground"` through esbuild, as VitePress's dev server pre-bundles a client
// module's import (ESM, split chunks, served from a folder of its own). esbuild bundles the
// element's modules and its stylesheet module, but leaves `new URL("../wasq_bg.wasm",
// import.meta.url)` relative to the bundle, where no wasm is: the author names the package with
// the `pkg` attribute, and without it the element says so (www/README.md, "Through a bundler").
// The docs site here is its own server, with no /pkg/ of wasq serve's to fall back on.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { launch, REPO } from "./helpers.mjs";
import { packageDir, startStaticServer } from "./server.mjs";
import { openElement } from "./bundled.mjs";

let browser;
let site;
let work;
before(async () => {
  // A site's project with the package installed (a link to the built one) and the author's import.
  work = mkdtempSync(join(tmpdir(), "wasq-bundled-"));
  mkdirSync(join(work, "node_modules"));
  symlinkSync(packageDir(REPO), join(work, "node_modules", "wasq"));
  writeFileSync(join(work, "client.js"), `import "wasq/playground";\n`);
  await build({
    entryPoints: [join(work, "client.js")], bundle: true, format: "esm", splitting: true, platform: "browser",
    outdir: join(work, "site", "deps"), logLevel: "silent",
  });
  const page = (attrs) => `<!doctype html><link rel="icon" href="data:,"><script type="module" src="/deps/client.js"></script><wasq-playground ${attrs}></wasq-playground>`;
  writeFileSync(join(work, "site", "index.html"), page(`scenario="visibility" step="1" pkg="/vendor/wasq/"`));
  writeFileSync(join(work, "site", "unnamed.html"), page(`scenario="visibility" step="1"`));
  // The package's files, served where the author chose to put them.
  site = await startStaticServer(REPO, [["/vendor/wasq/", packageDir(REPO)], ["/", join(work, "site")]]);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the element bundled by esbuild (split chunks), with the package named by `pkg`: its stylesheet adopted, its cards drawn", async () => {
  const shown = await openElement(browser, new URL("index.html", site.url).href);
  assert.deepEqual(shown.problems, []);
  assert.deepEqual(shown.state, { ready: "true", error: null, cards: 1, display: "block", stylesheets: 1 });
  // Nothing was asked for beside the bundle, where the package is not.
  assert.deepEqual(shown.failed, []);
});

test("the element bundled by esbuild without `pkg`: a message that says to name the package with it", async () => {
  const shown = await openElement(browser, new URL("unnamed.html", site.url).href);
  assert.equal(shown.state.ready, "error");
  assert.equal(shown.state.stylesheets, 1, "the stylesheet is bundled even so: the message is styled");
  assert.match(shown.state.error, /wasm was not found \(.*wasq_bg\.wasm: 404.*\)\. Tell the element where the package is served: <wasq-playground pkg="\/path\/to\/wasq\/">/);
});
