// A static server with the same layout as `wasq serve`: the page at `/`, the package at `/pkg/`.
// Used when WASQ_PAGE_URL does not point the tests at a running `wasq serve`.
import { createServer } from "node:http";
import { createReadStream, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** The package directory under test. WASQ_PKG_DIR: a package built somewhere other than pkg/. */
export function packageDir(repoRoot) {
  return resolve(process.env.WASQ_PKG_DIR || resolve(repoRoot, "pkg"));
}

/**
 * Serves directories at URL prefixes (longest prefix first); by default the `wasq serve` layout.
 * @param {string} repoRoot
 * @param {Array<[string, string]>} [mounts] [urlPrefix, directory] pairs
 */
export function startStaticServer(repoRoot, mounts = [["/pkg/", packageDir(repoRoot)], ["/", resolve(repoRoot, "www")]]) {
  mounts = [...mounts].sort((a, b) => b[0].length - a[0].length);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const mount = mounts.find(([p]) => path.startsWith(p));
    if (!mount) { res.writeHead(404, { "content-type": "text/plain" }).end("not found"); return; }
    const [prefix, dir] = mount;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    try {
      if (statSync(file).isDirectory()) file = join(file, "index.html");
      statSync(file);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream", "cache-control": "no-store" });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => {
    server.listen(0, "127.0.0.1", () => {
      ok({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}
