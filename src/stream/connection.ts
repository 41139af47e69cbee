import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Account } from '../access/authenticator.ts';
import type { PlanScope } from '../access/plan-scope.ts';
import { CLOSES, type ErrorCode } from './errors.ts';
import { dataFor, type Frame, kindFor, MarketFrame } from './frames.ts';
import type { LineFrame } from './line-frames.ts';
import type { Outbox, Subscription } from './subscription.ts';
import type { Writer } from '../perf/turns.ts';

/**
 * Which endpoint a connection came through: the dedicated markets stream, the V1 stream (both one
 * subscription made at the upgrade, their own envelope, dropping for a slow client) or the
 * multiplexed endpoint.
 */
export type Endpoint = 'markets' | 'v1' | 'multiplex';

export interface ConnectionOptions {
  /** Messages a subscription may have waiting (spec: 1024); on the dedicated stream, per client. */
  queueMessages: number;
  /** Unsent bytes in the socket past which the queue waits for it to drain. */
  highWaterBytes: number;
  /**
   * How long the socket may stay past `highWaterBytes` before a subscription's queue past
   * `queueMessages` is the client's doing (it is not reading) rather than a burst the server made in
   * one turn, which a reading client drains within milliseconds.
   */
  backlogGraceMs: number;
}

/**
 * A subscription's queue may hold this many times `queueMessages` while its client keeps reading:
 * a burst (a quarter-hour of game starts commits about 1,200 prices at once) goes out whole, while
 * memory stays bounded for a client that reads too slowly to ever catch up.
 */
export const BURST_FACTOR = 4;

/** What a connection reports and asks of the hub that owns it. */
export interface ConnectionHooks {
  /** Counts delivered data points against the account (the access layer's metering). */
  meter(account: Account, points: number): void;
  /** A message the dedicated stream dropped for a slow client. */
  dropped(): void;
  /** A connection closed for a full queue. */
  overflowed(): void;
  /** The log's epoch as JSON text, for positions. */
  epochJson(): string;
  /** Unix seconds, for the dedicated stream's meta.timestamp. */
  unixNow(): number;
  /** The server's clock in ms, for how long the socket has been backed up. */
  clock(): number;
  closed(conn: Connection): void;
  /** Asks for a turn to write what is queued (the server's turns, src/perf/turns.ts): `write` is called then. */
  writeTurn(conn: Connection): void;
}

/**
 * Bytes a connection writes in one turn: tens of messages, well under a millisecond, so that a burst
 * to many clients is written in passes of the loop rather than in one (src/perf/turns.ts).
 */
const CHUNK_BYTES = 16 * 1024;

interface Item {
  sub?: Subscription;
  /** Counted in the subscription's pending deltas (live ones; a replay is not). */
  counted?: boolean;
  /** A replayed delta: counted in `replayWaiting`, which paces the replay's reads. */
  replayed?: boolean;
  frame?: Frame;
  text?: string;
  points: number;
}

/**
 * One WebSocket client: its subscriptions and one outbound queue in the order messages were made.
 *
 * Contract:
 * - Messages leave in the order they were queued; a subscription's deltas carry sub_sequence 1, 2, ...
 *   in that order, and their positions only rise.
 * - A subscription may have `queueMessages` deltas waiting that its client has not taken: past that
 *   many while the socket has been backed up (past `highWaterBytes`) for `backlogGraceMs`, or past
 *   `BURST_FACTOR` times that many in any case, the dedicated stream drops the message (counted), a
 *   conflating subscription keeps the latest price per line and book (sent after the queue, flagged
 *   `conflated: true`), and any other subscription closes the connection: an error message first,
 *   then close reason `buffer_overflow:reconnect_and_catchup`. A burst larger than the queue that a
 *   reading client drains therefore never cuts it off.
 * - A replay (resume) is queued a page at a time: `room` tells the replay when its last page is
 *   mostly written, so a replay holds one page in memory however far back it starts.
 * - What is due is written in turns shared with the other connections, `CHUNK_BYTES` a turn; the
 *   socket is corked while a chunk is written, so its messages leave in one write. The queue stops at
 *   `highWaterBytes` of unsent socket bytes and resumes on the socket's drain, so memory is bounded
 *   by the queues, not by the client's speed.
 * - A delivered delta is metered when it is written, not when it is queued: a dropped message costs
 *   nothing. A frame delivered to several subscriptions of one connection (stats and live) is billed
 *   once. Control messages, heartbeats and usage replies are free.
 */
