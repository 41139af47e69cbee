import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Account } from '../access/authenticator.ts';
import type { PlanScope } from '../access/plan-scope.ts';
import type { BoardView } from '../board/board-view.ts';
import { type ChangeFeed, CursorError } from '../board/change-feed.ts';
import type { Bus, CommittedBatch } from '../bus/bus.ts';
import type { LogPosition } from '../changelog/change.ts';
import type { Store } from '../store/store.ts';
import { Connection, type ConnectionOptions, type Endpoint } from './connection.ts';
import { CLOSES, SnapshotError } from './errors.ts';
import { channelsOf, type Frame, framesOf, PlayFrame, type StreamChannel } from './frames.ts';
import { lineFramesOf } from './line-frames.ts';
import { takePlaysResume, takeSnapshot } from './snapshots.ts';
import { Subscription, type SubscriptionParams } from './subscription.ts';
import { SubscriptionIndex } from './subscription-index.ts';
import { WriteTurns } from './write-turns.ts';

export interface StreamOptions extends ConnectionOptions {
  /** Spec: 15 s. */
  heartbeatMs: number;
  /** Most changes a resume replays; further behind, the client takes a snapshot. */
  resumeMaxChanges: number;
}

/** What the hub reads and reports to: narrow views of the services, never the server. */
export interface StreamDeps {
  bus: Bus;
  /** The live board (stream plans are real-time). */
  view: BoardView;
  /** The change log as the delta routes read it: the recent rows in memory, older ones from the store. */
  feed: ChangeFeed;
  readPlays: Store['readPlays'];
  position(): LogPosition;
  now(): number;
  /** Counts delivered data points (the access layer's metering); absent without the access layer. */
  meter?: (account: Account, points: number) => void;
  metrics?: StreamMetrics;
}

/** What the hub counts for /metrics. */
export interface StreamMetrics {
  dropped(): void;
  overflowed(): void;
}

/**
 * The streams' writes in one pass of the loop at most (then the loop reads its sockets again): as long
 * as a slice of a REST build (src/http/events-envelope.ts), so neither holds the other up for longer.
 */
const WRITE_TURN_MS = 3;

/** resume_complete's `cursors`: `{"plays": {"<event_id>": <newest sequence>}}`, or `{}` with none. */
function cursorsJson(plays: ReadonlyMap<string, number>): string {
  return plays.size === 0 ? '{}' : JSON.stringify({ plays: Object.fromEntries(plays) });
}

/** Rows a resume reads from the log per step. */
const RESUME_PAGE = 2000;

/**
 * The streams' core: it receives every committed batch from the bus, turns its rows into frames
 * once, and hands each frame to the subscriptions the index finds for it. It owns the connections
 * (their count per key for the plan's cap), the one heartbeat timer, and the snapshot and resume
 * procedures, which hold a subscription's live frames while they run and release those past the
 * position they reached, so nothing is missed and nothing is sent twice.
 *
 * Contract: batches arrive in commit order with `fromId` equal to the previous `headId`. A batch
 * that does not continue the last one means this node missed part of the log: every connection is
 * told (`stream_gap`) and closed, so its clients resume from the last position they hold rather
 * than go on with a hole.
 */
export class StreamHub {
  readonly index = new SubscriptionIndex();
  private readonly connections = new Set<Connection>();
  private readonly perKey = new Map<string, number>();
  private head: number;
  private epochJson: string;
  private readonly stopListening: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly writes = new WriteTurns(WRITE_TURN_MS);

