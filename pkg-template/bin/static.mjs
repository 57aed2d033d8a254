// Static files for `wasq serve`: the playground page at `/` and the package itself at `/pkg/`,
// so the page's loader finds the package next to it with no build step of its own.
//
// Text and wasm are sent compressed when the browser accepts it (brotli, else gzip): the page's
// wasm is a few hundred KB raw and a third of that compressed, which is most of a phone's wait.
// Each file is compressed once per version of it and kept; caches revalidate with an ETag (the
// files change with every `make pkg`, under the same names, so nothing may be cached unchecked).

import { createReadStream, readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, gzip, constants as zlib } from "node:zlib";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

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

/** Worth compressing: text and wasm (images and fonts are compressed already). */
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".cjs", ".css", ".json", ".map", ".md", ".ts", ".cts", ".txt", ".wasm", ".svg"]);
/** Files at most this big are compressed and kept in memory (the package's largest is the wasm). */
const MAX_COMPRESSED_SOURCE = 8 * 1024 * 1024;

/** path -> { tag, br, gz }: the compressed forms of one version (size and mtime) of a file. */
const compressedCache = new Map();

/** The encodings this request accepts, best first (q=0 refuses one). */
export function acceptedEncodings(header) {
  const accepted = new Map();
  for (const part of String(header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    accepted.set(name, q ? Number(q.slice(2)) : 1);
  }
  const ok = (name) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  return ["br", "gzip"].filter(ok);
}

async function compressedForms(file, tag) {
  const cached = compressedCache.get(file);
  if (cached?.tag === tag) return cached.forms;
  // Kept as a promise: concurrent first requests share one compression.
  const forms = readFile(file).then(async (bytes) => ({
    // Brotli's best (11): a tenth smaller than 9 on the wasm, paid once per version of a file.
    br: await brotli(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    gzip: await gzipAsync(bytes, { level: 9 }),
  }));
  compressedCache.set(file, { tag, forms });
  forms.catch(() => compressedCache.delete(file));
  return forms;
}

/**
 * Compress `file` ahead of its first request (the package's wasm, when the server starts), so
 * that the first reader does not wait for brotli's best. Errors are left to that request.
 */
export function precompress(file) {
  stat(file).then(
    (info) => compressedForms(file, etagOf(info)).catch(() => {}),
    () => {},
  );
}

/**
 * The `Link` header of the page's response: what its loader asks for first (the wasm, package.json
 * and the package's browser entry), for the browser to ask for on the response's headers, before
 * the page is parsed (on a phone, the parser reaches the page's first script hundreds of ms
 * later). The entry is the one the package's own package.json names, as the loader finds it.
 */
export function pagePreloads(pkgRoot) {
  const links = ["/pkg/wasq_bg.wasm", "/pkg/package.json"].map((p) => `<${p}>; rel=preload; as=fetch; crossorigin`);
  let entry;
  try {
    entry = JSON.parse(readFileSync(join(pkgRoot, "package.json"), "utf8")).exports?.["."]?.browser;
  } catch {
    entry = undefined; // no readable package.json: the loader will say so
  }
  if (entry && typeof entry === "object") entry = entry.default ?? entry.import;
  if (typeof entry === "string") links.push(`<${new URL(entry, "http://x/pkg/").pathname}>; rel=modulepreload`);
  return links.join(", ");
}

/** Weak: the same tag is given to every encoding of one version (size, mtime) of a file. */
function etagOf(info) {
  return `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
}

function plain(res, status, text) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Answer a GET/HEAD for `urlPath` (already stripped of its mount prefix, still percent-encoded)
 * from `root`, with the response headers `extra` added (the CORS grant, a page's preload links). Never leaves `root`: `..` segments and
 * encoded separators are refused.
 */
export async function serveFile(req, res, root, urlPath, extra = {}) {
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
  const ext = extname(file).toLowerCase();
  const etag = etagOf(info);
  const headers = {
    "content-type": TYPES[ext] ?? "application/octet-stream",
    // The page and package change with every `make pkg` under the same names: a cache may keep a
    // copy but must ask first (a 304 when unchanged), or a stale wasm is a confusing bug.
    "cache-control": "no-cache",
    etag,
  };
  const compressible = COMPRESSIBLE.has(ext) && info.size <= MAX_COMPRESSED_SOURCE;
  if (compressible) headers.vary = "accept-encoding";
  // The CORS grant (origin.mjs decides who gets one), on 304s too: a revalidated copy keeps it.
  for (const [name, value] of Object.entries(extra)) headers[name] = name === "vary" && headers.vary ? `${headers.vary}, ${value}` : value;
  if (req.headers["if-none-match"]?.split(",").some((t) => t.trim() === etag)) {
    res.writeHead(304, headers);
    return res.end();
  }
  const encoding = compressible ? acceptedEncodings(req.headers["accept-encoding"])[0] : undefined;
  if (encoding) {
    let body;
    try {
      body = (await compressedForms(file, etag))[encoding];
    } catch {
      return plain(res, 404, "not found\n");
    }
    res.writeHead(200, { ...headers, "content-encoding": encoding, "content-length": body.length });
    return res.end(req.method === "HEAD" ? undefined : body);
  }
  res.writeHead(200, { ...headers, "content-length": info.size });
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
