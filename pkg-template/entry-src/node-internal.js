// Source of internal/node.js (bundled by scripts/build-pkg.sh, never shipped: not in package.json's
// `files`): the Node entry plus internals that white-box tests and benchmarks reach. The shipped
// entries are one bundle each, so their modules cannot be imported one by one; here the internals
// come out of the same bundle as the Engine that uses them, so they are the same objects (a spy on
// WasqCore.prototype sees that Engine's calls). Users never load this file.
export * from "../entry/node.js";
export { WasqCore } from "../wasq.js";
export { dispatchText } from "../src/io.js";
export { COMMIT_PACKED, packRecords } from "../src/storage/batch.js";
export { engineFacts, batchIdsValid } from "../src/facts.js";
