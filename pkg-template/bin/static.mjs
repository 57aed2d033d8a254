// Static files for `wasq serve`: the playground page at `/` and the package itself at `/pkg/`,
// so the page's loader finds the package next to it with no build step of its own.

import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".cjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".cts": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  // Browsers compile wasm with instantiateStreaming only when it is labelled as such.
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};

function plain(res, status, text) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Answer a GET/HEAD for `urlPath` (already stripped of its mount prefix, still percent-encoded)
 * from `root`. Never leaves `root`: `..` segments and encoded separators are refused.
 */
export async function serveFile(req, res, root, urlPath) {
  let relative;
  try {
    relative = decodeURIComponent(urlPath);
  } catch {
    return plain(res, 400, "bad path encoding\n");
  }
  if (relative.includes("\0") || relative.split(/[\\/]/).includes("..")) {
    return plain(res, 403, "forbidden\n");
  }
  const base = resolve(root);
  let file = resolve(join(base, relative));
  if (file !== base && !file.startsWith(base + sep)) return plain(res, 403, "forbidden\n");
  let info;
  try {
    info = await stat(file);
    if (info.isDirectory()) {
      file = join(file, "index.html");
      info = await stat(file);
    }
  } catch {
    return plain(res, 404, "not found\n");
  }
  if (!info.isFile()) return plain(res, 404, "not found\n");
  res.writeHead(200, {
    "content-type": TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
    "content-length": info.size,
    // The page and package change with every `make pkg`; a stale cached wasm is a confusing bug.
    "cache-control": "no-cache",
  });
  if (req.method === "HEAD") return res.end();
  await new Promise((done) => {
    const stream = createReadStream(file);
    stream.on("error", () => {
      res.destroy();
      done();
    });
    res.on("close", done);
    stream.pipe(res);
  });
}
