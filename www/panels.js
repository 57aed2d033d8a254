// Everything around the lanes: counters, the timeline, consumer panels, errors, announcements.

import { fmtClock, fmtSeconds, shortSeq, clip } from "./format.js";

export const COUNTERS = [
  ["ApproximateNumberOfMessages", "visible"],
  ["ApproximateNumberOfMessagesNotVisible", "in flight"],
  ["ApproximateNumberOfMessagesDelayed", "delayed"],
];

export function renderCounters(dl, pg) {
  const attrs = pg.selected ? pg.attributes(pg.selected) : null;
  dl.hidden = !attrs;
  if (!attrs) return;
  if (dl.children.length !== COUNTERS.length) {
    dl.replaceChildren(...COUNTERS.map(([name, short]) => {
      const div = document.createElement("div");
      div.className = "counter";
      div.dataset.attr = name;
      div.innerHTML = `<dt><span class="short"></span><span class="full"></span></dt><dd></dd>`;
      div.querySelector(".short").textContent = short;
      div.querySelector(".full").textContent = name;
      return div;
    }));
  }
  for (const div of dl.children) {
    const v = attrs[div.dataset.attr] ?? "–";
    const dd = div.querySelector("dd");
    if (dd.textContent !== String(v)) {
      dd.textContent = v;
      dd.animate?.([{ color: "var(--accent)" }, { color: "inherit" }], { duration: 600 });
    }
  }
}

/** One line of the timeline, in words. */
export function describe(e, pg) {
  const l = e.messageId ? pg.label(e.messageId) : "";
  switch (e.type) {
    case "queue-created": return `queue ${e.queue} created${e.fifo ? " (FIFO)" : ""}`;
    case "queue-deleted": return `queue ${e.queue} deleted`;
    case "sent": return `${l} sent${e.groupId ? ` to group ${e.groupId}` : ""}${e.sequenceNumber ? `, seq ${shortSeq(e.sequenceNumber)}` : ""}${e.delayedUntil ? `, delayed until ${fmtClock(e.delayedUntil)}` : ""}`;
    case "deduplicated": return `send deduplicated against ${l} (MessageDeduplicationId ${short(e.deduplicationId)})`;
    case "delay-ended": return `${l} delay ended: visible`;
    case "received": return `${l} received (receive ${e.receiveCount}), hidden until ${fmtClock(e.visibleAt)}`;
    case "visibility-changed": return e.visibleAt === e.at ? `${l} made visible (visibility 0)` : `${l} visibility changed: hidden until ${fmtClock(e.visibleAt)}`;
    case "visibility-expired": return `${l} visibility timeout ended: visible again`;
    case "deleted": return `${l} deleted`;
    case "moved-to-dead-letter-queue": return `${l} moved to dead-letter queue ${e.deadLetterQueue}`;
    case "moved-by-task": return `${l} moved to ${e.destination}`;
    case "expired": return `${l} expired (retention period)`;
    case "purged": return `${l} purged`;
    case "duplicate-delivered": return `${l} delivered, and stays receivable once more (realism: at-least-once)`;
    case "sampled-out": return `${l} not seen by a short poll (realism: sampled servers)`;
    case "throttled": return `${e.action} throttled: RequestThrottled (realism: quota)`;
    default: return e.type;
  }
}

const short = (s) => (s && s.length > 14 ? `${s.slice(0, 12)}…` : s || "");

export class TimelineView {
  constructor(ol, announcer, pg) {
    this.ol = ol;
    this.announcer = announcer;
    this.pg = pg;
    this.shown = 0;
  }

  render() {
    const events = this.pg.events;
    const fresh = events.slice(this.shown);
    this.shown = events.length;
    if (!fresh.length) return;
    const items = fresh.map((e) => {
      const li = document.createElement("li");
      li.dataset.type = e.type;
      const t = document.createElement("time");
      t.dateTime = new Date(e.at).toISOString();
      t.textContent = fmtClock(e.at);
      const q = document.createElement("span");
      q.className = "q";
      q.textContent = e.queue;
      const what = document.createElement("span");
      what.className = "what";
      what.textContent = describe(e, this.pg);
      li.append(t, q, what);
      return li;
    });
    this.ol.prepend(...items.reverse());
    while (this.ol.children.length > 300) this.ol.lastChild.remove();
    // Announce the latest few; a long fast-forward would otherwise flood a screen reader.
    const said = fresh.slice(-3).map((e) => `${fmtClock(e.at)}: ${describe(e, this.pg)}`);
    if (fresh.length > 3) said.unshift(`${fresh.length} events`);
    this.announcer.textContent = said.join(". ");
  }
}

export function showError(slot, err) {
  if (!slot) return;
  slot.hidden = !err;
  slot.replaceChildren();
  if (!err) return;
  const code = document.createElement("code");
  code.className = "sqs-code";
  code.textContent = err.name;
  const msg = document.createElement("span");
  msg.className = "msg";
  msg.textContent = err.message;
  slot.append(code, msg);
  const extra = [];
  if (err.code && err.code !== err.name) extra.push(`query code ${err.code}`);
  if (err.httpStatus) extra.push(`HTTP ${err.httpStatus}`);
  if (extra.length) {
    const q = document.createElement("span");
    q.className = "query-code muted small";
    q.textContent = ` (${extra.join(", ")})`;
    slot.append(q);
  }
}

