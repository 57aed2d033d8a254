// The playground tried as a docs author tries it (issue #35): a plain HTML page, a VitePress-like
// page (markdown-rendered HTML, the site's own CSS, the element inside the `<p>` markdown wraps it
// in, `import "wasq/playground"` from a `<script type="module">`), two elements with different
// scenarios on one page, an author's scenario as a property and from `src` JSON and bad ones, at
// 1280×800, in a 700×500 iframe sized by its height messages, and at 390×844. Each page must run
// without a console error; screenshots go to tests/artifacts/page/docs-author-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pageSuite, ARTIFACTS, REPO } from "./helpers.mjs";

const suite = pageSuite();

const HOSTILE = "<style>* { all: revert } div { display: none }</style>";

const AUTHOR = {
  id: "lease-expiry",
  title: "A lease that runs out",
  source: "The author's own docs",
  steps: [
    { caption: "A queue with a 5 s visibility timeout and two jobs.", actions: [["q", "work", { VisibilityTimeout: "5" }], ["s", "work", { body: "job 1" }], ["s", "work", { body: "job 2" }]] },
    { caption: "Worker A takes both.", actions: [["r", 0, "work", { max: 2 }]] },
    { caption: "Their leases run out.", actions: [["t", 5000]] },
    { caption: "Worker B takes them again.", actions: [["r", 1, "work", { max: 10 }]] },
  ],
};

/**
 * A docs page at `path` on the playground's server (so it loads the package from the same origin,
 * as a site hosting the package does): `html` is the whole document; `files` maps other paths
 * under docs/ to [content type, body]. Every console error and failed request is collected.
 */
async function docsPage(html, { width = 1280, height = 800, files = {}, path = "docs/guide.html" } = {}) {
  const context = await suite.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.problems = [];
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(`console: ${m.text()}`); });
  page.on("response", (r) => { if (r.status() >= 400 && !r.url().includes("/missing")) page.problems.push(`${r.status()} ${r.url()}`); });
  const url = new URL(path, suite.url).href;
  await page.route(url, (route) => route.fulfill({ contentType: "text/html", body: html }));
  for (const [name, [type, body]] of Object.entries(files)) {
    await page.route(new URL(`docs/${name}`, suite.url).href, (route) => route.fulfill({ contentType: type, body }));
  }
  await page.goto(url);
  return page;
}

const doc = (head, body) => `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">${head}</head><body>${body}</body></html>`;
const ELEMENT = `<script type="module" src="/pkg/www/element.js"></script>`;

/** What one element shows: readiness, scenario title and step, caption, cards, its error. */
function shows(selector) {
  const el = document.querySelector(selector);
  const root = el.shadowRoot;
  const text = (s) => root.querySelector(s)?.textContent ?? null;
  const visible = (e) => e && e.getClientRects().length > 0 && e.checkVisibility();
  return {
    ready: el.dataset.ready ?? null,
    title: visible(root.querySelector("#scenario-box")) ? text("#scenario-title") : null,
    progress: text("#scenario-progress"),
    caption: text("#scenario-caption"),
    cards: [...root.querySelectorAll("#lanes .card")].filter(visible).map((c) => c.querySelector(".label").textContent),
    error: [...root.querySelectorAll(".error")].filter(visible).map((e) => e.textContent).join(" | ") || null,
  };
}

/** The boxes a reader needs at a step, against the viewport, inside the element `selector`. */
function boxesOf(selector) {
  const root = document.querySelector(selector).shadowRoot;
  const r = (e) => { const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, left: b.left, right: b.right, height: b.height }; };
  return {
    viewport: { width: innerWidth, height: innerHeight },
    element: r(document.querySelector(selector)),
    caption: r(root.querySelector("#scenario-caption")),
    next: r(root.querySelector("#scenario-next")),
    cards: [...root.querySelectorAll("#lanes .card")].map(r),
    laneTitles: [...root.querySelectorAll(".lane-title")].filter((t) => t.getClientRects().length).map(r),
    pinned: [...root.querySelectorAll("*")].filter((e) => ["sticky", "fixed"].includes(getComputedStyle(e).position)).length,
  };
}

const inView = (b, v) => b.top >= 0 && b.bottom <= v.height && b.left >= 0 && b.right <= v.width;