export class Connection implements Outbox, Writer {
  readonly subs = new Map<string, Subscription>();
  /** A dedicated stream (markets, V1): its own envelope, drops instead of closing. */
  readonly dedicated: boolean;
  closed = false;
  private readonly queue: (Item | undefined)[] = [];
  private head = 0;
  private scheduled = false;
  private waitingDrain = false;
  private readonly conflating = new Set<Subscription>();
  private billed = new WeakSet<Frame>();
  /** Messages of `send` waiting in the queue. */
  private controlPending = 0;
  /** Replayed deltas waiting in the queue. */
  private replayWaiting = 0;
  private roomWaiters: { below: number; resolve: () => void }[] = [];
  /** The clock when the socket went past its high-water mark (meaningful while `waitingDrain`). */
  private backedUpSince = 0;
  /** Set once the key may no longer stream (revoked, expired, out of budget): no new subscription. */
  denied = false;
  /** The page session it was opened with (a session cookie), which ending ends the connection too. */
  session: string | undefined;

  constructor(
    readonly ws: WebSocket,
    private readonly socket: Duplex,
    readonly account: Account | undefined,
    readonly scope: PlanScope,
    readonly endpoint: Endpoint,
    private readonly opts: ConnectionOptions,
    private readonly hooks: ConnectionHooks,
  ) {
    this.dedicated = endpoint !== 'multiplex';
    ws.on('close', () => this.ended());
    ws.on('error', () => this.ended());
  }

  /** Messages queued and not yet written to the socket. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** A live frame for one of this connection's subscriptions (already matched). */
  deliver(sub: Subscription, frame: Frame): void {
    if (sub.closed || this.closed) return;
    if (sub.held) {
      if (sub.held.length >= this.opts.queueMessages) {
        // A resume reads what it missed from the log again; anything else cannot recover it.
        if (sub.resuming) {
          sub.heldLost = true;
          sub.held.length = 0;
          return;
        }
        return this.overflow(sub);
      }
      if (!sub.heldLost) sub.held.push(frame);
      return;
    }
    this.enqueue(sub, frame);
  }

  /** Queues a delta of `sub` after everything queued before it. */
  enqueue(sub: Subscription, frame: Frame): void {
    if (sub.closed || this.closed) return;
    if (sub.conflated && sub.conflated.size > 0 && frame instanceof MarketFrame) {
      // Once conflating, every price goes through the map until it drains, or an older price of a
      // line could leave after a newer one.
      return this.conflate(sub, frame);
    }
    if (
      sub.pending >= this.opts.queueMessages &&
      (this.lagging() || sub.pending >= this.opts.queueMessages * BURST_FACTOR)
    ) {
      if (sub.dedicated) return this.hooks.dropped();
      if (sub.params.conflate && frame instanceof MarketFrame) return this.conflate(sub, frame);
      return this.overflow(sub);
    }
    sub.pending++;
    this.queue.push({ sub, frame, points: frame.points, counted: true });
    this.schedule();
  }

  /** Whether the client is not taking what is queued: its socket has stayed backed up past the grace. */
  private lagging(): boolean {
    return this.waitingDrain && this.hooks.clock() - this.backedUpSince >= this.opts.backlogGraceMs;
  }

  /** Queues a replayed delta; the replay waits for `room` before it reads the next page. */
  replay(sub: Subscription, frame: Frame): void {
    if (sub.closed || this.closed) return;
    this.replayWaiting++;
    this.queue.push({ sub, frame, points: frame.points, replayed: true });
    this.schedule();
  }

