// Runs every guided scenario in real Chromium, clicking through its steps like a reader. After each
// step the lanes must match engine.peek() and the counters GetQueueAttributes; cards whose message
// changed state must have moved (new lane, new position, an animation running); and each
// scenario's point (the SQS behaviour it teaches) is asserted at its key step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pageSuite, clickNext, settled, mismatches, cardPositions, ARTIFACTS } from "./helpers.mjs";

const suite = pageSuite();

const peekOf = (page, queue) => page.evaluate((q) => window.wasq.engine.peek(window.wasq.queueUrl(q)), queue);
const held = (page, consumer) => page.evaluate((c) => [...window.wasq.playground.consumers[c].held.keys()], consumer);
const heldBodies = (page, consumer) => page.evaluate((c) => [...window.wasq.playground.consumers[c].held.values()].map((h) => h.body), consumer);
const cardOf = (page, label) => page.evaluate((l) => {
  const id = window.wasq.playground.ids.get(l);
  const card = document.querySelector(`#lanes .card[data-id="${id}"]`);
  return card && { lane: card.closest(".cell").dataset.lane, state: card.dataset.state, text: card.textContent };
}, label);
const errorIn = (page, sel) => page.evaluate((s) => {
  const box = document.querySelector(s);
  return box && !box.hidden ? { code: box.querySelector(".sqs-code")?.textContent, text: box.textContent } : null;
}, sel);

// The behaviour each scenario demonstrates, checked at the step that shows it. `shot` marks the key moment.
const CHECKS = {
  visibility: {
    1: async (page) => assert.equal((await cardOf(page, "m1")).lane, "inflight"),
    3: async (page) => {
      const m = (await peekOf(page, "orders")).messages[0];
      const received = await page.evaluate(() => window.wasq.playground.events.find((e) => e.type === "received").at);
      assert.equal(m.visibleAt - received, 25000, "ChangeMessageVisibility(10) at 15 s: visible 25 s after the receive");
      return "shot";
    },
    4: async (page) => assert.equal((await cardOf(page, "m1")).lane, "stored"),
    5: async (page) => {
      assert.deepEqual(await held(page, 1), ["m1"]);
      assert.match((await cardOf(page, "m1")).text, /received ×2/);
    },
  },
  "twelve-hours": {
    2: async (page) => {
      const err = await errorIn(page, "#consumer-0 .error");
      assert.ok(err, "the refused ChangeMessageVisibility shows an error at consumer A");
      // The JSON shape name, then the query-protocol code.
      assert.equal(err.code, "InvalidParameterValueException");
      assert.match(err.text, /query code InvalidParameterValue\b/);
      assert.match(err.text, /Value 43200 for parameter VisibilityTimeout is invalid/);
      assert.equal(await errorIn(page, "#scenario-error"), null, "the error was the expected one");
      return "shot";
    },
    3: async (page) => {
      assert.equal(await errorIn(page, "#consumer-0 .error"), null);
      const m = (await peekOf(page, "reports")).messages[0];
      assert.equal(m.visibleAt - (await page.evaluate(() => window.wasq.clock.now())), 43195 * 1000);
    },
  },
  "fifo-one-group": {
    1: async (page) => {
      assert.equal(await page.getAttribute('.group-head[data-group="cart"]', "data-locked"), "true");
      assert.equal(await page.isVisible('.group-head[data-group="cart"] .lock svg'), true);
      assert.match(await page.textContent('.group-head[data-group="cart"]'), /locked/);
    },
    2: async (page) => {
      assert.deepEqual(await held(page, 1), []);
      assert.match(await page.textContent("#consumer-1 .status"), /no messages/);
      return "shot";
    },
    4: async (page) => assert.deepEqual(await heldBodies(page, 1), ["apply coupon"]),
  },
  "fifo-two-groups": {
    2: async (page) => {
      assert.deepEqual(await heldBodies(page, 0), ["alice: deposit"]);
      assert.deepEqual(await heldBodies(page, 1), ["bob: deposit"]);
      return "shot";
    },
    3: async (page) => assert.deepEqual([await heldBodies(page, 0), await heldBodies(page, 1)], [[], []], "deleted handles are dropped"),
    4: async (page) => assert.deepEqual(await heldBodies(page, 0), ["alice: withdraw", "bob: withdraw"]),
  },
  "fifo-batch": {
    0: async (page) => {
      const cards = await page.$$eval('.cell[data-group="red"][data-lane="stored"] .card .body', (els) => els.map((e) => e.textContent));
      assert.deepEqual(cards, [1, 2, 3, 4, 5, 6, 7].map((i) => `red ${i}`), "one row per group, in order");
      const seqs = await page.$$eval('#lanes .card .seq', (els) => els.map((e) => e.textContent));
      const full = (await peekOf(page, "batches.fifo")).messages.map((m) => m.sequenceNumber);
      assert.equal(seqs.length, full.length);
      seqs.forEach((s, i) => assert.ok(full[i].endsWith(s.replace("seq …", "")), `${s} is the tail of ${full[i]}`));
    },
    1: async (page) => assert.deepEqual(await heldBodies(page, 0), ["red 1", "red 2", "red 3", "red 4", "red 5"]),
    2: async (page) => {
      assert.deepEqual(await heldBodies(page, 1), ["blue 1", "blue 2", "blue 3"]);
      return "shot";
    },
    3: async (page) => assert.deepEqual(await heldBodies(page, 0), ["red 6", "red 7"]),
  },
  deduplication: {
    1: async (page) => {
      assert.equal((await peekOf(page, "invoices.fifo")).messages.length, 1);
      const flash = await page.evaluate(() => {
        const id = window.wasq.playground.ids.get("m1");
        return document.querySelector(`.card[data-id="${id}"] .flash`)?.textContent;
      });
      assert.equal(flash, "deduplicated", "the duplicated card flashes");
      assert.equal(await page.textContent("#send-form .note"), "deduplicated: accepted but not enqueued (duplicate of m1)");
      return "shot";
    },
    3: async (page) => {
      const p = await peekOf(page, "invoices.fifo");
      assert.ok(p.messages.every((m) => m.state !== "stored"), "no new message within the window, even after delete");
    },
    4: async (page) => {
      assert.equal((await peekOf(page, "invoices.fifo")).messages.filter((m) => m.state === "stored").length, 1);
      assert.equal(await page.textContent("#send-form .note"), "sent m2");
    },
  },
  "dead-letter": {
    3: async (page) => assert.match((await cardOf(page, "m1")).text, /received ×3/),
    4: async (page) => {
      assert.equal((await cardOf(page, "m1")).lane, "dlq");
      assert.match(await page.textContent("#consumer-1 .status"), /no messages/, "the 4th receive returns nothing");
      const dlq = await page.evaluate(() => window.wasq.engine.dispatch("GetQueueAttributes", {
        QueueUrl: window.wasq.queueUrl("orders-dlq"), AttributeNames: ["ApproximateNumberOfMessages"] }).Attributes);
      assert.equal(dlq.ApproximateNumberOfMessages, "1");
      assert.match(await page.textContent(".dlq-count"), / · 1 message · maxReceiveCount 3$/);
      assert.match(await page.getAttribute(".dlq-count", "title"), /ApproximateNumberOfMessages 1$/);
      return "shot";
    },
  },
};

