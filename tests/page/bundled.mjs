// Shared by the bundler tests (bundled-*.test.mjs): a docs site's page with the element as its
// bundler emitted it, opened in real Chromium, and what the element then shows.

/**
 * Opens `url` and waits until its <wasq-playground> is ready or has failed. Returns what it shows
 * (ready state, error text, cards, the host's display from the adopted stylesheet), the console
 * errors, and every request that failed or answered 4xx/5xx.
 */
export async function openElement(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const problems = [];
  const failed = [];
  const requested = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("request", (r) => requested.push(new URL(r.url()).pathname));
  page.on("requestfailed", (r) => failed.push(`${r.url()} (${r.failure()?.errorText})`));
  page.on("response", (r) => { if (r.status() >= 400) failed.push(`${r.url()} (${r.status()})`); });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector("wasq-playground")?.dataset.ready, null, { timeout: 30_000 });
  const state = await page.evaluate(() => {
    const el = document.querySelector("wasq-playground");
    return {
      ready: el.dataset.ready,
      error: el.shadowRoot.querySelector(".error:not([hidden])")?.textContent ?? null,
      cards: el.shadowRoot.querySelectorAll("#lanes .card").length,
      // `:host { display: block }` is the element's own stylesheet (a custom element is inline).
      display: getComputedStyle(el).display,
      stylesheets: el.shadowRoot.adoptedStyleSheets.length,
    };
  });
  await page.close();
  return { state, problems, failed, requested };
}
