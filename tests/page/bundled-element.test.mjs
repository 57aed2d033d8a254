// `import "wasq/playground"` through a bundler, as a docs site's own tooling does with a client
// module's import: VitePress's dev server pre-bundles a dependency with esbuild (ESM, split
// chunks, served from its own folder), and Docusaurus's webpack bundles it. The element finds its
// stylesheet, its modules and the package's wasm from `import.meta.url`, which in a bundle is the
// bundle's address, not the package's: nothing it needs is there.
//
// Marked todo: it fails today (the stylesheet is asked for beside the bundle, a 404, and the
// element shows that error). The loading path is being reworked (issue #35, item 5); this test
// is the case that rework has to cover, and loses its todo mark when it passes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { build } from "esbuild";
import { launch, pageServer, REPO } from "./helpers.mjs";
import { packageDir } from "./server.mjs";

let browser;
let server;
let work;
let chunks;
before(async () => {
  server = await pageServer();
  browser = await launch();
  // A site's project with the package installed (a link to the built one) and the author's import.
  work = mkdtempSync(join(tmpdir(), "wasq-bundled-"));
  mkdirSync(join(work, "node_modules"));
  symlinkSync(packageDir(REPO), join(work, "node_modules", "wasq"));
  writeFileSync(join(work, "client.js"), `import "wasq/playground";\n`);
  const out = await build({
    entryPoints: [join(work, "client.js")], bundle: true, format: "esm", splitting: true, platform: "browser",
    outdir: join(work, "deps"), write: false, logLevel: "silent",
  });
  chunks = out.outputFiles.map((f) => [basename(f.path), f.text]);
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the element imported through a bundler (esbuild, split chunks) loads and draws its cards", { todo: "the element locates its files from import.meta.url, which a bundle changes" }, async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  for (const [name, text] of chunks) {
    await page.route(new URL(`site/deps/${name}`, server.url).href, (route) => route.fulfill({ contentType: "text/javascript", body: text }));
  }
  await page.route(new URL("site/index.html", server.url).href, (route) => route.fulfill({
    contentType: "text/html",
    body: `<!doctype html><link rel="icon" href="data:,"><script type="module" src="/site/deps/client.js"></script><wasq-playground scenario="visibility" step="1"></wasq-playground>`,
  }));
  await page.goto(new URL("site/index.html", server.url).href);
  await page.waitForFunction(() => document.querySelector("wasq-playground")?.dataset.ready, null, { timeout: 20_000 });
  const shown = await page.evaluate(() => {
    const el = document.querySelector("wasq-playground");
    return { ready: el.dataset.ready, error: el.shadowRoot.querySelector(".error:not([hidden])")?.textContent ?? null, cards: el.shadowRoot.querySelectorAll("#lanes .card").length };
  });
  assert.deepEqual(shown, { ready: "true", error: null, cards: 1 });
  assert.deepEqual(problems, []);
  await page.close();
});
