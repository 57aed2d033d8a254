// For white-box tests: the built package's internals (WasqCore, dispatchText, COMMIT_PACKED,
// packRecords) with the Engine and the rest of the Node entry's exports, all from internal/node.js,
// an unshipped bundle of the Node entry that also exports them (scripts/build-pkg.sh). The
// shipped entries are one bundle each, so their modules cannot be imported one by one, and these
// tests need the very objects their Engine uses: a spy on WasqCore.prototype must see its calls.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const file = fileURLToPath(new URL("../../../pkg/internal/node.js", import.meta.url));
if (!existsSync(file)) throw new Error(`no ${file}: run \`make pkg\` first`);

export const internal = await import(new URL("../../../pkg/internal/node.js", import.meta.url));
