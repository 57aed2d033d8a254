// `import "wasq/playground"` through Vite, as VitePress uses it: a production build (Vite's
// bundler emits the wasm named by the element's `new URL("../wasq_bg.wasm", import.meta.url)` as
// an asset), and the dev server with the package left out of dependency pre-bundling
// (`optimizeDeps.exclude: ["wasq"]`), which serves the element's files as they ship. The package
// is a copy in node_modules, as `npm install` leaves it (the dev server serves only files under
// the project's root).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, createServer } from "vite";
import { launch, REPO } from "./helpers.mjs";
import { packageDir, startStaticServer } from "./server.mjs";
import { openElement } from "./bundled.mjs";

let browser;
let work;
before(async () => {
  work = mkdtempSync(join(tmpdir(), "wasq-vite-"));
  cpSync(packageDir(REPO), join(work, "node_modules", "wasq"), { recursive: true });
  writeFileSync(join(work, "client.js"), `import "wasq/playground";\n`);
  writeFileSync(join(work, "index.html"), `<!doctype html><link rel="icon" href="data:,"><script type="module" src="/client.js"></script><wasq-playground scenario="visibility" step="1"></wasq-playground>`);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the element in a Vite production build finds its wasm and stylesheet with no attribute, and draws its cards", async () => {
  const dist = join(work, "dist");
  await build({ root: work, logLevel: "silent", configFile: false, build: { outDir: dist } });
  assert.ok(readdirSync(join(dist, "assets")).some((f) => f.endsWith(".wasm")), "the wasm is emitted as an asset");
  const site = await startStaticServer(REPO, [["/", dist]]);
  try {
    const shown = await openElement(browser, new URL("index.html", site.url).href);
    assert.deepEqual(shown.problems, []);
    assert.deepEqual(shown.failed, []);
    assert.deepEqual(shown.state, { ready: "true", error: null, cards: 1, display: "block", stylesheets: 1 });
  } finally {
    await site.close();
  }
});

// VitePress 1 runs Vite 5, whose dev server pre-bundles with esbuild (the case of
// bundled-element.test.mjs): there `optimizeDeps.exclude` is what www/README.md tells authors.
// This Vite's pre-bundling keeps the element's wasm URL pointing at the package's file.
for (const [how, optimizeDeps] of [["wasq left out of pre-bundling", { exclude: ["wasq"] }], ["wasq pre-bundled", {}]]) {
  test(`the element in Vite's dev server, ${how}, draws its cards with no attribute`, async () => {
    const server = await createServer({
      root: work, logLevel: "silent", configFile: false, cacheDir: join(work, ".vite"),
      server: { port: 0, host: "127.0.0.1" }, optimizeDeps: { ...optimizeDeps, force: true },
    });
    await server.listen();
    try {
      const shown = await openElement(browser, new URL("index.html", server.resolvedUrls.local[0]).href);
      assert.deepEqual(shown.problems, []);
      assert.deepEqual(shown.failed, []);
      assert.deepEqual(shown.state, { ready: "true", error: null, cards: 1, display: "block", stylesheets: 1 });
      assert.equal(shown.requested.some((p) => p.includes("/.vite/deps/")), !optimizeDeps.exclude, shown.requested.join(" "));
    } finally {
      await server.close();
    }
  });
}
