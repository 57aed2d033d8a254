// Shipped as entry/node.js (copied by scripts/build-pkg.sh, not bundled): Node's `import "wasq"`
// is the CommonJS bundle's exports, so that a process that both imports and requires wasq (an ESM
// test file over CommonJS app code, a tool that loads its plugins with require) loads one copy:
// one wasm instance and one Engine class, whose engines every handler accepts. Two bundles were
// two copies, and an Engine made by one was refused by the other's handlers. Node finds the
// bundle's names with its CommonJS export detection (esbuild writes them where it looks).
export * from "./node.cjs";