test("a plain HTML page with hostile CSS: two elements with different scenarios step on their own, at 1280×800", async () => {
  const page = await docsPage(doc(HOSTILE + ELEMENT, `
    <h1>Queues</h1><p>FIFO first:</p>
    <wasq-playground id="one" scenario="fifo-two-groups"></wasq-playground>
    <p>Then the dead-letter queue:</p>
    <wasq-playground id="two" scenario="dead-letter" step="1" panels="consumers"></wasq-playground>`));
  await page.waitForSelector("#one[data-ready=true]");
  await page.waitForSelector("#two[data-ready=true]");
  let one = await page.evaluate(shows, "#one");
  let two = await page.evaluate(shows, "#two");
  assert.match(one.title, /^FIFO: two groups/);
  assert.equal(one.progress, "step 1 of 5");
  assert.deepEqual([...one.cards].sort(), ["m1", "m2", "m3", "m4"]);
  assert.match(two.title, /dead-letter queue/);
  assert.equal(two.progress, "step 2 of 5");
  // Each element's Next and its keys step that element only.
  await page.evaluate(() => document.querySelector("#one").shadowRoot.querySelector("#scenario-next").click());
  await page.evaluate(() => document.querySelector("#one").playground.settled());
  await page.evaluate(() => document.querySelector("#two").shadowRoot.querySelector("#lanes .card").focus());
  await page.keyboard.press("n");
  await page.evaluate(() => document.querySelector("#two").playground.settled());
  one = await page.evaluate(shows, "#one");
  two = await page.evaluate(shows, "#two");
  assert.equal(one.progress, "step 2 of 5");
  assert.equal(two.progress, "step 3 of 5");
  assert.equal(one.error, null);
  assert.equal(two.error, null);
  // Tab reaches a card (they are in the tab order, not only focusable by script).
  await page.evaluate(() => document.querySelector("#one").shadowRoot.querySelector("#scenario-restart").focus());
  let reached = null;
  for (let i = 0; i < 30 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.querySelector("#one").shadowRoot.activeElement?.closest(".card")?.getAttribute("aria-label") ?? null);
  }
  assert.match(reached ?? "", /^m\d: /, "Tab reaches a card");
  await page.screenshot({ path: join(ARTIFACTS, "docs-author-plain-1280x800.png"), fullPage: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// VitePress renders markdown with markdown-it, which does not know a custom tag as a block: the
// element lands inside a <p>, and the theme's typography (inherited properties: line-height,
// letter-spacing, text-transform, white-space, …) reaches into its shadow root through it.
const VITEPRESS_CSS = `<style>
  html { font-size: 62.5%; }
  body { font: 1.6rem/28px Inter, sans-serif; color: #3c3c43; margin: 0; }
  .vp-doc { max-width: 688px; margin: 0 auto; padding: 32px 24px; }
  .vp-doc p { line-height: 28px; margin: 16px 0; letter-spacing: 0.08em; word-spacing: 0.4em; text-transform: uppercase;
              white-space: pre; text-indent: 3em; text-align: justify; font-style: italic; text-shadow: 0 0 4px red; }
  .vp-doc h2 { border-top: 1px solid #e2e2e3; padding-top: 24px; }
  .vp-doc button { all: unset; }
</style>`;

function textLook(selector) {
  const root = document.querySelector(selector).shadowRoot;
  const card = root.querySelector("#lanes .card");
  const label = card.querySelector(".label");
  const caption = root.querySelector("#scenario-caption");
  const s = (e) => {
    const c = getComputedStyle(e);
    return {
      fontSize: c.fontSize, lineHeight: c.lineHeight, letterSpacing: c.letterSpacing, wordSpacing: c.wordSpacing,
      textTransform: c.textTransform, whiteSpace: c.whiteSpace, textIndent: c.textIndent, fontStyle: c.fontStyle,
      textShadow: c.textShadow, textAlign: c.textAlign,
    };
  };
  // The card's layout height (offsetHeight: whole pixels, and not scaled by a move's animation
  // still running, as getBoundingClientRect is): a theme's text settings that leaked in would
  // change it by a line or more.
  return { card: s(card), label: s(label), caption: s(caption), cardHeight: card.offsetHeight, labelText: label.innerText };
}

test("a VitePress-like page: markdown's <p> around the element and the theme's typography do not change how it looks", async () => {
  // The same element on a bare page, for what it looks like.
  const bare = await docsPage(doc(ELEMENT, `<wasq-playground id="pg" scenario="visibility" step="1"></wasq-playground>`), { width: 1280, height: 800, path: "docs/bare.html" });
  await bare.waitForSelector("#pg[data-ready=true]");
  const expected = await bare.evaluate(textLook, "#pg");
  assert.deepEqual(bare.problems, []);
  await bare.context().close();

  const page = await docsPage(doc(`${VITEPRESS_CSS}
    <script type="importmap">{ "imports": { "wasq/playground": "/pkg/www/element.js" } }</script>
    <script type="module">import "wasq/playground";</script>`,
  `<div id="app"><main class="vp-doc"><h1 id="visibility">Visibility</h1>
    <p>A message is hidden while a consumer works on it.</p>
    <p><wasq-playground id="pg" scenario="visibility" step="1"></wasq-playground></p>
    <h2>Next</h2><p>Read on.</p></main></div>`));
  await page.waitForSelector("#pg[data-ready=true]");
  const got = await page.evaluate(textLook, "#pg");
  assert.deepEqual(got, expected, "the element's text looks the same inside the theme's <p>");
  const s = await page.evaluate(shows, "#pg");
  assert.equal(s.progress, "step 2 of 6");
  assert.deepEqual(s.cards, ["m1"]);
  await page.evaluate(() => document.querySelector("#pg").scrollIntoView());
  await page.screenshot({ path: join(ARTIFACTS, "docs-author-vitepress-1280x800.png") });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("the element in a plain page at 700×500: caption, Next, lane headers and every card in view at each step, nothing pinned", async () => {
  const page = await docsPage(doc(HOSTILE + ELEMENT, `<wasq-playground id="pg" src="scenario.json"></wasq-playground><p>After.</p>`), {
    width: 700, height: 500, files: { "scenario.json": ["application/json", JSON.stringify(AUTHOR)] },
  });
  await page.waitForSelector("#pg[data-ready=true]");
  assert.equal((await page.evaluate(shows, "#pg")).title, AUTHOR.title);
  for (let step = 1; step < AUTHOR.steps.length; step++) {
    await page.evaluate(() => document.querySelector("#pg").playground.nextStep());
    const b = await page.evaluate(boxesOf, "#pg");
    const v = b.viewport;
    assert.ok(inView(b.caption, v), `step ${step}: caption ${JSON.stringify(b.caption)}`);
    assert.ok(inView(b.next, v), `step ${step}: Next ${JSON.stringify(b.next)}`);
    assert.equal(b.laneTitles.length, 3);
    for (const t of b.laneTitles) assert.ok(inView(t, v), `step ${step}: lane header ${JSON.stringify(t)}`);
    assert.equal(b.cards.length, 2);
    for (const c of b.cards) assert.ok(inView(c, v), `step ${step}: card ${JSON.stringify(c)}`);
    assert.equal(b.pinned, 0, "the element pins nothing");
    assert.equal(await page.evaluate(() => scrollY), 0);
  }
  assert.equal((await page.evaluate(shows, "#pg")).error, null);
  await page.screenshot({ path: join(ARTIFACTS, "docs-author-element-700x500.png") });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("the element on a phone (390×844): as wide as the column, no sideways scrolling, lanes stacked with their names, nothing pinned", async () => {
  const page = await docsPage(doc(`<meta name="viewport" content="width=device-width, initial-scale=1">${HOSTILE}${ELEMENT}`,
    `<p>Two groups:</p><wasq-playground id="pg" scenario="fifo-two-groups" step="2"></wasq-playground>`), { width: 390, height: 844 });
  await page.waitForSelector("#pg[data-ready=true]");
  const b = await page.evaluate(boxesOf, "#pg");
  assert.ok(b.element.left >= 0 && b.element.right <= 390, JSON.stringify(b.element));
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, "no sideways scrolling");
  assert.equal(b.cards.length, 4);
  for (const c of b.cards) assert.ok(c.left >= b.element.left && c.right <= b.element.right && c.height > 20, JSON.stringify(c));
  assert.equal(b.pinned, 0);
  // Stacked lanes: each cell says which lane it is.
  const labels = await page.evaluate(() => [...document.querySelector("#pg").shadowRoot.querySelectorAll(".cell-label")].filter((l) => l.getClientRects().length).length);
  assert.ok(labels > 0, "stacked cells are labelled");
  await page.screenshot({ path: join(ARTIFACTS, "docs-author-element-390x844.png"), fullPage: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("?embed in a 700×500 iframe with an author's scenario: the snippet sizes the iframe to the page, down as well as up", async () => {
  const json = JSON.stringify(AUTHOR);
  const page = await docsPage(doc("", `<p>Docs text.</p>
    <iframe id="wasq" src="/?embed&scenario-src=${encodeURIComponent(new URL("docs/scenario.json", suite.url).href)}" style="width: 100%; height: 900px; border: 0" title="SQS playground"></iframe>
    <script>
      addEventListener("message", (e) => {
        if (e.data?.type === "wasq-playground:height") document.getElementById("wasq").style.height = e.data.height + "px";
      });
    </script>`), { width: 700, height: 500, files: { "scenario.json": ["application/json", json] } });
  const frame = await (await page.waitForSelector("#wasq")).contentFrame();
  await frame.waitForSelector("html[data-ready=true]");
  assert.equal(await frame.textContent("#scenario-title"), AUTHOR.title);
  const fits = () => page.evaluate(() => {
    const f = document.getElementById("wasq");
    const d = f.contentDocument.documentElement;
    return { iframe: f.getBoundingClientRect().height, content: Math.ceil(d.getBoundingClientRect().height), scrollHeight: d.scrollHeight, inner: f.contentWindow.innerHeight, scrolls: d.scrollHeight > f.contentWindow.innerHeight };
  });
  // Started at 900 px: the page's height message brings it down to the content.
  await page.waitForFunction(() => parseFloat(document.getElementById("wasq").style.height) < 900);
  let f = await fits();
  assert.equal(f.iframe, f.content, JSON.stringify(f));
  assert.equal(f.scrolls, false, JSON.stringify(f));
  assert.ok(f.iframe < 500, `the compact embed fits the docs column's screen (${f.iframe} px)`);
  for (let i = 1; i < AUTHOR.steps.length; i++) {
    await frame.click("#scenario-next");
    await frame.evaluate(() => window.wasq.settled());
  }
  // Opening the panels grows it, closing them shrinks it again.
  const folded = (await fits()).iframe;
  await frame.click("#below-box > summary");
  await page.waitForFunction((h) => parseFloat(document.getElementById("wasq").style.height) > h, folded);
  f = await fits();
  assert.equal(f.iframe, f.content);
  await page.screenshot({ path: join(ARTIFACTS, "docs-author-iframe-700x500.png"), fullPage: true });
  await frame.click("#below-box > summary");
  await page.waitForFunction((h) => parseFloat(document.getElementById("wasq").style.height) === h, folded);
  assert.equal(await frame.isHidden("#scenario-error"), true);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("www/README.md's scenario format: its example's bad-action message is what an author gets, and its action table is the actions a scenario may use", async () => {
  const { readFileSync } = await import("node:fs");
  const readme = readFileSync(join(REPO, "www", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Writing a scenario"), readme.indexOf("## Where the package comes from"));
  const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)[1]);
  const quoted = /e\.g\.\s*`(Scenario “[^`]*)`/.exec(section)[1];
  const badAction = JSON.parse(/action 1 (\[[^\]]*\])/.exec(quoted)[1]);
  const documented = [...section.matchAll(/^\| `\["(\w+)"/gm)].map((m) => m[1]).sort();
  const page = await docsPage(doc("", "<p>x</p>"));
  const got = await page.evaluate(async ([def, action]) => {
    const { validateScenario, ACTION_KINDS } = await import("/scenarios.js");
    validateScenario(structuredClone(def)); // the example itself is well formed
    const bad = structuredClone(def);
    bad.steps[1].actions[0] = action;
    try {
      validateScenario(bad);
      return { message: null, kinds: ACTION_KINDS };
    } catch (e) {
      return { message: e.message, kinds: ACTION_KINDS };
    }
  }, [example, badAction]);
  // The README shortens the title with "…"; the rest is the message word for word.
  const [head, tail] = quoted.split("…");
  assert.ok(got.message?.startsWith(head) && got.message.endsWith(tail), `README: ${quoted}\ngot:    ${got.message}`);
  assert.deepEqual(documented, [...got.kinds].sort());
  await page.context().close();
});

test("the element takes the page's URL parameters as attributes: log, panels, step, pkg", async () => {
  const log = Buffer.from(JSON.stringify([["q", "mail", {}], ["s", "mail", { body: "hi" }], ["s", "mail", { body: "there" }], ["r", 0, "mail", { max: 1 }]])).toString("base64url");
  const page = await docsPage(doc(ELEMENT, `
    <wasq-playground id="log" log="${log}" panels="forms"></wasq-playground>
    <wasq-playground id="pkg" pkg="/pkg/" scenario="deduplication" step="1" panels="timeline,consumers"></wasq-playground>`), { width: 1000, height: 900 });
  await page.waitForSelector("#log[data-ready=true]");
  await page.waitForSelector("#pkg[data-ready=true]");
  const state = (sel) => page.evaluate((s) => {
    const el = document.querySelector(s);
    const root = el.shadowRoot;
    const open = (q) => root.querySelector(q).checkVisibility();
    return {
      queue: el.playground.playground.selected,
      states: [...root.querySelectorAll("#lanes .card")].map((c) => c.dataset.state).sort(),
      progress: root.querySelector("#scenario-box").hidden ? null : root.querySelector("#scenario-progress").textContent,
      panels: { forms: open("#send-form"), consumers: open("#consumers-h"), timeline: open("#timeline-h") },
    };
  }, sel);
  assert.deepEqual(await state("#log"), { queue: "mail", states: ["in-flight", "stored"], progress: null, panels: { forms: true, consumers: false, timeline: false } });
  assert.deepEqual(await state("#pkg"), { queue: "invoices.fifo", states: ["stored"], progress: "step 2 of 5", panels: { forms: false, consumers: true, timeline: true } });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
