import type { OddsbaseClient } from './client.ts';
import { Emitter } from './emitter.ts';
import { Feed } from './feed.ts';
import { type LivenessOptions, ReconnectingSocket, type WebSocketConstructor } from './socket.ts';
import { queryString, type Query } from './transport.ts';
import type { MarketPrice, V1LineMessage } from './types.ts';

export interface StreamOptions extends LivenessOptions {
  /** Default globalThis.WebSocket; pass `ws`'s WebSocket on Node 20. */
  WebSocket?: WebSocketConstructor;
  /**
   * `header` sends the key in the upgrade request (possible with `ws`, not in browsers);
   * `token` fetches a one-use stream token over REST before every connection; `cookie` sends
   * nothing of its own: a browser's same-origin upgrade carries the page's session cookie.
   * Default: `cookie` when the client has no key, else `header` when a WebSocket constructor is
   * given, else `token`.
   */
  auth?: 'header' | 'token' | 'cookie';
  /** Messages the async iterator holds for a slow reader before it ends with an error. */
  bufferLimit?: number;
}

export interface StreamEvents<T> extends Record<string, unknown[]> {
  data: [T];
  /** A connection opened; after the first, state missed meanwhile must come from REST. */
  open: [{ reconnect: boolean }];
  down: [{ code?: number; reason: string; willRetryInMs?: number }];
  error: [Error];
}

/** The stream's ws:// or wss:// address; an empty base URL is the page's own origin. */
function wsUrl(baseUrl: string, path: string, q: Query): string {
  const base = baseUrl === '' ? (globalThis as { location?: { origin?: string } }).location?.origin : baseUrl;
  if (!base) throw new TypeError('a stream needs the server’s address: the empty baseUrl means a page’s own origin');
  return base.replace(/^http/, 'ws') + path + queryString(q);
}

/** How a stream connection authenticates: the key header, or a fresh one-use token. */
export function streamTarget(client: OddsbaseClient, path: string, q: Query, opts: StreamOptions) {
  const auth = opts.auth ?? (!client.transport.hasKey ? 'cookie' : opts.WebSocket ? 'header' : 'token');
  return async (): Promise<{ url: string; headers: Record<string, string> }> => {
    if (auth === 'cookie') return { url: wsUrl(client.transport.baseUrl, path, q), headers: {} };
    if (auth === 'header')
      return { url: wsUrl(client.transport.baseUrl, path, q), headers: client.transport.authHeaders() };
    const { data } = await client.streamToken();
    return { url: wsUrl(client.transport.baseUrl, path, { ...q, token: data.token }), headers: {} };
  };
}

export function socketFor(client: OddsbaseClient, path: string, q: Query, opts: StreamOptions): ReconnectingSocket {
  const Ctor = opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Ctor) throw new TypeError('no WebSocket: pass the WebSocket option (e.g. the ws package on Node 20)');
  return new ReconnectingSocket(Ctor, streamTarget(client, path, q, opts), opts);
}

/**
 * A one-way stream (`/api/v2/ws/markets`, `/api/v1/ws`): every data message as an event and through
 * the async iterator; heartbeats only keep it alive. These streams have no resume: after a
 * reconnect (`open` with reconnect true) the state comes from REST.
 */
export class OneWayStream<T> extends Emitter<StreamEvents<T>> implements AsyncIterable<T> {
  private readonly socket: ReconnectingSocket;
  private readonly feed: Feed<T>;
  private opened = 0;

  constructor(client: OddsbaseClient, path: string, q: Query, dataType: string, opts: StreamOptions = {}) {
    super();
    this.socket = socketFor(client, path, q, opts);
    this.feed = new Feed<T>(opts.bufferLimit, () => this.close());
    this.socket.on('open', () => this.emit('open', { reconnect: this.opened++ > 0 }));
    this.socket.on('down', (d) => {
      this.emit('down', d);
      if (d.willRetryInMs === undefined) this.feed.end(new Error(`stream stopped: ${d.reason}`));
    });
    this.socket.on('error', (e) => this.emit('error', e));
    this.socket.on('message', (m) => {
      const msg = m as { meta?: { type?: string }; data?: T };
      if (msg.meta?.type === dataType && msg.data !== undefined) {
        this.emit('data', msg.data);
        this.feed.push(msg.data);
      }
    });
    this.socket.start();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.feed[Symbol.asyncIterator]();
  }

  close(): void {
    this.socket.close();
    this.feed.end();
  }
}

export interface MarketStreamFilters {
  affiliate_ids?: readonly number[];
  sport_ids?: readonly number[];
  event_ids?: readonly string[];
  market_ids?: readonly number[];
}

/** `/api/v2/ws/markets`: one price change per message. */
export function marketStream(
  client: OddsbaseClient,
  filters: MarketStreamFilters = {},
  opts: StreamOptions = {},
): OneWayStream<MarketPrice> {
  return new OneWayStream<MarketPrice>(client, '/api/v2/ws/markets', { ...filters }, 'market_price', opts);
}

/** `/api/v1/ws`: one V1 line set per message (layout: docs/spec-gaps.md, The V1 stream). */
export function v1LineStream(
  client: OddsbaseClient,
  filters: {
    sport_ids?: readonly number[];
    event_ids?: readonly string[];
    affiliate_ids?: readonly number[];
    period?: readonly (string | number)[];
  } = {},
  opts: StreamOptions = {},
): OneWayStream<V1LineMessage> {
  return new OneWayStream<V1LineMessage>(client, '/api/v1/ws', { ...filters }, 'line', opts);
}
