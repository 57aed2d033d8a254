// The playground where docs readers meet it: an iframe in a docs column (700×500), a phone
// (390×844), a desktop (1280×800), and the <wasq-playground> element inside someone else's page,
// with an author's own scenario. What is promised is measured as element boxes against the
// viewport; screenshots of each go to tests/artifacts/page/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pageSuite, clickNext, newPage, settled, ARTIFACTS } from "./helpers.mjs";

const suite = pageSuite();

/**
 * In `root` (a document or a shadow root, found from a page or frame): each pinned (sticky or
 * fixed) element that covers a lane header, a group row or a card, as words; and the pinned
 * elements' boxes. Only what is on screen counts: something pinned is meant to pass over content
 * the reader scrolled away from, never over what the page has put in view.
 */
function coverage(hostSelector) {
  const root = hostSelector ? document.querySelector(hostSelector).shadowRoot : document;
  const all = [...root.querySelectorAll("*")];
  const pinned = all.filter((e) => ["sticky", "fixed"].includes(getComputedStyle(e).position) && e.getClientRects().length);
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const targets = [...root.querySelectorAll(".lane-title, .cell-label, .group-head, .card")].filter(shown);
  const box = (e) => e.getBoundingClientRect();
  const inView = (r) => r.bottom > 0 && r.top < innerHeight;
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const problems = [];
  for (const p of pinned) {
    const pr = box(p);
    for (const t of targets) {
      const tr = box(t);
      if (inView(tr) && !p.contains(t) && overlaps(pr, tr)) problems.push(`${p.className || p.tagName} covers ${t.className} “${t.textContent.trim().slice(0, 30)}”`);
    }
  }
  return { problems, pinned: pinned.map((p) => ({ cls: p.className, height: box(p).height, top: box(p).top })) };
}

/** The boxes of what a step needs, relative to the viewport of the document they are in. */
function stepBoxes(hostSelector) {
  const root = hostSelector ? document.querySelector(hostSelector).shadowRoot : document;
  const r = (sel) => { const e = root.querySelector(sel); const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, left: b.left, right: b.right }; };
  return {
    viewport: { width: innerWidth, height: innerHeight },
    caption: r("#scenario-caption"),
    next: r("#scenario-next"),
    lanes: r("#lanes"),
    titles: r(".lane-titles"),
    cards: [...root.querySelectorAll("#lanes .card")].map((c) => { const b = c.getBoundingClientRect(); return { id: c.dataset.id, top: b.top, bottom: b.bottom }; }),
    // Each time control's vertical middle: one row when they all lie within any one control's height.
    timeRow: [...root.querySelectorAll(".time-bar > *")].map((e) => { const b = e.getBoundingClientRect(); return { mid: (b.top + b.bottom) / 2, height: b.height }; }),
  };
}

