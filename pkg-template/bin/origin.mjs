// Who may talk to `wasq serve` from a web page, and under which names.
//
// A server without --credentials does whatever any request asks. Browsers send some cross-site
// requests without asking first (an HTML form's POST, an <img>'s GET, a link followed), and a
// page can rename a loopback server by DNS rebinding (its own name answering 127.0.0.1), so
// without this policy any web page the user opens could delete their queues. The policy:
//
// - `Origin` (sent by browsers on every cross-origin request and on any POST): allowed when it is
//   a loopback origin (localhost, *.localhost, 127.0.0.0/8, [::1], any port, http or https), the
//   server's own page (same host as the request's Host), or listed with --allow-origin (`*`:
//   every origin). Otherwise the request is refused before the engine sees it.
// - No `Origin` but `Sec-Fetch-Site: cross-site` or `same-site`: a browser's no-cors request (an
//   <img>, a link, a navigation) from another page. Refused: such requests cannot read the answer,
//   so nothing legitimate sends them, and a GET with `?Action=DeleteQueue` would still act.
// - No `Origin` and no `Sec-Fetch-Site`: not a browser (the SDKs, the CLI, curl): allowed.
// - `Host`, when the server listens on loopback only: a loopback name or one listed with
//   --allow-host (a name the user mapped to this machine, in /etc/hosts or a dev stack's
//   resolver), any port, so that an SSH tunnel or port forward still works. Another name means
//   DNS rebinding; refused. Listed names are exact names: a pattern (`*.test`) would let every
//   name under it rebind, and the names a page can make resolve here are exactly the ones the
//   user does not control.
//
// Allowed cross-origin callers get CORS answers that let the AWS SDK for JavaScript work from a
// page: preflights answered with the headers it asked for, and the response headers it reads
// exposed.

/** Response headers the AWS SDK reads from an SQS answer (request id, query-compatible error code). */
const EXPOSED = "x-amzn-RequestId, x-amzn-query-error, x-amz-request-id, x-amz-id-2, Date";

/** Methods SQS requests use (the Query protocol also allows GET). */
const METHODS = "GET, POST, OPTIONS";

/** How long a browser may reuse a preflight answer, in seconds (Chromium caps it at 7200). */
const MAX_AGE = "600";

/** `localhost`, `*.localhost`, 127.x.y.z, ::1 and their IPv4-mapped forms: names only this machine answers. */
export function isLoopbackName(hostname) {
  let name = hostname.toLowerCase();
  if (name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name === "::1" || name === "0:0:0:0:0:0:0:1") return true;
  const v4 = name.startsWith("::ffff:") ? name.slice(7) : name;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  return m !== null && m[1] === "127" && m.slice(2).every((octet) => Number(octet) <= 255);
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), or null when malformed. */
function hostnameOf(hostHeader) {
  const text = hostHeader.trim();
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+)(?::\d{0,5})?$/.exec(text);
  return m ? m[1] : null;
}

/**
 * A host name as written on the command line or in a Host header (without its port), in the
 * form URL.hostname gives it: lower case, IDN as punycode, IPv4 in dotted decimal, IPv6 in
 * brackets; a trailing dot dropped (`name.` is the same name). undefined when it is not a host
 * name (a scheme, a port, a path, a pattern, an empty label).
 */
