import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Account } from '../access/authenticator.ts';
import type { ConnectionSlots } from '../access/connection-slots.ts';
import type { PlanScope } from '../access/plan-scope.ts';
import type { BoardView } from '../board/board-view.ts';
import { type ChangeFeed, CursorError } from '../board/change-feed.ts';
import type { Bus, CommittedBatch } from '../bus/bus.ts';
import type { LogPosition } from '../changelog/change.ts';
import type { Store } from '../store/store.ts';
import { Connection, type ConnectionOptions, type Endpoint } from './connection.ts';
import { CLOSES, SnapshotError } from './errors.ts';
import {
  channelsOf,
  type Frame,
  type FrameNames,
  framesOf,
  lineFramesOf,
  PlayFrame,
  type StreamChannel,
} from './frames.ts';
import { type SnapshotSource, takePlaysResume, takeSnapshot } from './snapshots.ts';
import { Subscription, type SubscriptionParams } from './subscription.ts';
import { SubscriptionIndex } from './subscription-index.ts';
import type { Turns } from '../perf/turns.ts';

export interface StreamOptions extends ConnectionOptions {
  /** Spec: 15 s. */
  heartbeatMs: number;
  /** Most changes a resume replays; further behind, the client takes a snapshot. */
  resumeMaxChanges: number;
  /** Resumes replaying at once in this process; past it a resume is answered `resume_busy`. */
  resumeMaxConcurrent: number;
  /** Resumes of one key replaying at once (a connection's resumes run one after another). */
  resumeMaxPerKey: number;
  /** How often the keys of open connections are checked again (revocation, expiry, caps). */
  accessCheckMs: number;
}

/** Why a key may no longer stream, as the access check found it: its connections are closed. */
export interface StreamDenial {
  /** In-band error code sent before the close. */
  code: 'key_revoked' | 'forbidden' | 'limit_reached' | 'session_ended';
  message: string;
  /** The close reason (CLOSES.policy's code). */
  reason: string;
}

/** What the hub reads and reports to: narrow views of the services, never the server. */
export interface StreamDeps {
  bus: Bus;
  /** The live board (stream plans are real-time). */
  view: BoardView;
  /** The current catalog: the names frames and snapshots show, a sport's default markets. */
  catalog: StreamCatalog;
  /** The change log as the delta routes read it: the recent rows in memory, older ones from the store. */
  feed: ChangeFeed;
  readPlays: Store['readPlays'];
  position(): LogPosition;
  now(): number;
  /** Counts delivered data points (the access layer's metering); absent without the access layer. */
  meter?: (account: Account, points: number) => void;
  /**
   * Whether a streaming key may still stream (not revoked or expired, its plan still with streams,
   * no cap or budget reached); absent without the access layer.
   */
  recheck?: (account: Account) => Promise<StreamDenial | undefined>;
  /** Whether the page session a connection was opened with still holds (not signed out or expired). */
  recheckSession?: (session: string) => Promise<StreamDenial | undefined>;
  metrics?: StreamMetrics;
  /** The server's turns (src/perf/turns.ts), shared with the HTTP builds: connections write in them. */
  turns: Pick<Turns, 'add'>;
  /** The keys' connection slots, taken by the upgrade: a keyed connection gives its slot back as it closes. */
  slots: Pick<ConnectionSlots, 'give' | 'count'>;
}

/** What the streams read of the current catalog: names in frames and snapshots, a sport's default markets. */
export type StreamCatalog = FrameNames & SnapshotSource['catalog'];

/** What the hub counts for /metrics. */
export interface StreamMetrics {
  dropped(): void;
  overflowed(): void;
}

/** resume_complete's `cursors`: `{"plays": {"<event_id>": <newest sequence>}}`, or `{}` with none. */
function cursorsJson(plays: ReadonlyMap<string, number>): string {
  return plays.size === 0 ? '{}' : JSON.stringify({ plays: Object.fromEntries(plays) });
}

/**
 * Rows a resume reads from the log per step. The next page is read once fewer than half a page of
 * replayed messages wait unwritten, so a replay holds about one page however far back it starts.
 */
const RESUME_PAGE = 500;