const scenarioIds = await (async () => (await import("../../www/scenarios.js")).SCENARIOS.map((s) => [s.id, s.steps.length]))();

for (const [id, steps] of scenarioIds) {
  test(`scenario ${id}: every step matches the engine`, async () => {
    const page = await suite.open();
    await page.selectOption("#scenario-select", id);
    await settled(page);
    let moved = 0;
    for (let step = 0; step < steps; step++) {
      if (step > 0) {
        const beforePos = await cardPositions(page);
        await clickNext(page);
        // Read the animations at once: they last about half a second.
        const now = await cardPositions(page);
        for (const [id, c] of Object.entries(now)) {
          const b = beforePos[id];
          if (!b || b.lane === c.lane) continue;
          moved++;
          assert.ok(b.x !== c.x || b.y !== c.y, `card ${id} changed lane ${b.lane}→${c.lane} but did not move`);
          assert.ok(c.anims > 0, `card ${id} moved ${b.lane}→${c.lane} without an animation`);
        }
      }
      assert.deepEqual(await mismatches(page), [], `${id} step ${step}`);
      assert.equal(await page.evaluate(() => new URL(location.href).searchParams.get("step")), String(step));
      const check = CHECKS[id]?.[step];
      if (check && (await check(page)) === "shot") {
        await page.waitForTimeout(700); // let the moves finish before the picture
        await page.screenshot({ path: join(ARTIFACTS, `${id}.png`), fullPage: true });
        await page.screenshot({ path: join(ARTIFACTS, `${id}-top.png`) }); // what a reader sees first
      }
    }
    assert.ok(moved > 0, "some card changed lanes during the scenario");
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}
