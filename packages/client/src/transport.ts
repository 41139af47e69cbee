import { ApiError, errorFor, NetworkError, ProtocolError, RateLimitError, StatsUnavailableError } from './errors.ts';
import { backoffMs, DEFAULT_RETRY, type RetryOptions, sleep as realSleep } from './retry.ts';
import { parsePlan, parseUsage, retryAfterMs, type Plan, type Usage } from './usage.ts';

/** A query value: lists are sent as one comma-separated value, booleans as true/false. */
export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined;
export type Query = Record<string, QueryValue>;

/** A successful answer: the parsed body and what its headers say about usage and plan. */
export interface Reply<T> {
  data: T;
  status: number;
  usage: Usage;
  plan: Plan;
  headers: Headers;
}

export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: ApiError | NetworkError;
}

export interface TransportOptions {
  /**
   * The server's address, e.g. https://odds.example.com (a path prefix is kept); '' in a browser
   * page served by the server itself: requests and streams go to the page's own origin.
   */
  baseUrl: string;
  /**
   * The API key, sent in `keyHeader` on every keyed request; never put in a URL. Without one, a
   * browser page authenticates with its same-origin session cookie (see `credentials`).
   */
  key?: string;
  /** fetch's credentials mode: 'same-origin' (fetch's default) sends a page's session cookie. */
  credentials?: 'omit' | 'same-origin' | 'include';
  /** Default X-Service-Key (the spec's neutral name; a server may configure its own). */
  keyHeader?: string;
  fetch?: typeof fetch;
  retry?: Partial<RetryOptions>;
  /** Injected in tests: how the client waits between tries. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Called before every retry's wait. */
  onRetry?: (e: RetryEvent) => void;
}

export interface RequestOptions {
  method?: 'GET' | 'POST';
  /** Public routes (sports, affiliates) need no key. */
  auth?: boolean;
  /** A delta feed: a 400 naming `last_id` is a CursorRejectedError. */
  cursorRoute?: boolean;
  signal?: AbortSignal;
}

/** Encodes a path segment given by the caller (ids, dates), so that it cannot change the path. */
export const seg = (v: string | number): string => encodeURIComponent(String(v));

export function queryString(q: Query | undefined): string {
  if (!q) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    if (k === 'key')
      throw new TypeError('the API key is sent in a header, never in the URL: set the client’s key option');
    const text = Array.isArray(v) ? v.join(',') : String(v);
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(text)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/**
 * `work`, or the signal's reason as soon as it aborts. Node's fetch does not always end on its
 * signal: a read aborted part way through a body (nodejs/node#56917), or a request whose link to
 * the signal a garbage collection dropped (nodejs/node#55428), can stay pending for good. So an
 * abort is not left to fetch: both the request and the read of its body are raced against it.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * A signal of one request's own that aborts with the caller's, and `release` to unlink it when the
 * request ends. Node's fetch adds an abort listener to the signal it is given and removes it only
 * once the request is garbage collected: a long-lived signal that thousands of requests share (a
 * mirror's) would gather listeners faster than collections free them. Given a signal of its own,
 * each request leaves nothing on the caller's.
 */
function ownSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; release: () => void } {
  if (!signal) return { signal: undefined, release: () => {} };
  const own = new AbortController();
  const onAbort = () => own.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { signal: own.signal, release: () => signal.removeEventListener('abort', onAbort) };
}

/** HTTP with the spec's retry rules: what every REST method of the client goes through. */
export class Transport {
  readonly baseUrl: string;
  readonly keyHeader: string;
  readonly retry: RetryOptions;
  private readonly key: string | undefined;
  private readonly credentials: TransportOptions['credentials'];
  private readonly fetchFn: typeof fetch;
  private readonly sleepFn: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  readonly now: () => number;
  private readonly onRetry: ((e: RetryEvent) => void) | undefined;

  constructor(o: TransportOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.key = o.key;
    this.credentials = o.credentials;
    this.keyHeader = o.keyHeader ?? 'X-Service-Key';
    this.fetchFn = o.fetch ?? globalThis.fetch.bind(globalThis);
    this.retry = { ...DEFAULT_RETRY, ...o.retry };
    this.sleepFn = o.sleep ?? realSleep;
    this.random = o.random ?? Math.random;
    this.now = o.now ?? Date.now;
    this.onRetry = o.onRetry;
  }

