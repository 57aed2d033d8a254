// The realism toggle: off by default; "pick knobs" turns on seeded effects the page makes visible —
// duplicate cards saying so, sampled-out and throttled events highlighted — and links replay them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pageSuite, openPage, settled, mismatches } from "./helpers.mjs";

const suite = pageSuite();

const copiesInEngine = (page) => page.evaluate(() =>
  window.wasq.engine.peek(window.wasq.queueUrl("orders")).messages.filter((m) => m.duplicateCopy).length);

test("realism toggle: duplicates drawn as their own cards, realism events highlighted, replayed by the link", async () => {
  const page = await suite.open();
  assert.equal(await page.getAttribute('[data-realism="off"]', "aria-pressed"), "true");
  assert.equal(await page.isDisabled('#realism [name="reorder"]'), true);
  await page.click("#create-form button[type=submit]"); // "orders"
  await settled(page);

  // Duplicates (the default knob of "pick knobs"), then sampling and throttling.
  await page.click('[data-realism="custom"]');
  await settled(page);
  assert.equal(await page.isChecked('#realism [name="duplicateDelivery"]'), true);
  await page.check('#realism [name="shortPollSampling"]');
  await settled(page);
  await page.fill('#send-form [name="count"]', "10");
  await page.click("#send-form button[type=submit]");
  await settled(page);
  await page.fill("#consumer-0 [name=max]", "10");
  for (let i = 0; i < 4; i++) {
    await page.click("#consumer-0 .receive");
    await settled(page);
  }
  const copies = await copiesInEngine(page);
  assert.ok(copies > 0, "with duplicates at 0.3 over 10 deliveries, some were delivered twice");
  assert.equal(await page.locator('#lanes .card[data-copy] .dup-note:text("this message was delivered twice")').count(), copies);
  assert.deepEqual(await mismatches(page), []);
  assert.ok(await page.locator('#timeline li[data-type="duplicate-delivered"]').count() > 0);
  assert.ok(await page.locator('#timeline li[data-type="sampled-out"]').count() > 0, "a short poll left messages out");
  // A copy received by a consumer is held under its own label, apart from the original.
  assert.ok((await page.locator("#consumer-0 .held").textContent()).includes("·copy"));

  await page.check('#realism [name="throttling"]');
  await settled(page);
  await page.fill('#send-form [name="count"]', "1");
  for (let i = 0; i < 4; i++) await page.click("#send-form button[type=submit]");
  await settled(page);
  assert.match(await page.textContent("#send-form .error"), /RequestThrottled/);
  const throttled = page.locator('#timeline li[data-type="throttled"]');
  assert.equal(await throttled.count(), 1);
  assert.notEqual(await throttled.evaluate((li) => getComputedStyle(li).backgroundColor), "rgba(0, 0, 0, 0)");

  // The permalink replays the same seeded effects.
  const link = await page.getAttribute("#permalink", "href");
  const cards = await page.$$eval("#lanes .card", (els) => els.map((c) => [c.dataset.key, c.closest(".cell").dataset.lane]));
  const again = await openPage(suite.browser, new URL(link, page.url()).href);
  assert.deepEqual(await again.$$eval("#lanes .card", (els) => els.map((c) => [c.dataset.key, c.closest(".cell").dataset.lane])), cards);
  assert.equal(await again.getAttribute('[data-realism="custom"]', "aria-pressed"), "true");

  // Off again: no new duplicates.
  await page.click('[data-realism="off"]');
  await settled(page);
  const before = await copiesInEngine(page);
  await page.fill('#send-form [name="count"]', "10");
  await page.click("#send-form button[type=submit]");
  await page.click("#consumer-1 .receive");
  await settled(page);
  assert.equal(await copiesInEngine(page), before);
  assert.deepEqual([...page.problems, ...again.problems], []);
});
