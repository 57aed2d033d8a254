// Wires one playground: builds a Playground from its options (a scenario step or an action log),
// re-renders after every action and every clock step, and, on the page, keeps the URL and the
// browser's history in step with what the reader did (Back and Forward replay the state an entry
// names). The page (page.js) mounts it on the document; each <wasq-playground> element
// (element.js) mounts its own in a shadow root, with no hold on the host page's URL or history.

import { Playground } from "./playground.js";
import { LanesView } from "./lanes.js";
import { renderCounters, TimelineView, ConsumersView, showError, num } from "./panels.js";
import { SCENARIOS, scenarioById } from "./scenarios.js";
import { fmtClock, fmtSeconds } from "./format.js";
import { MARKUP } from "./markup.js";

/** The panels below the lanes that a parameter can open: `panels=all` or `panels=consumers,…`. */
const PANEL_NAMES = ["consumers", "forms", "timeline"];

/**
 * Mount a playground in `container` (an element of the page or of a shadow root).
 * - `wasq`: the loaded package module (init() done), or a promise of it: the markup is put in and
 *   laid out while the package is still arriving, so that once it has, only the queue is drawn.
 * - `params`: URLSearchParams: scenario, step, log, embed, panels (the URL's, or an element's attributes).
 * - `scenarios`: extra scenario definitions (validated), found by id before the built-in ones.
 * - `history`: true on the page: the address and Back/Forward follow the reader.
 * - `keyTarget`: where the keyboard shortcuts listen (the document, or the element).
 * Returns the scripting API (`window.wasq` on the page, `element.playground`).
 */
