// How a caller's arguments are written for the core: an action's parameters and a realism setting
// as JSON text, and the strings wasm-bindgen would copy without checking. What JSON would drop or
// cannot write (NaN, ±Infinity, a BigInt, a function) is written on purpose, so that the core
// answers it as SQS or the setting's own check would, instead of seeing a member go missing.

/**
 * The JSON text of an action's parameters. JSON writes NaN and ±Infinity as null (an absent
 * member), so `DelaySeconds: NaN` sent at once and `WaitTimeSeconds: Infinity` was accepted and
 * then long-polled forever; and it cannot write a BigInt at all. Only when the plain text has a
 * null in it (or failed) is it written again with a replacer, which keeps the common call on
 * JSON.stringify's fast path. A non-finite number becomes 0.5, which no SQS member takes (none is
 * a fraction), so the core refuses it with the SerializationException for the member's type
 * ("must be an integer", "must be a string", ...); a BigInt is the integer it holds; parameters
 * that JSON cannot write at all (a function, a symbol) are a non-object like any other.
 */
export function paramsJson(params) {
  let json;
  try {
    json = JSON.stringify(params ?? {});
  } catch {}
  if (json === undefined || json.includes("null")) json = JSON.stringify(params ?? {}, jsonParam) ?? "0.5";
  return json;
}

function jsonParam(_key, value) {
  if (typeof value === "bigint") return Number(value);
  return typeof value === "number" && !Number.isFinite(value) ? 0.5 : value;
}

/**
 * A string argument on its way into the wasm. wasm-bindgen copies one without checking its type:
 * a number or an object there trapped inside the wasm's allocator ("memory access out of
 * bounds", a RuntimeError mid-realloc) instead of throwing.
 */
export function stringArg(value, what) {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string`);
  return value;
}

/**
 * A realism setting as JSON text for the core, which reads and checks it (Realism::from_setting).
 * JSON has no NaN, ±Infinity or BigInt and leaves functions out: those are written as the text
 * `String(value)` gives, which the core refuses, quoting it as the caller would see it.
 */
export function settingJson(value) {
  return JSON.stringify(value, (_key, v) => ((typeof v === "number" ? isFinite(v) : !["bigint", "function", "symbol"].includes(typeof v)) ? v : String(v)));
}
