// The page beyond the scenarios: reader actions through the forms, SQS errors shown where they
// happened, links that reproduce a situation, embedding, narrow screens, reduced motion, the
// heartbeat and the play loop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pageSuite, clickNext, openPage, settled, mismatches, ARTIFACTS, REPO } from "./helpers.mjs";

const suite = pageSuite();

async function createQueue(page, { name, fifo = false, vt, dlq, mrc } = {}) {
  await page.fill('#create-form [name="name"]', name);
  if (fifo) await page.check('#create-form [name="fifo"]');
  if (vt !== undefined) await page.fill('#create-form [name="vt"]', String(vt));
  if (dlq) {
    await page.selectOption('#create-form [name="dlq"]', dlq);
    await page.fill('#create-form [name="mrc"]', String(mrc));
  }
  await page.click("#create-form button[type=submit]");
  await settled(page);
}

async function send(page, body, { count = 1, group } = {}) {
  await page.fill('#send-form [name="body"]', body);
  await page.fill('#send-form [name="count"]', String(count));
  if (group) await page.fill('#send-form [name="group"]', group);
  await page.click("#send-form button[type=submit]");
  await settled(page);
}

test("free play through the forms matches the engine", async () => {
  // How long the page takes to be ready is a figure (bench/page-load.mjs), not an assertion: a
  // shared two-core machine under load can stall any one load.
  const page = await suite.open();
  await createQueue(page, { name: "dead" });
  await createQueue(page, { name: "work", vt: 20, dlq: "dead", mrc: 2 });
  assert.equal(await page.evaluate(() => window.wasq.playground.selected), "work");
  await send(page, "job", { count: 4 });
  assert.deepEqual(await mismatches(page), []);
  await page.fill("#consumer-0 [name=max]", "3");
  await page.click("#consumer-0 .receive");
  await settled(page);
  assert.equal(await page.locator("#consumer-0 .held li").count(), 3);
  assert.deepEqual(await mismatches(page), []);
  // Release one, delete one, keep one.
  await page.click("#consumer-0 .held li >> nth=0 >> .release");
  await page.click("#consumer-0 .held li >> nth=1 >> .del");
  await settled(page);
  assert.deepEqual(await mismatches(page), []);
  const holder = await page.evaluate(() => {
    const held = [...window.wasq.playground.consumers[0].held.values()];
    if (held.length !== 2) throw new Error(`A holds ${held.length} handles after a delete`);
    const h = held[1];
    return document.querySelector(`.card[data-id="${h.messageId}"] .holder`).textContent;
  });
  assert.equal(holder, "held by A");
  await page.click("text=to next deadline");
  await settled(page);
  assert.deepEqual(await mismatches(page), []);
  const counters = await page.$$eval("#counters dd", (els) => els.map((e) => e.textContent));
  assert.equal(counters.length, 3);
  assert.ok((await page.locator("#timeline li").count()) >= 9, "sends, receives, a release, a delete and an expiry are on the timeline");
  assert.match(await page.textContent("#timeline li >> nth=0"), /^\+00:2\d\.\d{3}/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("an SQS error appears where it happened, with its code and message", async () => {
  const page = await suite.open();
  await createQueue(page, { name: "bad name!" });
  const expected = await page.evaluate(() => {
    try { window.wasq.engine.dispatch("CreateQueue", { QueueName: "bad name!", Attributes: { VisibilityTimeout: "30" } }); } catch (e) { return { name: e.name, message: e.message }; }
    return null;
  });
  assert.ok(expected, "the engine refuses the name");
  assert.equal(await page.textContent("#create-form .error .sqs-code"), expected.name);
  assert.equal(await page.textContent("#create-form .error .msg"), expected.message);
  // A FIFO send without a group id fails at the send form, not elsewhere.
  await createQueue(page, { name: "q", fifo: true });
  await send(page, "no group");
  assert.equal(await page.textContent("#send-form .error .sqs-code"), "MissingRequiredParameterException");
  assert.match(await page.textContent("#send-form .error .query-code"), /MissingParameter/);
  assert.equal(await page.isHidden("#create-form .error"), true, "the create form's error cleared on success");
  await page.screenshot({ path: join(ARTIFACTS, "error.png") });
  await page.context().close();
});

test("a link reproduces the exact situation: scenario steps and free action logs", async () => {
  const page = await suite.open("?scenario=dead-letter&step=3");
  assert.equal(await page.textContent("#scenario-progress").then((t) => t.startsWith("step 4 of")), true);
  const viaLink = await page.evaluate(() => JSON.stringify(window.wasq.engine.peek(window.wasq.queueUrl("orders"))));
  assert.deepEqual(await mismatches(page), []);
  // The same steps clicked by hand give the same state.
  const clicked = await suite.open();
  await clicked.selectOption("#scenario-select", "dead-letter");
  for (let i = 0; i < 3; i++) await clickNext(clicked);
  assert.equal(await clicked.evaluate(() => JSON.stringify(window.wasq.engine.peek(window.wasq.queueUrl("orders")))), viaLink);
  // Diverging from the scenario turns the URL into an action log, which replays to the same state.
  await clicked.click('button[data-step="1000"]');
  await clicked.click("#consumer-1 .receive");
  await settled(clicked);
  const url = clicked.url();
  assert.match(url, /[?&]log=/);
  const state = await clicked.evaluate(() => JSON.stringify([window.wasq.engine.peek(window.wasq.queueUrl("orders")), window.wasq.clock.now()]));
  const replayed = await openPage(suite.browser, url);
  assert.equal(await replayed.evaluate(() => JSON.stringify([window.wasq.engine.peek(window.wasq.queueUrl("orders")), window.wasq.clock.now()])), state);
  assert.deepEqual(await mismatches(replayed), []);
  for (const p of [page, clicked, replayed]) await p.context().close();
});

test("?embed hides the chrome; 375 px wide stays readable without sideways scrolling", async () => {
  const page = await suite.open("?embed&scenario=fifo-two-groups&step=2", { width: 375, height: 800 });
  assert.equal(await page.isVisible("header.chrome"), false);
  assert.equal(await page.isVisible("#scenario-next"), true);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
  const fontPx = await page.$eval("#lanes .card .body", (e) => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(fontPx >= 11, `card text is ${fontPx}px`);
  assert.deepEqual(await mismatches(page), []);
  assert.match(page.url(), /\?embed&scenario=fifo-two-groups&step=2$/);
  await page.waitForTimeout(600); // entering cards fade in
  await page.screenshot({ path: join(ARTIFACTS, "narrow-375.png"), fullPage: true });
  await page.context().close();
});

test("with prefers-reduced-motion, cards change lanes without travelling", async () => {
  const page = await suite.open("?scenario=visibility&step=0", { reducedMotion: "reduce" });
  await clickNext(page);
  const card = await page.evaluate(() => {
    const c = document.querySelector("#lanes .card");
    return { lane: c.closest(".cell").dataset.lane, anims: c.getAnimations().length, marked: c.classList.contains("just-moved") };
  });
  assert.deepEqual(card, { lane: "inflight", anims: 0, marked: true });
  await page.context().close();
});

test("the heartbeat keeps a message in flight until the 12-hour cap stops it", async () => {
  const page = await suite.open();
  await createQueue(page, { name: "hb", vt: 20 });
  await send(page, "long job");
  await page.click("#consumer-0 .receive");
  await settled(page);
  await page.click("#consumer-0 .held li .hb");
  await settled(page);
  assert.equal(await page.getAttribute("#consumer-0 .held li .hb", "aria-pressed"), "true");
  for (let i = 0; i < 12; i++) await page.click('button[data-step="10000"]');
  await settled(page);
  const state = await page.evaluate(() => window.wasq.engine.peek(window.wasq.queueUrl("hb")).messages[0].state);
  assert.equal(state, "in-flight", "two minutes later the message is still in flight");
  const beats = await page.evaluate(() => window.wasq.playground.events.filter((e) => e.type === "visibility-changed").length);
  assert.ok(beats >= 6, `${beats} extensions`);
  assert.deepEqual(await mismatches(page), []);
  // Jump to the cap: the heartbeat's next extension is refused and the page says why.
  await page.evaluate(() => window.wasq.step(12 * 3600 * 1000));
  await settled(page);
  assert.equal(await page.textContent("#consumer-0 .error .sqs-code"), "InvalidParameterValueException");
  assert.match(await page.textContent("#consumer-0 .error .msg"), /Total VisibilityTimeout for the message is beyond the limit/);
  assert.equal(await page.getAttribute("#consumer-0 .held li .hb", "aria-pressed"), "false");
  assert.deepEqual(await mismatches(page), []);
  await page.context().close();
});

test("play at 60× moves the clock and fires deadlines; pause stops it", async () => {
  const page = await suite.open("?scenario=visibility&step=1");
  await page.click('[data-speed="60"]');
  await page.click("#play");
  await page.waitForFunction(() => window.wasq.clock.now() - Date.UTC(2026, 0, 1, 9) > 62000, null, { timeout: 5000 });
  await page.click("#play");
  await settled(page);
  const t = await page.evaluate(() => window.wasq.clock.now());
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.wasq.clock.now()), t, "paused");
  assert.deepEqual(await mismatches(page), []);
  const m = await page.evaluate(() => window.wasq.engine.peek(window.wasq.queueUrl("orders")).messages[0].state);
  assert.equal(m, "stored", "the 60 s visibility timeout ran out while playing");
  assert.match(await page.textContent("#announcer"), /visib/);
  await page.context().close();
});

test("a long poll waits on the page's clock: it answers when a message arrives, or empty at its deadline", async () => {
  const page = await suite.open();
  await createQueue(page, { name: "lp" });
  await page.fill("#consumer-1 [name=wait]", "20");
  await page.click("#consumer-1 .receive");
  await settled(page);
  assert.equal(await page.textContent("#consumer-1 .status"), "long polling…");
  await page.click('button[data-step="10000"]');
  await settled(page);
  assert.equal(await page.textContent("#consumer-1 .status"), "long polling…", "10 s into a 20 s wait");
  await send(page, "late");
  await page.click('button[data-step="1000"]');
  await settled(page);
  assert.match(await page.textContent("#consumer-1 .status"), /^received m1$/);
  assert.deepEqual(await mismatches(page), []);
  // Nothing arrives: the wait ends empty exactly at its deadline.
  await page.fill("#consumer-0 [name=wait]", "5");
  await page.click("#consumer-0 .receive");
  await settled(page);
  await page.evaluate(() => window.wasq.step(4999));
  await settled(page);
  assert.equal(await page.textContent("#consumer-0 .status"), "long polling…");
  await page.evaluate(() => window.wasq.step(1));
  await settled(page);
  assert.equal(await page.textContent("#consumer-0 .status"), "no messages");
  await page.context().close();
});

test("a delayed message waits apart in Stored, then its card moves when the delay ends", async () => {
  const page = await suite.open();
  await createQueue(page, { name: "later" });
  await page.fill('#send-form [name="delay"]', "5");
  await send(page, "in five seconds");
  const cell = () => page.evaluate(() => document.querySelector("#lanes .card").closest(".cell").dataset.lane);
  assert.equal(await cell(), "delayed");
  assert.equal(await page.textContent('#counters [data-attr="ApproximateNumberOfMessagesDelayed"] dd'), "1");
  assert.deepEqual(await mismatches(page), []);
  const before = await page.$eval("#lanes .card", (c) => c.getBoundingClientRect().y);
  await page.click("#step-deadline");
  await settled(page);
  const after = await page.$eval("#lanes .card", (c) => {
    const anims = c.getAnimations().length;
    for (const a of c.getAnimations()) a.finish(); // measure the layout, not the FLIP transform
    return { y: c.getBoundingClientRect().y, anims, from: c.dataset.movedFrom };
  });
  assert.equal(await cell(), "stored");
  assert.equal(await page.textContent("#clock-now"), "+00:05.000", "to next deadline stops exactly when the delay ends");
  assert.ok(after.y !== before && after.anims > 0 && after.from === "delayed", JSON.stringify(after));
  assert.deepEqual(await mismatches(page), []);
  await page.context().close();
});

test("keyboard alone drives a scenario, the clock and a consumer", async () => {
  const page = await suite.open("?scenario=visibility&step=0");
  await page.focus("#scenario-next");
  await page.keyboard.press("Enter");
  await settled(page);
  assert.equal(await page.evaluate(() => new URL(location.href).searchParams.get("step")), "1");
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press("n");
  await settled(page);
  assert.equal(await page.evaluate(() => new URL(location.href).searchParams.get("step")), "2");
  await page.keyboard.press(".");
  await settled(page);
  assert.equal(await page.textContent("#clock-now"), "+00:16.000");
  // Tab from the first field of consumer B's form reaches its Receive button.
  await page.focus("#consumer-1 [name=max]");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "ReceiveMessage");
  await page.keyboard.press("Enter");
  await settled(page);
  assert.match(await page.textContent("#consumer-1 .status"), /no messages/, "m1 is still in flight with A");
  assert.ok((await page.textContent("#announcer")).length > 0, "the live region announced the change");
  assert.deepEqual(await mismatches(page), []);
  await page.context().close();
});

test("works from any static host: the package vendored next to the page, or named by ?pkg=", async () => {
  const { startStaticServer, packageDir } = await import("./server.mjs");
  const www = join(REPO, "www");
  const pkg = packageDir(REPO);
  // A docs site: the page under /docs/playground/, the package copied into its vendor/wasq/.
  const docs = await startStaticServer(REPO, [["/docs/playground/vendor/wasq/", pkg], ["/docs/playground/", www]]);
  try {
    const page = await openPage(suite.browser, docs.url, "docs/playground/?scenario=fifo-one-group&step=1");
    assert.deepEqual(await mismatches(page), []);
    // The wasm that loaded (a root tried first and not there also asked for one, and got a 404).
    const entry = await page.evaluate(() => performance.getEntriesByType("resource").find((r) => r.name.endsWith("wasq_bg.wasm") && r.responseStatus === 200)?.name);
    assert.match(entry, /\/docs\/playground\/vendor\/wasq\/wasq_bg\.wasm$/);
    await page.context().close();
  } finally {
    await docs.close();
  }
  // A package hosted elsewhere on the site, named in the address.
  const elsewhere = await startStaticServer(REPO, [["/assets/wasq/", pkg], ["/", www]]);
  try {
    const page = await openPage(suite.browser, elsewhere.url, "?pkg=/assets/wasq/&scenario=visibility&step=1");
    assert.deepEqual(await mismatches(page), []);
    assert.match(page.url(), /pkg=%2Fassets%2Fwasq%2F|pkg=\/assets\/wasq\//, "the link keeps naming the package");
    await page.context().close();
  } finally {
    await elsewhere.close();
  }
});

test("the full page (not only ?embed) fits a phone: the scenario picker's long titles do not widen it", async () => {
  for (const width of [390, 375]) {
    const page = await suite.open("?scenario=fifo-two-groups&step=2", { width, height: 844 });
    assert.equal(await page.isVisible("#scenario-select"), true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${width} px: page scrolls sideways by ${overflow}px`);
    if (width === 390) await page.screenshot({ path: join(ARTIFACTS, "phone-390.png") });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }
});

test("a long body without spaces wraps in the consumer panel, cut for display; the engine keeps all of it", async () => {
  const page = await suite.open();
  const body = "x".repeat(300 * 1024); // under the 1 MiB limit, so SQS accepts it
  await page.evaluate(async (b) => {
    await window.wasq.act(["q", "orders", {}]);
    await window.wasq.act(["s", "orders", { body: b }]);
    await window.wasq.act(["r", 0, "orders", { max: 1 }]);
  }, body);
  await settled(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
  const shown = await page.textContent("#consumer-0 .held li .hbody");
  assert.ok(shown.length < 300, `panel shows ${shown.length} characters`);
  assert.match(shown, /307,200 characters/);
  const kept = await page.evaluate(() => window.wasq.engine.peek(window.wasq.queueUrl("orders")).messages[0].body.length);
  assert.equal(kept, body.length);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("the browser's own form validation never stands in for SQS's error", async () => {
  const page = await suite.open();
  const error = (sel) => page.$eval(sel, (e) => (e.hidden ? "" : e.textContent));
  await page.fill('#create-form [name="name"]', "");
  await page.click("#create-form button[type=submit]");
  await settled(page);
  assert.match(await error("#create-form .error"), /InvalidParameterValue.*1 to 80 in length/);
  await createQueue(page, { name: "orders" });
  await send(page, "job", { count: 11 });
  assert.match(await error("#send-form .error"), /^TooManyEntriesInBatchRequest.*You have sent 11\./);
  await send(page, "job", { count: 1 });
  await page.fill('#consumer-0 [name="max"]', "11");
  await page.click("#consumer-0 .receive");
  await settled(page);
  assert.match(await error("#consumer-0 .error"), /Value 11 for parameter MaxNumberOfMessages is invalid/);
  await page.fill('#consumer-0 [name="max"]', "1");
  await page.click("#consumer-0 .receive");
  await settled(page);
  // An emptied seconds box is a missing parameter, not 0 (which would release the message).
  await page.fill("#consumer-0 .held li .cv input", "");
  await page.click("#consumer-0 .held li .set");
  await settled(page);
  assert.match(await error("#consumer-0 .error"), /^MissingRequiredParameterException.*parameter VisibilityTimeout/);
  const attrs = await page.evaluate(() => window.wasq.engine.dispatch("GetQueueAttributes", { QueueUrl: window.wasq.queueUrl("orders"), AttributeNames: ["All"] }).Attributes);
  assert.equal(attrs.ApproximateNumberOfMessagesNotVisible, "1", "the message is still in flight");
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a scenario step the reader's own actions made impossible says so; odd links still load", async () => {
  const page = await suite.open("?scenario=visibility&step=2");
  await page.click("#consumer-0 .held li .del"); // the reader deletes m1; step 4 changes its visibility
  await settled(page);
  await clickNext(page);
  assert.match(await page.textContent("#scenario-progress"), /^step 4 of 6/);
  assert.match(await page.$eval("#scenario-error", (e) => (e.hidden ? "" : e.textContent)), /consumer A holds no m1.*Restart/);
  // The step that could not run is not in the link, which replays.
  const again = await suite.open(new URL(page.url()).search);
  assert.equal(await again.isHidden("#load-error"), true);
  assert.deepEqual(await mismatches(again), []);
  // A link with an action this page does not know still opens, and says what it skipped.
  const bad = await suite.open(`?log=${Buffer.from(JSON.stringify([["q", "orders", {}], ["x"]])).toString("base64url")}`);
  assert.match(await bad.textContent("#load-error"), /1 of the 2 actions/);
  assert.equal(await bad.evaluate(() => window.wasq.playground.queues.size), 1);
  // step=-1 still runs the setup under the first caption.
  const neg = await suite.open("?scenario=visibility&step=-1");
  assert.equal(await neg.locator("#lanes .card").count(), 1);
  for (const p of [page, again, bad, neg]) {
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
});

test("n and . work right after clicking a button (the focused button keeps only Space)", async () => {
  const page = await suite.open("?scenario=visibility&step=0");
  await clickNext(page);
  await page.keyboard.press("n");
  await settled(page);
  assert.match(await page.textContent("#scenario-progress"), /^step 3 of 6/);
  await page.click('[data-step="1000"]');
  await settled(page);
  await page.keyboard.press(".");
  await settled(page);
  assert.equal(await page.textContent("#clock-now"), "+00:17.000");
  await page.context().close();
});

test("a consumer's handle from a queue other than the shown one says which queue it is on", async () => {
  const page = await suite.open();
  await page.evaluate(async () => {
    await window.wasq.act(["q", "orders", {}]);
    await window.wasq.act(["s", "orders", { body: "hi" }]);
    await window.wasq.act(["r", 0, "orders", { max: 1 }]);
    await window.wasq.act(["q", "slow", {}]);
  });
  await settled(page);
  assert.match(await page.textContent("#consumer-0 h3"), /from slow/);
  assert.match(await page.textContent("#consumer-0 .held li .hstate"), /^on orders · in flight/);
  await page.evaluate(() => window.wasq.act(["sel", "orders"]));
  await settled(page);
  assert.match(await page.textContent("#consumer-0 .held li .hstate"), /^in flight/);
  await page.context().close();
});

test("picking “— free play —” leaves the scenario: no stale caption, counters or scenario link", async () => {
  const page = await suite.open("?scenario=visibility&step=3");
  await page.selectOption("#scenario-select", "");
  await settled(page);
  assert.equal(await page.isVisible("#scenario-box"), false);
  assert.equal(await page.isVisible("#counters"), false, "no queue, so no GetQueueAttributes counters");
  assert.equal(new URL(page.url()).search, "");
  assert.equal(await page.getAttribute("#permalink", "href"), "/");
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

/**
 * Back or Forward, then wait until the page shows the state of the entry it landed on: the
 * page replays it from the URL, and its permalink names that URL once the replay is done.
 */
async function travel(page, direction) {
  await (direction === "back" ? page.goBack() : page.goForward());
  await page.waitForFunction(() => document.querySelector("#permalink").getAttribute("href") === location.pathname + location.search);
  await settled(page);
}

test("Back and Forward step through scenario steps, queue choices and actions; consecutive time steps are one entry", async () => {
  const page = await suite.open();
  const lanes = () => page.$$eval("#lanes .card", (cards) => cards.map((c) => c.closest(".cell").dataset.lane));
  const shown = () => page.evaluate(() => ({
    heading: document.querySelector("#queue-heading").textContent,
    picker: document.querySelector("#scenario-select").value,
    progress: document.querySelector("#scenario-box").hidden ? null : document.querySelector("#scenario-progress").textContent.split(" · ")[0],
    clock: document.querySelector("#clock-now").textContent,
  }));

  // A scenario and its first step: two entries.
  await page.selectOption("#scenario-select", "visibility");
  await settled(page);
  await clickNext(page);
  assert.equal((await shown()).progress, "step 2 of 6");
  assert.deepEqual(await lanes(), ["inflight"]);

  await travel(page, "back");
  assert.equal(new URL(page.url()).search, "?scenario=visibility&step=0");
  assert.equal((await shown()).progress, "step 1 of 6");
  assert.deepEqual(await lanes(), ["stored"], "the receive is undone");
  assert.deepEqual(await mismatches(page), []);
  await travel(page, "forward");
  assert.equal((await shown()).progress, "step 2 of 6");
  assert.deepEqual(await lanes(), ["inflight"]);

  // Free play: each action is an entry, choosing a queue's tab included.
  await page.selectOption("#scenario-select", "");
  await settled(page);
  await createQueue(page, { name: "a" });
  await createQueue(page, { name: "b" });
  await page.click('#queue-tabs button:text-is("a")');
  await settled(page);
  await send(page, "hello");
  assert.equal((await shown()).heading, "a");
  assert.deepEqual(await lanes(), ["stored"]);

  await travel(page, "back");
  assert.deepEqual([(await shown()).heading, await lanes()], ["a", []], "the send is undone");
  await travel(page, "back");
  assert.equal((await shown()).heading, "b", "queue a's tab choice is undone");
  await travel(page, "forward");
  await travel(page, "forward");
  assert.deepEqual([(await shown()).heading, await lanes()], ["a", ["stored"]]);
  assert.deepEqual(await mismatches(page), []);

  // +1 s three times is one entry: Back goes to before the time passed.
  const before = await page.evaluate(() => history.length);
  for (let i = 0; i < 3; i++) await page.click('button[data-step="1000"]');
  await settled(page);
  assert.equal(await page.evaluate(() => history.length), before + 1);
  assert.equal((await shown()).clock, "+00:03.000");
  await travel(page, "back");
  assert.equal((await shown()).clock, "+00:00.000");
  await travel(page, "forward");
  assert.equal((await shown()).clock, "+00:03.000");

  // All the way back to the scenario step: its caption and picker return with it.
  for (let i = 0; i < 6; i++) await travel(page, "back");
  assert.deepEqual(await shown(), { heading: "orders", picker: "visibility", progress: "step 2 of 6", clock: "+00:00.000" });
  assert.deepEqual(await lanes(), ["inflight"]);
  assert.deepEqual(await mismatches(page), []);
  assert.deepEqual(page.problems, []);
  await page.context().close();

  // Embedded in a docs page, entries would be the docs page's: the address changes, history does not grow.
  const embedded = await suite.open("?embed&scenario=visibility&step=0");
  const length = await embedded.evaluate(() => history.length);
  await clickNext(embedded);
  await embedded.click('button[data-step="1000"]');
  await settled(embedded);
  assert.equal(await embedded.evaluate(() => history.length), length);
  assert.match(new URL(embedded.url()).search, /^\?embed&log=/);
  await embedded.context().close();
});

test("Back while the clock plays and a long poll waits: play stops, the poll ends with the page it belonged to, and the earlier state is shown", async () => {
  const page = await suite.open();
  const lanes = () => page.$$eval("#lanes .card", (cards) => cards.map((c) => c.closest(".cell").dataset.lane));
  await createQueue(page, { name: "bf" });
  await send(page, "first");
  const before = new URL(page.url()).search;
  await send(page, "second");
  assert.deepEqual(await lanes(), ["stored", "stored"]);
  // An empty queue for the poll to wait on would need another queue; a 20 s poll on this one
  // answers at once, so it waits on a queue with nothing in it.
  await createQueue(page, { name: "idle" });
  await page.fill("#consumer-1 [name=wait]", "20");
  await page.click("#consumer-1 .receive");
  await settled(page);
  assert.equal(await page.textContent("#consumer-1 .status"), "long polling…");
  await page.click('[data-speed="60"]');
  await page.click("#play");
  await page.waitForFunction(() => window.wasq.clock.now() - Date.UTC(2026, 0, 1, 9) > 2000, null, { timeout: 5000 });

  // Back three entries: past the idle queue's creation and the second send.
  for (let i = 0; i < 3; i++) await travel(page, "back");
  assert.equal(new URL(page.url()).search, before);
  const t = await page.evaluate(() => window.wasq.clock.now());
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.wasq.clock.now()), t, "play stopped");
  assert.equal(await page.getAttribute("#play", "aria-pressed"), "false");
  assert.equal(await page.textContent("#queue-heading"), "bf");
  assert.deepEqual(await lanes(), ["stored"], "the second send is undone");
  assert.notEqual(await page.textContent("#consumer-1 .status"), "long polling…", "no poll left waiting on the replaced engine");
  assert.deepEqual(await mismatches(page), []);

  // The restored page works: a receive and a step behave as on a fresh one.
  await page.click("#consumer-0 .receive");
  await settled(page);
  assert.deepEqual(await lanes(), ["inflight"]);
  // A new action after Back starts a new branch of history, as on any page: Back undoes it.
  await travel(page, "back");
  assert.equal(new URL(page.url()).search, before);
  assert.deepEqual(await lanes(), ["stored"]);
  assert.deepEqual(await mismatches(page), []);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("time passed after a scenario step leaves the scenario as written: Back and Restart replay it", async () => {
  const page = await suite.open("?scenario=visibility&step=1");
  const clock = () => page.textContent("#clock-now");
  await clickNext(page); // "15 seconds pass": the step's last action is ["t", 15000]
  assert.equal(await clock(), "+00:15.000");
  await page.click('button[data-step="1000"]');
  await settled(page);
  assert.equal(await clock(), "+00:16.000");
  await travel(page, "back");
  assert.equal(await clock(), "+00:15.000");
  await page.click("#scenario-restart");
  await settled(page);
  for (let i = 0; i < 2; i++) {
    await clickNext(page);
  }
  assert.equal(await clock(), "+00:15.000");
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("“to next deadline” onto a heartbeat runs the heartbeat (no “in 0 s” deadline left behind)", async () => {
  const page = await suite.open("?scenario=twelve-hours&step=1");
  await page.click("#consumer-0 .held li .hb");
  await settled(page);
  await page.click('[data-step="10000"]'); // +10 s: the next heartbeat is due at +00:15
  await settled(page);
  await page.click("#step-deadline");
  await settled(page);
  assert.equal(await page.textContent("#clock-now"), "+00:15.000");
  assert.equal(await page.textContent("#next-deadline"), "next deadline +00:30.000 (in 15 s): A's heartbeat extends m1");
  const visibleAt = await page.evaluate(() => window.wasq.engine.peek(window.wasq.queueUrl("reports")).messages[0].visibleAt - window.wasq.clock.now());
  assert.equal(visibleAt, 30_000, "extended to 30 s from now");
  await page.context().close();
});

test("after Next step the step's caption and the Next button are in view, the lanes below them", async () => {
  // The last: a docs page's iframe, where the caption is pinned and the lanes come up under it.
  for (const [width, height, embed] of [[1280, 800, ""], [390, 844, ""], [700, 500, "embed&"]]) {
    const page = await suite.open(`?${embed}scenario=fifo-batch`, { width, height });
    for (let i = 0; i < 2; i++) {
      await clickNext(page);
      const box = (sel) => page.evaluate((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return { top: r.top, bottom: r.bottom };
      }, sel);
      const [caption, next, lanes] = [await box("#scenario-caption"), await box("#scenario-next"), await box("#lanes")];
      assert.ok(caption.top >= 0 && caption.bottom <= height, `${width}px, step ${i + 1}: caption at ${caption.top}..${caption.bottom}`);
      assert.ok(next.top >= 0 && next.bottom <= height, `${width}px, step ${i + 1}: Next at ${next.top}..${next.bottom}`);
      if (width === 1280) assert.ok(lanes.top < height, `lanes start below the fold at ${lanes.top}`);
      if (embed) {
        const card = await box("#lanes .card");
        assert.ok(card.top >= next.bottom && card.bottom <= height, `embedded, step ${i + 1}: first card at ${card.top}..${card.bottom}, Next ends at ${next.bottom}`);
      }
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }
});

test("the clock bar says what its next deadline is: a delay, a visibility timeout, the retention period", async () => {
  const page = await suite.open();
  const said = async () => (await settled(page), page.textContent("#next-deadline"));
  await page.evaluate(() => window.wasq.act(["q", "orders", {}]));
  await page.evaluate(() => window.wasq.act(["s", "orders", { body: "later", delay: 5 }]));
  assert.match(await said(), /\+00:05\.000 .*: m1's delay ends$/);
  await page.evaluate(() => window.wasq.act(["t", 5000]));
  assert.match(await said(), /: m1 is deleted: the queue's retention period \(MessageRetentionPeriod 345600 s\) ends$/);
  await page.evaluate(() => window.wasq.act(["r", 0, "orders", { max: 1 }]));
  assert.match(await said(), /\+00:35\.000 .*: m1's visibility timeout ends$/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
