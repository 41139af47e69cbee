import type { OddsbaseClient } from './client.ts';
import { Emitter } from './emitter.ts';
import { Feed } from './feed.ts';
import type { ReconnectingSocket } from './socket.ts';
import { socketFor, type StreamOptions } from './streams.ts';

/** A change-log position (oddsbase: every delta carries one); `epoch` names the log. */
export interface Position {
  id: number;
  epoch: string;
}

export type Channel = 'markets' | 'scores' | 'plays' | 'stats' | 'live' | 'futures' | 'live_game_state';

export interface SubscribeParams {
  sport_ids?: readonly number[];
  event_ids?: readonly string[];
  market_ids?: readonly number[];
  affiliate_ids?: readonly number[];
  main_line?: boolean;
  snapshot?: boolean;
  date?: string;
  [other: string]: unknown;
}

/** A server message of the multiplexed endpoint, with the fields every kind may carry. */
export interface ServerMessage {
  type: string;
  id?: string | null;
  channel?: string;
  kind?: string;
  sub_sequence?: number;
  position?: Position;
  code?: string;
  message?: string;
  data?: unknown;
  [other: string]: unknown;
}

export interface MultiplexEvents extends Record<string, unknown[]> {
  /** Every message of a subscription: acknowledgements, snapshot frames, deltas, completions. */
  message: [ServerMessage];
  delta: [ServerMessage];
  /**
   * State of a subscription cannot be resumed in-band (no position yet, another log, too far back,
   * or a gap): what it covers must be read again from REST (or from a snapshot, which is asked for
   * when the subscription allows one).
   */
  resync: [{ id: string; reason: string }];
  /** The subscription resumed: every delta since the last position was replayed. */
  resumed: [{ id: string; position: Position }];
  /** In-band errors (`forbidden`, `bad_request` ...). */
  error: [ServerMessage | Error];
  open: [{ reconnect: boolean }];
  down: [{ code?: number; reason: string; willRetryInMs?: number }];
}

interface Sub {
  channel: Channel;
  params: SubscribeParams;
  position: Position | undefined;
  /** The sub_sequence expected next. */
  next: number;
}

/**
 * `/api/v2/ws`: subscriptions by id, re-sent on every reconnect with `resume_from` set to the last
 * position received, so the server replays what was missed; where it cannot (snapshot_required),
 * a snapshot is asked for when the subscription takes one, and `resync` tells the application to
 * restore the rest from REST. A gap in `sub_sequence` asks the server to resync from the last
 * position.
 */
export class MultiplexStream extends Emitter<MultiplexEvents> implements AsyncIterable<ServerMessage> {
  private readonly socket: ReconnectingSocket;
  private readonly subs = new Map<string, Sub>();
  private readonly feed: Feed<ServerMessage>;
  private opened = 0;

  constructor(client: OddsbaseClient, opts: StreamOptions = {}) {
    super();
    this.socket = socketFor(client, '/api/v2/ws', {}, opts);
    this.feed = new Feed<ServerMessage>(opts.bufferLimit, () => this.close());
    this.socket.on('open', () => {
      const reconnect = this.opened++ > 0;
      for (const [id, sub] of this.subs) this.sendSubscribe(id, sub, reconnect);
      this.emit('open', { reconnect });
    });
    this.socket.on('down', (d) => {
      this.emit('down', d);
      if (d.willRetryInMs === undefined) this.feed.end(new Error(`stream stopped: ${d.reason}`));
    });
    this.socket.on('error', (e) => this.emit('error', e));
    this.socket.on('message', (m) => this.receive(m as ServerMessage));
    this.socket.start();
  }

  subscribe(id: string, channel: Channel, params: SubscribeParams = {}): void {
    const sub: Sub = { channel, params, position: undefined, next: 1 };
    this.subs.set(id, sub);
    if (this.socket.open) this.sendSubscribe(id, sub, false);
  }

  unsubscribe(id: string): void {
    if (this.subs.delete(id)) this.socket.send({ action: 'unsubscribe', id });
  }

  /** The last position received on a subscription. */
  position(id: string): Position | undefined {
    return this.subs.get(id)?.position;
  }

  /** Drops the connection as if it had died (tests; a caller that knows the network changed). */
  reconnect(): void {
    this.socket.drop('reconnect asked');
  }

  [Symbol.asyncIterator](): AsyncIterator<ServerMessage> {
    return this.feed[Symbol.asyncIterator]();
  }

  close(): void {
    this.socket.close();
    this.feed.end();
  }

  private sendSubscribe(id: string, sub: Sub, reconnect: boolean): void {
    sub.next = 1;
    const params: SubscribeParams = { ...sub.params };
    if (sub.position) {
      params.resume_from = sub.position;
      // A replay restores the state; a snapshot is asked for only if the replay is refused.
      delete params.snapshot;
    } else if (reconnect) {
      this.emit('resync', { id, reason: 'reconnected before any position was received' });
    }
    this.socket.send({ action: 'subscribe', id, channel: sub.channel, params });
  }

  private receive(msg: ServerMessage): void {
    if (msg.type === 'heartbeat') return;
    const id = typeof msg.id === 'string' ? msg.id : undefined;
    const sub = id === undefined ? undefined : this.subs.get(id);
    if (msg.type === 'error') {
      this.emit('error', msg);
    } else if (sub && id !== undefined) {
      if (msg.type === 'delta' && typeof msg.sub_sequence === 'number') {
        if (msg.sub_sequence !== sub.next && sub.position) {
          // A gap: ask for the missed deltas from the last position held.
          this.socket.send({ action: 'resync', id, resume_from: sub.position });
          this.emit('resync', { id, reason: `sub_sequence ${msg.sub_sequence} after ${sub.next - 1}` });
        }
        sub.next = msg.sub_sequence + 1;
      }
      if (
        msg.position &&
        (msg.type === 'delta' ||
          msg.type === 'resume_complete' ||
          msg.type === 'snapshot_complete' ||
          msg.type === 'subscribed')
      ) {
        if (!sub.position || msg.type !== 'subscribed') sub.position = msg.position;
      }
      if (msg.type === 'resume_complete' && msg.position) this.emit('resumed', { id, position: msg.position });
      if (msg.type === 'snapshot_error' && (msg.code === 'snapshot_required' || msg.code === 'resume_busy')) {
        sub.position = undefined;
        if (sub.params.snapshot) this.socket.send({ action: 'snapshot', id });
        this.emit('resync', { id, reason: String(msg.message ?? msg.code) });
      }
    }
    this.emit('message', msg);
    if (msg.type === 'delta') this.emit('delta', msg);
    this.feed.push(msg);
  }
}
