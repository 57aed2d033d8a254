// Draws one queue as lanes of message cards, keyed by message id, straight from engine.peek().
// Cards are reused across renders so that when a message changes state its card element moves to
// another lane; FLIP (measure, move, invert, play) animates that move with the Web Animations API.

import { isRemoved } from "./playground.js";
import { fmtClock, fmtSeconds, shortSeq, clip } from "./format.js";

export const LANES = [
  { id: "stored", title: "Stored", hint: "visible, ready to receive" },
  { id: "inflight", title: "In flight", hint: "received, hidden until the visibility timeout ends" },
  { id: "deleted", title: "Deleted", hint: "recently removed" },
  { id: "dlq", title: "Dead-letter queue", hint: "" },
];
const RING = 2 * Math.PI * 4.5;
// Drawn, not an emoji: emoji fonts are missing on many Linux systems.
const LOCK_SVG = `<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><rect x="3" y="7" width="10" height="8" rx="1.5" fill="currentColor"/><path d="M5 7V5a3 3 0 0 1 6 0v2" fill="none" stroke="currentColor" stroke-width="1.8"/></svg>`;
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

/** The lane a peeked message belongs in (the page tests use the same rule, stated in README.md). */
export function laneOf(message, inDeadLetterQueue) {
  if (inDeadLetterQueue || message.state === "dead-lettered") return "dlq";
  if (message.state === "delayed") return "delayed";
  if (message.state === "stored") return "stored";
  if (message.state === "in-flight") return "inflight";
  return "deleted";
}

export class LanesView {
  constructor(root, pg) {
    this.root = root;
    this.pg = pg;
    this.cards = new Map(); // messageId -> element
    this.shape = "";
    this.moves = 0;
  }

  render() {
    const pg = this.pg;
    const name = pg.selected;
    const url = name && pg.queueUrl(name);
    if (!url) {
      this.root.replaceChildren();
      this.shape = "";
      return;
    }
    const peek = pg.engine.peek(url);
    const dlq = pg.deadLetterQueueOf(name);
    let dlqPeek = null;
    if (dlq && !dlq.missing) {
      try { dlqPeek = pg.engine.peek(pg.queueUrl(dlq.name)); } catch { dlqPeek = null; }
    }

    // Where each message goes; a message in the DLQ shows there once, not also as the source's tail.
    const placed = new Map();
    // Keyed by pg.keyOf: a realism duplicate shares its original's message id but is its own card.
    for (const m of peek.messages) placed.set(pg.keyOf(m), { m, lane: laneOf(m, false) });
    for (const m of dlqPeek?.messages || []) placed.set(pg.keyOf(m), { m, lane: laneOf(m, true) });

    const fifo = peek.queue.fifo;
    const groups = [];
    if (fifo) {
      for (const g of peek.groups || []) groups.push(g.groupId);
      for (const { m } of placed.values()) if (m.groupId && !groups.includes(m.groupId)) groups.push(m.groupId);
      // An empty FIFO queue still shows its lanes, in one row waiting for the first group.
      if (!groups.length) groups.push("");
    } else {
      groups.push("");
    }
    const lanes = LANES.filter((l) => l.id !== "dlq" || dlq);
    const locks = new Map((peek.groups || []).map((g) => [g.groupId, g.locked]));

    const first = new Map();
    for (const [id, el] of this.cards) if (el.isConnected) first.set(id, { rect: el.getBoundingClientRect(), lane: el.dataset.lane });

    const shape = JSON.stringify([name, fifo, lanes.map((l) => l.id), groups, dlq?.name]);
    if (shape !== this.shape) this.#skeleton(lanes, groups, fifo, dlq);
    this.shape = shape;

    for (const g of groups) {
      const head = this.root.querySelector(`.group-head[data-group="${CSS.escape(g)}"]`);
      if (head) {
        const locked = Boolean(locks.get(g));
        head.dataset.locked = locked;
        const lock = head.querySelector(".lock");
        lock.innerHTML = locked ? LOCK_SVG : "";
        lock.title = locked ? "Locked: a message of this group is in flight" : "";
        head.querySelector(".lock-text").textContent = locked ? "locked" : "";
      }
    }

    const buckets = new Map();
    for (const entry of placed.values()) {
      const key = `${fifo ? entry.m.groupId || "" : ""}\u0000${entry.lane}`;
      if (!buckets.has(key)) buckets.set(key, []);
      buckets.get(key).push(entry);
    }
    const seen = new Set();
    for (const cell of this.root.querySelectorAll(".cell")) {
      const entries = buckets.get(`${cell.dataset.group}\u0000${cell.dataset.lane}`) || [];
      if (cell.dataset.lane !== "deleted" && cell.dataset.lane !== "dlq") entries.sort(byOrder);
      const els = entries.map(({ m, lane }, i) => {
        seen.add(pg.keyOf(m));
        return this.#card(m, lane, peek.now, entries.length - i);
      });
      // Only touch the DOM when the order changed, so unchanged cards keep their place and focus.
      const current = [...cell.children];
      if (current.length !== els.length || current.some((el, i) => el !== els[i])) cell.replaceChildren(...els);
    }
    for (const [id, el] of this.cards) {
      if (!seen.has(id)) { el.remove(); this.cards.delete(id); }
    }

    // Counters inside the dead-letter lane come from the DLQ's own GetQueueAttributes.
    const dlqCount = this.root.querySelector(".dlq-count");
    if (dlqCount && dlq && !dlq.missing) {
      const a = pg.attributes(dlq.name) || {};
      // Short words: the lane is a quarter of a docs column wide. The full attribute name is the title.
      const n = a.ApproximateNumberOfMessages ?? "?";
      dlqCount.textContent = `${dlq.name} · ${n} message${n === "1" ? "" : "s"} · maxReceiveCount ${dlq.maxReceiveCount}`;
      dlqCount.title = `${dlq.name}: ApproximateNumberOfMessages ${n}`;
    } else if (dlqCount && dlq) {
      dlqCount.textContent = `${dlq.name} (does not exist)`;
    }

    this.#flip(first);
    this.#flashes();
  }

