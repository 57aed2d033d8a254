// What `wasq serve` sends a browser for the page and the package: compressed by Accept-Encoding
// (the wasm is ~415 KB raw), revalidated by ETag (the files change under the same names).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { join } from "node:path";
import { pageServer, REPO } from "./helpers.mjs";

let server;
before(async () => {
  server = await pageServer();
});
after(async () => {
  await server?.close();
});

function get(path, headers = {}) {
  return new Promise((ok, fail) => {
    const req = request(new URL(path, server.url), { headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", fail);
    req.end();
  });
}

test("the wasm and the page's modules are sent brotli- or gzip-compressed as the browser accepts, and decompress to the file", async () => {
  const wasm = readFileSync(join(REPO, "pkg/wasq_bg.wasm"));
  const br = await get("/pkg/wasq_bg.wasm", { "accept-encoding": "gzip, deflate, br, zstd" });
  assert.equal(br.status, 200);
  assert.equal(br.headers["content-encoding"], "br");
  assert.equal(br.headers["content-type"], "application/wasm");
  // Origin too: the CORS grant (cross-origin.test.mjs) depends on it.
  assert.deepEqual(br.headers.vary.split(/,\s*/).map((v) => v.toLowerCase()).sort(), ["accept-encoding", "origin"]);
  assert.ok(br.body.length < wasm.length / 2, `${br.body.length} of ${wasm.length} bytes`);
  assert.deepEqual(brotliDecompressSync(br.body), wasm);

  const gz = await get("/pkg/wasq_bg.wasm", { "accept-encoding": "gzip" });
  assert.equal(gz.headers["content-encoding"], "gzip");
  assert.deepEqual(gunzipSync(gz.body), wasm);

  const refused = await get("/pkg/wasq_bg.wasm", { "accept-encoding": "br;q=0, gzip;q=0" });
  assert.equal(refused.headers["content-encoding"], undefined);
  assert.deepEqual(refused.body, wasm);

  const plain = await get("/pkg/wasq_bg.wasm");
  assert.equal(plain.headers["content-encoding"], undefined);
  assert.equal(Number(plain.headers["content-length"]), wasm.length);

  const js = await get("/app.js", { "accept-encoding": "br" });
  assert.equal(js.headers["content-encoding"], "br");
  assert.deepEqual(brotliDecompressSync(js.body), readFileSync(join(REPO, "www/app.js")));
});

test("files are revalidated by ETag: an unchanged file answers 304 with no body", async () => {
  const first = await get("/pkg/package.json", { "accept-encoding": "gzip" });
  assert.equal(first.headers["cache-control"], "no-cache");
  const etag = first.headers.etag;
  assert.match(etag, /^W\/"[0-9a-f]+-[0-9a-f]+"$/);
  const again = await get("/pkg/package.json", { "if-none-match": etag, "accept-encoding": "gzip" });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  const other = await get("/pkg/package.json", { "if-none-match": 'W/"0-0"' });
  assert.equal(other.status, 200);
});

test("the page's response names the wasm, package.json and the entry its package.json names as preloads", async () => {
  // Asked for on the response's headers, before the page is parsed: the entry was otherwise asked
  // for only once the page's first script ran (hundreds of ms later on a throttled phone).
  const page = await get("/?scenario=fifo-two-groups&step=1");
  assert.equal(page.status, 200);
  const links = page.headers.link.split(/,\s*/);
  const entry = JSON.parse(readFileSync(join(REPO, "pkg/package.json"), "utf8")).exports["."].browser.default;
  assert.deepEqual(links, [
    "</pkg/wasq_bg.wasm>; rel=preload; as=fetch; crossorigin",
    "</pkg/package.json>; rel=preload; as=fetch; crossorigin",
    `<${new URL(entry, "http://x/pkg/").pathname}>; rel=modulepreload`,
  ]);
  // Other files of the page carry none.
  assert.equal((await get("/app.js")).headers.link, undefined);
});
