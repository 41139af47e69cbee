import {
  type MarketPrice,
  MultiplexStream,
  type OddsbaseClient,
  type Position,
  type ServerMessage,
  type WebSocketConstructor,
} from '../../../packages/client/src/index.ts';

/** How a stream ended, or stands. */
export type StreamState =
  /** None open: never opened, or ended by a break (the mirror polls until the next one opens). */
  | 'closed'
  /** Connecting, subscribing, or replaying what came after the position it resumed from. */
  | 'opening'
  /** Subscribed and resumed: every price change reaches the mirror through it. */
  | 'live'
  /** The upstream refuses streams to this key (401 or 403 at the upgrade, `forbidden` in band). */
  | 'refused'
  /** The resume was refused (`snapshot_required`): the position no longer reaches the upstream's log. */
  | 'gap';

/** One price change of the upstream's markets channel and its change-log position. */
export interface StreamedPrice {
  position: Position;
  data: MarketPrice;
}

export interface PriceStreamOptions {
  client: OddsbaseClient;
  /** `ws`'s WebSocket on Node 20: the key goes in the upgrade's header. */
  WebSocket: WebSocketConstructor;
  now: () => number;
  /** Told of every price change received (each is metered upstream: the budget counts it). */
  onPrice?: () => void;
  /** Silence after which a connection is dead (the spec's 30 s by default). */
  silenceMs?: number;
}

const SUBSCRIPTION = 'prices';
/** Reconnect waits: 1, 2, 4 ... 30 s (the spec's stream backoff). */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** Changes held for the mirror past which the stream is dropped and the deltas polled instead. */
const MAX_QUEUED = 100_000;

/**
 * The upstream's `markets` channel on `/api/v2/ws`, through the typed client's MultiplexStream,
 * subscribed with `resume_from` the position the mirror has applied up to: the upstream replays
 * the price changes after it, then goes on live, every change with its position, in log order.
 *
 * One connection per opening. Any break (the connection drops or falls silent, a `sub_sequence`
 * gap, a resume that is busy or failed, more changes waiting than MAX_QUEUED) ends it for good
 * rather than letting the client resume on its own: the client would resume from the position of
 * its `subscribed` acknowledgement (the head) if the connection fell before the replay's first
 * change, skipping the rest. The mirror then polls from the position it holds and opens a new
 * stream from there after the backoff. Changes received before a break stay queued: they are
 * the log's, in order, up to it.
 */
export class PriceStream {
  state: StreamState = 'closed';
  /** Why the last stream ended; '' when the mirror closed it. */
  reason = '';
  private mux: MultiplexStream | undefined;
  private queue: StreamedPrice[] = [];
  private next = 1;
  private failures = 0;
  private notBefore = 0;
  private wake: (() => void) | undefined;

  constructor(private readonly o: PriceStreamOptions) {}

  /** Whether a stream may be opened now: none is open and the backoff after the last break is over. */
  get canOpen(): boolean {
    return this.state === 'closed' && this.o.now() >= this.notBefore;
  }

  /** Opens a stream that resumes after `from` (the upstream's position the mirror holds). */
  open(from: Position): void {
    this.close();
    this.state = 'opening';
    this.next = 1;
    const mux = new MultiplexStream(this.o.client, {
      WebSocket: this.o.WebSocket,
      auth: 'header',
      ...(this.o.silenceMs === undefined ? {} : { silenceMs: this.o.silenceMs }),
    });
    this.mux = mux;
    mux.on('message', (m) => this.receive(mux, m));
    mux.on('down', (d) => {
      const refused = d.willRetryInMs === undefined && /\b(401|403)\b/.test(d.reason);
      this.end(mux, refused ? 'refused' : 'closed', d.reason || `the connection closed (${d.code ?? 'no code'})`);
    });
    mux.subscribe(SUBSCRIPTION, 'markets', { resume_from: from });
  }

  /** The changes received since the last call, in log order. */
  take(): StreamedPrice[] {
    const out = this.queue;
    this.queue = [];
    return out;
  }

  /**
   * Waits `ms`, or less: until the stream goes live or ends, a change arrives on a live stream, or
   * `signal` aborts. (Changes a stream replays while it opens wait for the mirror's next turn.)
   */
  rest(ms: number, signal: AbortSignal): Promise<void> {
    if ((this.state === 'live' && this.queue.length > 0) || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      this.wake = done;
    });
  }

  /**
   * After a refusal or a gap was dealt with: no stream is open, and the next may open after `ms`
   * (0 after a gap, once a fresh snapshot gave a position; longer after a refusal).
   */
  retryAfter(ms: number): void {
    this.state = 'closed';
    this.notBefore = this.o.now() + ms;
  }

  /** Closes the stream, if one is open; a refusal or a gap stays said until the next `open`. */
  close(): void {
    const mux = this.mux;
    this.mux = undefined;
    mux?.close();
    if (this.state === 'opening' || this.state === 'live') {
      this.state = 'closed';
      this.reason = '';
    }
  }

  private receive(mux: MultiplexStream, m: ServerMessage): void {
    if (mux !== this.mux || m.id !== SUBSCRIPTION) return;
    switch (m.type) {
      case 'resume_complete':
        this.failures = 0;
        this.state = 'live';
        this.wake?.();
        return;
      case 'delta': {
        if (m.sub_sequence !== this.next) {
          return this.end(mux, 'closed', `the stream skipped from change ${this.next - 1} to ${m.sub_sequence}`);
        }
        this.next++;
        if (m.kind !== 'market_price' || !m.position) return;
        this.o.onPrice?.();
        this.queue.push({ position: m.position, data: m.data as MarketPrice });
        if (this.queue.length > MAX_QUEUED) return this.end(mux, 'closed', `more than ${MAX_QUEUED} changes waiting`);
        if (this.state === 'live') this.wake?.();
        return;
      }
      case 'snapshot_error':
        return this.end(mux, m.code === 'snapshot_required' ? 'gap' : 'closed', `${m.code}: ${m.message ?? ''}`);
      case 'error':
        return this.end(mux, m.code === 'forbidden' ? 'refused' : 'closed', `${m.code}: ${m.message ?? ''}`);
    }
  }

  private end(mux: MultiplexStream, state: StreamState, reason: string): void {
    if (mux !== this.mux) return;
    this.mux = undefined;
    mux.close();
    this.state = state;
    this.reason = reason;
    if (state === 'closed') {
      this.failures++;
      this.notBefore = this.o.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.failures - 1));
    }
    this.wake?.();
  }
}