  #skeleton(lanes, groups, fifo, dlq) {
    const root = this.root;
    root.replaceChildren();
    root.classList.toggle("fifo", fifo);
    root.style.setProperty("--lanes", lanes.length);
    const head = el("div", "lane-titles");
    if (fifo) head.append(el("div", "group-title", "Message group"));
    for (const l of lanes) {
      const t = el("div", `lane-title lane-${l.id}`);
      t.append(el("span", "name", l.title));
      if (l.id === "dlq") t.append(el("span", "hint dlq-count", dlq?.name || ""));
      else t.append(el("span", "hint", l.hint));
      head.append(t);
    }
    root.append(head);
    for (const g of groups) {
      const row = el("div", "lane-row");
      row.dataset.group = g;
      if (fifo) {
        const gh = el("div", "group-head");
        gh.dataset.group = g;
        gh.append(el("span", "lock"), el("span", "gname", g || "no groups yet"), el("span", "lock-text"));
        if (!g) gh.classList.add("placeholder");
        row.append(gh);
      }
      for (const l of lanes) {
        const lc = el("div", `lane-cell lane-${l.id}`);
        const label = `${l.title}${l.id === "dlq" && dlq ? ` ${dlq.name}` : ""}${fifo && g ? `, group ${g}` : ""}`;
        lc.append(el("div", "cell-label", label));
        if (l.id === "stored") {
          const d = cellEl("delayed", g, `Delayed${fifo ? `, group ${g}` : ""}`);
          d.classList.add("delayed-area");
          lc.append(d);
        }
        lc.append(cellEl(l.id, g, label));
        row.append(lc);
      }
      root.append(row);
    }
  }

  #card(m, lane, now, fromEnd) {
    const pg = this.pg;
    const key = pg.keyOf(m);
    let card = this.cards.get(key);
    if (!card) {
      card = el("div", "card");
      card.dataset.id = m.messageId;
      card.dataset.key = key;
      card.setAttribute("role", "listitem");
      // Reachable by Tab: its aria-label (below) reads out the message's whole state.
      card.tabIndex = 0;
      card.innerHTML = `<div class="top"><b class="label"></b><span class="seq"></span><span class="rc"></span></div>
        <div class="body"></div>
        <div class="meta"><svg class="ring" viewBox="0 0 20 20" aria-hidden="true"><circle class="track" cx="10" cy="10" r="9"/><circle class="left" cx="10" cy="10" r="4.5" stroke-dasharray="${RING}"/></svg><span class="holder"></span><span class="when"></span></div>`;
      if (m.duplicateCopy) {
        card.dataset.copy = "1";
        card.append(el("div", "dup-note", "this message was delivered twice"));
      }
      card.dataset.new = "1";
      this.cards.set(key, card);
    }
    const label = pg.labelOf(m);
    card.dataset.lane = lane;
    card.dataset.state = m.state;
    card.querySelector(".label").textContent = label;
    card.querySelector(".body").textContent = clip(m.body);
    card.querySelector(".body").title = clip(m.body, 2000);
    const seq = card.querySelector(".seq");
    seq.textContent = m.sequenceNumber ? `seq ${shortSeq(m.sequenceNumber)}` : "";
    seq.title = m.sequenceNumber ? `SequenceNumber ${m.sequenceNumber}` : "";
    const rc = card.querySelector(".rc");
    rc.textContent = m.receiveCount ? `received ×${m.receiveCount}` : "";
    const holder = m.state === "in-flight" ? pg.holderOf(m) : null;
    card.querySelector(".holder").textContent = holder ? `held by ${holder}` : "";
    const when = card.querySelector(".when");
    const ring = card.querySelector(".ring");
    let status = m.state;
    if (m.state === "in-flight" && m.visibleAt !== undefined) {
      const win = pg.windows.get(m.messageId);
      const total = win && win.to === m.visibleAt ? Math.max(1, win.to - win.from) : Math.max(1, m.visibleAt - now);
      const left = Math.max(0, m.visibleAt - now);
      ring.querySelector(".left").style.strokeDashoffset = String(RING * (1 - left / total));
      ring.removeAttribute("hidden");
      when.textContent = `${fmtSeconds(left)} left`;
      status = `in flight${holder ? `, held by consumer ${holder}` : ""}, visible again in ${fmtSeconds(left)}`;
    } else if (m.state === "delayed" && m.delayedUntil !== undefined) {
      ring.setAttribute("hidden", "");
      when.textContent = `delay ${fmtSeconds(Math.max(0, m.delayedUntil - now))}`;
      status = `delayed for ${fmtSeconds(Math.max(0, m.delayedUntil - now))}`;
    } else {
      ring.setAttribute("hidden", "");
      const at = pg.removedAt.get(m.messageId);
      const gone = isRemoved(m.state) || m.state === "dead-lettered";
      if (gone) when.textContent = `${m.state.replace("-", " ")}${at !== undefined ? ` at ${fmtClock(at)}` : ""}`;
      else if (lane === "dlq") when.textContent = at !== undefined ? `${m.state}, dead-lettered at ${fmtClock(at)}` : m.state;
      else when.textContent = "";
    }
    // The removed tail fades with age: the oldest entries are the faintest.
    card.style.setProperty("--age", lane === "deleted" ? String(Math.min(fromEnd - 1, 5)) : "0");
    card.setAttribute("aria-label", `${label}: ${clip(m.body)}; ${m.duplicateCopy ? "a second delivery of the same message; " : ""}${status}${m.receiveCount ? `; received ${m.receiveCount} times` : ""}`);
    return card;
  }

  #flip(first) {
    const animate = !reducedMotion.matches;
    for (const [id, card] of this.cards) {
      const before = first.get(id);
      if (!before) {
        if (card.dataset.new && animate) card.animate([{ opacity: 0, transform: "scale(.92)" }, { opacity: 1, transform: "none" }], { duration: 260, easing: "ease-out" });
        delete card.dataset.new;
        continue;
      }
      delete card.dataset.new;
      if (before.lane === card.dataset.lane) continue;
      card.dataset.movedFrom = before.lane;
      this.moves++;
      const after = card.getBoundingClientRect();
      const dx = before.rect.left - after.left;
      const dy = before.rect.top - after.top;
      if (animate && (dx || dy)) {
        card.animate(
          [{ transform: `translate(${dx}px, ${dy}px)`, boxShadow: "0 8px 24px rgb(20 30 60 / .25)" }, { transform: "none", boxShadow: "none" }],
          { duration: 520, easing: "cubic-bezier(.2,.7,.2,1)" },
        );
      } else if (!animate) {
        // Without motion the move is still marked, by a short outline that does not travel.
        card.classList.add("just-moved");
        setTimeout(() => card.classList.remove("just-moved"), 1200);
      }
    }
  }

  #flashes() {
    const pg = this.pg;
    while (pg.flashes.length) {
      const { messageId, text } = pg.flashes.shift();
      const card = this.cards.get(messageId);
      if (!card) continue;
      const badge = el("span", "flash", text);
      badge.setAttribute("role", "status");
      card.append(badge);
      card.classList.add("flashing");
      if (!reducedMotion.matches) {
        card.animate([{ outlineColor: "var(--warn)" }, { outlineColor: "transparent" }], { duration: 1600 });
      }
      setTimeout(() => { badge.remove(); card.classList.remove("flashing"); }, 2400);
    }
  }
}

function byOrder({ m: a }, { m: b }) {
  if (a.sequenceNumber && b.sequenceNumber) {
    return a.sequenceNumber.length - b.sequenceNumber.length || (a.sequenceNumber < b.sequenceNumber ? -1 : 1);
  }
  return a.sentTimestamp - b.sentTimestamp;
}

function cellEl(lane, group, label) {
  const c = el("div", "cell");
  c.dataset.lane = lane;
  c.dataset.group = group;
  c.setAttribute("role", "list");
  c.setAttribute("aria-label", label);
  return c;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
