// The suites test the BUILT package (pkg/, from `make pkg`), never the template sources.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const pkgDir = fileURLToPath(new URL("../../../pkg/", import.meta.url));
if (!existsSync(pkgDir + "package.json")) {
  throw new Error(`no built package at ${pkgDir}: run \`make pkg\` first`);
}

export const wasq = await import(new URL("../../../pkg/entry/node.js", import.meta.url));

export const START = Date.parse("2026-01-01T00:00:00Z");

/** A ManualClock engine with a fixed seed and one standard queue. */
export function setup(attributes = {}, options = {}) {
  const clock = new wasq.ManualClock(START);
  const engine = new wasq.Engine({ clock, seed: 7, ...options });
  const { QueueUrl } = engine.createQueue({ QueueName: "q", Attributes: attributes });
  return { clock, engine, QueueUrl };
}
