// Shared by every adapter: one definition of a well-formed batch, so a bad batch fails
// identically everywhere and before any adapter has written anything.

/**
 * Check a `{ put, del }` batch and return it with absent lists normalised to `[]`.
 * Puts are applied before deletes; a key in both lists ends up deleted.
 * @param {{ put?: [string, Uint8Array][], del?: string[] }} batch
 * @returns {{ put: [string, Uint8Array][], del: string[] }}
 */
export function checkBatch(batch) {
  if (batch === null || typeof batch !== "object") {
    throw new TypeError("storage commit: batch must be an object { put, del }");
  }
  const put = batch.put ?? [];
  const del = batch.del ?? [];
  if (!Array.isArray(put) || !Array.isArray(del)) {
    throw new TypeError("storage commit: batch.put and batch.del must be arrays");
  }
  for (const entry of put) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || !(entry[1] instanceof Uint8Array)) {
      throw new TypeError("storage commit: each put must be [string key, Uint8Array value]");
    }
  }
  for (const key of del) {
    if (typeof key !== "string") throw new TypeError("storage commit: each del must be a string key");
  }
  return { put, del };
}

/** Standard base64 of bytes, without Node's Buffer so it also runs in browsers and workerd. */
export function bytesToBase64(bytes) {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

export function base64ToBytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