  constructor(
    private readonly deps: StreamDeps,
    readonly opts: StreamOptions,
  ) {
    const pos = deps.position();
    this.head = pos.id;
    this.epochJson = JSON.stringify(pos.epoch);
    this.stopListening = deps.bus.subscribe((batch) => this.receive(batch));
    this.heartbeat = setInterval(() => this.beat(), opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /** The position the hub has dispatched up to. */
  get position(): LogPosition {
    return { id: this.head, epoch: this.deps.position().epoch };
  }

  positionJson(id = this.head): string {
    return `{"id":${id},"epoch":${this.epochJson}}`;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Open connections of a key: the plan's cap counts them. */
  connectionsOf(keyHash: string): number {
    return this.perKey.get(keyHash) ?? 0;
  }

  /** Takes over an upgraded socket. */
  open(ws: WebSocket, socket: Duplex, account: Account | undefined, scope: PlanScope, endpoint: Endpoint): Connection {
    const conn = new Connection(ws, socket, account, scope, endpoint, this.opts, {
      meter: (a, points) => this.deps.meter?.(a, points),
      dropped: () => this.deps.metrics?.dropped(),
      overflowed: () => this.deps.metrics?.overflowed(),
      epochJson: () => this.epochJson,
      unixNow: () => Math.floor(this.deps.now() / 1000),
      closed: (c) => this.closed(c),
      writeTurn: (c) => this.writes.add(c),
    });
    this.connections.add(conn);
    if (account) this.perKey.set(account.keyHash, this.connectionsOf(account.keyHash) + 1);
    return conn;
  }

  private closed(conn: Connection): void {
    if (!this.connections.delete(conn)) return;
    for (const sub of conn.subs.values()) this.index.remove(sub);
    conn.subs.clear();
    const a = conn.account;
    if (a) {
      const n = this.connectionsOf(a.keyHash) - 1;
      if (n > 0) this.perKey.set(a.keyHash, n);
      else this.perKey.delete(a.keyHash);
    }
  }

  /** Adds a subscription to a connection and the index; it receives frames from the next batch on. */
  subscribe(conn: Connection, id: string, channel: StreamChannel, params: SubscriptionParams): Subscription {
    const sub = new Subscription(conn, id, channel, params, conn.scope, conn.dedicated, (eventId) =>
      this.deps.view.getEvent(eventId),
    );
    conn.subs.set(id, sub);
    this.index.add(sub);
    return sub;
  }

  /** Removes a subscription: nothing more is sent for it, even what was queued. */
  removeSubscription(conn: Connection, sub: Subscription): void {
    sub.closed = true;
    conn.subs.delete(sub.id);
    this.index.remove(sub);
  }

  /**
   * Sends a snapshot of the subscription (its frames, then snapshot_complete) and releases the live
   * frames held meanwhile that lie past it. A refused snapshot sends snapshot_error and the
   * subscription streams on.
   */
  async snapshot(conn: Connection, sub: Subscription): Promise<void> {
    sub.held ??= [];
    const at = this.head;
    const position = this.positionJson(at);
    try {
      const snap = await takeSnapshot({ view: this.deps.view, readPlays: this.deps.readPlays }, sub, position);
      for (const m of snap.messages) conn.send(m.text, m.points);
      conn.send(
        `{"type":"snapshot_complete","id":${sub.idJson},"channel":"${sub.channel}","position":${position},"frames":${snap.messages.length}}`,
      );
      this.release(conn, sub, at, snap.playsUpTo);
    } catch (err) {
      this.snapshotError(conn, sub, err);
      this.release(conn, sub, at);
    }
  }

  /**
   * Resumes a plays subscription by sequence: for each event, the plays after the sequence the
   * client holds (takePlaysResume), then resume_complete with the position and the newest sequence
   * of each event (`cursors`), then the live frames held meanwhile, checked to continue them.
   */
  async resumePlays(conn: Connection, sub: Subscription, after: ReadonlyMap<string, number>): Promise<void> {
    sub.held ??= [];
    const at = this.head;
    const position = this.positionJson(at);
    try {
      const resumed = await takePlaysResume({ view: this.deps.view, readPlays: this.deps.readPlays }, sub, position, after);
      let replayed = 0;
      for (const m of resumed.messages) {
        conn.send(m.text, m.points);
        replayed += m.points;
      }
      conn.send(
        `{"type":"resume_complete","id":${sub.idJson},"channel":"${sub.channel}","position":${position},"replayed":${replayed},"cursors":${cursorsJson(resumed.playsUpTo)}}`,
      );
      this.release(conn, sub, at, resumed.playsUpTo);
    } catch (err) {
      this.snapshotError(conn, sub, err);
      this.release(conn, sub, at);
    }
  }

  /** The newest play sequence of each event a plays or live subscription names, as the board has them now. */
  private playCursors(sub: Subscription): Map<string, number> {
    const out = new Map<string, number>();
    if ((sub.channel !== 'plays' && sub.channel !== 'live') || !sub.params.eventIds) return out;
    for (const id of sub.params.eventIds) {
      const ev = this.deps.view.getEvent(id);
      if (ev) out.set(id, ev.game?.plays ?? 0);
    }
    return out;
  }

  /**
   * Replays the subscription's frames after `from` from the change log, in order, then sends
   * resume_complete and releases the live frames held meanwhile. A position of another epoch,
   * ahead of the log, older than the log kept, or more than `resumeMaxChanges` behind gets
   * snapshot_error `snapshot_required`.
   */
  async resume(conn: Connection, sub: Subscription, from: LogPosition): Promise<void> {
    sub.held ??= [];
    const target = this.head;
    const cursors = cursorsJson(this.playCursors(sub));
    try {
      const epoch = this.deps.position().epoch;
      if (from.epoch !== epoch) {
        throw new SnapshotError('snapshot_required', `the position is of another log (epoch ${from.epoch}, now ${epoch})`);
      }
      if (from.id > target) throw new SnapshotError('snapshot_required', `position ${from.id} is ahead of the log (${target})`);
      if (target - from.id > this.opts.resumeMaxChanges) {
        throw new SnapshotError(
          'snapshot_required',
          `position ${from.id} is ${target - from.id} changes behind; a resume replays at most ${this.opts.resumeMaxChanges}`,
        );
      }
      const oldest = await this.deps.feed.oldestCursor();
      if (from.id < oldest) {
        throw new SnapshotError('snapshot_required', `position ${from.id} is older than the log kept (from ${oldest})`);
      }
      let replayed = 0;
      for (let after = from.id; after < target && !sub.closed; ) {
        const read = await this.deps.feed
          .read({ pricesOnly: false, afterId: after }, RESUME_PAGE, target)
          .catch((err: unknown) => {
            // Retention removed rows this replay was reading: it can no longer be whole.
            if (err instanceof CursorError) throw new SnapshotError('snapshot_required', err.message);
            throw err;
          });
        for (const frame of framesOf(read.rows)) {
          if (!channelsOf(frame).includes(sub.channel) || !sub.matches(frame)) continue;
          // A replay is bounded by resumeMaxChanges, not by the live queue.
          conn.replay(sub, frame);
          replayed++;
        }
        if (read.lastId <= after) break;
        after = read.lastId;
      }
      conn.send(
        `{"type":"resume_complete","id":${sub.idJson},"channel":"${sub.channel}","position":${this.positionJson(target)},"replayed":${replayed},"cursors":${cursors}}`,
      );
    } catch (err) {
      this.snapshotError(conn, sub, err);
    }
    this.release(conn, sub, target);
  }

  private snapshotError(conn: Connection, sub: Subscription, err: unknown): void {
    const known = err instanceof SnapshotError;
    conn.send(
      JSON.stringify({
        type: 'snapshot_error',
        id: sub.id,
        code: known ? err.code : 'snapshot_failed',
        message: known ? err.message : 'the snapshot could not be read; request it again',
      }),
    );
  }

  /**
   * Ends a hold: frames at or below `upTo` were in the snapshot or the replay and are dropped; the
   * rest are queued in order. A play that does not continue the snapshot's last sequence of its
   * event is a gap: it is refused loudly (snapshot_error) rather than handed on.
   */
  private release(conn: Connection, sub: Subscription, upTo: number, playsUpTo?: Map<string, number>): void {
    const held = sub.held ?? [];
    sub.held = null;
    const next = new Map(playsUpTo);
    for (const frame of held) {
      if (frame.id <= upTo) continue;
      if (frame instanceof PlayFrame && next.has(frame.eventId)) {
        const expected = next.get(frame.eventId)! + 1;
        if (frame.sequence !== expected) {
          this.snapshotError(
            conn,
            sub,
            new SnapshotError('snapshot_failed', `play ${frame.sequence} of ${frame.eventId} does not follow the snapshot (${expected - 1})`),
          );
          return;
        }
        next.set(frame.eventId, frame.sequence);
      }
      conn.enqueue(sub, frame);
    }
  }

  private receive(batch: CommittedBatch): void {
    if (batch.fromId !== this.head) {
      for (const conn of [...this.connections]) {
        conn.fail(null, 'stream_gap', 'the server missed part of the change log: reconnect and resume', CLOSES.gap);
      }
    }
    this.head = batch.headId;
    this.epochJson = JSON.stringify(batch.epoch);
    if (this.index.size === 0) return;
    const frames = framesOf(batch.changes);
    for (const frame of frames) this.dispatch(frame);
    // V1 line sets are read from the board, which holds exactly this batch's state only now.
    if (this.index.has('lines')) for (const frame of lineFramesOf(frames, this.deps.view)) this.dispatch(frame);
  }

  private dispatch(frame: Frame): void {
    this.index.visit(frame, (sub) => {
      if (sub.matches(frame)) (sub.outbox as Connection).deliver(sub, frame);
    });
  }

  private beat(): void {
    const t = Math.floor(this.deps.now() / 1000);
    const texts: Record<Endpoint, string> = {
      markets: `{"meta":{"type":"heartbeat","version":"v2","timestamp":${t}},"data":{"now":${t}}}`,
      v1: `{"meta":{"type":"heartbeat","version":"v1","timestamp":${t}},"data":{"now":${t}}}`,
      multiplex: `{"type":"heartbeat","now":${t}}`,
    };
    for (const conn of this.connections) conn.heartbeat(texts[conn.endpoint]);
  }

  /** Closes every connection (server shutdown) and stops listening to the bus. */
  close(): void {
    clearInterval(this.heartbeat);
    this.stopListening();
    for (const conn of [...this.connections]) conn.close(CLOSES.shutdown);
  }
}
