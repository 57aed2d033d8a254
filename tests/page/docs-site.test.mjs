// A docs author's site as www/README.md tells them to make it, without `wasq serve`: the packed
// tarball installed by npm into an empty project, a plain HTML page with the README's import map
// and `<wasq-playground src="./scenario.json">`, the README's scenario JSON beside it, and the
// page of the installed package (`node_modules/wasq/www/`) in an iframe at the README's address;
// all served from the project's root by a plain static server and by the installed `wasq serve
// --www .`, opened in real Chromium.
// The installed page used to find no package there (its defaults name `/pkg/`, `./vendor/wasq/`
// and `../pkg/`, never the package root one level up) and the README said nothing of it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, newPage, installPackedPackage, startWasqServe, REPO, ARTIFACTS } from "./helpers.mjs";
import { startStaticServer } from "./server.mjs";

const README = readFileSync(join(REPO, "www", "README.md"), "utf8");

/** The README's fenced block of `lang` whose text matches `pattern`. */
function readmeBlock(lang, pattern) {
  const block = [...README.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "gm"))].map((m) => m[1]).find((b) => pattern.test(b));
  assert.ok(block, `www/README.md has a \`\`\`${lang} block matching ${pattern}`);
  return block;
}

let work;
let project;
let server;
let wasqServe; // the installed package's `wasq serve --www <project>`
let browser;

before(async () => {
  ({ work, project } = installPackedPackage("site"));

  // `<link rel="icon">`: no favicon request, whose 404 would be the page's only console error.
  const html = (body) => `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>${body}</body></html>`;
  writeFileSync(join(project, "index.html"), html(readmeBlock("html", /type="importmap"/)));
  writeFileSync(join(project, "scenario.json"), readmeBlock("json", /"steps"/));
  // The README's iframe snippet, pointed at the installed page by the address the README gives.
  const address = /`(\/node_modules\/wasq\/www\/index\.html\?[^`]*)`/.exec(README)?.[1];
  assert.ok(address, "www/README.md gives the installed page's address");
  const iframe = readmeBlock("html", /<iframe/).replace(/src="[^"]*"/, `src="${address.replaceAll("&", "&amp;")}"`);
  writeFileSync(join(project, "frame.html"), html(iframe));

  server = await startStaticServer(REPO, [["/", project]]);
  const cli = join(project, "node_modules", "wasq", "bin", "wasq.mjs");
  wasqServe = await startWasqServe({ command: [process.execPath, cli], args: ["--www", project], cwd: project });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await wasqServe?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function open(base, path, viewport) {
  const page = await newPage(browser, viewport);
  page.on("response", (r) => { if (r.status() >= 400) page.problems.push(`${r.status()} ${r.url()}`); });
  await page.goto(new URL(path, base).href);
  return page;
}

// The same page from either server: the servers start in before(), so each base is read when its test runs.
for (const [name, shot, base] of [
  ["a static server", "static", () => server.url],
  ["wasq serve --www .", "wasq-serve", () => wasqServe.url],
]) {
  test(`the README's element page (${name}), from node_modules through an import map, plays the README's scenario JSON to its end`, { timeout: 120_000 }, async () => {
    const scenario = JSON.parse(readFileSync(join(project, "scenario.json"), "utf8"));
    const page = await open(base(), "/", { width: 1000, height: 800 });
    await page.waitForSelector("wasq-playground[data-ready=true]");
    const inside = (sel) => page.evaluate((s) => document.querySelector("wasq-playground").shadowRoot.querySelector(s)?.textContent, sel);
    assert.equal(await inside("#scenario-title"), scenario.title);
    assert.equal(await inside("#scenario-caption"), scenario.steps[0].caption);
    for (let i = 1; i < scenario.steps.length; i++) {
      await page.evaluate(() => document.querySelector("wasq-playground").playground.nextStep());
    }
    assert.equal(await inside("#scenario-caption"), scenario.steps.at(-1).caption);
    // No step went wrong; the last one's expected error was answered, and is shown under the
    // step's caption (and in the consumer's panel the README's element opens).
    assert.equal(await page.evaluate(() => document.querySelector("wasq-playground").shadowRoot.querySelector("#scenario-error").hidden), true);
    const expected = scenario.steps.at(-1).expectError;
    assert.ok(expected, "the README's scenario ends on a step that shows an SQS error");
    const underCaption = await page.evaluate(() => {
      const box = document.querySelector("wasq-playground").shadowRoot.querySelector("#scenario-expected");
      return box.checkVisibility() ? box.textContent : null;
    });
    assert.ok(underCaption?.includes(expected), `the step's caption shows ${expected}`);
    const shown = await page.evaluate((code) => [...document.querySelector("wasq-playground").shadowRoot.querySelectorAll(".error:not(#scenario-expected)")]
      .filter((e) => e.textContent.includes(code) && e.checkVisibility()).length, expected);
    assert.equal(shown, 1, `one consumer's error box names ${expected}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, `docs-site-element-${shot}.png`), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test("the README's iframe snippet, on the installed package's page at the README's address, loads and sizes itself", { timeout: 120_000 }, async () => {
  const page = await open(server.url, "/frame.html", { width: 700, height: 900 });
  const frame = await (await page.waitForSelector("iframe")).contentFrame();
  await frame.waitForSelector("html[data-ready=true]");
  assert.match(await frame.textContent("#scenario-title"), /./);
  // The page posted its height and the snippet's listener applied it.
  await page.waitForFunction(() => document.querySelector("iframe").style.height !== "520px");
  const height = await page.evaluate(() => parseFloat(document.querySelector("iframe").style.height));
  assert.ok(height > 100, `iframe height ${height}`);
  await page.screenshot({ path: join(ARTIFACTS, "docs-site-iframe.png") });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