  /** Whether requests carry a key; without one a page's session cookie is what authenticates. */
  get hasKey(): boolean {
    return this.key !== undefined;
  }

  /** The headers that authenticate a request (also used for WebSocket upgrades). */
  authHeaders(): Record<string, string> {
    return this.key === undefined ? {} : { [this.keyHeader]: this.key };
  }

  /**
   * One request, retried as the spec says: burst 429 after Retry-After; 500/502/503 and network
   * failures with backoff and jitter; 503 stats_policy_unsupported with bounded backoff; 400, 401,
   * 403, 404 and cap-based 429 never. Throws the typed error of the last answer.
   */
  async request<T>(path: string, query?: Query, opts: RequestOptions = {}): Promise<Reply<T>> {
    const method = opts.method ?? 'GET';
    const url = this.baseUrl + path + queryString(query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.auth !== false) Object.assign(headers, this.authHeaders());
    const own = ownSignal(opts.signal);
    try {
      return await this.tries<T>(method, path, url, headers, own.signal, opts);
    } finally {
      own.release();
    }
  }

  /** The tries of one request: `fetchSignal` is the request's own, `opts.signal` the caller's. */
  private async tries<T>(
    method: 'GET' | 'POST',
    path: string,
    url: string,
    headers: Record<string, string>,
    fetchSignal: AbortSignal | undefined,
    opts: RequestOptions,
  ): Promise<Reply<T>> {
    let server = 0;
    let burst = 0;
    let stats = 0;
    for (;;) {
      let res: Response;
      try {
        res = await untilAborted(
          this.fetchFn(url, {
            method,
            headers,
            signal: fetchSignal,
            ...(this.credentials ? { credentials: this.credentials } : {}),
          }),
          opts.signal,
        );
      } catch (cause) {
        if (opts.signal?.aborted) throw cause;
        server = await this.retryServer(new NetworkError(method, path, cause), server, opts.signal);
        continue;
      }
      const text = await untilAborted(res.text(), opts.signal);
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        if (res.ok) throw new ProtocolError(`${method} ${path}: the answer is not JSON`);
      }
      if (res.ok)
        return {
          data: body as T,
          status: res.status,
          usage: parseUsage(res.headers),
          plan: parsePlan(res.headers),
          headers: res.headers,
        };
      const err = errorFor(
        {
          status: res.status,
          body,
          usage: parseUsage(res.headers),
          plan: parsePlan(res.headers),
          retryAfterMs: retryAfterMs(res.headers, this.now()),
          method,
          path,
        },
        opts.cursorRoute === true,
      );
      if (err instanceof RateLimitError) {
        const after = err.retryAfterMs;
        // Only the burst ceiling is retried, and only as soon as its Retry-After allows; a cap is not.
        if (err.kind !== 'burst' || after === undefined || after > this.retry.maxRetryAfterMs) throw err;
        if (burst >= this.retry.burstRetries) throw err;
        await this.wait(err, ++burst, after, opts.signal);
        continue;
      }
      if (err instanceof StatsUnavailableError) {
        if (stats >= this.retry.statsRetries) throw err;
        await this.wait(
          err,
          ++stats,
          backoffMs(stats - 1, this.retry.statsBaseDelayMs, this.retry.statsMaxDelayMs, this.random),
          opts.signal,
        );
        continue;
      }
      if (err.retryable) {
        server = await this.retryServer(err, server, opts.signal);
        continue;
      }
      throw err;
    }
  }

  /**
   * A failed connection or a 500/502/503: waits the backoff of retry number `tries` + 1 and answers
   * the new count, or throws `err` once the server retries are spent.
   */
  private async retryServer(err: ApiError | NetworkError, tries: number, signal?: AbortSignal): Promise<number> {
    if (tries >= this.retry.serverRetries) throw err;
    await this.wait(
      err,
      tries + 1,
      backoffMs(tries, this.retry.baseDelayMs, this.retry.maxDelayMs, this.random),
      signal,
    );
    return tries + 1;
  }

  private async wait(
    error: ApiError | NetworkError,
    attempt: number,
    delayMs: number,
    signal?: AbortSignal,
  ): Promise<void> {
    this.onRetry?.({ method: error.method, path: error.path, attempt, delayMs, error });
    await this.sleepFn(delayMs, signal);
  }
}
