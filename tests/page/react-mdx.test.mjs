// <wasq-playground> on a Docusaurus/MDX-like page: real React 19 renders the page to HTML on the
// server (react-dom/server) and hydrates it in Chromium (react-dom/client), with the tag as MDX
// gives it: `scenario="fifo-two-groups"` (React 19 sets it as the property of a defined element)
// and an author's scenario from JSON (`src`; as an object prop only where React renders in the
// browser, since hydration drops it, facebook/react#35446). Then React re-renders: an attribute set
// later, the two elements swapped, one unmounted and mounted again. The element's module is loaded
// before hydration (a Docusaurus client module) and, on a second page, after it. Hostile CSS too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { build } from "esbuild";
import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { launch, pageServer, ARTIFACTS, REPO } from "./helpers.mjs";
import { Doc } from "./fixtures/mdx-doc.mjs";

let browser;
let server;
let bundle;
before(async () => {
  server = await pageServer();
  browser = await launch();
  // The page's client bundle: React, react-dom and the same Doc component as the server's.
  const out = await build({
    stdin: {
      contents: `import { createElement as h } from "react";
        import { hydrateRoot, createRoot } from "react-dom/client";
        import { Doc } from "./tests/page/fixtures/mdx-doc.mjs";
        const props = window.__PROPS__;
        window.renderDoc = (more) => window.docRoot.render(h(Doc, { ...props, ...more }));
        // A page rendered in the browser only (no server HTML): createRoot instead of hydrating.
        if (props.clientOnly) window.docRoot = createRoot(document.getElementById("__docusaurus")), window.renderDoc({});
        else window.docRoot = hydrateRoot(document.getElementById("__docusaurus"), h(Doc, props), {
          onRecoverableError: (e) => console.error("hydration: " + e.message),
        });`,
      resolveDir: REPO,
      loader: "js",
    },
    bundle: true,
    format: "esm",
    write: false,
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "silent",
  });
  bundle = out.outputFiles[0].text;
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const AUTHOR = {
  id: "mdx-author",
  title: "Our retry policy",
  steps: [
    { caption: "A job queue with a 5 s lease.", actions: [["q", "jobs", { VisibilityTimeout: "5" }], ["s", "jobs", { body: "render" }]] },
    { caption: "A takes the job.", actions: [["r", 0, "jobs", { max: 1 }]] },
    { caption: "The lease ends; B takes it.", actions: [["t", 5000], ["r", 1, "jobs", { max: 1 }]] },
  ],
};

const HOSTILE = "<style>* { all: revert } div { display: none } .markdown { font-size: 18px; line-height: 1.8; letter-spacing: .02em }</style>";

/**
 * The server-rendered page, the author's scenario from JSON (`src`); `elementFirst`: the element's
 * module runs before hydration. `clientOnly`: no server HTML, React renders it in the browser,
 * with the author's scenario as an object.
 */
async function mdxPage(elementFirst, { width = 1280, height = 800, clientOnly = false } = {}) {
  const props = clientOnly ? { author: AUTHOR, clientOnly } : { author: "/docs/author.json" };
  const html = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">${HOSTILE}
    <script>window.__PROPS__ = ${JSON.stringify(props)};</script>
    <script type="module">
      ${elementFirst ? `import "/pkg/www/element.js"; import "/docs/bundle.js";` : `import "/docs/bundle.js"; setTimeout(() => import("/pkg/www/element.js"), 50);`}
    </script></head>
    <body><main id="__docusaurus">${clientOnly ? "" : renderToString(h(Doc, props))}</main></body></html>`;
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.problems = [];
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(`console: ${m.text()}`); });
  await page.route(new URL("docs/bundle.js", server.url).href, (route) => route.fulfill({ contentType: "text/javascript", body: bundle }));
  await page.route(new URL("docs/author.json", server.url).href, (route) => route.fulfill({ contentType: "application/json", body: JSON.stringify(AUTHOR) }));
  await page.route(new URL("docs/mdx.html", server.url).href, (route) => route.fulfill({ contentType: "text/html", body: html }));
  await page.goto(new URL("docs/mdx.html", server.url).href);
  return page;
}

/** Both elements ready; what each shows. */
async function both(page) {
  await page.waitForFunction(() => document.querySelector("wasq-playground") && [...document.querySelectorAll("wasq-playground")].every((e) => e.dataset.ready));
  return page.evaluate(async () => Object.fromEntries(await Promise.all([...document.querySelectorAll("wasq-playground")].map(async (el) => {
    if (el.dataset.ready === "true") await el.playground.settled();
    const root = el.shadowRoot;
    const visible = (e) => e && e.getClientRects().length > 0 && e.checkVisibility();
    return [el.id, {
      ready: el.dataset.ready,
      title: visible(root.querySelector("#scenario-box")) ? root.querySelector("#scenario-title").textContent : null,
      progress: root.querySelector("#scenario-progress")?.textContent ?? null,
      cards: [...root.querySelectorAll("#lanes .card")].filter(visible).length,
      error: [...root.querySelectorAll(".error")].filter(visible).map((e) => e.textContent).join(" | ") || null,
    }];
  }))));
}

for (const [when, elementFirst] of [["before hydration (a client module)", true], ["after hydration", false]]) {
  test(`React 19 hydrates the MDX page with the element's module loaded ${when}: both scenarios shown, then re-renders keep them`, async () => {
    const page = await mdxPage(elementFirst);
    let s = await both(page);
    assert.deepEqual(Object.keys(s), ["builtin", "author"]);
    assert.equal(s.builtin.ready, "true", JSON.stringify(s.builtin));
    assert.match(s.builtin.title ?? "", /^FIFO: two groups/);
    assert.equal(s.builtin.cards, 4);
    assert.equal(s.author.ready, "true", JSON.stringify(s.author));
    assert.equal(s.author.title, AUTHOR.title);
    assert.equal(s.author.cards, 1);
    assert.equal(s.author.error, null);
    await page.screenshot({ path: join(ARTIFACTS, `react-mdx-${elementFirst ? "client-module" : "late-module"}.png`), fullPage: true });

    // A later render sets an attribute: the built-in playground moves to that step.
    await page.evaluate(() => window.renderDoc({ step: 2 }));
    await page.waitForFunction(() => document.querySelector("#builtin").shadowRoot.querySelector("#scenario-progress")?.textContent === "step 3 of 5");
    // The two swapped (React moves a keyed element), then the author's unmounted and mounted again.
    await page.evaluate(() => window.renderDoc({ step: 2, order: ["author", "builtin"] }));
    await page.waitForFunction(() => document.querySelector("wasq-playground").id === "author");
    await page.evaluate(() => window.renderDoc({ step: 2, order: ["author", "builtin"], showAuthor: false }));
    assert.equal(await page.evaluate(() => document.querySelectorAll("wasq-playground").length), 1);
    await page.evaluate(() => window.renderDoc({ step: 2, order: ["author", "builtin"], showAuthor: true }));
    s = await both(page);
    assert.deepEqual(Object.keys(s), ["author", "builtin"]);
    assert.equal(s.author.title, AUTHOR.title);
    assert.equal(s.author.progress, "step 1 of 3");
    assert.equal(s.builtin.progress, "step 3 of 5");
    // And it still runs: the author's next step.
    await page.evaluate(() => document.querySelector("#author").playground.nextStep());
    assert.equal((await both(page)).author.progress, "step 2 of 3");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test("rendered by React in the browser (no server HTML), the author's scenario as an object prop reaches the element's property", async () => {
  const page = await mdxPage(true, { clientOnly: true });
  const s = await both(page);
  assert.equal(s.author.title, AUTHOR.title);
  assert.equal(s.author.error, null);
  assert.match(s.builtin.title ?? "", /^FIFO: two groups/);
  assert.equal(await page.evaluate(() => document.querySelector("#author").scenario.id), AUTHOR.id);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("the MDX page on a phone (390×844): both elements within the column, no sideways scrolling", async () => {
  const page = await mdxPage(true, { width: 390, height: 844 });
  await both(page);
  const boxes = await page.evaluate(() => [...document.querySelectorAll("wasq-playground")].map((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, cards: [...el.shadowRoot.querySelectorAll("#lanes .card")].map((c) => c.getBoundingClientRect().right <= r.right) };
  }));
  for (const b of boxes) {
    assert.ok(b.left >= 0 && b.right <= 390, JSON.stringify(b));
    assert.ok(b.cards.length > 0 && b.cards.every(Boolean));
  }
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true);
  await page.screenshot({ path: join(ARTIFACTS, "react-mdx-390x844.png"), fullPage: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