export function normalizeHostName(text) {
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]\\*%.]+(\.[^\s:/?#@[\]\\*%.]+)*\.?)$/.test(text)) return undefined;
  try {
    const url = new URL(`http://${text}/`);
    return url.hostname.replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

/**
 * Parse the names given to --allow-host (each may be a comma-separated list) and the
 * environment. Throws a TypeError naming the first that is not a host name.
 * @param {string[]} values
 * @returns {string[]} normalized names (normalizeHostName)
 */
export function parseAllowedHosts(values) {
  const out = [];
  for (const value of values) {
    for (const part of value.split(",")) {
      const text = part.trim();
      if (text === "") continue;
      const name = normalizeHostName(text);
      if (name === undefined) {
        throw new TypeError(`"${text}" is not a host name (a name such as sqs.dev.test or an IP address; no scheme, port or wildcard)`);
      }
      out.push(name);
    }
  }
  return out;
}

/**
 * An origin as written in an `Origin` header or on the command line, in the form browsers send
 * (`scheme://host[:port]`, default port left out, lower case); `null` for `null` (sandboxed
 * frames, file: pages), undefined when it is not an origin at all.
 */
export function normalizeOrigin(text) {
  if (text === "null") return "null";
  try {
    const url = new URL(text);
    if (url.origin === "null" || url.pathname !== "/" || url.search || url.hash || url.username || url.password) return undefined;
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(text)) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * Parse the origins given to --allow-origin (each may be a comma-separated list) and the
 * environment. Throws a TypeError naming the first that is not an origin.
 * @param {string[]} values
 * @returns {string[]} normalized origins, `*` kept as is
 */
export function parseAllowedOrigins(values) {
  const out = [];
  for (const value of values) {
    for (const part of value.split(",")) {
      const text = part.trim();
      if (text === "") continue;
      if (text === "*") {
        out.push("*");
        continue;
      }
      const origin = normalizeOrigin(text.replace(/\/$/, ""));
      if (origin === undefined) throw new TypeError(`"${text}" is not an origin (scheme://host[:port], "null" or "*")`);
      out.push(origin);
    }
  }
  return out;
}

export class OriginPolicy {
  #any;
  #allowed;
  #checkHost;
  #hosts;

  /**
   * @param {{ loopbackOnly: boolean, allowOrigins?: string[], allowHosts?: string[] }} options
   *   `loopbackOnly`: the server listens on a loopback address only, so every legitimate Host
   *   names this machine. `allowOrigins`: normalized origins (parseAllowedOrigins), `*` for all.
   *   `allowHosts`: names besides the loopback ones that a Host may give (parseAllowedHosts).
   */
  constructor({ loopbackOnly, allowOrigins = [], allowHosts = [] }) {
    this.#any = allowOrigins.includes("*");
    this.#allowed = new Set(allowOrigins);
    this.#checkHost = loopbackOnly;
    this.#hosts = new Set(allowHosts);
  }

  /** Whether a Host header's name (hostnameOf) is one of this server's: loopback or listed. */
  #isOwnName(name) {
    if (isLoopbackName(name)) return true;
    const normal = normalizeHostName(name);
    return normal !== undefined && this.#hosts.has(normal);
  }

  /**
   * Why a request may not be served, or null when it may.
   * @param {(name: string) => string | undefined} header
   * @param {boolean} isSqs whether it is an SQS request (files and /health are read-only)
   * @returns {null | { code: "Host" | "Origin" | "FetchSite", message: string }}
   */
  refusal(header, isSqs) {
    const host = header("host");
    if (this.#checkHost && host !== undefined) {
      const name = hostnameOf(host);
      if (name === null || !this.#isOwnName(name)) {
        const normal = name === null ? undefined : normalizeHostName(name);
        return {
          code: "Host",
          message:
            `Host ${JSON.stringify(host)} is not a name of this server: it listens on loopback and answers only ` +
            "to localhost, 127.0.0.1, [::1] and the names given with --allow-host (another name is how DNS " +
            "rebinding reaches a local server)." +
            (normal === undefined ? "" : ` If ${normal} is this machine, start wasq serve with --allow-host ${normal} to allow it.`),
        };
      }
    }
    if (!isSqs) return null;
    const origin = header("origin");
    if (origin !== undefined) {
      if (this.originAllowed(origin, host)) return null;
      return {
        code: "Origin",
        message:
          `Origin ${JSON.stringify(origin)} may not call this server: without --allow-origin it answers browsers ` +
          `only on loopback origins and its own page. Start wasq serve with --allow-origin ${origin} to allow it.`,
      };
    }
    const site = header("sec-fetch-site");
    if (site === "cross-site" || site === "same-site") {
      return {
        code: "FetchSite",
        message:
          "A browser request from another site without an Origin header (a link, an image, a navigation) may not " +
          "call SQS actions on this server.",
      };
    }
    return null;
  }

  /** Whether a page at `origin` may call the server (reached under `host`, the request's Host). */
  originAllowed(origin, host) {
    if (this.#any) return true;
    const normal = normalizeOrigin(origin);
    if (normal === undefined) return false;
    if (this.#allowed.has(normal)) return true;
    if (normal === "null") return false;
    const url = new URL(normal);
    if ((url.protocol === "http:" || url.protocol === "https:") && isLoopbackName(url.hostname)) return true;
    // The server's own page (the playground, served at /): same host and port as the request.
    return host !== undefined && url.host === hostOf(host);
  }

  /**
   * CORS headers for an answer to an allowed cross-origin request (names and values
   * alternating), empty when the request has no Origin.
   */
  corsHeaders(header) {
    const origin = header("origin");
    if (origin === undefined) return [];
    return ["access-control-allow-origin", origin, "access-control-expose-headers", EXPOSED, "vary", "Origin"];
  }

  /**
   * CORS headers for a static file (the page's modules, the package's entry and its wasm), as an
   * object: the grant for an allowed origin, so that a docs page on another loopback port can
   * `import` the element (module scripts are fetched with CORS) and it can fetch the wasm; none for
   * any other origin. `Vary: Origin` on every answer, so that a cache does not hand an answer
   * made without the grant to a page that needs it (or one with it to a page that may not have it).
   */
  fileCorsHeaders(header) {
    const origin = header("origin");
    if (origin === undefined || !this.originAllowed(origin, header("host"))) return { vary: "Origin" };
    return { "access-control-allow-origin": origin, vary: "Origin" };
  }

  /** The headers of a 204 answer to an allowed preflight: what it asked for, granted. */
  preflightHeaders(header) {
    const headers = this.corsHeaders(header);
    headers.push("access-control-allow-methods", METHODS, "access-control-max-age", MAX_AGE);
    // The SDK asks for its own headers (authorization, content-type, x-amz-target, x-amz-date,
    // x-amz-user-agent, amz-sdk-invocation-id, amz-sdk-request, x-amz-security-token…), whose
    // set changes between SDK versions; an allowed origin gets whichever it asked for.
    const asked = header("access-control-request-headers");
    if (asked !== undefined && asked.trim() !== "") headers.push("access-control-allow-headers", asked);
    // Chromium's Private Network Access: a page on a public origin (allowed with --allow-origin)
    // calling this loopback server is let through only if the preflight says so.
    if (header("access-control-request-private-network") === "true") headers.push("access-control-allow-private-network", "true");
    headers.push("vary", "Access-Control-Request-Headers, Access-Control-Request-Method");
    return headers;
  }
}

/** A Host header value as URL.host writes it (lower case, default port 80 left out). */
function hostOf(hostHeader) {
  try {
    return new URL(`http://${hostHeader.trim()}`).host;
  } catch {
    return null;
  }
}
