// Self time by function of a V8 .cpuprofile (the first in DIR), as shares of the whole:
// `node bench/profile-top.mjs DIR [ROWS]` (scripts/profile-package.sh runs it).
import { readFileSync, readdirSync } from "node:fs";
const dir = process.argv[2];
const f = readdirSync(dir).filter((x) => x.endsWith(".cpuprofile"))[0];
const p = JSON.parse(readFileSync(dir + "/" + f, "utf8"));
const self = new Map();
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
let total = 0;
for (const n of p.nodes) {
  const t = dt.get(n.id) ?? 0;
  total += t;
  const name = n.callFrame.functionName || `(${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber})`;
  self.set(name, (self.get(name) ?? 0) + t);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 40));
for (const [k, v] of rows) console.log((100 * v / total).toFixed(1).padStart(5) + "%  " + k.slice(0, 150));
