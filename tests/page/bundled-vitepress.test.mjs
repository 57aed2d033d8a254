// The element on a VitePress site, set up as www/README.md says ("Through a bundler"): its theme
// and config blocks as written there, a markdown page with the tag, the package a copy in the
// site's node_modules. The dev server (VitePress 1 runs Vite 5, which pre-bundles dependencies
// with esbuild) and the static build (rendered in Node, then hydrated) in Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build, createServer } from "vitepress";
import { launch, ARTIFACTS, REPO } from "./helpers.mjs";
import { packageDir, startStaticServer } from "./server.mjs";
import { openElement } from "./bundled.mjs";

const README = readFileSync(join(REPO, "www", "README.md"), "utf8");

/** A ```js block of www/README.md matching `pattern`, indented as in a list item or not. */
function readmeBlock(pattern) {
  const block = [...README.matchAll(/^( *)```js\n([\s\S]*?)^ *```$/gm)]
    .map(([, indent, body]) => body.split("\n").map((line) => line.slice(indent.length)).join("\n"))
    .find((b) => pattern.test(b));
  assert.ok(block, `www/README.md has a \`\`\`js block matching ${pattern}`);
  return block;
}

let browser;
let site;
before(async () => {
  // Under the repository, so that the site resolves vitepress and vue from its node_modules.
  site = join(ARTIFACTS, "vitepress-site");
  rmSync(site, { recursive: true, force: true });
  mkdirSync(join(site, ".vitepress", "theme"), { recursive: true });
  cpSync(packageDir(REPO), join(site, "node_modules", "wasq"), { recursive: true });
  writeFileSync(join(site, ".vitepress", "theme", "index.js"), readmeBlock(/enhanceApp/));
  writeFileSync(join(site, ".vitepress", "config.js"), readmeBlock(/optimizeDeps/));
  // The site's own favicon: Chromium asks for one, and a 404 would be a console error.
  mkdirSync(join(site, "public"));
  writeFileSync(join(site, "public", "favicon.ico"), "");
  writeFileSync(join(site, "index.md"), `# Visibility\n\nA message is hidden while a consumer works on it.\n\n<wasq-playground scenario="visibility" step="1"></wasq-playground>\n`);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  rmSync(site, { recursive: true, force: true });
});

test("VitePress's dev server, configured as the README says: the element draws its cards", async () => {
  const server = await createServer(site, { port: 0, host: "127.0.0.1", logLevel: "silent", force: true });
  await server.listen();
  try {
    const shown = await openElement(browser, new URL("/", server.resolvedUrls.local[0]).href);
    assert.deepEqual({ problems: shown.problems, failed: shown.failed }, { problems: [], failed: [] });
    assert.deepEqual(shown.state, { ready: "true", error: null, cards: 1, display: "block", stylesheets: 1 });
  } finally {
    await server.close();
  }
});

test("VitePress's dev server without the README's optimizeDeps line: the element says to name the package with `pkg`", async () => {
  // What the README's `optimizeDeps.exclude` is for: Vite 5 pre-bundles wasq with esbuild.
  const config = join(site, ".vitepress", "config.js");
  const readme = readFileSync(config, "utf8");
  const without = readme.replace(/^\s*vite: \{ optimizeDeps: .*\n/m, "");
  assert.notEqual(without, readme);
  writeFileSync(config, without);
  const server = await createServer(site, { port: 0, host: "127.0.0.1", logLevel: "silent", force: true });
  await server.listen();
  try {
    const shown = await openElement(browser, new URL("/", server.resolvedUrls.local[0]).href);
    assert.equal(shown.state.ready, "error");
    assert.match(shown.state.error, /wasm was not found .*<wasq-playground pkg="\/path\/to\/wasq\/">/);
  } finally {
    await server.close();
    writeFileSync(config, readme);
  }
});

test("VitePress's static build (rendered in Node, hydrated in the browser): the element draws its cards", async () => {
  await build(site, { logLevel: "silent" });
  const dist = await startStaticServer(REPO, [["/", join(site, ".vitepress", "dist")]]);
  try {
    const shown = await openElement(browser, new URL("/", dist.url).href);
    assert.deepEqual({ problems: shown.problems, failed: shown.failed }, { problems: [], failed: [] });
    assert.deepEqual(shown.state, { ready: "true", error: null, cards: 1, display: "block", stylesheets: 1 });
  } finally {
    await dist.close();
  }
});
