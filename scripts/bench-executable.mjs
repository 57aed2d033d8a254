// The path of a bench executable, from the JSON messages `cargo … --message-format=json` writes
// on standard input: `cargo bench --bench NAME --no-run --message-format=json | node
// scripts/bench-executable.mjs NAME`. Prints nothing when cargo reported no such executable.
import { readFileSync } from "node:fs";

const name = process.argv[2];
let exe = "";
for (const line of readFileSync(0, "utf8").split("\n")) {
  if (!line.startsWith("{")) continue;
  const m = JSON.parse(line);
  if (m.reason === "compiler-artifact" && m.target?.name === name && m.executable) exe = m.executable;
}
process.stdout.write(exe);
