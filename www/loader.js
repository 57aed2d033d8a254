// Finds the built wasq package and imports its browser entry.
//
// The page is served in two layouts: by `wasq serve` (page at `/`, package at `/pkg/`) and from any
// static host (package copied to `./vendor/wasq/`). Rather than hard-coding the entry file, we read
// the package's own package.json and follow its `browser` export, so a change in the package's
// layout never breaks the page.

const ENTRY_CONDITIONS = ["browser", "import", "default"];

/**
 * The candidate package roots: `?pkg=` first, then the page's `<meta name="wasq-pkg">`. A default
 * that is the page's own directory is left out: that directory holds the page, not the package
 * (`../` from a page at a server's root, as `wasq serve` has it, is that root).
 */
export function packageRoots(location = window.location, doc = document) {
  const absolute = (r) => new URL(r.endsWith("/") ? r : r + "/", location.href).href;
  const fromQuery = new URLSearchParams(location.search).get("pkg");
  const meta = doc.querySelector('meta[name="wasq-pkg"]')?.content.split(/\s+/).filter(Boolean) ?? [];
  const own = absolute("./");
  return [...(fromQuery ? [absolute(fromQuery)] : []), ...meta.map(absolute).filter((r) => r !== own)];
}

/** Picks the browser entry from an `exports` map (string, conditions object, or "." subpath). */
export function browserEntry(pkgJson) {
  let target = pkgJson.exports ?? pkgJson.browser ?? pkgJson.module ?? pkgJson.main;
  if (target && typeof target === "object" && "." in target) target = target["."];
  // Conditions can nest (e.g. "browser": {"import": …}); descend until a string.
  for (let depth = 0; target && typeof target === "object" && depth < 4; depth++) {
    const key = ENTRY_CONDITIONS.find((k) => k in target);
    target = key ? target[key] : undefined;
  }
  if (typeof target !== "string") throw new Error("package.json names no browser entry");
  return target;
}

/**
 * Compiles the wasm as it streams in, rather than when the package's entry has arrived and calls
 * instantiateStreaming: the entry is given the compiled module. Streaming needs the
 * `application/wasm` type; a host that labels the file otherwise still works, compiled once all
 * of it has arrived.
 */
export async function compileWasm(response) {
  const res = await response;
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${res.statusText}`.trim());
  if (res.headers.get("content-type")?.split(";")[0].trim().toLowerCase() === "application/wasm") return WebAssembly.compileStreaming(res);
  return WebAssembly.compile(await res.arrayBuffer());
}

/**
 * Imports the package from the first root that has a package.json; returns the module and where
 * it came from. `roots` defaults to the page's (`?pkg=`, then the meta tag).
 *
 * The wasm (the bulk of the bytes) is requested at once, beside package.json, rather than after
 * package.json and then the entry have arrived: on a slow link those are two round trips saved,
 * and it is compiled as it streams in. `wasq_bg.wasm` is a path the package exports, so it is
 * known before package.json is read.
 */
export async function loadWasq(roots = packageRoots(), early = null) {
  const tried = [];
  for (const root of roots) {
    // index.html or element.js may have asked for the first root's files already (and started
    // compiling the wasm). Where that compile failed (a 404, a host that does not label the file
    // application/wasm), it is tried again here, to work or to say why not.
    const started = early?.root === root ? early : null;
    const again = () => compileWasm(fetch(new URL("wasq_bg.wasm", root)));
    const wasm = started ? started.wasm.catch(again) : again();
    wasm.catch(() => {}); // a root that turns out wrong: its failed request is reported below
    let pkgJson;
    let entry;
    try {
      const res = await (started?.pkg ?? fetch(new URL("package.json", root)));
      if (!res.ok) { tried.push(`${root} (${res.status})`); continue; }
      pkgJson = await res.json();
      // Another package.json (a site's or a checkout's own, above the page) is not this package.
      entry = new URL(browserEntry(pkgJson), root).href;
    } catch (e) {
      tried.push(`${root} (${e.message})`);
      continue;
    }
    // index.html and element.js import `entry/browser.js` (where this version of the package has
    // its entry) beside the wasm, rather than after package.json and this file have arrived: when
    // package.json confirms the guess, this is that module (one per URL), not a second request.
    // A package laid out otherwise still loads, from what its package.json names.
    // A URL known only at run time: bundlers are told to leave this import to the browser.
    const mod = await import(/* webpackIgnore: true */ /* @vite-ignore */ entry);
    await mod.init(wasm);
    return { mod, root, entry, version: pkgJson.version };
  }
  throw new Error(`wasq package not found; tried ${tried.join(", ")}. See www/README.md.`);
}