/**
 * The streams' core: it receives every committed batch from the bus, turns its rows into frames
 * once, and hands each frame to the subscriptions the index finds for it. It owns the connections
 * (giving back their slots of the plan's cap as they close), the one heartbeat timer, and the snapshot and resume
 * procedures, which hold a subscription's live frames while they run and release those past the
 * position they reached, so nothing is missed and nothing is sent twice.
 *
 * Contract: batches arrive in commit order with `fromId` equal to the previous `headId`. A batch at
 * or below the hub's head is skipped, and the rows of one that overlaps it are dispatched from the
 * head on. A batch that starts past the head means this node missed part of the log: every
 * connection is told (`stream_gap`) and closed, so its clients resume from the last position they
 * hold rather than go on with a hole.
 */
export class StreamHub {
  readonly index = new SubscriptionIndex();
  private readonly connections = new Set<Connection>();
  private head: number;
  private epochJson: string;
  private readonly stopListening: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly accessTimer: NodeJS.Timeout | undefined;
  private checking = false;
  /** Resumes replaying now: in the process, and per key. */
  private replaying = 0;
  private readonly replayingPerKey = new Map<string, number>();
  /** Each connection's resumes, one after another. */
  private readonly resumeChains = new WeakMap<Connection, Promise<void>>();

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
    if (deps.recheck) {
      this.accessTimer = setInterval(() => void this.checkAccess(), opts.accessCheckMs);
      this.accessTimer.unref();
    }
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

  /** Messages every connection holds unwritten (conflated prices left out: one per line at most). */
  queuedMessages(): number {
    let n = 0;
    for (const conn of this.connections) n += conn.waiting;
    return n;
  }

  /** Open connections of a key, every node's where the slots are shared: the plan's cap counts them. */
  connectionsOf(keyHash: string): number {
    return this.deps.slots.count(keyHash);
  }

  /** Takes over an upgraded socket; a keyed one's slot was taken (ConnectionSlots) and is given back as it closes. */
  open(ws: WebSocket, socket: Duplex, account: Account | undefined, scope: PlanScope, endpoint: Endpoint): Connection {
    const conn = new Connection(ws, socket, account, scope, endpoint, this.opts, {
      meter: (a, points) => this.deps.meter?.(a, points),
      dropped: () => this.deps.metrics?.dropped(),
      overflowed: () => this.deps.metrics?.overflowed(),
      epochJson: () => this.epochJson,
      unixNow: () => Math.floor(this.deps.now() / 1000),
      clock: () => this.deps.now(),
      closed: (c) => this.closed(c),
      writeTurn: (c) => this.deps.turns.add(c),
    });
    this.connections.add(conn);
    return conn;
  }

  private closed(conn: Connection): void {
    if (!this.connections.delete(conn)) return;
    for (const sub of conn.subs.values()) this.index.remove(sub);
    conn.subs.clear();
    if (conn.account) this.deps.slots.give(conn.account.keyHash);
  }

