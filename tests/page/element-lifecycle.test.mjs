// <wasq-playground> as frameworks and authors' scripts handle it, in odd orders: attributes set
// after it is connected (while it is still loading), a `scenario` property set before the element
// is defined, the property given a scenario's id as a string (what React 19 does with
// `scenario="…"`), the element moved in the DOM, removed and added again; and bad scenarios,
// whose message must name the step and the problem. Every page must run without a console error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pageSuite, ARTIFACTS } from "./helpers.mjs";

const suite = pageSuite();

const AUTHOR = {
  id: "two-tries",
  title: "Two tries",
  steps: [
    { caption: "One message.", actions: [["q", "jobs", { VisibilityTimeout: "5" }], ["s", "jobs", { body: "x" }]] },
    { caption: "A takes it.", actions: [["r", 0, "jobs", { max: 1 }]] },
    { caption: "Its lease ends; B takes it.", actions: [["t", 5000], ["r", 1, "jobs", { max: 1 }]] },
  ],
};

/** A page at docs/<name>.html on the playground's server with `head` and `body`; problems collected. */
async function docsPage(head, body, { width = 1000, height = 800, files = {} } = {}) {
  const context = await suite.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.problems = [];
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error" && !/status of 404/.test(m.text())) page.problems.push(`console: ${m.text()}`); });
  const url = new URL("docs/page.html", suite.url).href;
  await page.route(url, (route) => route.fulfill({ contentType: "text/html", body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">${head}</head><body>${body}</body></html>` }));
  for (const [name, [type, content]] of Object.entries(files)) {
    await page.route(new URL(`docs/${name}`, suite.url).href, (route) => route.fulfill({ status: type === 404 ? 404 : 200, contentType: type === 404 ? "text/plain" : type, body: content }));
  }
  await page.goto(url);
  return page;
}

const ELEMENT = `<script type="module" src="/pkg/www/element.js"></script>`;

/** Waits for the element to settle (ready or error) and tells what it shows. */
async function shown(page, selector) {
  await page.waitForSelector(`${selector}[data-ready]`);
  await page.waitForFunction((s) => document.querySelector(s).dataset.ready !== undefined, selector);
  return page.evaluate(async (s) => {
    const el = document.querySelector(s);
    if (el.dataset.ready === "true") await el.playground.settled();
    const root = el.shadowRoot;
    const box = root.querySelector("#scenario-box");
    const visible = (e) => e && e.getClientRects().length > 0 && e.checkVisibility();
    return {
      ready: el.dataset.ready,
      title: visible(box) ? root.querySelector("#scenario-title").textContent : null,
      progress: visible(box) ? root.querySelector("#scenario-progress").textContent : null,
      cards: root.querySelectorAll("#lanes .card").length,
      error: [...root.querySelectorAll(".error")].filter(visible).map((e) => e.textContent).join(" | ") || null,
    };
  }, selector);
}

test("attributes set right after the element is connected, while it loads, are the ones it shows", async () => {
  const page = await docsPage(ELEMENT, "");
  await page.evaluate(() => customElements.whenDefined("wasq-playground"));
  await page.evaluate(() => {
    const el = document.createElement("wasq-playground");
    el.id = "pg";
    document.body.append(el);
    el.setAttribute("scenario", "fifo-one-group");
    el.setAttribute("step", "2");
  });
  const s = await shown(page, "#pg");
  assert.equal(s.ready, "true");
  assert.match(s.title ?? "", /^FIFO: one message group/);
  assert.equal(s.progress, "step 3 of 5");
  // Changed again once ready: it restarts on the new one.
  await page.evaluate(() => document.querySelector("#pg").setAttribute("scenario", "visibility"));
  await page.waitForFunction(() => document.querySelector("#pg").shadowRoot.querySelector("#scenario-title")?.textContent.startsWith("Visibility"));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a scenario property set by the page's script before the element is defined is used once it is", async () => {
  // A classic script runs before the module that defines the element: the property lands on a
  // plain HTMLElement, where it would hide the element's own accessor.
  const page = await docsPage(ELEMENT, `<wasq-playground id="pg"></wasq-playground>
    <script>document.getElementById("pg").scenario = ${JSON.stringify(AUTHOR)};</script>`);
  const s = await shown(page, "#pg");
  assert.equal(s.ready, "true");
  assert.equal(s.title, AUTHOR.title);
  assert.equal(await page.evaluate(() => document.querySelector("#pg").scenario?.id), AUTHOR.id);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("the scenario property given a scenario's id (as React 19 sets `scenario=\"…\"`) opens that built-in scenario", async () => {
  const page = await docsPage(ELEMENT, `<wasq-playground id="pg"></wasq-playground>`);
  await page.evaluate(() => customElements.whenDefined("wasq-playground"));
  await page.evaluate(() => { document.querySelector("#pg").scenario = "dead-letter"; });
  const s = await shown(page, "#pg");
  assert.equal(s.ready, "true");
  assert.match(s.title ?? "", /dead-letter queue/);
  assert.equal(s.error, null);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("moved in the DOM, removed and added again (also while loading): it comes back on its scenario, and the engine it left is closed", async () => {
  const page = await docsPage(ELEMENT, `<section id="a"><wasq-playground id="pg" scenario="visibility" step="1"></wasq-playground></section><section id="b"></section>`);
  // Moved before it is ready.
  await page.evaluate(() => document.querySelector("#b").append(document.querySelector("#pg")));
  let s = await shown(page, "#pg");
  assert.equal(s.ready, "true");
  assert.equal(s.progress, "step 2 of 6");
  const closedAfter = await page.evaluate(async () => {
    const el = document.querySelector("#pg");
    const before = el.playground;
    const url = before.queueUrl("orders");
    document.querySelector("#a").append(el); // moved once ready
    el.remove();
    document.querySelector("#b").append(el); // removed and added again
    await new Promise((r) => el.addEventListener("wasq-ready", r, { once: true }));
    // The engine of the first mount answers no more (its long polls ended, its clock stopped).
    try {
      before.engine.dispatch("GetQueueUrl", { QueueName: "orders" });
      return `still answers (${url})`;
    } catch (e) {
      return e.name;
    }
  });
  assert.match(closedAfter, /Closed/);
  s = await shown(page, "#pg");
  assert.equal(s.progress, "step 2 of 6");
  assert.equal(s.cards, 1);
  assert.equal(await page.evaluate(() => document.querySelectorAll("wasq-playground").length), 1);
  await page.screenshot({ path: join(ARTIFACTS, "element-moved.png"), fullPage: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("bad scenarios are refused with a message naming the step and the problem, as a property and from src", async () => {
  const badAction = { ...AUTHOR, steps: [AUTHOR.steps[0], { caption: "A takes it.", actions: [["r", 0, "jobs", { max: 1 }], ["v", 0, "m1", "ten"]] }] };
  const noCaption = { ...AUTHOR, steps: [AUTHOR.steps[0], AUTHOR.steps[1], { actions: [] }] };
  const page = await docsPage(ELEMENT, `
    <wasq-playground id="prop"></wasq-playground>
    <wasq-playground id="json" src="no-caption.json"></wasq-playground>
    <wasq-playground id="missing" src="missing.json"></wasq-playground>
    <wasq-playground id="garbled" src="garbled.json"></wasq-playground>`, {
    files: {
      "no-caption.json": ["application/json", JSON.stringify(noCaption)],
      "missing.json": [404, "not found"],
      "garbled.json": ["application/json", "{ \"id\": \"x\", "],
    },
  });
  await page.evaluate((def) => { document.querySelector("#prop").scenario = def; }, badAction);
  const prop = await shown(page, "#prop");
  assert.equal(prop.ready, "error");
  assert.equal(prop.error, `Scenario “Two tries”: step 1 (step 2 of 2): action 2 ["v",0,"m1","ten"] needs a visibility timeout in seconds (a number).`);
  const json = await shown(page, "#json");
  assert.equal(json.error, "Scenario “Two tries”: step 2 (step 3 of 3): needs a `caption` (text).");
  const missing = await shown(page, "#missing");
  assert.match(missing.error, /^The scenario at http:\/\/.*\/docs\/missing\.json could not be fetched: HTTP 404\.$/);
  const garbled = await shown(page, "#garbled");
  assert.match(garbled.error, /^The scenario at http:\/\/.*\/docs\/garbled\.json is not valid JSON: /);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a well-formed scenario whose step cannot run says which step and action, and does not blame the reader", async () => {
  // Step 2 deletes m1, which no consumer has received; step 3 sends to a queue it never created.
  const def = {
    id: "wrong-steps",
    title: "Wrong steps",
    steps: [
      { caption: "A queue.", actions: [["q", "jobs", {}], ["s", "jobs", { body: "x" }]] },
      { caption: "A deletes m1.", actions: [["d", 0, "m1"]] },
      { caption: "A send elsewhere.", actions: [["s", "nowhere", { body: "y" }]] },
    ],
  };
  const page = await docsPage(ELEMENT, `<wasq-playground id="pg"></wasq-playground>`);
  await page.evaluate((d) => { document.querySelector("#pg").scenario = d; }, def);
  assert.equal((await shown(page, "#pg")).ready, "true");
  await page.evaluate(() => document.querySelector("#pg").playground.nextStep());
  let s = await shown(page, "#pg");
  assert.equal(s.progress, "step 2 of 3");
  assert.match(s.error ?? "", /step 2 of 3, action 1 \["d",0,"m1"\]: consumer A holds no m1/);
  assert.doesNotMatch(s.error, /your own actions/);
  await page.evaluate(() => document.querySelector("#pg").playground.nextStep());
  s = await shown(page, "#pg");
  assert.match(s.error ?? "", /QueueDoesNotExist.*step 3 of 3, action 1 \["s","nowhere",\{"body":"y"\}\]/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
