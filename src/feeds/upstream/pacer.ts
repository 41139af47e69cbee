import { sleep as pause } from './sleep.ts';

/** A request the pacer let go: told when its answer's headers arrive (or it failed). */
interface Sent {
  /** When the answer arrived; Infinity while it is awaited. */
  endMs: number;
  ended: Promise<void>;
  end: () => void;
}

const WINDOW_MS = 1000;

/**
 * Keeps the mirror's requests within the upstream's per-second ceiling before it meets a burst
 * 429, not only after: the ceiling is the `X-Rate-Limit` of the key's plan, read from every answer
 * that carries it (a plan changed upstream is followed). A request goes once the one `limit`
 * requests before it was answered at least a second ago. The upstream counts a request at the
 * latest when it answers, so any `limit + 1` requests it counts lie more than a second apart, and no
 * second of its clock holds more than `limit` of them. Until an answer names the ceiling, requests
 * go as they come (the mirror's first read is a metered one); a burst 429 names it in its body too.
 */
export class RequestPacer {
  private limit: number | undefined;
  /** The requests let go that were not answered a second ago or more, newest last. */
  private sent: Sent[] = [];
  /** Requests wait their turn one after another, in the order they asked. */
  private turn: Promise<void> = Promise.resolve();
  /** Requests in that line, not yet let go: while any waits, no yielding request goes. */
  private waiting = 0;
  /** Yielding requests waiting for a change (a request let go or answered). */
  private woken: (() => void)[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    /** Waits `ms`, or less when `signal` aborts (tests inject one). */
    private readonly sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void> = pause,
  ) {}

  /** The ceiling learnt, in requests a second; undefined until an answer says it. */
  get perSecond(): number | undefined {
    return this.limit;
  }

  /**
   * `inner`, each request paced, and each answer's `X-Rate-Limit` read. A `yielding` fetch's
   * requests (reads beside the follow) give way to the others: one goes only while none of the
   * others waits its turn, and while fewer than half the ceiling (rounded up) were let go in the
   * last second or are awaited, so the follow finds the rest free at any moment.
   */
  wrap(inner: typeof fetch, opts: { yielding?: boolean } = {}): typeof fetch {
    return async (input, init) => {
      const signal = init?.signal ?? undefined;
      const sent = opts.yielding ? await this.yieldTurn(signal) : await this.go(signal);
      try {
        const res = await inner(input, init);
        this.learn(res.headers.get('x-rate-limit'));
        // An answer without the header (an unmetered route) that meets the ceiling names it in its body.
        if (res.status === 429 && this.limit === undefined) await this.learnFrom429(res.clone());
        return res;
      } finally {
        sent.endMs = this.now();
        sent.end();
        this.wake();
      }
    };
  }

  /** Waits for this request's turn, then counts it as sent. */
  private async go(signal: AbortSignal | undefined): Promise<Sent> {
    this.waiting++;
    const mine = this.turn.then(() => this.await(signal));
    this.turn = mine.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await mine;
    } finally {
      this.waiting--;
      this.wake();
    }
  }

  /** A yielding request's turn: when no other waits and the requests of the last second leave it room. */
  private async yieldTurn(signal: AbortSignal | undefined): Promise<Sent> {
    for (;;) {
      signal?.throwIfAborted();
      const changed = new Promise<void>((resolve) => this.woken.push(resolve));
      if (this.waiting > 0) {
        await raceAbort(changed, signal);
        continue;
      }
      const now = this.now();
      const recent = this.sent.filter((s) => s.endMs + WINDOW_MS > now);
      const share = this.limit === undefined ? Number.POSITIVE_INFINITY : Math.ceil(this.limit / 2);
      if (recent.length < share) return this.letGo();
      // Room comes when the first answered of them is a second old, or one awaited is answered.
      let first = Number.POSITIVE_INFINITY;
      for (const s of recent) first = Math.min(first, s.endMs);
      const work = Number.isFinite(first)
        ? Promise.race([changed, this.sleep(first + WINDOW_MS - now, signal)])
        : changed;
      await raceAbort(work, signal);
    }
  }

  /** Tells the yielding requests that wait that something changed. */
  private wake(): void {
    const woken = this.woken;
    this.woken = [];
    for (const w of woken) w();
  }

  private async await(signal: AbortSignal | undefined): Promise<Sent> {
    for (;;) {
      signal?.throwIfAborted();
      const limit = this.limit;
      if (limit === undefined || this.sent.length < limit) break;
      const oldest = this.sent[this.sent.length - limit]!;
      if (oldest.endMs === Number.POSITIVE_INFINITY) {
        await raceAbort(oldest.ended, signal);
        continue;
      }
      const wait = oldest.endMs + WINDOW_MS - this.now();
      if (wait <= 0) break;
      await this.sleep(wait, signal);
    }
    return this.letGo();
  }

  /** Counts a request as sent now. */
  private letGo(): Sent {
    // One answered more than a second ago holds no request back: forgotten, however high the ceiling.
    const now = this.now();
    let old = 0;
    while (old < this.sent.length && this.sent[old]!.endMs + WINDOW_MS <= now) old++;
    if (old > 0) this.sent.splice(0, old);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const sent: Sent = { endMs: Number.POSITIVE_INFINITY, ended, end };
    this.sent.push(sent);
    return sent;
  }

  private learn(header: string | null): void {
    if (header === null) return;
    const n = Number(header);
    if (Number.isSafeInteger(n) && n > 0) this.limit = n;
  }

  /** The spec's burst refusal: `{"error": "Rate limit exceeded", "limit": n, ...}`. */
  private async learnFrom429(res: Response): Promise<void> {
    const body = (await res.json().catch(() => undefined)) as { error?: unknown; limit?: unknown } | undefined;
    if (body?.error === 'Rate limit exceeded' && typeof body.limit === 'number') this.learn(String(body.limit));
  }
}

/** `work`, or the signal's reason once it aborts. */
function raceAbort(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return work;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
