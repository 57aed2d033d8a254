// Issue #35's compact embed, for every guided scenario rather than one: in a 700×500 iframe
// (`?embed`), at each step of each scenario, the step's caption, the Next button, the lane headers
// and every card lie inside the frame without scrolling. A FIFO batch (ten cards, seven in one
// group) is the crowded case. Screenshots of each scenario's last step go to tests/artifacts/page/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pageSuite, ARTIFACTS } from "./helpers.mjs";

const suite = pageSuite();

/** The boxes a step needs, against the frame's viewport, and whether the frame scrolled. */
function boxes() {
  const r = (e) => { const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, left: b.left, right: b.right }; };
  return {
    viewport: { width: innerWidth, height: innerHeight },
    caption: r(document.querySelector("#scenario-caption")),
    next: r(document.querySelector("#scenario-next")),
    titles: [...document.querySelectorAll(".lane-title")].filter((t) => t.getClientRects().length).map(r),
    cards: [...document.querySelectorAll("#lanes .card")].map((c) => ({ id: c.querySelector(".label").textContent, ...r(c) })),
    scrolled: scrollY,
  };
}

const inside = (b, v) => b.top >= 0 && b.bottom <= v.height && b.left >= 0 && b.right <= v.width;

test("every guided scenario, every step, embedded in a 700×500 iframe: caption, Next, lane headers and all cards in view", async () => {
  const page = await suite.browser.newPage({ viewport: { width: 700, height: 500 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  const docs = new URL("docs/embed.html", suite.url).href;
  await page.route(docs, (route) => route.fulfill({
    contentType: "text/html",
    body: `<!doctype html><link rel="icon" href="data:,"><body style="margin:0"><iframe id="wasq" style="width:100%;height:500px;border:0" title="SQS playground"></iframe>`,
  }));
  await page.goto(docs);
  const ids = await page.evaluate(async (base) => (await import(new URL("scenarios.js", base).href)).SCENARIOS.map((s) => [s.id, s.steps.length]), suite.url);
  assert.equal(ids.length, 7);
  const failures = [];
  for (const [id, steps] of ids) {
    await page.evaluate(([base, sid]) => { document.querySelector("#wasq").src = `${base}?embed&scenario=${sid}`; }, [suite.url, id]);
    const frame = await (await page.waitForSelector("#wasq")).contentFrame();
    await frame.waitForURL(new RegExp(`scenario=${id}`));
    await frame.waitForSelector("html[data-ready=true]");
    for (let step = 0; step < steps; step++) {
      if (step > 0) {
        await frame.click("#scenario-next");
        await frame.evaluate(() => window.wasq.settled());
      }
      const b = await frame.evaluate(boxes);
      const v = b.viewport;
      const where = `${id} step ${step + 1}`;
      if (!inside(b.caption, v)) failures.push(`${where}: caption ${JSON.stringify(b.caption)}`);
      if (!inside(b.next, v)) failures.push(`${where}: Next ${JSON.stringify(b.next)}`);
      for (const t of b.titles) if (!inside(t, v)) failures.push(`${where}: a lane header ${JSON.stringify(t)}`);
      for (const c of b.cards) if (!inside(c, v)) failures.push(`${where}: card ${c.id} at ${Math.round(c.top)}–${Math.round(c.bottom)} of ${v.height}`);
      if (b.scrolled) failures.push(`${where}: the frame scrolled`);
      if (b.cards.length === 0) failures.push(`${where}: no cards`);
    }
    await page.screenshot({ path: join(ARTIFACTS, `embed-700x500-${id}.png`) });
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(problems, []);
  await page.close();
});
