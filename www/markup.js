// The playground's markup, shared by the page (index.html) and the <wasq-playground> element
// (element.js), which mounts it in its shadow root. Ids are unique within one mount: the page has
// one, and each element has its own shadow root.

export const MARKUP = `<main>
  <p id="load-error" class="error" role="alert" hidden></p>
  <section class="scenario" aria-labelledby="scenario-title">
    <div class="scenario-pick chrome">
      <label for="scenario-select">Guided scenario</label>
      <select id="scenario-select"><option value="">— free play —</option></select>
    </div>
    <div id="scenario-box" hidden>
      <div class="scenario-head"><h2 id="scenario-title"></h2> <span id="scenario-progress" class="muted small"></span></div>
      <div class="scenario-body">
        <p id="scenario-caption" class="caption" aria-live="polite"></p>
        <p id="scenario-expected" class="error expected" aria-live="polite" hidden></p>
        <div class="row scenario-buttons">
          <button id="scenario-next" class="primary" type="button">Next step</button>
          <button id="scenario-restart" type="button">Restart</button>
        </div>
      </div>
      <p id="scenario-source" class="muted small source"></p>
      <p class="error" id="scenario-error" role="alert" hidden></p>
    </div>
  </section>

  <section class="time" aria-label="Clock">
    <div class="time-bar" role="group" aria-label="Time controls">
      <span class="clock"><span class="muted">clock</span> <output id="clock-now">+00:00.000</output></span>
      <button id="play" type="button" aria-pressed="false">▶ Play</button>
      <span class="seg speed" role="group" aria-label="Speed">
        <button type="button" data-speed="1" aria-pressed="true">1×</button><button type="button" data-speed="10" aria-pressed="false">10×</button><button type="button" data-speed="60" aria-pressed="false">60×</button>
      </span>
      <button type="button" data-step="1000">+1 s</button>
      <button type="button" data-step="10000">+10 s</button>
      <button type="button" id="step-deadline" title="Let time pass to the next deadline">to next deadline</button>
    </div>
  </section>
  <section class="time-more" aria-label="Deadlines and realism">
    <div id="next-deadline" class="muted small"></div>
    <fieldset id="realism" class="realism">
      <legend>Realism</legend>
      <span class="seg" role="group" aria-label="Realism mode">
        <button type="button" data-realism="off" aria-pressed="true">off</button><button type="button" data-realism="aws" aria-pressed="false">aws</button><button type="button" data-realism="custom" aria-pressed="false">pick knobs</button>
      </span>
      <span class="knobs">
        <label class="check"><input type="checkbox" name="duplicateDelivery"> duplicates</label>
        <label class="check"><input type="checkbox" name="reorder"> reorder</label>
        <label class="check"><input type="checkbox" name="shortPollSampling"> short-poll sampling</label>
        <label class="check"><input type="checkbox" name="throttling"> throttling</label>
        <label class="check"><input type="checkbox" name="latency"> latency</label>
      </span>
      <span id="realism-note" class="muted small"></span>
    </fieldset>
  </section>

  <section class="queue" aria-labelledby="queue-heading">
    <div class="queue-head">
      <h2 id="queue-heading">Queue</h2>
      <div id="queue-tabs" class="tabs" role="tablist" aria-label="Queues"></div>
    </div>
    <dl id="counters" class="counters" aria-label="GetQueueAttributes"></dl>
    <div id="lanes" class="lanes" tabindex="-1"></div>
    <p id="empty-hint" class="muted">Create a queue or pick a guided scenario to begin.</p>
  </section>

  <details class="below-box" id="below-box" open>
  <summary class="below-summary">Consumers, send and create forms, timeline</summary>
  <div class="below">
  <div class="work">
  <section aria-labelledby="consumers-h">
    <div class="queue-head">
      <h2 id="consumers-h">Consumers</h2>
      <button id="add-consumer" type="button">+ consumer</button>
    </div>
    <div id="consumers" class="consumers"></div>
  </section>

  <section class="panels">
    <form id="create-form" class="panel" aria-labelledby="create-h" novalidate>
      <h3 id="create-h">Create queue</h3>
      <div class="grid2">
        <label>Name <input name="name" value="orders" required autocomplete="off" spellcheck="false"></label>
        <label class="check"><input type="checkbox" name="fifo"> FIFO</label>
        <label>VisibilityTimeout (s) <input name="vt" type="number" inputmode="numeric" value="30"></label>
        <label>DelaySeconds <input name="delay" type="number" inputmode="numeric" value="0"></label>
        <label class="check"><input type="checkbox" name="cbd"> ContentBasedDeduplication</label>
        <label>Dead-letter queue <select name="dlq"><option value="">none</option></select></label>
        <label>maxReceiveCount <input name="mrc" type="number" inputmode="numeric" value="3"></label>
      </div>
      <button class="primary" type="submit">CreateQueue</button>
      <p class="error" role="alert" hidden></p>
    </form>

    <form id="send-form" class="panel" aria-labelledby="send-h" novalidate>
      <h3 id="send-h">Send</h3>
      <div class="grid2">
        <label class="wide">Body <input name="body" value="hello" autocomplete="off"></label>
        <label>MessageGroupId <input name="group" placeholder="FIFO only" autocomplete="off"></label>
        <label>MessageDeduplicationId <input name="dedup" placeholder="optional" autocomplete="off"></label>
        <label>DelaySeconds <input name="delay" type="number" inputmode="numeric" placeholder="queue default"></label>
        <label>Count <input name="count" type="number" inputmode="numeric" value="1" min="1" max="10"></label>
      </div>
      <button class="primary" type="submit">SendMessage</button>
      <span class="muted small">Count &gt; 1 sends one SendMessageBatch.</span>
      <p class="note small" role="status"></p>
      <p class="error" role="alert" hidden></p>
    </form>
  </section>

  </div>
  <aside class="side">
  <section class="timeline-box" aria-labelledby="timeline-h">
    <h2 id="timeline-h">Timeline</h2>
    <ol id="timeline" class="timeline" reversed></ol>
  </section>
  </aside>
  </div>
  </details>
  <p class="chrome muted small">Link to this exact situation: <a id="permalink" href="?">permalink</a>. Keys: <kbd>Space</kbd> play/pause (outside fields), <kbd>.</kbd> +1 s, <kbd>n</kbd> next scenario step.</p>
</main>
<div id="announcer" class="sr-only" aria-live="polite" aria-atomic="false"></div>
`;
