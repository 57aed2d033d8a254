// The bundles are minified without esbuild's --keep-names, which wraps every function and class
// of the bundle in a call that restores its `.name`: 1 KB gzipped of the package budget, for
// names only the public ones need. Those get them back here, so `Engine.name`, console output
// (`Engine {}`) and messages that name a class read as documented. Error names never depended
// on it: every error's `name` is set where the error is made.

/** Give each function of `exports` its key as its `name`. */
export function keepNames(exports) {
  for (const [name, value] of Object.entries(exports)) {
    if (typeof value === "function") Object.defineProperty(value, "name", { value: name, configurable: true });
  }
}
