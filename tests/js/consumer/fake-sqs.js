// A small SQS stand-in with async methods (the "object with receiveMessage/…" kind of engine the
// Consumer accepts), on a ManualClock. It models what the Consumer relies on: visibility
// timeouts, receipt handles that change per receive, receive counts, long polling that a later
// send or clock step ends, abort signals, and the FIFO rule that a group with a message in
// flight returns nothing more until it is deleted or visible again.

export class FakeSqs {
  #seq = 0;
  #waiters = new Set();

  constructor(clock, { fifo = false, visibilityTimeout = 30 } = {}) {
    this.clock = clock;
    this.fifo = fifo;
    this.queueUrl = `https://sqs.test/000000000000/q${fifo ? ".fifo" : ""}`;
    this.defaultVisibility = visibilityTimeout;
    this.messages = []; // in send order
    this.calls = [];
    clock.subscribe(() => this.#wake());
  }

  send(body, group) {
    const id = `id-${++this.#seq}`;
    this.messages.push({ id, body, group, visibleAt: 0, receiveCount: 0, handle: null });
    this.#wake();
    return id;
  }

  /** Messages not deleted, for assertions: [{ body, receiveCount, visible }]. */
  state() {
    const now = this.clock.now();
    return this.messages.map((m) => ({ body: m.body, receiveCount: m.receiveCount, visible: m.visibleAt <= now }));
  }

  #wake() {
    for (const w of [...this.#waiters]) w();
  }

  #take(max, visibility) {
    const now = this.clock.now();
    const busy = new Set(this.messages.filter((m) => m.visibleAt > now && this.fifo).map((m) => m.group));
    const out = [];
    for (const m of this.messages) {
      if (out.length >= max) break;
      if (m.visibleAt > now || busy.has(m.group)) continue;
      m.receiveCount++;
      m.visibleAt = now + visibility * 1000;
      m.handle = `rh-${m.id}-${m.receiveCount}`;
      out.push({
        MessageId: m.id,
        ReceiptHandle: m.handle,
        Body: m.body,
        Attributes: {
          ApproximateReceiveCount: String(m.receiveCount),
          ...(m.group !== undefined && { MessageGroupId: m.group }),
        },
      });
    }
    return out;
  }

  async receiveMessage(params, { signal } = {}) {
    this.calls.push(["receiveMessage", params]);
    signal?.throwIfAborted();
    const deadline = this.clock.now() + (params.WaitTimeSeconds ?? 0) * 1000;
    const visibility = params.VisibilityTimeout ?? this.defaultVisibility;
    for (;;) {
      const out = this.#take(params.MaxNumberOfMessages ?? 1, visibility);
      if (out.length || this.clock.now() >= deadline) return { Messages: out };
      await new Promise((resolve, reject) => {
        const done = () => {
          this.#waiters.delete(done);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          this.#waiters.delete(done);
          reject(signal.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        this.#waiters.add(done);
      });
    }
  }

  #byHandle(handle) {
    return this.messages.find((m) => m.handle === handle);
  }

  #invalid() {
    const err = new Error("The receipt handle has expired.");
    err.name = "ReceiptHandleIsInvalid";
    return err;
  }

  async deleteMessageBatch({ Entries }) {
    this.calls.push(["deleteMessageBatch", Entries.length]);
    const Successful = [];
    const Failed = [];
    for (const e of Entries) {
      const m = this.#byHandle(e.ReceiptHandle);
      if (!m) {
        Failed.push({ Id: e.Id, Code: "ReceiptHandleIsInvalid", SenderFault: true });
        continue;
      }
      this.messages.splice(this.messages.indexOf(m), 1);
      Successful.push({ Id: e.Id });
    }
    this.#wake();
    return { Successful, Failed };
  }

  async changeMessageVisibility({ ReceiptHandle, VisibilityTimeout }) {
    this.calls.push(["changeMessageVisibility", VisibilityTimeout]);
    const m = this.#byHandle(ReceiptHandle);
    if (!m || m.visibleAt <= this.clock.now()) throw this.#invalid();
    m.visibleAt = this.clock.now() + VisibilityTimeout * 1000;
    this.#wake();
    return {};
  }

  async changeMessageVisibilityBatch({ Entries }) {
    this.calls.push(["changeMessageVisibilityBatch", Entries.map((e) => e.VisibilityTimeout)]);
    const Successful = [];
    const Failed = [];
    for (const e of Entries) {
      const m = this.#byHandle(e.ReceiptHandle);
      if (!m || m.visibleAt <= this.clock.now()) {
        Failed.push({ Id: e.Id, Code: "MessageNotInflight", SenderFault: true });
        continue;
      }
      m.visibleAt = this.clock.now() + e.VisibilityTimeout * 1000;
      Successful.push({ Id: e.Id });
    }
    this.#wake();
    return { Successful, Failed };
  }
}
