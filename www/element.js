// <wasq-playground>: the playground as a custom element, for docs sites (VitePress, Docusaurus/MDX,
// plain HTML) with no build step of their own:
//
//   <script type="module" src="…/wasq/www/element.js"></script>   (or: import "wasq/playground")
//   <wasq-playground scenario="fifo-two-groups"></wasq-playground>
//
// It renders inline in a shadow root, so the host page's CSS cannot break it and its own cannot
// leak; it is as tall as its content. Attributes are the page's URL parameters (scenario, step,
// log, panels, pkg, scenario-src as `src`); an author's scenario can also be given as the
// `scenario` property (an object). The package's wasm is loaded from beside this file.

// This module imports nothing statically, so that it runs as soon as it arrives: the first element
// to connect (at once, for elements already in the page when the script runs) asks for the
// package's wasm (compiled as it streams), its package.json, the playground's modules and its
// stylesheet all at the same moment. With static imports the wasm was asked for only after the
// whole module graph had arrived, a chain of round trips; a docs author should not have to add
// preload hints to avoid it.

const STYLE = new URL("./style.css", import.meta.url).href;
// Where the package is, for this file: pkg/www/element.js in the npm package, or the repository's
// www/ served beside pkg/ (`wasq serve` serves the page at / and the package at /pkg/).
// The file's own directory is never the package (`../` of a file at a server's root is that root).
const DEFAULT_ROOTS = ["../", "../pkg/", "/pkg/"].map((r) => new URL(r, import.meta.url).href).filter((r) => r !== new URL("./", import.meta.url).href);
const ATTRIBUTES = ["scenario", "step", "log", "panels", "src", "pkg", "embed"];

let loading = null;
/**
 * The package and the playground's code, once for every element on the page (the first element's
 * `pkg` wins). Every request starts here, in parallel; loader.js (shared with the page) then
 * follows package.json to the browser entry.
 */
function load(pkg) {
  if (loading) return loading;
  const roots = pkg ? [new URL(pkg.endsWith("/") ? pkg : pkg + "/", document.baseURI).href] : DEFAULT_ROOTS;
  // The first root's files, asked for now rather than once loader.js has arrived (as index.html does).
  // The wasm is compiled as it streams in, from its first byte (loader.js takes the module).
  const early = { root: roots[0], wasm: WebAssembly.compileStreaming(fetch(new URL("wasq_bg.wasm", roots[0]))), pkg: fetch(new URL("package.json", roots[0])) };
  early.wasm.catch(() => {}); // loader.js tries again, and reports what is wrong
  // The entry as well, where this version of the package has it (loader.js checks package.json).
  import(new URL("entry/browser.js", roots[0]).href).catch(() => {});
  // Every module of the graph named at once: the browser fetches them together instead of
  // discovering app.js's imports only after app.js has arrived.
  const [loader, app, scenarios] = [import("./loader.js"), import("./app.js"), import("./scenarios.js")];
  for (const other of [import("./playground.js"), import("./lanes.js"), import("./panels.js"), import("./markup.js"), import("./format.js")]) other.catch(() => {});
  const style = fetch(STYLE).then((res) => {
    if (!res.ok) throw new Error(`${STYLE}: ${res.status}`);
    return res.text();
  });
  const wasq = loader.then((m) => m.loadWasq(roots, early));
  // Failures surface where they are awaited (in #mount); these keep them from being unhandled.
  for (const p of [app, scenarios, style, wasq]) p.catch(() => {});
  loading = { app, scenarios, style, wasq };
  return loading;
}

export class WasqPlaygroundElement extends HTMLElement {
  static observedAttributes = ATTRIBUTES;
  #scenario = null;
  #mounted = null;
  #generation = 0;

