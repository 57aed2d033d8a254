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

import { mountPlayground } from "./app.js";
import { loadWasq } from "./loader.js";
import { validateScenario, loadScenarioSource } from "./scenarios.js";
// The rest of the module graph, named here too so that the browser asks for all of it in one
// round trip after this file, instead of discovering it one import level at a time.
import "./playground.js";
import "./lanes.js";
import "./panels.js";
import "./markup.js";
import "./format.js";

const STYLE = new URL("./style.css", import.meta.url).href;
// Where the package is, for this file: pkg/www/element.js in the npm package, or the repository's
// www/ served beside pkg/ (`wasq serve` serves the page at / and the package at /pkg/).
// The file's own directory is never the package (`../` of a file at a server's root is that root).
const DEFAULT_ROOTS = ["../", "../pkg/", "/pkg/"].map((r) => new URL(r, import.meta.url).href).filter((r) => r !== new URL("./", import.meta.url).href);
const ATTRIBUTES = ["scenario", "step", "log", "panels", "src", "pkg", "embed"];

let loading = null;
/** One package instance for every element on the page (the first element's `pkg` wins). */
function wasqFor(pkg) {
  loading ??= loadWasq(pkg ? [pkg] : DEFAULT_ROOTS);
  return loading;
}

export class WasqPlaygroundElement extends HTMLElement {
  static observedAttributes = ATTRIBUTES;
  #scenario = null;
  #mounted = null;
  #generation = 0;

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
  }

  /** An author's scenario object (the format in www/README.md); setting it restarts the element. */
  get scenario() {
    return this.#scenario;
  }
  set scenario(def) {
    this.#scenario = def;
    if (this.isConnected) this.#mount();
  }

  /** The scripting API of the running playground (engine, clock, act, nextStep, …), once ready. */
  get playground() {
    return this.#mounted;
  }

  connectedCallback() {
    this.#mount();
  }
  disconnectedCallback() {
    this.#generation++;
    this.#mounted?.close();
    this.#mounted = null;
  }
  attributeChangedCallback(_name, before, after) {
    if (before !== after && this.isConnected && this.#mounted) this.#mount();
  }

  async #mount() {
    const generation = ++this.#generation;
    this.#mounted?.close();
    this.#mounted = null;
    this.removeAttribute("data-ready");
    const root = this.shadowRoot;
    root.innerHTML = `<link rel="stylesheet" href="${STYLE}"><div class="wasq-app element"><p class="loading muted">Loading the playground…</p></div>`;
    const container = root.querySelector(".wasq-app");
    const params = new URLSearchParams();
    // An element is always embedded: no page header, no scenario picker, no permalink.
    params.set("embed", "");
    for (const name of ["scenario", "step", "log", "panels"]) {
      if (this.hasAttribute(name)) params.set(name, this.getAttribute(name));
    }
    try {
      const scenarios = [];
      if (this.#scenario) scenarios.push(validateScenario(this.#scenario));
      else if (this.hasAttribute("src")) scenarios.push(await loadScenarioSource(new URL(this.getAttribute("src"), document.baseURI).href));
      if (scenarios.length && !params.has("scenario") && !params.has("log")) params.set("scenario", scenarios[0].id);
      const { mod } = await wasqFor(this.getAttribute("pkg"));
      if (generation !== this.#generation) return;
      const api = await mountPlayground(container, { wasq: mod, params, scenarios, history: false, keyTarget: container });
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