  /** Adds a subscription to a connection and the index; it receives frames from the next batch on. */
  subscribe(conn: Connection, id: string, channel: StreamChannel, params: SubscriptionParams): Subscription {
    const sub = new Subscription(conn, id, channel, params, conn.scope, conn.dedicated, (eventId) =>
      this.deps.view.getEvent(eventId),
    );
    // A connection closed or denied (a message read after its close) takes no subscription: the
    // index would keep one of a closed connection for good.
    if (conn.closed || conn.denied) {
      sub.closed = true;
      return sub;
    }
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
      const snap = await takeSnapshot(this.snapshotSource(), sub, position);
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
      const resumed = await takePlaysResume(this.snapshotSource(), sub, position, after);
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
   * snapshot_error `snapshot_required`; past the resumes the process or the key may run at once,
   * `resume_busy` with `retry_after`. A connection's resumes run one after another.
   *
   * The replay is paged: a page of the log is read, its frames queued, and the next page read once
   * the client has taken most of them, so memory holds a page per replay, never the whole replay.
   * Live frames are held meanwhile; if more arrive than the queue holds, they are dropped and the
   * replay goes on from its target to the head it finds then, reading them from the log instead.
   */
  resume(conn: Connection, sub: Subscription, from: LogPosition): Promise<void> {
    sub.held ??= [];
    sub.resuming = true;
    const run = (this.resumeChains.get(conn) ?? Promise.resolve()).then(() => this.replay(conn, sub, from));
    this.resumeChains.set(conn, run);
    return run;
  }

  private async replay(conn: Connection, sub: Subscription, from: LogPosition): Promise<void> {
    let target = this.head;
    // The board's play sequences as of `target` (the hub's head is the board's in this task).
    let cursors = cursorsJson(this.playCursors(sub));
    const keyHash = conn.account?.keyHash;
    let admitted = false;
    try {
      if (sub.closed) return;
      const epoch = this.deps.position().epoch;
      if (from.epoch !== epoch) {
        throw new SnapshotError(
          'snapshot_required',
          `the position is of another log (epoch ${from.epoch}, now ${epoch})`,
        );
      }
      if (from.id > target)
        throw new SnapshotError('snapshot_required', `position ${from.id} is ahead of the log (${target})`);
      const max = this.opts.resumeMaxChanges;
      if (target - from.id > max) {
        throw new SnapshotError(
          'snapshot_required',
          `position ${from.id} is ${target - from.id} changes behind; a resume replays at most ${max}`,
        );
      }
      const ofKey = keyHash === undefined ? 0 : (this.replayingPerKey.get(keyHash) ?? 0);
      if (this.replaying >= this.opts.resumeMaxConcurrent || ofKey >= this.opts.resumeMaxPerKey) {
        throw new SnapshotError('resume_busy', 'too many resumes are replaying now; resume again shortly', 1);
      }
      admitted = true;
      this.replaying++;
      if (keyHash !== undefined) this.replayingPerKey.set(keyHash, ofKey + 1);
      const oldest = await this.deps.feed.oldestCursor();
      if (from.id < oldest) {
        throw new SnapshotError('snapshot_required', `position ${from.id} is older than the log kept (from ${oldest})`);
      }
      let replayed = 0;
      let after = from.id;
      for (;;) {
        after = await this.replayRange(conn, sub, after, target, (n) => (replayed += n));
        if (sub.closed || !sub.heldLost) break;
        // Live frames were dropped while replaying: read them from the log too, up to the head now.
        sub.heldLost = false;
        sub.held = [];
        target = this.head;
        cursors = cursorsJson(this.playCursors(sub));
        if (target - from.id > 2 * max) {
          throw new SnapshotError(
            'snapshot_required',
            `the client fell ${target - from.id} changes behind while resuming`,
          );
        }
      }
      conn.send(
        `{"type":"resume_complete","id":${sub.idJson},"channel":"${sub.channel}","position":${this.positionJson(target)},"replayed":${replayed},"cursors":${cursors}}`,
      );
    } catch (err) {
      this.snapshotError(conn, sub, err);
    } finally {
      if (admitted) {
        this.replaying--;
        if (keyHash !== undefined) {
          const n = (this.replayingPerKey.get(keyHash) ?? 1) - 1;
          if (n > 0) this.replayingPerKey.set(keyHash, n);
          else this.replayingPerKey.delete(keyHash);
        }
      }
      sub.resuming = false;
      sub.heldLost = false;
    }
    this.release(conn, sub, target);
  }

  /** Replays (after, upTo] page by page as the client takes them; returns where it stopped. */
  private async replayRange(
    conn: Connection,
    sub: Subscription,
    after: number,
    upTo: number,
    count: (n: number) => void,
  ): Promise<number> {
    while (after < upTo && !sub.closed) {
      const read = await this.deps.feed
        .read({ pricesOnly: false, afterId: after }, RESUME_PAGE, upTo)
        .catch((err: unknown) => {
          // Retention removed rows this replay was reading: it can no longer be whole.
          if (err instanceof CursorError) throw new SnapshotError('snapshot_required', err.message);
          throw err;
        });
      let n = 0;
      for (const frame of framesOf(read.rows, this.deps.catalog)) {
        if (!channelsOf(frame).includes(sub.channel) || !sub.matches(frame)) continue;
        conn.replay(sub, frame);
        n++;
      }
      count(n);
      if (read.lastId <= after) break;
      after = read.lastId;
      await conn.room(RESUME_PAGE / 2);
    }
    return after;
  }

  private snapshotSource(): SnapshotSource {
    return { view: this.deps.view, readPlays: this.deps.readPlays, catalog: this.deps.catalog };
  }

  private snapshotError(conn: Connection, sub: Subscription, err: unknown): void {
    const known = err instanceof SnapshotError;
    conn.send(
      JSON.stringify({
        type: 'snapshot_error',
        id: sub.id,
        code: known ? err.code : 'snapshot_failed',
        message: known ? err.message : 'the snapshot could not be read; request it again',
        ...(known && err.retryAfter !== undefined ? { retry_after: err.retryAfter } : {}),
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
            new SnapshotError(
              'snapshot_failed',
              `play ${frame.sequence} of ${frame.eventId} does not follow the snapshot (${expected - 1})`,
            ),
          );
          return;
        }
        next.set(frame.eventId, frame.sequence);
      }
      conn.enqueue(sub, frame);
    }
  }

