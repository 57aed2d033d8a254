// <wasq-playground> imported from `wasq serve` by a page on another origin, as a docs site's dev
// server (VitePress on :5173, say) does: module scripts and the element's fetch of the wasm are
// CORS requests, so `wasq serve` must grant its static files to the origins its policy allows
// (loopback, --allow-origin) and to no other. In Chromium, with an origin that is not loopback
// mapped to 127.0.0.1 by the browser's resolver, so that the refusal is the policy's and not the network's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { resolve } from "node:path";
import { REPO, launch, newPage, startWasqServe } from "./helpers.mjs";

const OTHER = "docs.example.test"; // not loopback by name, so not allowed without --allow-origin
let browser;
let wasq;
let docs;

/** A docs page on its own port: it imports the element from `wasq serve` and places one. */
function startDocs(elementUrl) {
  const html = `<!doctype html><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,">
<script type="module" src="${elementUrl}"></script>
<wasq-playground scenario="visibility" step="1"></wasq-playground>`;
  const server = createServer((req, res) => {
    if (new URL(req.url, "http://x").pathname !== "/") return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ port: server.address().port, close: () => server.close() })));
}

before(async () => {
  wasq = await startWasqServe({ args: ["--www", resolve(REPO, "www")] });
  docs = await startDocs(`${wasq.url}/element.js`);
  browser = await launch([`--host-resolver-rules=MAP ${OTHER} 127.0.0.1`]);
});

after(async () => {
  await browser?.close();
  docs?.close();
  await wasq?.close();
});

/** Open the docs page at `origin`; whether the element came up, its cards, and what the console said. */
async function openDocs(origin) {
  const page = await newPage(browser, { width: 1000, height: 900 });
  await page.goto(`${origin}/`);
  // Either the element came up or its module failed to load (the page's load event waits for it).
  await page.waitForLoadState("load");
  await page.waitForFunction(() => !customElements.get("wasq-playground") || document.querySelector("wasq-playground").dataset.ready, null, { timeout: 30_000 });
  const shown = await page.evaluate(() => {
    const el = document.querySelector("wasq-playground");
    return {
      defined: Boolean(customElements.get("wasq-playground")),
      ready: el.dataset.ready ?? null,
      cards: el.shadowRoot ? [...el.shadowRoot.querySelectorAll("#lanes .card")].filter((c) => c.getClientRects().length > 0).length : 0,
    };
  });
  await page.context().close();
  return { ...shown, errors: page.problems };
}

test("a page on another loopback port imports the element from wasq serve, which loads its wasm from there too", { timeout: 120_000 }, async () => {
  const shown = await openDocs(`http://127.0.0.1:${docs.port}`);
  assert.deepEqual(shown.errors, []);
  assert.equal(shown.defined, true, "element.js and its module graph loaded across origins");
  assert.equal(shown.ready, "true", "the package (entry and wasm) loaded across origins");
  assert.ok(shown.cards > 0, "cards are drawn");
});

test("a page on an origin the policy does not allow gets no CORS grant: the element does not load", { timeout: 120_000 }, async () => {
  const shown = await openDocs(`http://${OTHER}:${docs.port}`);
  assert.equal(shown.defined, false);
  assert.ok(shown.errors.some((e) => /CORS|Access-Control-Allow-Origin/i.test(e)), shown.errors.join("\n"));
});

test("the static files' CORS headers follow the origin policy, on 200 and 304 answers alike", async () => {
  for (const path of ["/element.js", "/pkg/wasq_bg.wasm", "/pkg/package.json"]) {
    const allowed = `http://localhost:${docs.port}`;
    const granted = await fetch(`${wasq.url}${path}`, { headers: { origin: allowed } });
    assert.equal(granted.status, 200, path);
    assert.equal(granted.headers.get("access-control-allow-origin"), allowed, path);
    assert.match(granted.headers.get("vary"), /\bOrigin\b/i, path);
    const revalidated = await fetch(`${wasq.url}${path}`, { headers: { origin: allowed, "if-none-match": granted.headers.get("etag") } });
    assert.equal(revalidated.status, 304, path);
    assert.equal(revalidated.headers.get("access-control-allow-origin"), allowed, `${path} (304)`);

    const refused = await fetch(`${wasq.url}${path}`, { headers: { origin: "https://evil.example" } });
    assert.equal(refused.status, 200, `${path}: the file itself is public (a <script> without CORS may load it)`);
    assert.equal(refused.headers.get("access-control-allow-origin"), null, path);
    assert.match(refused.headers.get("vary"), /\bOrigin\b/i, path);
  }
});