/** Consumer panels: built once per consumer and per held message, then only updated. */
export class ConsumersView {
  constructor(root, pg, act) {
    this.root = root;
    this.pg = pg;
    this.act = act;
  }

  render() {
    const pg = this.pg;
    pg.consumers.forEach((c, i) => {
      let panel = this.root.querySelector(`#consumer-${i}`);
      if (!panel) panel = this.#panel(i);
      panel.querySelector(".status").textContent = c.pending ? "long polling…" : c.result;
      panel.querySelector(".queue-name").textContent = pg.selected ? `from ${pg.selected}` : "";
      panel.querySelector(".receive").disabled = !pg.selected;
      showError(panel.querySelector(".error"), pg.errors.get(`consumer:${i}`));
      const list = panel.querySelector(".held");
      const labels = [...c.held.keys()];
      for (const row of [...list.children]) if (!c.held.has(row.dataset.label)) row.remove();
      for (const label of labels) {
        let row = list.querySelector(`[data-label="${label}"]`);
        if (!row) { row = this.#heldRow(i, label); list.append(row); }
        const h = c.held.get(label);
        const live = pg.liveHold(h);
        const m = live || pg.peekMessage(h.queueUrl, h.messageId);
        row.dataset.live = Boolean(live);
        // The panel's heading names the shown queue; a handle from another queue says which.
        const where = h.queue !== pg.selected ? `on ${h.queue} · ` : "";
        row.querySelector(".hstate").textContent = where + (live
          ? `in flight, ${fmtSeconds(Math.max(0, live.visibleAt - pg.now))} left`
          : m ? `handle stale: message ${m.state.replace("-", " ")}` : "handle stale");
        const hb = row.querySelector(".hb");
        hb.setAttribute("aria-pressed", String(h.heartbeat));
        hb.textContent = h.heartbeat ? "♥ heartbeat on" : "♡ heartbeat";
      }
      panel.querySelector(".none").hidden = labels.length > 0;
    });
  }

  #panel(i) {
    const c = this.pg.consumers[i];
    const panel = document.createElement("div");
    panel.className = "panel consumer";
    panel.id = `consumer-${i}`;
    panel.innerHTML = `<h3>Consumer ${c.name} <span class="queue-name muted small"></span></h3>
      <form class="recv-form" novalidate>
        <div class="grid3">
          <label>MaxNumberOf<wbr>Messages <input name="max" type="number" inputmode="numeric" value="1" min="1" max="10"></label>
          <label>Visibility<wbr>Timeout <input name="vt" type="number" inputmode="numeric" placeholder="queue"></label>
          <label>WaitTime<wbr>Seconds <input name="wait" type="number" inputmode="numeric" value="0"></label>
        </div>
        <button class="receive primary" type="submit">ReceiveMessage</button>
        <span class="status muted small" aria-live="polite"></span>
      </form>
      <p class="error" role="alert" hidden></p>
      <ul class="held" aria-label="Messages consumer ${c.name} received"></ul>
      <p class="none muted small">Holds no receipt handles.</p>`;
    panel.querySelector("form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.currentTarget);
      const opts = { max: num(f.get("max"), 1) };
      if (f.get("vt") !== "") opts.vt = num(f.get("vt"));
      if (num(f.get("wait"), 0)) opts.wait = num(f.get("wait"));
      this.act(["r", i, this.pg.selected, opts]);
    });
    this.root.append(panel);
    return panel;
  }

  #heldRow(i, label) {
    const h = this.pg.consumers[i].held.get(label);
    const li = document.createElement("li");
    li.dataset.label = label;
    li.innerHTML = `<div><b class="label"></b> <span class="hbody"></span> <span class="hstate muted small"></span></div>
      <div class="row">
        <button type="button" class="del">DeleteMessage</button>
        <span class="cv"><input type="number" inputmode="numeric" value="30" aria-label="New visibility timeout for ${label}, seconds"><button type="button" class="set">ChangeMessageVisibility</button></span>
        <button type="button" class="release" title="ChangeMessageVisibility 0">Release (0)</button>
        <button type="button" class="hb" aria-pressed="false"></button>
      </div>`;
    li.querySelector(".label").textContent = label;
    li.querySelector(".hbody").textContent = clip(h.body);
    li.querySelector(".del").addEventListener("click", () => this.act(["d", i, label]));
    // An empty field is no VisibilityTimeout at all (SQS: MissingParameter), not 0, which would
    // silently make the message visible to everyone.
    li.querySelector(".set").addEventListener("click", () => this.act(["v", i, label, num(li.querySelector("input").value, null)]));
    li.querySelector(".release").addEventListener("click", () => this.act(["v", i, label, 0]));
    li.querySelector(".hb").addEventListener("click", () => {
      const held = this.pg.consumers[i].held.get(label);
      this.act(["h", i, label, !held.heartbeat]);
    });
    return li;
  }
}

// Form fields pass through as numbers when they are numbers; anything else reaches the engine as
// typed, so it answers with its own validation error.
function num(v, fallback) {
  if (v === null || v === "") return fallback;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}
export { num };
