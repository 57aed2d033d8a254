#!/usr/bin/env node
// `wasq serve`: an SQS endpoint on this machine, backed by the same engine the package embeds.

import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Engine, FileStorage } from "../entry/node.js";
import { isLoopbackName, normalizeHostName, parseAllowedHosts, parseAllowedOrigins } from "./origin.mjs";
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BUFFERED_BYTES, MAX_BODY_BYTES, startServer } from "./server.mjs";
import { ConfigError, configure } from "./config.mjs";
import { ServerMetrics } from "./metrics.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pkgRoot = resolve(here, "..");

const USAGE = `Usage: wasq serve [options]

An Amazon SQS endpoint (AWS JSON 1.0 and Query protocols) backed by the wasq engine.

Options:
  --host HOST              address to listen on (default 127.0.0.1)
  --port PORT              port (default 9324; 0 picks a free one)
  --data DIR               keep queues and messages in DIR (default ./.wasq-data); every answer
                           waits until what it changed is synced to disk (requests answered at
                           the same time share one sync)
  --no-fsync               with --data: answer before each write is synced to disk
  --memory                 keep everything in memory (lost on exit)
  --credentials KEY:SECRET require requests signed (SigV4) with this key
  --config FILE            create (or bring up to date) the queues FILE declares before serving:
                           attributes, tags, dead-letter queues by name (JSON; see
                           config.schema.json in the package); a bad file is refused and
                           nothing is served
  --metrics-public         serve GET /metrics without a signature even with --credentials
  --www DIR                serve the playground page from DIR at /
  --allow-origin ORIGIN    let web pages at ORIGIN (e.g. http://myapp.test:8080; repeat it or
                           separate with commas; * for any page) call this server from a
                           browser. Loopback origins (http://localhost:5173, 127.0.0.1, [::1])
                           and the server's own page are always allowed; requests from other
                           pages are refused with 403 AccessDenied. Also read from the
                           environment: WASQ_ALLOW_ORIGINS, EXTRA_CORS_ALLOWED_ORIGINS
  --allow-host NAME        answer requests that call this server NAME (e.g. sqs.dev.test, mapped
                           to 127.0.0.1 in /etc/hosts or by a dev stack; any port; repeat it or
                           separate with commas). Listening on loopback, the server answers only
                           to localhost, 127.0.0.1, [::1] and the --host name, and refuses other
                           names with 403 AccessDenied (DNS rebinding). Its page served under
                           NAME counts as its own. With a --host other machines can reach, no
                           name is refused. Also read from the environment: WASQ_ALLOW_HOSTS
  --max-buffered-bytes N   request-body bytes held at once, all connections together
                           (default 64M; K, M, G suffixes are powers of 1024; at least 8M, the
                           largest body); a body that would pass it is refused with
                           RequestThrottled, which SQS clients retry
  --max-stored-bytes N     message bytes the queues may hold, all together (default 1G; K, M, G
                           suffixes; each message counts its body, attributes and 256 more);
                           past it sends are refused with RequestThrottled, while receives,
                           deletes and purges go on and make room
  --body-timeout SECONDS   time a request has to send its whole body once its headers are in
                           (default 30); a slower one is answered 408 RequestTimeout and its
                           bytes are given back to --max-buffered-bytes
  --verbose                log one line per request
  -h, --help               show this help
  --version                print the version

Point any SQS client at http://HOST:PORT, e.g.
  aws --endpoint-url http://127.0.0.1:9324 sqs create-queue --queue-name jobs`;