export async function mountPlayground(container, { wasq, params, scenarios = [], history: useHistory = false, keyTarget } = {}) {
  container.innerHTML = MARKUP;
  const $ = (sel) => container.querySelector(sel);
  const $$ = (sel) => container.querySelectorAll(sel);
  const embedded = params.has("embed");
  container.classList.add("wasq-app");
  container.classList.toggle("embed", embedded);
  const allScenarios = [...scenarios, ...SCENARIOS];
  const findScenario = (id) => scenarios.find((s) => s.id === id) || scenarioById(id);
  openPanels();

  let pg;
  let views;
  let scenario = null; // {def, step}: set while the log is exactly a scenario's steps
  let playing = false;
  let speed = 1;
  let busy = Promise.resolve();
  // While a scenario or a link is replayed, its actions' intermediate states are never shown: one
  // render at the end, not one per action (each render measures the cards for FLIP, a forced
  // layout, and on a phone the replay of a few steps spent most of its time there).
  let replaying = false;

  /** Serializes everything that touches the engine: actions, clock steps and replays never interleave. */
  function serial(fn) {
    const run = busy.then(fn);
    busy = run.catch(() => {});
    return run;
  }

  /** Embedded, the panels below the lanes start closed unless `panels=` names them. */
  function openPanels() {
    const wanted = (params.get("panels") ?? (embedded ? "" : "all")).split(",").map((p) => p.trim()).filter(Boolean);
    const all = wanted.includes("all");
    $("#below-box").open = all || wanted.some((p) => PANEL_NAMES.includes(p));
    for (const name of PANEL_NAMES) container.classList.toggle(`hide-${name}`, !all && wanted.length > 0 && !wanted.includes(name));
  }

  function fresh() {
    // The old engine's pending long polls end with EngineClosedError instead of waiting forever.
    pg?.engine.close?.();
    pg = new Playground(wasqModule);
    $("#lanes").replaceChildren();
    $("#timeline").replaceChildren();
    $("#consumers").replaceChildren();
    views = {
      lanes: new LanesView($("#lanes"), pg),
      timeline: new TimelineView($("#timeline"), $("#announcer"), pg),
      consumers: new ConsumersView($("#consumers"), pg, act),
    };
    pg.onChange(() => { if (!replaying) render(); });
    for (const k of ["create", "send"]) showError($(`#${k}-form .error`), null);
    showError($("#scenario-error"), null);
    showError($("#scenario-expected"), null);
    $("#load-error").hidden = true;
    render();
  }

  function render() {
    views.lanes.render();
    renderCounters($("#counters"), pg);
    views.timeline.render();
    views.consumers.render();
    renderTabs();
    renderDlqOptions();
    showError($("#create-form .error"), pg.errors.get("create"));
    showError($("#send-form .error"), pg.errors.get("send"));
    $("#send-form .note").textContent = pg.errors.get("send") ? "" : pg.sendNote;
    $("#clock-now").textContent = fmtClock(pg.now);
    const next = pg.nextDeadline();
    $("#step-deadline").disabled = next === null;
    const due = next === null ? null : pg.dueAt(next);
    $("#next-deadline").textContent = next === null ? "nothing scheduled" : `next deadline ${fmtClock(next)} (in ${fmtSeconds(next - pg.now)})${due ? `: ${due}` : ""}`;
    $("#empty-hint").hidden = pg.queues.size > 0;
    $("#queue-heading").textContent = pg.selected ? pg.selected : "Queue";
    // With several queues the tabs name them all and mark the shown one; the heading (still read
    // out, and what a link's state is checked by) would only repeat the selected tab's name.
    const tabbed = pg.queues.size > 1;
    $("#queue-tabs").hidden = !tabbed;
    $("#queue-heading").classList.toggle("sr-only", tabbed);
    $("#send-form button").disabled = !pg.selected;
    renderRealism();
    renderScenario();
  }

  function renderRealism() {
    const { mode, knobs } = pg.realism;
    for (const b of $$("[data-realism]")) b.setAttribute("aria-pressed", String(b.dataset.realism === mode));
    for (const box of $$("#realism input[type=checkbox]")) {
      box.checked = mode === "custom" && knobs.includes(box.name);
      box.disabled = mode !== "custom";
    }
    $("#realism-note").textContent = mode === "off"
      ? "exact and predictable, like every emulator"
      : mode === "aws"
        ? "what SQS does by default: rare duplicates, shuffled order, sampled short polls, quotas, latency"
        : "each effect seeded, so this link replays it exactly";
  }

  function realismChanged(mode) {
    const knobs = mode === "custom"
      ? [...$$("#realism input[type=checkbox]")].filter((b) => b.checked).map((b) => b.name)
      : [];
    return act(mode === "custom" ? ["R", mode, knobs] : ["R", mode]);
  }

  function renderTabs() {
    const tabs = $("#queue-tabs");
    const names = [...pg.queues.keys()];
    const key = names.join("\u0000") + "\u0001" + pg.selected;
    if (tabs.dataset.key === key) return;
    tabs.dataset.key = key;
    tabs.replaceChildren(...names.map((n) => {
      const b = document.createElement("button");
      b.type = "button";
      b.setAttribute("role", "tab");
      b.setAttribute("aria-selected", String(n === pg.selected));
      b.textContent = n;
      b.addEventListener("click", () => act(["sel", n]));
      return b;
    }));
  }

  function renderDlqOptions() {
    const sel = $('#create-form select[name="dlq"]');
    const names = [...pg.queues.keys()];
    if (sel.dataset.key === names.join("\u0000")) return;
    sel.dataset.key = names.join("\u0000");
    const keep = sel.value;
    sel.replaceChildren(new Option("none", ""), ...names.map((n) => new Option(n, n)));
    sel.value = names.includes(keep) ? keep : "";
  }

  function renderScenario() {
    const box = $("#scenario-box");
    box.hidden = !scenario;
    if (!scenario) return;
    const { def, step } = scenario;
    $("#scenario-title").textContent = def.title;
    $("#scenario-caption").textContent = def.steps[step].caption;
    $("#scenario-progress").textContent = `step ${step + 1} of ${def.steps.length}`;
    $("#scenario-source").textContent = def.source ?? "";
    $("#scenario-next").disabled = step + 1 >= def.steps.length;
  }

  /** The caption of the step a link opens on, shown before the engine has replayed it. */
  function previewScenario() {
    const def = findScenario(params.get("scenario"));
    if (!def) return;
    scenario = { def, step: Math.max(0, Math.min(Number(params.get("step")) || 0, def.steps.length - 1)) };
    renderScenario();
    scenario = null;
    $("#scenario-next").disabled = true;
  }

  /** A reader action: the page leaves scenario mode (the URL becomes the action log). */
  function act(action) {
    return serial(async () => {
      leaveScenarioIfNeeded();
      await pg.apply(action);
      render();
      updateUrl("push");
    });
  }

  async function runStep(step) {
    const { def } = scenario;
    let unexpected = null;
    // The SQS error the step is about, shown under its caption: where the action ran (a consumer's
    // panel) may be folded away or out of view, embedded, and the step would then show nothing.
    let expectedError = null;
    for (const [i, action] of def.steps[step].actions.entries()) {
      // Where it went wrong, for an author whose scenario does not run as written.
      const where = `step ${step + 1} of ${def.steps.length}, action ${i + 1} ${JSON.stringify(action)}`;
      let err;
      try {
        err = await pg.apply(action);
      } catch (e) {
        // Not an SQS error. After the reader's own actions (the message this step uses deleted,
        // say) the step cannot run as written; otherwise the scenario itself is wrong. Say which,
        // instead of a Next button that silently does nothing.
        unexpected = scenario.diverged
          ? { name: "Step not applicable", message: `${e.message}: your own actions changed the queue since this scenario began. Restart replays it from the start.` }
          : { name: "Scenario step cannot run", message: `${where}: ${e.message}.` };
        continue;
      }
      const expected = def.steps[step].expectError;
      if (err && err.name !== expected && err.code !== expected) {
        unexpected = { name: err.name, code: err.code, httpStatus: err.httpStatus, message: `${err.message} (${where})` };
      } else if (err) expectedError = err;
    }
    scenario.step = step;
    showError($("#scenario-error"), unexpected);
    showError($("#scenario-expected"), expectedError);
  }

  /** `how`: what it does to the history (see updateUrl); a reader picking a scenario pushes. */
  function startScenario(id, upTo = 0, how = "push") {
    return serial(async () => {
      const def = findScenario(id);
      fresh();
      // Back/Forward can land here from a scenario, whose name the picker would otherwise keep.
      $("#scenario-select").value = def ? id : "";
      // "— free play —": leave the scenario, or its caption, Next button and URL outlive its queue.
      if (!def) { scenario = null; render(); updateUrl(how); return; }
      scenario = { def, step: 0 };
      // Step 0 (the setup) always runs: `step=-1` must not leave the caption over an empty page.
      replaying = true;
      try {
        for (let s = 0; s <= Math.max(0, Math.min(upTo, def.steps.length - 1)); s++) await runStep(s);
      } finally {
        replaying = false;
      }
      render();
      updateUrl(how);
    });
  }

  function nextStep() {
    return serial(async () => {
      if (!scenario || scenario.step + 1 >= scenario.def.steps.length) return;
      await runStep(scenario.step + 1);
      render();
      updateUrl("push");
      // The step's caption (what just happened, what to look at) and the Next button at the top,
      // the lanes below them: scrolling the lanes into view instead hid both above the fold. Only
      // the page's own document scrolls (never an embedding page, as scrollIntoView would); embedded
      // and in an element, caption, Next and lanes already fit together.
      if (!useHistory || embedded) return;
      const top = $("#scenario-box").getBoundingClientRect().top - 8;
      window.scrollTo({ top: Math.max(0, window.scrollY + top) });
    });
  }

  // --- time -----------------------------------------------------------------------------------

  function step(ms) {
    return serial(async () => {
      leaveScenarioIfNeeded();
      await pg.passTime(ms);
      updateUrl("time");
    });
  }

  // Letting time pass inside a scenario keeps the scenario's caption, but the URL must then carry the log.
  function leaveScenarioIfNeeded() {
    if (scenario) scenario.diverged = true;
  }

  /** `write: false` when Back/Forward stopped it: the entry being restored is already right. */
  function setPlaying(on, { write = true } = {}) {
    playing = on;
    const b = $("#play");
    b.setAttribute("aria-pressed", String(on));
    b.textContent = on ? "❚❚ Pause" : "▶ Play";
    if (on) requestAnimationFrame(frame);
    else if (write) updateUrl("time");
  }

  let lastFrame = null;
  let frameBusy = false;
  let owed = 0; // simulated ms not yet applied because the previous step was still running
  function frame(t) {
    if (!playing) { lastFrame = null; owed = 0; return; }
    if (lastFrame !== null) {
      // A hidden tab or a stalled frame must not jump the simulation by minutes.
      owed += Math.min(t - lastFrame, 250) * speed;
      if (!frameBusy && owed >= 1) {
        const dt = Math.floor(owed);
        owed -= dt;
        frameBusy = true;
        step(dt).finally(() => { frameBusy = false; });
      }
    }
    lastFrame = t;
    requestAnimationFrame(frame);
  }

  // --- URL ------------------------------------------------------------------------------------

  function encodeLog(log) {
    const bytes = new TextEncoder().encode(JSON.stringify(log));
    let bin = "";
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function decodeLog(s) {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  }

  function stateUrl() {
    const p = new URLSearchParams();
    for (const k of ["embed", "pkg", "panels", "scenario-src"]) if (params.has(k)) p.set(k, params.get(k));
    if (scenario && !scenario.diverged) {
      p.set("scenario", scenario.def.id);
      p.set("step", String(scenario.step));
    } else if (pg.log.length) {
      p.set("log", encodeLog(pg.log));
    }
    const q = p.toString().replace(/embed=(&|$)/, "embed$1");
    return `${useHistory ? location.pathname : ""}${q ? `?${q}` : ""}`;
  }

  // The query string of the state on the page, as last written to or restored from the address:
  // a history move that lands on the same one (the skip link's #lanes, say) has nothing to replay.
  let shownSearch = useHistory ? location.search : "";
  // Back/Forward moves whose replay has not begun: work queued before one (a frame of play, a
  // click) still finishes on the state being left, and must not write that state over the entry.
  let leaving = 0;

  /**
   * Bring the address up to date with the page, so that copying it links to this situation, and
   * make Back and Forward step through what the reader did:
   * - "push": a new history entry; for each reader action, scenario picked and scenario step.
   * - "time": the clock moved (a time button, or a pause after playing). Consecutive moves make
   *   one entry, as the log makes them one `["t", ms]`: Back goes to before the time passed, not
   *   one click of +1 s at a time.
   * - "replace": the entry stays, its address updated (a link's state normalized on load).
   * - "keep": Back/Forward restored this entry's state; its address is left as it is. (Rewriting
   *   it would write over whichever entry is current by the time the replay finishes.)
   */
  function updateUrl(how) {
    if (playing) return; // rewritten when paused, not sixty times a second
    if (leaving > 0) return; // the state is about to be replaced by the one Back/Forward went to
    const url = stateUrl();
    $("#permalink").href = url;
    if (how === "keep" || !useHistory) return;
    const kind = how === "time" ? "time" : "step";
    const search = new URL(url, location.href).search;
    // Embedded (?embed), entries would join the embedding page's history, and its reader's Back
    // would step through the playground instead of leaving the docs page: the address only changes.
    const newEntry = !params.has("embed") && search !== location.search &&
      (how === "push" || (how === "time" && history.state?.kind !== "time"));
    if (newEntry) history.pushState({ kind }, "", url);
    else history.replaceState({ kind: how === "replace" ? history.state?.kind ?? kind : kind }, "", url);
    shownSearch = search;
  }

  /** Rebuild the page from a query string: a scenario step, an action log or nothing. */
  async function restoreFrom(search, how) {
    shownSearch = search;
    const query = new URLSearchParams(search);
    const id = query.get("scenario");
    if (id && findScenario(id)) return startScenario(id, Number(query.get("step")) || 0, how);
    const log = query.get("log");
    if (log) {
      await serial(async () => {
        scenario = null; // Back from a scenario to a log: its caption and its URL go with it
        fresh();
        let actions = [];
        let unreadable = false;
        try { actions = decodeLog(log); } catch { unreadable = true; }
        if (!Array.isArray(actions)) { actions = []; unreadable = true; }
        // A hand-edited, truncated or newer link may hold an action this page cannot run: skip it and
        // say so, rather than stopping with the page never ready.
        let skipped = 0;
        replaying = true;
        try {
          for (const a of actions) {
            try { await pg.apply(a); } catch { skipped++; }
          }
        } finally {
          replaying = false;
        }
        $("#scenario-select").value = "";
        render();
        updateUrl(how);
        if (unreadable || skipped) {
          const p = $("#load-error");
          p.hidden = false;
          p.textContent = unreadable
            ? "This link's action log could not be read; starting empty."
            : `${skipped} of the ${actions.length} actions in this link could not be replayed and were skipped.`;
        }
      });
      return;
    }
    await serial(async () => {
      scenario = null;
      $("#scenario-select").value = "";
      fresh();
      updateUrl(how);
    });
  }

  // --- wiring ---------------------------------------------------------------------------------

  function wire() {
    const select = $("#scenario-select");
    for (const s of allScenarios) select.append(new Option(s.title, s.id));
    select.addEventListener("change", () => startScenario(select.value));
    $("#scenario-next").addEventListener("click", nextStep);
    $("#scenario-restart").addEventListener("click", () => scenario && startScenario(scenario.def.id));

    $("#play").addEventListener("click", () => setPlaying(!playing));
    for (const b of $$("[data-speed]")) {
      b.addEventListener("click", () => {
        speed = Number(b.dataset.speed);
        for (const o of $$("[data-speed]")) o.setAttribute("aria-pressed", String(o === b));
      });
    }
    for (const b of $$("[data-step]")) b.addEventListener("click", () => step(Number(b.dataset.step)));
    $("#step-deadline").addEventListener("click", () => {
      const next = pg.nextDeadline();
      if (next !== null) step(Math.max(1, next - pg.now));
    });
    $("#add-consumer").addEventListener("click", () => act(["c"]));
    for (const b of $$("[data-realism]")) {
      b.addEventListener("click", () => {
        // "pick knobs" starts from duplicates, the effect the page shows best.
        if (b.dataset.realism === "custom" && pg.realism.mode !== "custom") $('#realism input[name="duplicateDelivery"]').checked = true;
        realismChanged(b.dataset.realism);
      });
    }
    for (const box of $$("#realism input[type=checkbox]")) box.addEventListener("change", () => realismChanged("custom"));

    $("#create-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.currentTarget);
      let name = String(f.get("name")).trim();
      const fifo = f.get("fifo") === "on";
      if (fifo && !name.endsWith(".fifo")) name += ".fifo";
      const attrs = {};
      if (fifo) attrs.FifoQueue = "true";
      if (f.get("vt") !== "") attrs.VisibilityTimeout = String(f.get("vt"));
      if (f.get("delay") !== "" && f.get("delay") !== "0") attrs.DelaySeconds = String(f.get("delay"));
      if (f.get("cbd") === "on") attrs.ContentBasedDeduplication = "true";
      if (f.get("dlq")) attrs.RedrivePolicy = { dlq: f.get("dlq"), maxReceiveCount: num(f.get("mrc"), 3) };
      act(["q", name, attrs]);
    });
    $('#create-form input[name="fifo"]').addEventListener("change", (ev) => {
      const n = $('#create-form input[name="name"]');
      if (ev.target.checked && !n.value.endsWith(".fifo")) n.value += ".fifo";
      if (!ev.target.checked) n.value = n.value.replace(/\.fifo$/, "");
    });

    $("#send-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.currentTarget);
      const m = { body: String(f.get("body")) };
      if (f.get("group")) m.group = String(f.get("group"));
      if (f.get("dedup")) m.dedup = String(f.get("dedup"));
      if (f.get("delay") !== "") m.delay = num(f.get("delay"));
      // Not clamped to 1..10: a count of 0 or 11 is SQS's to refuse (EmptyBatchRequest,
      // TooManyEntriesInBatchRequest), shown in place like every other error. 1000 only bounds the page's work.
      const n = Number(num(f.get("count"), 1));
      const count = Number.isFinite(n) ? Math.max(0, Math.min(1000, Math.trunc(n))) : 1;
      if (count === 1) act(["s", pg.selected, m]);
      else act(["b", pg.selected, Array.from({ length: count }, (_, i) => ({ ...m, body: `${m.body} ${i + 1}`, ...(m.dedup ? { dedup: `${m.dedup}-${i + 1}` } : {}) }))]);
    });

    // Back and Forward: the engine cannot run backwards, so the entry's state is replayed from its
    // URL, as a link to it would be. Playing stops: the reader went somewhere else in time.
    if (useHistory) {
      window.addEventListener("popstate", () => {
        if (location.search === shownSearch) return;
        if (playing) setPlaying(false, { write: false });
        leaving++;
        serial(() => { leaving--; });
        restoreFrom(location.search, "keep");
      });
    }

    (keyTarget ?? container).addEventListener("keydown", (ev) => {
      // Inside a shadow root the event is retargeted to the host: the real target is the path's first.
      const target = ev.composedPath()[0];
      if (!(target instanceof Element)) return;
      if (target.closest("input, select, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      // A focused button (the one just clicked, typically) keeps Space for itself; n and . still work.
      if (ev.key === " " && target.closest("button, a, summary")) return;
      if (ev.key === " ") { ev.preventDefault(); setPlaying(!playing); }
      if (ev.key === ".") step(1000);
      if (ev.key === "n") nextStep();
    });
  }

  // Until the package has arrived: the scenario's caption where it will be, and a note where the
  // queue will be. The browser lays the rest out meanwhile (a first layout is the costly one on a
  // phone), and no control is wired to an engine that does not exist yet.
  previewScenario();
  $("#empty-hint").hidden = true;
  const note = document.createElement("p");
  note.className = "loading muted";
  note.textContent = "Loading the playground…";
  $("#lanes").replaceChildren(note);
  const wasqModule = await wasq;

  wire();
  await restoreFrom(`?${params}`, "replace");
  return {
    get engine() { return pg.engine; },
    get clock() { return pg.clock; },
    get playground() { return pg; },
    queueUrl: (name) => pg.queueUrl(name),
    act,
    nextStep,
    startScenario,
    step,
    settled: () => busy,
    get moves() { return views.lanes.moves; },
    scenarios: allScenarios,
    /** Stop the clock and end the engine's waits: the element calls it when it leaves the page. */
    close() { setPlaying(false, { write: false }); pg?.engine.close?.(); },
  };
}