  /** Resolves once fewer than `below` replayed deltas wait unwritten, or the connection has closed. */
  room(below: number): Promise<void> {
    if (this.closed || this.replayWaiting < below) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push({ below, resolve }));
  }

  private wakeReplays(): void {
    if (this.roomWaiters.length === 0) return;
    const still: { below: number; resolve: () => void }[] = [];
    for (const w of this.roomWaiters) {
      if (this.closed || this.replayWaiting < w.below) w.resolve();
      else still.push(w);
    }
    this.roomWaiters = still;
  }

  private conflate(sub: Subscription, frame: MarketFrame): void {
    sub.conflated ??= new Map();
    const map = sub.conflated;
    // Bounded too: a client that never reads is cut off once it lags by this many distinct prices.
    if (!map.has(frame.priceId) && map.size >= this.opts.queueMessages * 4) return this.overflow(sub);
    map.delete(frame.priceId);
    map.set(frame.priceId, frame);
    this.conflating.add(sub);
    this.schedule();
  }

  /**
   * Queues a message made for this client (an acknowledgement, a snapshot frame, an error). These
   * are bounded too: a client that sends actions without reading their answers is closed once four
   * queues' worth wait.
   */
  send(text: string, points = 0): void {
    if (this.closed) return;
    if (++this.controlPending > this.opts.queueMessages * 4) {
      this.hooks.overflowed();
      this.fail(null, 'buffer_overflow', 'too many answers wait unread', CLOSES.overflow);
      return;
    }
    this.queue.push({ text, points });
    this.schedule();
  }

  /** A heartbeat, skipped while the socket is backed up: a client that is not reading learns nothing from it. */
  heartbeat(text: string): void {
    if (this.waitingDrain) return;
    this.send(text);
  }

  /** Queues an in-band error. */
  error(id: string | null, code: ErrorCode, message: string): void {
    this.send(JSON.stringify({ type: 'error', id, code, message }));
  }

  private schedule(): void {
    if (this.scheduled || this.waitingDrain) return;
    this.scheduled = true;
    this.hooks.writeTurn(this);
  }

  /** Writes a chunk of the queue in this connection's turn; true if more is due now (another turn). */
  write(): boolean {
    if (this.closed) {
      this.scheduled = false;
      return false;
    }
    const socket = this.socket;
    const high = this.opts.highWaterBytes;
    const stop = Math.min(high, socket.writableLength + CHUNK_BYTES);
    let points = 0;
    socket.cork();
    try {
      while (this.head < this.queue.length && socket.writableLength < stop) {
        const item = this.queue[this.head]!;
        this.queue[this.head++] = undefined;
        const sub = item.sub;
        if (sub) {
          if (item.counted) sub.pending--;
          else if (item.replayed) this.replayWaiting--;
          if (sub.closed) continue;
        } else this.controlPending--;
        points += this.bill(item);
        this.ws.send(this.render(item, false));
      }
      if (this.head >= this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
        points += this.drainConflated(stop);
      } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
    } finally {
      socket.uncork();
    }
    if (points > 0 && this.account) this.hooks.meter(this.account, points);
    this.wakeReplays();
    if (this.closed || (this.head >= this.queue.length && this.conflating.size === 0)) {
      this.scheduled = false;
      return false;
    }
    if (socket.writableLength >= high) {
      this.scheduled = false;
      this.waitingDrain = true;
      this.backedUpSince = this.hooks.clock();
      socket.once('drain', () => {
        this.waitingDrain = false;
        this.schedule();
      });
      return false;
    }
    return true;
  }

  private drainConflated(high: number): number {
    let points = 0;
    for (const sub of this.conflating) {
      const map = sub.conflated!;
      for (const [key, frame] of map) {
        if (this.socket.writableLength >= high) return points;
        map.delete(key);
        if (sub.closed) continue;
        const item = { sub, frame, points: frame.points };
        points += this.bill(item);
        this.ws.send(this.render(item, true));
      }
      this.conflating.delete(sub);
    }
    return points;
  }

  private bill(item: Item): number {
    const frame = item.frame;
    // A dedicated stream has one subscription: no frame reaches it twice, and its writes skip the
    // set (its lookups and inserts: `bill` 2.1% of a bench/stream-burst.ts profile's samples, the
    // most of the streams' own code).
    if (!frame || this.dedicated) return item.points;
    if (this.billed.has(frame)) return 0;
    this.billed.add(frame);
    return item.points;
  }

  private render(item: Item, conflated: boolean): string {
    if (item.text !== undefined) return item.text;
    const sub = item.sub!;
    const frame = item.frame!;
    if (sub.dedicated) return (frame as MarketFrame | LineFrame).dedicatedMessage(this.hooks.unixNow());
    const channel = sub.channel;
    return (
      `{"type":"delta","id":${sub.idJson},"channel":"${channel}","kind":"${kindFor(frame, channel)}"` +
      `,"sub_sequence":${++sub.sequence},"position":{"id":${frame.id},"epoch":${this.hooks.epochJson()}}` +
      `${conflated ? ',"conflated":true' : ''},"data":${dataFor(frame, channel)}}`
    );
  }

  /** Spec: where possible an error message first, then close with the overflow reason. */
  private overflow(sub: Subscription): void {
    if (this.closed) return;
    this.hooks.overflowed();
    const message = `subscription ${sub.id || 'markets'} fell more than ${this.opts.queueMessages} messages behind`;
    this.fail(sub.id || null, 'buffer_overflow', message, CLOSES.overflow);
  }

  /** Sends an error ahead of everything queued (which is dropped), then closes. */
  fail(id: string | null, code: ErrorCode, message: string, how: { code: number; reason: string }): void {
    if (this.closed) return;
    this.ws.send(JSON.stringify({ type: 'error', id, code, message }));
    this.close(how);
  }

  close(how: { code: number; reason: string }): void {
    if (this.closed) return;
    this.ws.close(how.code, how.reason);
    this.ended();
    // A client that never reads never completes the closing handshake.
    setTimeout(() => this.ws.terminate(), 5000).unref();
  }

  private ended(): void {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    this.controlPending = 0;
    this.replayWaiting = 0;
    this.conflating.clear();
    this.billed = new WeakSet();
    for (const sub of this.subs.values()) sub.closed = true;
    this.wakeReplays();
    this.hooks.closed(this);
  }
}