  #mountQueued = false;

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    // A page's script that set `scenario` before this module defined the element put an own
    // property on the plain HTMLElement, which would hide the accessor below: take it over.
    if (Object.prototype.hasOwnProperty.call(this, "scenario")) {
      const def = this.scenario;
      delete this.scenario;
      this.scenario = def;
    }
  }

  /**
   * An author's scenario object (the format in www/README.md); setting it restarts the element.
   * A string is a scenario's id, as the attribute: React 19 sets `scenario="…"` of a defined
   * element as this property.
   */
  get scenario() {
    return this.#scenario ?? this.getAttribute("scenario");
  }
  set scenario(def) {
    if (typeof def === "string") {
      this.#scenario = null;
      this.setAttribute("scenario", def);
    } else {
      this.#scenario = def ?? null;
    }
    this.#queueMount();
  }

  /** The scripting API of the running playground (engine, clock, act, nextStep, …), once ready. */
  get playground() {
    return this.#mounted;
  }

  connectedCallback() {
    this.#queueMount();
  }
  disconnectedCallback() {
    this.#generation++;
    this.#mounted?.close();
    this.#mounted = null;
  }
  attributeChangedCallback(_name, before, after) {
    // Also while it loads: a framework sets attributes after it has connected the element, and a
    // mount already under way read the ones before.
    if (before !== after) this.#queueMount();
  }

  /** One mount for every change made in one go (an upgrade's attributes, a framework's props). */
  #queueMount() {
    if (this.#mountQueued) return;
    this.#mountQueued = true;
    queueMicrotask(() => {
      this.#mountQueued = false;
      if (this.isConnected) this.#mount();
    });
  }

  async #mount() {
    const generation = ++this.#generation;
    this.#mounted?.close();
    this.#mounted = null;
    this.removeAttribute("data-ready");
    const root = this.shadowRoot;
    const loaded = load(this.getAttribute("pkg"));
    // The stylesheet's text in a <style> of each shadow root: one request for every element, and
    // the host page's CSS still cannot reach in.
    root.innerHTML = `<style></style><div class="wasq-app element"><p class="loading muted">Loading the playground…</p></div>`;
    const container = root.querySelector(".wasq-app");
    loaded.style.then((css) => { root.querySelector("style").textContent = css; }, () => {});
    const params = new URLSearchParams();
    // An element is always embedded: no page header, no scenario picker, no permalink.
    params.set("embed", "");
    for (const name of ["scenario", "step", "log", "panels"]) {
      if (this.hasAttribute(name)) params.set(name, this.getAttribute(name));
    }
    try {
      const { validateScenario, loadScenarioSource } = await loaded.scenarios;
      const scenarios = [];
      if (this.#scenario) scenarios.push(validateScenario(this.#scenario));
      else if (this.hasAttribute("src")) scenarios.push(await loadScenarioSource(new URL(this.getAttribute("src"), document.baseURI).href));
      if (scenarios.length && !params.has("scenario") && !params.has("log")) params.set("scenario", scenarios[0].id);
      const [{ mountPlayground }] = await Promise.all([loaded.app, loaded.style]);
      if (generation !== this.#generation) return;
      // Mounted while the package may still be arriving: laid out meanwhile (see app.js).
      const api = await mountPlayground(container, { wasq: loaded.wasq.then((w) => w.mod), params, scenarios, history: false, keyTarget: container });
      if (generation !== this.#generation) { api.close(); return; }
      this.#mounted = api;
      this.setAttribute("data-ready", "true");
      this.dispatchEvent(new CustomEvent("wasq-ready", { detail: api }));
    } catch (e) {
      if (generation !== this.#generation) return;
      container.innerHTML = "";
      const p = document.createElement("p");
      p.className = "error";
      p.setAttribute("role", "alert");
      p.textContent = e.message;
      container.append(p);
      this.setAttribute("data-ready", "error");
      this.dispatchEvent(new CustomEvent("wasq-error", { detail: e }));
    }
  }
}

if (!customElements.get("wasq-playground")) customElements.define("wasq-playground", WasqPlaygroundElement);