test("embedded in a 700×500 iframe: caption, Next, lanes and every card in view at each step; one row of time controls; the page reports its height", async () => {
  const page = await newPage(suite.browser, { width: 700, height: 500 });
  // The docs page: only an iframe and the documented snippet that sizes it from its messages.
  const guide = new URL("docs/guide.html", suite.url).href;
  await page.route(guide, (route) => route.fulfill({
    contentType: "text/html",
    body: `<!doctype html><body style="margin:0"><iframe id="wasq" src="${suite.url}?embed&scenario=fifo-two-groups" style="width:100%;height:500px;border:0"></iframe>
      <script>
        window.heights = [];
        addEventListener("message", (e) => {
          if (e.data?.type !== "wasq-playground:height") return;
          window.heights.push(e.data.height);
        });
      </script>`,
  }));
  await page.goto(guide);
  const frame = await (await page.waitForSelector("#wasq")).contentFrame();
  await frame.waitForSelector("html[data-ready=true]");
  for (let step = 1; step < 5; step++) {
    await frame.click("#scenario-next");
    await frame.evaluate(() => window.wasq.settled());
    const b = await frame.evaluate(stepBoxes);
    const h = b.viewport.height;
    assert.ok(b.caption.bottom <= h && b.caption.top >= 0, `step ${step}: caption in view ${JSON.stringify(b.caption)}`);
    assert.ok(b.next.bottom <= h && b.next.top >= 0, `step ${step}: Next in view`);
    assert.ok(b.titles.top >= 0 && b.titles.bottom <= h, `step ${step}: lane headers in view`);
    assert.ok(b.cards.length > 0);
    for (const c of b.cards) assert.ok(c.top >= 0 && c.bottom <= h, `step ${step}: card ${c.id} in view (${c.top}–${c.bottom} of ${h})`);
    const mids = b.timeRow.map((c) => c.mid);
    assert.ok(Math.max(...mids) - Math.min(...mids) < Math.min(...b.timeRow.map((c) => c.height)) / 2, `step ${step}: the time controls are one row (${mids})`);
    assert.deepEqual((await frame.evaluate(coverage)).problems, [], `step ${step}: nothing pinned over the lanes`);
    assert.equal(await frame.evaluate(() => scrollY), 0, `step ${step}: nothing had to scroll`);
    if (step === 1) await page.screenshot({ path: join(ARTIFACTS, "embed-700x500.png") });
  }
  // The panels the scenario does not need are closed, and open on request.
  assert.equal(await frame.evaluate(() => document.querySelector("#below-box").open), false);
  const reported = await page.evaluate(() => window.heights);
  assert.ok(reported.length > 0, "the embedded page posted its height");
  const docHeight = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  assert.equal(reported.at(-1), docHeight, "the last height posted is the page's height");
  await frame.click("#below-box > summary");
  await page.waitForFunction((before) => window.heights.at(-1) > before, docHeight);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("?panels= chooses the embedded panels", async () => {
  const page = await suite.open("?embed&scenario=visibility&panels=timeline", { width: 700, height: 500 });
  assert.equal(await page.evaluate(() => document.querySelector("#below-box").open), true);
  assert.equal(await page.isVisible("#timeline-h"), true);
  assert.equal(await page.isVisible("#consumers-h"), false);
  assert.equal(await page.isVisible("#send-form"), false);
  assert.deepEqual(page.problems, []);
});

test("a phone (390×844): the pinned clock is one row under 80 px, and nothing pinned covers a lane header, group row or card", async () => {
  const page = await suite.open("?scenario=fifo-two-groups", { width: 390, height: 844 });
  for (let step = 1; step < 5; step++) {
    await clickNext(page);
    const { problems, pinned } = await page.evaluate(coverage);
    assert.deepEqual(problems, [], `step ${step}`);
    assert.equal(pinned.length, 1, JSON.stringify(pinned));
    assert.ok(pinned[0].height <= 80, `the pinned part is ${pinned[0].height} px tall`);
    // One row: every control of the pinned bar crosses one horizontal line (the lowest top is
    // above the highest bottom); a second row would start below the first row's bottom.
    const bar = await page.evaluate(() => {
      const boxes = [...document.querySelectorAll(".time-bar > *")].map((e) => e.getBoundingClientRect());
      return { lowestTop: Math.max(...boxes.map((b) => b.top)), highestBottom: Math.min(...boxes.map((b) => b.bottom)) };
    });
    assert.ok(bar.lowestTop < bar.highestBottom, `the pinned bar's controls sit on more than one row: ${JSON.stringify(bar)}`);
  }
  // Scrolled through the lanes and the consumers: whatever the page scrolls into view (the skip
  // link, a focused card) comes out below the pinned bar.
  await page.evaluate(() => window.scrollTo(0, 400));
  await page.focus("#lanes .card >> nth=2");
  assert.deepEqual((await page.evaluate(coverage)).problems, []);
  await page.evaluate(() => { location.hash = "#lanes"; });
  await page.evaluate(() => new Promise(requestAnimationFrame));
  assert.deepEqual((await page.evaluate(coverage)).problems, []);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, "no sideways scrolling");
  await page.screenshot({ path: join(ARTIFACTS, "phone-390x844.png") });
  assert.deepEqual(page.problems, []);
});

test("1280×800: after each step the lanes are in view and nothing pinned covers them", async () => {
  const page = await suite.open("?scenario=dead-letter", { width: 1280, height: 800 });
  for (let step = 1; step < 5; step++) {
    await clickNext(page);
    assert.deepEqual((await page.evaluate(coverage)).problems, [], `step ${step}`);
    const b = await page.evaluate(stepBoxes);
    assert.ok(b.titles.top >= 0 && b.titles.bottom <= 800, `step ${step}: lane headers in view`);
  }
  await page.screenshot({ path: join(ARTIFACTS, "desktop-1280x800.png") });
  assert.deepEqual(page.problems, []);
});

const HOSTILE = `<style>* { all: revert } div { display: none } p { color: red; font-size: 40px } button { display: none }</style>`;
const AUTHOR_SCENARIO = {
  id: "retry-once",
  title: "A retry after the visibility timeout",
  source: "Our team's runbook",
  steps: [
    { caption: "One job in a queue with a 5 s visibility timeout.", actions: [["q", "jobs", { VisibilityTimeout: "5" }], ["s", "jobs", { body: "resize image" }]] },
    { caption: "Worker A takes it and crashes.", actions: [["r", 0, "jobs", { max: 1 }]] },
    { caption: "5 s later it is visible again.", actions: [["t", 5000]] },
    { caption: "A visibility timeout over 12 hours is refused.", actions: [["r", 1, "jobs", { max: 1, vt: 50000 }]], expectError: "InvalidParameterValue" },
  ],
};

/** A docs page (served from the same origin as the package) with `body` in it. */
async function hostPage(width, height, body) {
  const page = await newPage(suite.browser, { width, height });
  const url = new URL("docs/page.html", suite.url).href;
  await page.route(url, (route) => route.fulfill({ contentType: "text/html", body: `<!doctype html><html><head>${HOSTILE}<script type="module" src="/pkg/www/element.js"></script></head><body>${body}</body></html>` }));
  await page.route(new URL("docs/scenario.json", suite.url).href, (route) => route.fulfill({ contentType: "application/json", body: JSON.stringify(AUTHOR_SCENARIO) }));
  await page.route(new URL("docs/bad.json", suite.url).href, (route) => route.fulfill({ contentType: "application/json", body: JSON.stringify({ ...AUTHOR_SCENARIO, steps: [AUTHOR_SCENARIO.steps[0], { caption: "x", actions: [["r", "A", "jobs"]] }] }) }));
  await page.goto(url);
  return page;
}

test("<wasq-playground> in a page with hostile CSS: inline, as tall as its content, lanes and cards shown, styles kept in", async () => {
  const page = await hostPage(700, 900, `<p>Docs text before.</p><wasq-playground id="pg" scenario="fifo-two-groups" step="1"></wasq-playground><p id="after">Docs text after.</p>`);
  await page.waitForSelector("wasq-playground[data-ready=true]");
  const shape = await page.evaluate(() => {
    const el = document.querySelector("#pg");
    const app = el.shadowRoot.querySelector(".wasq-app");
    const r = el.getBoundingClientRect();
    const after = document.querySelector("#after").getBoundingClientRect();
    return {
      height: r.height,
      contentHeight: app.getBoundingClientRect().height,
      afterTop: after.top,
      bottom: r.bottom,
      cards: [...el.shadowRoot.querySelectorAll("#lanes .card")].map((c) => c.getBoundingClientRect().height),
      laneTitles: el.shadowRoot.querySelectorAll(".lane-title").length,
      nextVisible: el.shadowRoot.querySelector("#scenario-next").getBoundingClientRect().height > 0,
      // The host's `p { color: red }` does not reach the element's paragraphs.
      captionColor: getComputedStyle(el.shadowRoot.querySelector("#scenario-caption")).color,
      // The element's own `.card` and `.lanes` rules do not leak out.
      leaked: getComputedStyle(document.querySelector("#after")).color,
      url: location.href,
    };
  });
  assert.ok(Math.abs(shape.height - shape.contentHeight) <= 1, `element ${shape.height} px, content ${shape.contentHeight} px`);
  assert.ok(shape.afterTop >= shape.bottom - 1, "the text after the element flows below it");
  assert.equal(shape.cards.length, 4);
  assert.ok(shape.cards.every((h) => h > 20), "cards are drawn");
  assert.equal(shape.laneTitles, 3);
  assert.equal(shape.nextVisible, true);
  assert.notEqual(shape.captionColor, "rgb(255, 0, 0)");
  assert.equal(shape.leaked, "rgb(255, 0, 0)");
  // It steps, and leaves the host page's address alone.
  await page.evaluate(() => document.querySelector("#pg").shadowRoot.querySelector("#scenario-next").click());
  await page.evaluate(() => document.querySelector("#pg").playground.settled());
  assert.equal(await page.evaluate(() => document.querySelector("#pg").shadowRoot.querySelector("#scenario-progress").textContent), "step 3 of 5");
  assert.equal(await page.evaluate(() => location.href), shape.url);
  await page.screenshot({ path: join(ARTIFACTS, "element-hostile-css.png"), fullPage: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("an author's scenario: from JSON (src), as an object (property), and on the page (?scenario-src=); a bad one is named with its step", async () => {
  const page = await hostPage(700, 700, `<wasq-playground id="a" src="scenario.json"></wasq-playground><wasq-playground id="b"></wasq-playground><wasq-playground id="bad" src="bad.json"></wasq-playground>`);
  await page.waitForSelector("#a[data-ready=true]");
  const text = (id, sel) => page.evaluate(([i, s]) => document.getElementById(i).shadowRoot.querySelector(s).textContent, [id, sel]);
  assert.equal(await text("a", "#scenario-title"), AUTHOR_SCENARIO.title);
  assert.equal(await text("a", "#scenario-source"), "Our team's runbook");
  // The property: an object, given after the element is on the page.
  await page.evaluate((def) => { document.getElementById("b").scenario = { ...def, id: "as-object", title: "Given as an object" }; }, AUTHOR_SCENARIO);
  await page.waitForSelector("#b[data-ready=true]");
  assert.equal(await text("b", "#scenario-title"), "Given as an object");
  // Every step runs, the expected SQS error is not reported as a problem.
  for (let i = 1; i < AUTHOR_SCENARIO.steps.length; i++) {
    await page.evaluate(async () => { const el = document.getElementById("b"); await el.playground.nextStep(); });
  }
  assert.equal(await page.evaluate(() => document.getElementById("b").shadowRoot.querySelector("#scenario-error").hidden), true);
  assert.match(await page.evaluate(() => document.getElementById("b").shadowRoot.querySelector("#consumer-1 .error").textContent), /^InvalidParameterValueException.*query code InvalidParameterValue/);
  await page.waitForSelector("#bad[data-ready=error]");
  assert.equal(await text("bad", ".error"), `Scenario “${AUTHOR_SCENARIO.title}”: step 1 (step 2 of 2): action 1 ["r","A","jobs"] needs a consumer number (0 is A).`);
  await page.context().close();

  // The page itself, from a data: URL (any URL the page may fetch).
  const src = `data:application/json,${encodeURIComponent(JSON.stringify(AUTHOR_SCENARIO))}`;
  const own = await suite.open(`?scenario-src=${encodeURIComponent(src)}`);
  assert.equal(await own.textContent("#scenario-title"), AUTHOR_SCENARIO.title);
  assert.equal(await own.inputValue("#scenario-select"), "retry-once");
  await clickNext(own);
  assert.match(own.url(), /scenario-src=.*&scenario=retry-once&step=1/);
  const broken = `data:application/json,${encodeURIComponent("{ not json")}`;
  const bad = await suite.open(`?scenario-src=${encodeURIComponent(broken)}`);
  assert.match(await bad.textContent("#page-error"), /^The scenario at data:application\/json,.* is not valid JSON/);
  assert.equal(await bad.isHidden("#scenario-box"), true, "the page opens on free play");
});

test("the built-in scenarios are in the same format an author writes", async () => {
  const page = await suite.open();
  const problems = await page.evaluate(async () => {
    const { validateScenario } = await import("./scenarios.js");
    const out = [];
    for (const s of window.wasq.scenarios) {
      try { validateScenario(JSON.parse(JSON.stringify(s))); } catch (e) { out.push(e.message); }
    }
    return out;
  });
  assert.deepEqual(problems, []);
});

test("the small things: the deadline names its queue, boxes clear on the next action, stale handles go, one heading, the timeline names queues, the DLQ caption fits, cards take focus", async () => {
  const page = await suite.open("?scenario=dead-letter&step=4", { width: 700, height: 900 });
  // m1 sits in orders-dlq, whose retention is its own: the line says which queue.
  assert.match(await page.textContent("#next-deadline"), /: m1 in orders-dlq is deleted: orders-dlq's retention period/);
  // Two queues: the tabs name them; the heading is not shown a second time beside them.
  assert.equal(await page.isVisible("#queue-tabs"), true);
  assert.equal(await page.evaluate(() => document.querySelector("#queue-heading").getBoundingClientRect().width <= 1), true);
  // The timeline names each event's queue.
  assert.deepEqual(await page.$$eval("#timeline li .q", (qs) => [...new Set(qs.filter((q) => q.getClientRects().length).map((q) => q.textContent))].sort()), ["orders", "orders-dlq"]);
  // The dead-letter lane's caption stays inside its column.
  assert.equal(await page.$eval(".lane-title.lane-dlq", (t) => t.scrollWidth <= t.clientWidth), true);
  // Cards are reachable by keyboard.
  await page.focus("#lanes .card");
  assert.match(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), /^m1: /);

  const free = await suite.open("", { width: 1280, height: 900 });
  await free.evaluate(() => window.wasq.act(["q", "jobs", {}]));
  await free.evaluate(() => window.wasq.act(["s", "jobs", { body: "a" }]));
  await free.evaluate(() => window.wasq.act(["s", "nope", { body: "b" }]));
  assert.equal(await free.isVisible("#send-form .error"), true);
  await free.evaluate(() => window.wasq.act(["r", 0, "jobs", { max: 1 }]));
  assert.equal(await free.isHidden("#send-form .error"), true, "the send error cleared on the next action");
  assert.equal(await free.textContent("#consumer-0 .status"), "received m1");
  await free.evaluate(() => window.wasq.act(["s", "jobs", { body: "c" }]));
  assert.equal(await free.textContent("#consumer-0 .status"), "", "the receive's note cleared");
  // B deletes what A held (A's visibility ran out, B received it): A's stale handle goes.
  await free.evaluate(() => window.wasq.step(31_000));
  await free.evaluate(() => window.wasq.act(["r", 1, "jobs", { max: 1 }]));
  assert.match(await free.textContent("#consumer-0 .held li .hstate"), /handle stale/);
  await free.evaluate(() => window.wasq.act(["d", 1, "m1"]));
  assert.match(await free.textContent("#consumer-0 .held li .hstate"), /handle stale: message deleted/, "said once");
  await free.evaluate(() => window.wasq.act(["s", "jobs", { body: "d" }]));
  assert.equal(await free.locator("#consumer-0 .held li").count(), 0, "then the stale handle to a deleted message is gone");
  assert.equal(await free.isHidden("#queue-tabs"), true, "one queue: no tabs beside its name");
  assert.deepEqual([...page.problems, ...free.problems], []);
});

/**
 * Each rendered box in `root` (a document, or the shadow root of `hostSelector`) that shows the
 * SQS error `code`, with whether it lies inside the viewport. A box in a folded panel has no
 * layout, so it is not counted.
 */
function errorShown([hostSelector, code]) {
  const root = hostSelector ? document.querySelector(hostSelector).shadowRoot : document;
  return [...root.querySelectorAll(".error")]
    .filter((e) => e.textContent.includes(code) && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")
    .map((e) => {
      const b = e.getBoundingClientRect();
      return { text: e.textContent, top: b.top, bottom: b.bottom, inView: b.top >= 0 && b.bottom <= innerHeight };
    });
}

test("a step's expected SQS error is in view at 700×500 when the step runs, in ?embed and in the element", async () => {
  const errorStep = AUTHOR_SCENARIO.steps.findIndex((s) => s.expectError);
  const code = AUTHOR_SCENARIO.steps[errorStep].expectError;
  const src = `data:application/json,${encodeURIComponent(JSON.stringify(AUTHOR_SCENARIO))}`;
  const embed = await suite.open(`?embed&scenario-src=${encodeURIComponent(src)}&step=${errorStep - 1}`, { width: 700, height: 500 });
  await clickNext(embed);
  assert.equal(await embed.textContent("#scenario-progress"), `step ${errorStep + 1} of ${AUTHOR_SCENARIO.steps.length}`);
  const inEmbed = await embed.evaluate(errorShown, [null, code]);
  assert.ok(inEmbed.some((b) => b.inView), `?embed: the ${code} error in view: ${JSON.stringify(inEmbed)}`);
  assert.equal(await embed.isHidden("#scenario-error"), true, "an expected error is not reported as a problem");
  // Shown without pushing the lanes out of the compact embed.
  const b = await embed.evaluate(stepBoxes);
  assert.ok(b.cards.length > 0 && b.cards.every((c) => c.top >= 0 && c.bottom <= b.viewport.height), JSON.stringify(b.cards));
  assert.ok(b.next.top >= 0 && b.next.bottom <= b.viewport.height, "Next in view");
  await embed.screenshot({ path: join(ARTIFACTS, "embed-expected-error-700x500.png") });
  assert.deepEqual(embed.problems, []);
  await embed.context().close();

  const page = await hostPage(700, 500, `<wasq-playground id="e" src="scenario.json" step="${errorStep - 1}"></wasq-playground>`);
  await page.waitForSelector("#e[data-ready=true]");
  await page.evaluate(() => document.querySelector("#e").playground.nextStep());
  const inElement = await page.evaluate(errorShown, ["#e", code]);
  assert.ok(inElement.some((b) => b.inView), `element: the ${code} error in view: ${JSON.stringify(inElement)}`);
  await page.screenshot({ path: join(ARTIFACTS, "element-expected-error-700x500.png") });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
