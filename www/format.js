// Times are shown relative to the playground's start, because the clock is simulated: "+01:25.000"
// reads better than an epoch date that only means something to the engine.
import { START } from "./playground.js";

const pad = (n, w = 2) => String(n).padStart(w, "0");

/** Engine time (epoch ms) as `+mm:ss.mmm`, or `+h:mm:ss` past an hour. */
export function fmtClock(at) {
  const ms = Math.max(0, at - START);
  const h = Math.floor(ms / 3600000);
  const m = Math.floor((ms % 3600000) / 60000);
  const s = Math.floor((ms % 60000) / 1000);
  if (h) return `+${h}:${pad(m)}:${pad(s)}`;
  return `+${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

/** A duration in ms, rounded up to whole seconds (a countdown never shows 0 s before it ends). */
export function fmtSeconds(ms) {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** A FIFO sequence number made short enough for a card: the digits after its run of zeros. */
export function shortSeq(seq) {
  const m = /^\d+?0{4,}([1-9]\d*)$/.exec(seq);
  return `…${m ? m[1] : seq.slice(-6)}`;
}

/**
 * A message body cut for display: bodies go up to 1 MiB, and a panel, a card or a tooltip holding
 * all of it makes the page crawl (the engine keeps the whole body; peek() and the log are unchanged).
 */
export function clip(text, max = 200) {
  const s = String(text ?? "");
  return s.length > max ? `${s.slice(0, max)}… (${s.length.toLocaleString("en")} characters)` : s;
}
