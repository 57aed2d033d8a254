// Test helpers written from the design (docs/edge.md), not imported from the Worker, so a change
// in the Worker's placement shows up as a failure.

import { SignatureV4 } from "@smithy/signature-v4";
import { createHash, createHmac } from "node:crypto";

const encoder = new TextEncoder();

/** The partition a message group lives in: FNV-1a (32-bit) of its UTF-8 bytes, mod the count. */
export function groupHashPartition(group, partitions) {
  let h = 0x811c9dc5;
  for (const b of encoder.encode(group)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}


/** The SDK signer's hash interface over node:crypto. */
export class Sha256 {
  constructor(secret) {
    this.hash = secret ? createHmac("sha256", secret) : createHash("sha256");
  }
  update(data) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
  reset() {}
}

/**
 * A Query-protocol request (form body, XML answer) signed with SigV4 by the AWS SDK's own signer,
 * as the SDKs that still speak Query send it. `params` is a list of [name, value] pairs (order
 * and repeats kept). Returns `{ status, xml }`.
 */
export async function signedQuery(mf, params, { path = "/", credentials, region = "us-east-1" } = {}) {
  const origin = (await mf.ready).origin;
  const url = new URL(path, origin);
  const body = new URLSearchParams(params).toString();
  const signer = new SignatureV4({ credentials, region, service: "sqs", sha256: Sha256 });
  const signed = await signer.sign({
    method: "POST",
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: { host: url.host, "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
    body,
  });
  const res = await mf.dispatchFetch(url.href, { method: "POST", headers: signed.headers, body });
  return { status: res.status, xml: await res.text() };
}

/** Every `<tag>…</tag>` of an XML answer (the answers never nest a tag in itself). */
export function xmlAll(xml, tag) {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1]);
}

/** The text of the first `<tag>`, XML entities decoded. */
export function xmlText(xml, tag) {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  if (!m) return undefined;
  return m[1].replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#xD;/g, "\r").replace(/&amp;/g, "&");
}
