import { Emitter } from './emitter.ts';

/** What the client uses of a WebSocket: the browser API, which `ws` also implements. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/**
 * A WebSocket constructor: globalThis.WebSocket in browsers (and Node 22), `ws` on Node 20. The
 * third argument carries the key header; a constructor that cannot send headers ignores it, and
 * the client then authenticates with a stream token instead.
 */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: { headers?: Record<string, string> },
) => WebSocketLike;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface LivenessOptions {
  /** Silence (no message, heartbeats included) after which the connection is dead. Spec: 30 s. */
  silenceMs?: number;
  /** Reconnect waits: 1, 2, 4, 8 ... up to 30 s (spec). */
  backoffMs?: { first: number; max: number };
  timers?: Timers;
}

export interface SocketEvents extends Record<string, unknown[]> {
  open: [];
  message: [unknown];
  /** The connection ended; `willRetryInMs` is undefined when the stream stopped for good. */
  down: [{ code?: number; reason: string; willRetryInMs?: number }];
  error: [Error];
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Refusals that another try cannot fix: a bad key (401) or a plan without streams (403). */
const FATAL_UPGRADE = /\b(401|403)\b/;

/** The refusal of an upgrade, where the WebSocket implementation shows it (ws does, browsers do not). */
interface Refusal {
  status: number;
  retryAfterMs?: number;
}

/**
 * `ws` emits the HTTP answer of a refused upgrade as `unexpected-response`; reading it gives the
 * status and Retry-After (a 429 at the connection cap), which the browser API hides. The request
 * is then ended by hand, as ws expects of a listener, and the socket closes as on any failure.
 */
function watchRefusal(ws: WebSocketLike, onRefusal: (r: Refusal) => void): void {
  const on = (ws as { once?: (name: string, fn: (...args: never[]) => void) => void }).once;
  if (typeof on !== 'function') return;
  on.call(ws, 'unexpected-response', ((
    req: { destroy(err: Error): void },
    res: { statusCode?: number; headers: Record<string, string | string[] | undefined> },
  ) => {
    const after = Number(res.headers['retry-after']);
    const status = res.statusCode ?? 0;
    onRefusal({ status, retryAfterMs: Number.isFinite(after) && after >= 0 ? after * 1000 : undefined });
    // With an error, ws closes the socket (onerror, then onclose) as for any failed handshake.
    req.destroy(new Error(`upgrade refused: ${status}`));
  }) as (...args: never[]) => void);
}

/**
 * One logical stream over successive WebSocket connections: declares a connection dead after
 * `silenceMs` without a message, reconnects after 1, 2, 4 ... 30 s (reset once a connection
 * opens), and stops on close() or on a refusal a retry cannot fix. `url()` is asked on every
 * connect, so a one-use token or a resume position can change between connections.
 */
export class ReconnectingSocket extends Emitter<SocketEvents> {
  private ws: WebSocketLike | undefined;
  private attempt = 0;
  private silence: unknown;
  private retry: unknown;
  private stopped = false;
  private readonly timers: Timers;
  private readonly silenceMs: number;
  private readonly backoff: { first: number; max: number };

  constructor(
    private readonly Ctor: WebSocketConstructor,
    private readonly target: () => Promise<{ url: string; headers: Record<string, string> }>,
    opts: LivenessOptions = {},
  ) {
    super();
    this.timers = opts.timers ?? realTimers;
    this.silenceMs = opts.silenceMs ?? 30_000;
    this.backoff = opts.backoffMs ?? { first: 1_000, max: 30_000 };
  }

  start(): void {
    void this.connect();
  }

  get open(): boolean {
    return this.ws?.readyState === 1;
  }

  send(message: unknown): void {
    if (this.ws?.readyState === 1) this.ws.send(JSON.stringify(message));
  }

  /** Stops for good. */
  close(): void {
    this.stopped = true;
    this.timers.clearTimeout(this.retry);
    const ws = this.ws;
    // Detached first: a message still arriving during the closing handshake would re-arm the
    // silence timer and reach listeners that have said goodbye.
    if (ws) this.detach(ws);
    this.timers.clearTimeout(this.silence);
    ws?.close(1000, 'client closed');
  }

  /** Drops the current connection as dead and reconnects (what the silence timer does). */
  drop(reason: string): void {
    const ws = this.ws;
    if (!ws) return;
    this.detach(ws);
    try {
      ws.close(4000, reason);
    } catch {
      // A socket still connecting may refuse close(); it is detached and forgotten either way.
    }
    this.down(undefined, reason);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let target;
    try {
      target = await this.target();
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      this.emit('error', e);
      if ((e as { retryable?: boolean }).retryable === false) return this.stop(e.message);
      return this.down(undefined, e.message);
    }
    if (this.stopped) return;
    // Only a header-capable constructor (ws) gets the options; a browser's WebSocket given an
    // explicit undefined protocol offers the subprotocol "undefined", which the handshake refuses.
    const ws =
      Object.keys(target.headers).length > 0
        ? new this.Ctor(target.url, undefined, { headers: target.headers })
        : new this.Ctor(target.url);
    this.ws = ws;
    this.arm();
    let lastError = '';
    let refusal: Refusal | undefined;
    watchRefusal(ws, (r) => {
      refusal = r;
      lastError = `upgrade refused: ${r.status}`;
    });
    ws.onopen = () => {
      this.attempt = 0;
      this.arm();
      this.emit('open');
    };
    ws.onmessage = (ev) => {
      this.arm();
      let msg: unknown;
      try {
        msg = JSON.parse(String(ev.data));
      } catch {
        return this.emit('error', new Error('a stream message is not JSON'));
      }
      this.emit('message', msg);
    };
    ws.onerror = (ev) => {
      lastError = String(
        (ev as { message?: string })?.message ?? (ev as { error?: Error })?.error?.message ?? 'socket error',
      );
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.detach(ws);
      if (FATAL_UPGRADE.test(lastError)) return this.stop(lastError);
      this.down(ev.code, ev.reason || lastError, refusal?.retryAfterMs);
    };
  }

  private detach(ws: WebSocketLike): void {
    ws.onopen = ws.onmessage = ws.onclose = null;
    // Late errors of a forgotten socket are expected and ignored.
    ws.onerror = () => {};
    if (this.ws === ws) this.ws = undefined;
    this.timers.clearTimeout(this.silence);
  }

  private arm(): void {
    this.timers.clearTimeout(this.silence);
    this.silence = this.timers.setTimeout(() => this.drop(`no message for ${this.silenceMs} ms`), this.silenceMs);
  }

  /** Schedules the next connection: the backoff's next wait, or longer when the server asked (Retry-After). */
  private down(code: number | undefined, reason: string, retryAfterMs?: number): void {
    if (this.stopped) return;
    const wait = Math.max(retryAfterMs ?? 0, Math.min(this.backoff.max, this.backoff.first * 2 ** this.attempt));
    this.attempt++;
    this.emit('down', { code, reason, willRetryInMs: wait });
    // A listener of 'down' may have closed the socket: no retry is left behind to hold the process.
    if (this.stopped) return;
    this.retry = this.timers.setTimeout(() => void this.connect(), wait);
  }

  private stop(reason: string): void {
    this.stopped = true;
    this.timers.clearTimeout(this.silence);
    this.emit('down', { reason });
  }
}
