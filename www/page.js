// The playground page (index.html): loads the package, mounts the playground on the document with
// the address and history following the reader, and exposes `window.wasq` for scripting and tests.
// Embedded in an iframe (`?embed`), it tells its parent how tall it is (see README.md, "Embedding").

import { loadWasq } from "./loader.js";
import { mountPlayground } from "./app.js";
import { loadScenarioSource } from "./scenarios.js";

const params = new URLSearchParams(location.search);
if (params.has("embed")) document.documentElement.classList.add("embed");

function showLoadError(message) {
  const p = document.querySelector("#page-error");
  p.hidden = false;
  p.textContent = message;
}

async function main() {
  const t0 = performance.now();
  // Started by index.html's first script, before this module's graph had arrived.
  const loading = window.wasqLoading ?? loadWasq();
  const wasq = loading.then((loaded) => loaded.mod);
  wasq.catch(() => {}); // reported below, where the mount awaits it
  // An author's scenario (`?scenario-src=<url of JSON>`), fetched while the package arrives: a bad
  // one is named and explained, and the page still opens (on the built-in scenarios).
  const scenarios = [];
  let scenarioProblem = null;
  const src = params.get("scenario-src");
  if (src) {
    try {
      const def = await loadScenarioSource(new URL(src, location.href).href);
      scenarios.push(def);
      if (!params.has("scenario") && !params.has("log")) params.set("scenario", def.id);
    } catch (e) {
      scenarioProblem = e.message;
    }
  }
  if (scenarioProblem) {
    // The scenario named by the URL is the author's: without it, open on free play.
    params.delete("scenario");
  }
  const app = document.querySelector("#app");
  let api;
  try {
    // Mounted before the package has arrived: the page is laid out while the wasm is on its way.
    api = await mountPlayground(app, {
      wasq,
      params,
      scenarios,
      history: true,
      keyTarget: document,
    });
  } catch (e) {
    if (await wasq.then(() => true, () => false)) throw e;
    // The package could not be loaded: no playground to show, only why.
    app.replaceChildren();
    showLoadError(e.message);
    throw e;
  }
  if (scenarioProblem) showLoadError(scenarioProblem);
  api.readyMs = performance.now(); // since navigation start: what a reader waits for
  api.loadMs = performance.now() - t0;
  window.wasq = api;
  document.documentElement.dataset.ready = "true";
  if (params.has("embed") && window.parent !== window) reportHeight();
}

/**
 * Tell the embedding page how tall the playground is, whenever that changes, so that its iframe
 * can size itself: `{ type: "wasq-playground:height", height }` (CSS pixels). Any origin may
 * embed the page, and a height says nothing private, so the target origin is "*".
 */
function reportHeight() {
  let last = 0;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: "wasq-playground:height", height }, "*");
  };
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

main();
