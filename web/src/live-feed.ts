import { ForbiddenError, MultiplexStream, type OddsbaseClient } from '../../packages/client/src/index.ts';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'offline' | 'unavailable';

/**
 * The page's one multiplexed stream (/api/v2/ws) and its connection state. The client's stream
 * authenticates with a one-use token per connection (the session cookie asks for it), reconnects
 * with the spec's backoff and resumes each subscription; views subscribe and leave through it.
 */
export class LiveFeed {
  readonly stream: MultiplexStream;
  private current: ConnectionState = 'connecting';
  private retryAt: number | undefined;
  private readonly listeners = new Set<(s: ConnectionState, retryInMs?: number) => void>();

  constructor(client: OddsbaseClient) {
    this.stream = new MultiplexStream(client, { auth: 'token' });
    this.stream.on('open', () => this.set('connected'));
    // A plan without streams (below Ultra) is refused the stream token: no live updates, not an outage.
    this.stream.on('error', (e) => {
      if (e instanceof ForbiddenError) this.set('unavailable');
    });
    this.stream.on('down', (d) => {
      if (this.current === 'unavailable') return;
      if (d.willRetryInMs === undefined) return this.set('offline');
      this.retryAt = Date.now() + d.willRetryInMs;
      this.set(navigator.onLine ? 'reconnecting' : 'offline', d.willRetryInMs);
    });
    window.addEventListener('offline', () => this.set('offline'));
    window.addEventListener('online', () => {
      // Back online: try now rather than at the end of a long backoff wait.
      if (this.current !== 'connected' && this.current !== 'unavailable') this.stream.reconnect();
    });
  }

  get state(): ConnectionState {
    return this.current;
  }

  onState(fn: (s: ConnectionState, retryInMs?: number) => void): () => void {
    this.listeners.add(fn);
    fn(this.current, this.retryAt === undefined ? undefined : Math.max(0, this.retryAt - Date.now()));
    return () => this.listeners.delete(fn);
  }

  private set(state: ConnectionState, retryInMs?: number): void {
    this.current = state;
    for (const fn of this.listeners) fn(state, retryInMs);
  }
}

const LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  connected: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
  unavailable: 'Live updates not in your plan',
};

/** Shows the connection state in the header's live region (role=status). */
export function showConnection(feed: LiveFeed, el: HTMLElement): void {
  feed.onState((state, retryInMs) => {
    el.dataset.state = state;
    el.textContent =
      state === 'reconnecting' && retryInMs !== undefined && retryInMs >= 2000
        ? `Reconnecting in ${Math.round(retryInMs / 1000)} s…`
        : LABELS[state];
  });
}
