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
 * Imports the package from the first root that has a package.json; returns the module and where
 * it came from. `roots` defaults to the page's (`?pkg=`, then the meta tag).
 *
 * The wasm (the bulk of the bytes) is requested at once, beside package.json, rather than after
 * package.json and then the entry have arrived: on a slow link those are two round trips saved,
 * and the browser compiles the wasm as it streams in (instantiateStreaming, given the Response).
 * `wasq_bg.wasm` is a path the package exports, so it is known before package.json is read.
 */
export async function loadWasq(roots = packageRoots(), early = null) {
  const tried = [];
  for (const root of roots) {
    // index.html may have asked for the first root's files already, while it was being parsed.
    const started = early?.root === root ? early : null;
    const wasm = started?.wasm ?? fetch(new URL("wasq_bg.wasm", root));
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
    const mod = await import(entry);
    await mod.init(wasm);
    return { mod, root, entry, version: pkgJson.version };
  }
  throw new Error(`wasq package not found; tried ${tried.join(", ")}. See www/README.md.`);
}