  private receive(batch: CommittedBatch): void {
    // Dispatched already: a batch published while the hub was made at a head past it.
    if (batch.headId <= this.head) return;
    const head = this.head;
    const changes = batch.fromId < head ? batch.changes.filter((r) => r.id > head) : batch.changes;
    if (batch.fromId > head) {
      for (const conn of [...this.connections]) {
        conn.fail(null, 'stream_gap', 'the server missed part of the change log: reconnect and resume', CLOSES.gap);
      }
    }
    this.head = batch.headId;
    this.epochJson = JSON.stringify(batch.epoch);
    if (this.index.size === 0) return;
    const frames = framesOf(changes, this.deps.catalog);
    for (const frame of frames) this.dispatch(frame);
    // V1 line sets are read from the board, which holds exactly this batch's state only now.
    if (this.index.has('lines'))
      for (const frame of lineFramesOf(frames, this.deps.view, this.deps.catalog)) this.dispatch(frame);
  }

  private dispatch(frame: Frame): void {
    this.index.visit(frame, (sub) => {
      if (sub.matches(frame)) (sub.outbox as Connection).deliver(sub, frame);
    });
  }

  /**
   * Checks every streaming key again: a key revoked, expired, moved to a plan without streams, or
   * past a cap or its budget has its connections told why (in-band) and closed with
   * `policy_violation`, within one check period of the change; so has a connection whose page
   * session was signed out or expired.
   */
  async checkAccess(): Promise<void> {
    const recheck = this.deps.recheck;
    if (!recheck || this.checking) return;
    this.checking = true;
    try {
      const byKey = new Map<string, Connection[]>();
      for (const conn of this.connections) {
        const a = conn.account;
        if (!a || conn.closed) continue;
        const list = byKey.get(a.keyHash);
        if (list) list.push(conn);
        else byKey.set(a.keyHash, [conn]);
      }
      for (const conns of byKey.values()) {
        let denial: StreamDenial | undefined;
        try {
          denial = await recheck(conns[0]!.account!);
        } catch {
          // The key store did not answer (PostgreSQL restarting): the next period checks again.
          continue;
        }
        if (!denial) continue;
        for (const conn of conns) deny(conn, denial);
      }
      const recheckSession = this.deps.recheckSession;
      for (const [session, conns] of recheckSession ? bySession(this.connections) : []) {
        const denial = await recheckSession!(session);
        if (denial) for (const conn of conns) deny(conn, denial);
      }
    } finally {
      this.checking = false;
    }
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
    clearInterval(this.accessTimer);
    this.stopListening();
    for (const conn of [...this.connections]) conn.close(CLOSES.shutdown);
  }
}

function deny(conn: Connection, denial: StreamDenial): void {
  if (conn.closed) return;
  conn.denied = true;
  conn.fail(null, denial.code, denial.message, { code: CLOSES.policy.code, reason: denial.reason });
}

/** The open connections opened with a page session, by session. */
function bySession(connections: Iterable<Connection>): Map<string, Connection[]> {
  const out = new Map<string, Connection[]>();
  for (const conn of connections) {
    if (conn.session === undefined || conn.closed) continue;
    const list = out.get(conn.session);
    if (list) list.push(conn);
    else out.set(conn.session, [conn]);
  }
  return out;
}
