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

// The package's wasm and browser entry, named by literals relative to this file, in this module,
// because that is the form bundlers recognise: webpack 5 and Vite/Rollup builds emit the wasm as
// an asset and turn this expression into its URL, and bundle the entry with the element. Served
// as they ship (node_modules/wasq/www/element.js, a CDN's wasq/www/), they are the package's own
// files one directory up. esbuild (VitePress's dev server pre-bundling) leaves the URL relative to
// its bundle, where there is no wasm: the author then names the package with the `pkg` attribute.
const WASM = new URL("../wasq_bg.wasm", import.meta.url);
const importEntry = () => import("../entry/browser.js");
// This file's address, for the URLs computed at run time: a variable, so that bundlers do not take
// `new URL("./", …)` for an asset. (webpack puts the source file's file: URL here.)
const HERE = import.meta.url;
// Where else the package may be, for this file: the repository's www/ served beside pkg/, or
// `wasq serve`'s page directory (element at /element.js, package at /pkg/).
const OTHER_ROOTS = [...new Set(["../pkg/", "/pkg/"].map((r) => new URL(r, HERE).href))];
// `../` of a file at a server's root is that root, which holds the page, not the package: there
// the wasm is not asked for beside this file, a request sure to fail.
const BESIDE = new URL("../", HERE).href !== new URL("./", HERE).href;
const ATTRIBUTES = ["scenario", "step", "log", "panels", "src", "pkg", "embed"];

/** One stylesheet object for every element's shadow root (adopted, so nothing is fetched). */
async function styleSheet() {
  // A module, not style.css: a bundler takes it in with the rest, where a fetch of a URL beside
  // this file would miss. Generated from www/style.css at `make pkg`, its one source.
  const { default: css } = await import("./style.css.js");
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  return sheet;
}

/**
 * The package at the first of `roots` that has it, through loader.js (shared with the page). The
 * first root's wasm, package.json and entry are asked for now rather than once loader.js has
 * arrived (as index.html does); the wasm is compiled as it streams in (loader.js takes the module).
 */
function fromRoots(loaderModule, roots) {
  const root = roots[0];
  const early = { root, wasm: WebAssembly.compileStreaming(fetch(new URL("wasq_bg.wasm", root))), pkg: fetch(new URL("package.json", root)) };
  early.wasm.catch(() => {}); // loader.js tries again, and reports what is wrong
  // The entry as well, where this version of the package has it (loader.js checks package.json).
  import(/* webpackIgnore: true */ /* @vite-ignore */ new URL("entry/browser.js", root).href).catch(() => {});
  // loaderModule's import is made just after this returns (see load), so it is read a turn later.
  return Promise.resolve().then(loaderModule).then((m) => m.loadWasq(roots, early));
}

/**
 * The package this file ships in (or, bundled, the wasm where the bundler put it and the entry
 * bundled with the element), both asked for at once, the wasm compiled as it streams in.
 */
async function fromBeside(loaderModule) {
  const wasm = WebAssembly.compileStreaming(fetch(WASM))
    // A host that does not label it application/wasm, or a failed request: loader.js's
    // compileWasm compiles the first, and says what went wrong with the second.
    .catch(async () => (await loaderModule()).compileWasm(fetch(WASM)));
  const entry = importEntry();
  wasm.catch(() => {});
  const mod = await entry;
  await mod.init(wasm);
  return { mod };
}

/** The error when no package was found where the element looked: it names the `pkg` attribute. */
function notFound(errors) {
  return new Error(`The wasq package's wasm was not found (${errors.map((e) => e.message).join("; ")}). Tell the element where the package is served: <wasq-playground pkg="/path/to/wasq/">, the directory that holds wasq_bg.wasm and package.json (see "Through a bundler" in wasq's www/README.md).`);
}

let loading = null;
/**
 * The package and the playground's code, once for every element on the page (the first element's
 * `pkg` wins). Every request starts here, in parallel.
 */
function load(pkg) {
  if (loading) return loading;
  // The wasm is asked for first: it is most of the bytes, and over HTTP/1.1 (six connections to
  // a host) the requests made first get the connections first. loader.js is asked for just after.
  let loader;
  const loaderModule = () => loader;
  let wasq;
  if (pkg) {
    wasq = fromRoots(loaderModule, [new URL(pkg.endsWith("/") ? pkg : pkg + "/", document.baseURI).href]);
  } else if (BESIDE) {
    wasq = fromBeside(loaderModule).catch((beside) => fromRoots(loaderModule, OTHER_ROOTS).catch((other) => { throw notFound([beside, other]); }));
  } else {
    wasq = fromRoots(loaderModule, OTHER_ROOTS).catch((other) => { throw notFound([other]); });
  }
  // Every module of the graph named at once: the browser fetches them together instead of
  // discovering app.js's imports only after app.js has arrived.
  let app, scenarios;
  [loader, app, scenarios] = [import("./loader.js"), import("./app.js"), import("./scenarios.js")];
  for (const other of [import("./playground.js"), import("./lanes.js"), import("./panels.js"), import("./markup.js"), import("./format.js")]) other.catch(() => {});
  const style = styleSheet();
  // Failures surface where they are awaited (in #mount); these keep them from being unhandled.
  for (const p of [app, scenarios, style, wasq]) p.catch(() => {});
  loading = { app, scenarios, style, wasq };
  return loading;
}

// Defined on the server too (a docs site's static rendering imports its client modules in Node),
// where there is no HTMLElement: there the module does nothing.
const Element = globalThis.HTMLElement ?? class {};

export class WasqPlaygroundElement extends Element {
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
    // One stylesheet object adopted by every element's shadow root: the host page's CSS still
    // cannot reach in.
    root.innerHTML = `<div class="wasq-app element"><p class="loading muted">Loading the playground…</p></div>`;
    const container = root.querySelector(".wasq-app");
    loaded.style.then((sheet) => { root.adoptedStyleSheets = [sheet]; }, () => {});
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

if (globalThis.customElements && !customElements.get("wasq-playground")) customElements.define("wasq-playground", WasqPlaygroundElement);