function fail(message) {
  process.stderr.write(`wasq: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function version() {
  try {
    return JSON.parse(readFileSync(resolve(pkgRoot, "package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

/** The page: the repo's www/ when running from a checkout (pkg/bin → ../../www), else a packaged copy. */
function defaultWww() {
  const repoWww = resolve(pkgRoot, "..", "www");
  if (existsSync(resolve(pkgRoot, "..", "Cargo.toml")) && existsSync(resolve(repoWww, "index.html"))) return repoWww;
  const packaged = resolve(pkgRoot, "www");
  if (existsSync(resolve(packaged, "index.html"))) return packaged;
  return null;
}

function isLoopback(host) {
  return host === "localhost" || host === "::1" || /^127\./.test(host) || host === "::ffff:127.0.0.1";
}

/** `123`, `64M`, `1g`: bytes, with binary K/M/G suffixes. NaN when it is none of those. */
function parseBytes(text) {
  const m = /^(\d+)([kmg]?)$/i.exec(text);
  if (!m) return NaN;
  return Number(m[1]) * 1024 ** " kmg".indexOf((m[2] || " ").toLowerCase());
}

function parseServe(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "9324" },
        data: { type: "string" },
        "no-fsync": { type: "boolean", default: false },
        memory: { type: "boolean", default: false },
        credentials: { type: "string" },
        config: { type: "string" },
        "metrics-public": { type: "boolean", default: false },
        www: { type: "string" },
        "allow-origin": { type: "string", multiple: true, default: [] },
        "allow-host": { type: "string", multiple: true, default: [] },
        "max-buffered-bytes": { type: "string" },
        "max-stored-bytes": { type: "string" },
        "body-timeout": { type: "string" },
        verbose: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    fail(err.message);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(USAGE + "\n");
    process.exit(0);
  }
  if (!/^\d+$/.test(v.port) || Number(v.port) > 65535) fail(`--port must be 0..65535, got ${v.port}`);
  if (v.memory && v.data !== undefined) fail("--memory and --data exclude each other");
  if (v.memory && v["no-fsync"]) fail("--no-fsync applies to --data only");
  let credentials;
  if (v.credentials !== undefined) {
    const at = v.credentials.indexOf(":");
    if (at <= 0 || at === v.credentials.length - 1) fail("--credentials must be KEY:SECRET");
    credentials = { accessKeyId: v.credentials.slice(0, at), secretAccessKey: v.credentials.slice(at + 1) };
  }
  let maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES;
  if (v["max-buffered-bytes"] !== undefined) {
    maxBufferedBytes = parseBytes(v["max-buffered-bytes"]);
    if (!Number.isSafeInteger(maxBufferedBytes)) fail(`--max-buffered-bytes must be a byte count such as 67108864 or 64M, got ${v["max-buffered-bytes"]}`);
    // Below the largest body one request may send, a legal request could never be accepted and
    // its client would retry it for ever.
    if (maxBufferedBytes < MAX_BODY_BYTES) fail(`--max-buffered-bytes must be at least ${MAX_BODY_BYTES} (8M, the largest request body), got ${v["max-buffered-bytes"]}`);
  }
  let maxStoredBytes;
  if (v["max-stored-bytes"] !== undefined) {
    maxStoredBytes = parseBytes(v["max-stored-bytes"]);
    if (!Number.isSafeInteger(maxStoredBytes)) fail(`--max-stored-bytes must be a byte count such as 1073741824 or 1G, got ${v["max-stored-bytes"]}`);
  }
  let bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS;
  if (v["body-timeout"] !== undefined) {
    // Seconds, fractions allowed; at most a day (setTimeout's range is ~24.8 days).
    const seconds = /^\d+(\.\d+)?$/.test(v["body-timeout"]) ? Number(v["body-timeout"]) : NaN;
    if (!(seconds > 0 && seconds <= 86_400)) fail(`--body-timeout must be seconds, more than 0 and at most 86400, got ${v["body-timeout"]}`);
    bodyTimeoutMs = Math.round(seconds * 1000);
  }
  let allowOrigins;
  try {
    allowOrigins = parseAllowedOrigins(v["allow-origin"]);
  } catch (err) {
    fail(`--allow-origin: ${err.message}`);
  }
  // The environment's lists, LocalStack's name among them (the one its users already set).
  for (const name of ["WASQ_ALLOW_ORIGINS", "EXTRA_CORS_ALLOWED_ORIGINS"]) {
    const value = process.env[name];
    if (value === undefined) continue;
    try {
      allowOrigins.push(...parseAllowedOrigins([value]));
    } catch (err) {
      fail(`${name}: ${err.message}`);
    }
  }
  let allowHosts;
  try {
    allowHosts = parseAllowedHosts(v["allow-host"]);
  } catch (err) {
    fail(`--allow-host: ${err.message}`);
  }
  if (process.env.WASQ_ALLOW_HOSTS !== undefined) {
    try {
      allowHosts.push(...parseAllowedHosts([process.env.WASQ_ALLOW_HOSTS]));
    } catch (err) {
      fail(`WASQ_ALLOW_HOSTS: ${err.message}`);
    }
  }
  let www = null;
  if (v.www !== undefined) {
    www = resolve(v.www);
    if (!existsSync(www)) fail(`--www ${v.www}: no such directory`);
  } else {
    www = defaultWww();
  }
  return {
    host: v.host,
    port: Number(v.port),
    data: v.memory ? null : resolve(v.data ?? ".wasq-data"),
    // Group commit: every answer goes through the HTTP handler, which waits for the storage's
    // flush(), so an answer still means "on disk" while concurrent requests share each sync.
    fsync: v["no-fsync"] ? false : "group",
    credentials,
    www,
    allowOrigins,
    allowHosts,
    // `--host sqs.dev.test`, a name that resolves to loopback: the name the server was told to
    // listen on is one of its names, and clients given the same name must not be refused.
    listenName: normalizeHostName(v.host) ?? null,
    maxBufferedBytes,
    maxStoredBytes,
    bodyTimeoutMs,
    verbose: v.verbose,
    config: v.config === undefined ? null : resolve(v.config),
    metricsPublic: v["metrics-public"],
  };
}

async function serve(argv) {
  const opts = parseServe(argv);
  // `--memory`: no storage at all. The engine holds every queue and message itself; MemoryStorage
  // would keep a second copy of each record for a restart that never comes (throughput fell
  // several-fold as messages piled up), and with storage null the core skips encoding changes too.
  let storage = null;
  if (opts.data !== null) {
    try {
      storage = new FileStorage(opts.data, { fsync: opts.fsync });
    } catch (err) {
      process.stderr.write(`wasq serve: cannot open --data ${opts.data}: ${err.message}\n`);
      process.exit(1);
    }
  }
  const newEngine = () =>
    new Engine({ storage, maxStoredBytes: opts.maxStoredBytes }).on("error", (err) =>
      process.stderr.write(`wasq serve: timer tick failed: ${err?.stack ?? err}\n`),
    );
  const engine = newEngine();
  if (opts.config !== null) {
    try {
      const report = configure(engine, opts.config);
      const count = (action) => report.filter((q) => q.action === action).length;
      process.stdout.write(
        `wasq serve: --config ${opts.config}: ${count("created")} queues created, ${count("updated")} updated, ${count("unchanged")} unchanged\n`,
      );
    } catch (err) {
      engine.close();
      process.stderr.write(`wasq serve: ${err instanceof ConfigError ? err.message : `--config ${opts.config}: ${err?.stack ?? err}`}\n`);
      process.exit(1);
    }
  }

  const log = opts.verbose ? (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`) : undefined;
  let running;
  try {
    running = await startServer({
      engine,
      host: opts.host,
      port: opts.port,
      credentials: opts.credentials,
      www: opts.www,
      allowOrigins: opts.allowOrigins,
      allowHosts: opts.listenName === null ? opts.allowHosts : [...opts.allowHosts, opts.listenName],
      pkgRoot,
      storageKind: opts.data === null ? "memory" : "file",
      maxBufferedBytes: opts.maxBufferedBytes,
      bodyTimeoutMs: opts.bodyTimeoutMs,
      metrics: new ServerMetrics({ public: opts.metricsPublic }),
      log,
      // After an internal error, a new engine over the same files; in memory nothing is left to
      // restore, and the process ends (non-zero) rather than serve empty queues in their place.
      restore: storage === null ? null : newEngine,
      onFailed: () => {
        process.stderr.write("wasq serve: stopping: the engine cannot be restored\n");
        running.close().finally(() => process.exit(70));
      },
    });
  } catch (err) {
    engine.close();
    const why = err?.code === "EADDRINUSE" ? "the address is already in use" : err.message;
    process.stderr.write(`wasq serve: cannot listen on ${opts.host}:${opts.port}: ${why}\n`);
    process.exit(1);
  }

  const where = opts.data === null ? "in memory (lost on exit)" : `in ${opts.data}${opts.fsync ? "" : " (no fsync)"}`;
  process.stdout.write(`wasq serve: listening on ${running.url} (queues ${where}; SigV4 ${opts.credentials ? "required" : "not checked"})\n`);
  if (opts.www) process.stdout.write(`wasq serve: playground at ${running.url}/\n`);
  // Listening beyond loopback, the Host is not checked at all (clients use the machine's names).
  if (opts.allowHosts.length > 0 && !isLoopbackName(new URL(running.url).hostname)) {
    process.stderr.write(`wasq serve: --allow-host changes nothing: listening on ${opts.host}, the server answers under any name\n`);
  }
  if (!isLoopback(opts.host) && !opts.credentials) {
    process.stderr.write(
      `wasq serve: WARNING: listening on ${opts.host}, which other machines can reach, without --credentials: ` +
        `anyone who can connect can read, send and delete messages. Pass --credentials KEY:SECRET.\n`,
    );
  }

  let signals = 0;
  const stop = (signal) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`wasq serve: ${signal} again, exiting now\n`);
      process.exit(130);
    }
    running.close().then(
      () => {
        process.stdout.write(`wasq serve: stopped (${signal})\n`);
        process.exit(0);
      },
      (err) => {
        process.stderr.write(`wasq serve: error while stopping: ${err?.stack ?? err}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

const [command, ...rest] = process.argv.slice(2);
if (command === "serve") {
  await serve(rest);
} else if (command === "--version" || command === "-v") {
  process.stdout.write(`wasq ${version()}\n`);
} else if (command === undefined || command === "-h" || command === "--help" || command === "help") {
  process.stdout.write(USAGE + "\n");
} else {
  fail(`unknown command "${command}"`);
}
