import { randomUUID } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import type { CounterEntry } from '../../store/counters.ts';
import type { CounterChange, SavedCounters } from './counters.ts';
import { EXCHANGE_SCRIPT } from './redis-counter-script.ts';
import { nearCeiling } from '../../perf/send-gap.ts';

export interface RedisCountersOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
  url: string;
  /**
   * The ioredis client class, handed in so that only a process that uses Redis loads ioredis
   * (importing it takes 0.2-0.4 s of a start): `(await import('ioredis')).Redis`.
   */
  driver: typeof Redis;
  /** Prefix of the counters' Redis keys and name of their channel; nodes of one cluster share it. */
  prefix?: string;
  now?: () => number;
  /** Where Redis failures go (reported once per outage). */
  onError?: (err: unknown) => void;
  /** Counters shared between nodes but never saved (`takeChanged` leaves them out): per-second windows. */
  unsaved?: (key: string) => boolean;
  /**
   * The least ms between two sends of changes while one that waits is near its counter's ceiling
   * (`nearCeiling`, src/perf/send-gap.ts) or is a set (default 0: each as soon as the previous one
   * is answered).
   */
  sendGapMs?: number;
  /** The least ms between two sends otherwise (default and at least `sendGapMs`). */
  farSendGapMs?: number;
  /**
   * Options for both connections beyond the URL. `connectionName` prefixes their names
   * (`<name>:counters`, `<name>:counters-sub`; default `oddsbase`).
   */
  redis?: RedisOptions;
}

/** One counter as this node sees it. */
interface View {
  /** The value and expiry in the last message about it (every node's changes up to that point). */
  confirmed: number;
  confirmedExp: number;
  /** The value a `set` of this node gave it, until the message of that exchange arrives. */
  override: number | undefined;
  overrideOp: Op | undefined;
  /** This node's increments since `confirmed` (or the override), not yet in a message. */
  unseen: number;
  /** Bumped by a `set`: increments made before it no longer count in `unseen`. */
  gen: number;
  expiresAt: number;
  /** Whether this node saves its changes (`takeChanged`): decided once per counter, not per change. */
  saved: boolean;
}

/** A change of one counter on its way to Redis: an optional set, then an increment. */
interface Op {
  key: string;
  view: View;
  gen: number;
  set: number | undefined;
  add: number;
  expiresAt: number;
}

/** One call of the script, until the message it published comes back. */
interface Exchange {
  seq: number;
  ops: Op[];
  sentAt: number;
  acked: boolean;
}

/** Counters changed per call of the script. */
const CHUNK = 500;
/** How often the background work looks at what waits: retries, lost messages, the sweep. */
const TICK_MS = 250;
/** An exchange whose message has not come back in this time (its subscription dropped) is caught up on. */
const LOST_MS = 1000;
const SWEEP_MS = 60_000;
/**
 * Calls whose message has not come back, past which changes wait in `pending` (merged per counter)
 * instead: a subscription that stays away must not make the list of calls grow without end.
 */
const MAX_UNSEEN_EXCHANGES = 256;
/**
 * How long another node counts among those sharing the counters after its last message (at least;
 * four far gaps when longer): a node with changes to send sends at least once a far gap.
 */
const HEARD_MS = 2000;

interface Message {
  n: string;
  s: number;
  k: [string, number, number][] | Record<string, never>;
}

/**
 * Counters shared by the nodes of a cluster through Redis, for the request path without a round
 * trip: every call reads and changes a local view at once, and the changes go to Redis in the
 * background, one call of a Lua script at a time (whatever gathered meanwhile goes in the next).
 * The script applies them atomically and publishes the results; every node applies the messages in
 * Redis's order, so a view is exactly Redis's state as of the last message plus this node's own
 * changes not yet in one. How far nodes differ is the time of one exchange (well under a
 * millisecond on a local network, plus the event loop's turn) and the gap kept between two sends,
 * in which a node's changes gather into one call: `sendGapMs` while a change that waits is near its
 * counter's ceiling (the caller names it in `incr`; `nearCeiling` with the nodes heard from lately)
 * or is a set, `farSendGapMs` otherwise.
 *
 * Failures: while Redis is away the view keeps counting and the changes wait, merged per counter
 * (their number bounded by the counters in use), and go when it is back. A call that failed after
 * Redis ran it is sent again, so a counter may then count those changes twice: a refused request
 * or a billed point too many, never one lost. A Redis that restarted empty is filled again from the
 * nodes' views (the script's seed); a dropped subscription is caught up on by asking for the value
 * of every counter in view. Values and expiries follow the caller's clock, as the memory counters.
 */
export class RedisCounters implements SavedCounters {
  private readonly views = new Map<string, View>();
  private readonly pending = new Map<string, Op>();
  private readonly exchanges: Exchange[] = [];
  /** This node's own changes since the last `takeChanged`: what it saves, so no node saves another's. */
  private readonly toSave = new Map<string, CounterChange>();
  private readonly node = randomUUID();
  private readonly prefix: string;
  private readonly channel: string;
  private readonly now: () => number;
  private readonly onError: (err: unknown) => void;
  private readonly unsaved: (key: string) => boolean;
  private readonly nearGapMs: number;
  private readonly farGapMs: number;
  /** A change that waits is near its ceiling, or a set: what waits goes at the near gap. */
  private hurry = false;
  /** When the last call of the script was made (wall clock), for the gap between sends. */
  private lastSendAt = -Infinity;
  /** Set while changes wait for the gap since the last send to pass. */
  private gapTimer: NodeJS.Timeout | undefined;
  /** Whether `gapTimer` waits for the far gap, so that a hurry may cut it short. */
  private gapTimerFar = false;
  /** Other nodes by id: when their last message came (wall clock). */
  private readonly heard = new Map<string, number>();
  /** The nodes counting: this one and those heard from lately. */
  private nodes = 1;
  private readonly heardMs: number;
  private readonly cmd: Redis & { exchange(...args: (string | number)[]): Promise<number> };
  private readonly sub: Redis;
  private seq = 0;
  private busy = false;
  private scheduled = false;
  /** Every counter in view is to be asked for: the subscription (re)started or a message was lost. */
  private catchUp = true;
  private caughtUpAt = 0;
  /** Empty exchanges asked for by `settled`, each a barrier behind every earlier change in Redis. */
  private barriers = 0;
  private failing = false;
  private closed = false;
  private lastSweep = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly waiters: (() => void)[] = [];
  private subscribed = false;

  constructor(options: RedisCountersOptions) {
    this.prefix = options.prefix ?? 'oddsbase:counter:';
    this.channel = `${this.prefix}changes`;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
    this.unsaved = options.unsaved ?? (() => false);
    this.nearGapMs = options.sendGapMs ?? 0;
    this.farGapMs = Math.max(this.nearGapMs, options.farSendGapMs ?? this.nearGapMs);
    this.heardMs = Math.max(HEARD_MS, 4 * this.farGapMs);
    const name = options.redis?.connectionName ?? 'oddsbase';
    const cmd = new options.driver(options.url, {
      ...options.redis,
      connectionName: `${name}:counters`,
      // Changes wait in `pending`, merged, not in the driver's queue: fail at once while disconnected.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    cmd.defineCommand('exchange', { lua: EXCHANGE_SCRIPT });
    this.cmd = cmd as typeof this.cmd;
    this.sub = new options.driver(options.url, { ...options.redis, connectionName: `${name}:counters-sub` });
    this.watch(this.cmd, 'exchange');
    this.watch(this.sub, 'subscription');
    this.cmd.on('ready', () => this.schedule());
    this.sub.on('ready', () => {
      // A new subscription missed what was published while it was away.
      this.catchUp = true;
      this.schedule();
    });
    this.sub.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
    this.sub.subscribe(this.channel).then(
      () => {
        this.subscribed = true;
        this.schedule();
      },
      (err: unknown) => this.fail(err),
    );
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  incr(key: string, by: number, expiresAtMs: number, ceiling?: number): number {
    const t = this.now();
    let v = this.views.get(key);
    const renewed = !v || v.expiresAt <= t;
    if (renewed) {
      // Expired: it counts again from 0, in Redis as here (the script reads it as 0 too).
      v = this.fresh(key);
      this.views.set(key, v);
    }
    v!.unseen += by;
    v!.expiresAt = expiresAtMs;
    const op = this.opFor(key, v!);
    op.add += by;
    op.expiresAt = expiresAtMs;
    // What was unsaved of its earlier life is dropped with it: an expired counter reads 0 everywhere.
    if (renewed) this.toSave.delete(key);
    if (v!.saved) this.noteChange(key, undefined, by, expiresAtMs);
    const value = valueOf(v!, t);
    if (ceiling !== undefined && !this.hurry && nearCeiling(value, ceiling, this.nodes)) this.hurry = true;
    this.schedule();
    return value;
  }

  get(key: string): number {
    const v = this.views.get(key);
    const t = this.now();
    return v && v.expiresAt > t ? valueOf(v, t) : 0;
  }

  set(key: string, value: number, expiresAtMs: number): void {
    let v = this.views.get(key);
    if (!v) {
      v = this.fresh(key);
      this.views.set(key, v);
    }
    v.gen++;
    v.unseen = 0;
    v.expiresAt = expiresAtMs;
    const op: Op = { key, view: v, gen: v.gen, set: value, add: 0, expiresAt: expiresAtMs };
    v.override = value;
    v.overrideOp = op;
    this.pending.delete(key);
    this.pending.set(key, op);
    // Sets are rare (a failed-key window opened, an operator's value): none waits a far gap.
    this.hurry = true;
    if (v.saved) this.noteChange(key, value, 0, expiresAtMs);
    this.schedule();
  }

  restore(entries: Iterable<CounterEntry>): void {
    for (const e of entries) {
      const v = this.views.get(e.key) ?? this.fresh(e.key);
      v.confirmed = e.value;
      v.confirmedExp = e.expiresAt;
      v.expiresAt = Math.max(v.expiresAt, e.expiresAt);
      this.views.set(e.key, v);
    }
    // Seeds Redis where it has none of them, and reads the values the other nodes made since.
    this.catchUp = true;
    this.schedule();
  }

  /**
   * This node's own increments and sets since the last call, not the values it sees: every node
   * saves what it counted, so the saved total is each node's count once, in whatever order nodes
   * save, whether Redis is there or not.
   */
  takeChanged(): CounterChange[] {
    const out = [...this.toSave.values()];
    this.toSave.clear();
    return out;
  }

  private noteChange(key: string, set: number | undefined, added: number, expiresAt: number): void {
    const before = this.toSave.get(key);
    if (!before || set !== undefined) {
      this.toSave.set(key, { key, set, added, expiresAt });
      return;
    }
    before.added += added;
    before.expiresAt = expiresAt;
  }

  /**
   * Resolves once this node's changes so far are in Redis and this node has seen every change
   * Redis ran before that: after it on every node in turn, each node holds every earlier change.
   */
  settled(): Promise<void> {
    this.barriers++;
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.schedule();
    return done;
  }

  /** Resolves once the subscription is in place and the counters restored so far are exchanged. */
  ready(): Promise<void> {
    return this.settled();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.gapTimer);
    this.sub.disconnect();
    // The last changes go out if Redis is there; the saved copy (CounterStore) has them anyway.
    if (this.pending.size > 0 && this.cmd.status === 'ready') await this.send(this.takeOps()).catch(() => {});
    for (const w of this.waiters.splice(0)) w();
    await this.cmd.quit().catch(() => this.cmd.disconnect());
  }

  private fresh(key: string): View {
    return {
      confirmed: 0,
      confirmedExp: 0,
      override: undefined,
      overrideOp: undefined,
      unseen: 0,
      gen: 0,
      expiresAt: 0,
      saved: !this.unsaved(key),
    };
  }

  private opFor(key: string, v: View): Op {
    const op = this.pending.get(key);
    if (op && op.view === v && op.gen === v.gen) return op;
    // A pending change of an earlier life of the counter (before it expired) is dropped with it.
    const fresh: Op = { key, view: v, gen: v.gen, set: undefined, add: 0, expiresAt: v.expiresAt };
    this.pending.set(key, fresh);
    return fresh;
  }

  private schedule(): void {
    if (this.scheduled || this.busy || this.closed) return;
    // Changes that wait for the gap go when it ends; only a barrier, a catch-up or a hurry (which
    // shortens a far gap to the near one) goes before.
    if (this.gapTimer && !this.catchUp && this.barriers === 0 && !(this.hurry && this.gapTimerFar)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.pump();
    });
  }

  /** Sends what waits, one call at a time, while the connection is up. */
  private async pump(): Promise<void> {
    if (this.busy || this.closed || !this.subscribed || this.cmd.status !== 'ready') return;
    this.busy = true;
    try {
      while (!this.closed) {
        if (this.catchUp) {
          this.catchUp = false;
          this.caughtUpAt = Date.now();
          const ops = this.catchUpOps();
          for (let i = 0; i < ops.length || i === 0; i += CHUNK) await this.send(ops.slice(i, i + CHUNK));
        } else if (this.pending.size > 0 && this.exchanges.length < MAX_UNSEEN_EXCHANGES) {
          // A barrier promises this node's changes so far: they go with it, whatever the gap.
          const gap = this.barriers > 0 ? 0 : this.hurry ? this.nearGapMs : this.farGapMs;
          const wait = this.lastSendAt + gap - Date.now();
          if (wait > 0) {
            this.waitForGap(wait, gap);
            break;
          }
          await this.send(this.takeOps());
        } else if (this.barriers > 0) {
          this.barriers = 0;
          await this.send([]);
        } else {
          break;
        }
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.busy = false;
    }
  }

  private waitForGap(ms: number, gap: number): void {
    const far = gap > this.nearGapMs;
    if (this.gapTimer) {
      // A far wait is cut short by a hurry; any other wait set already ends soon enough.
      if (far || !this.gapTimerFar) return;
      clearTimeout(this.gapTimer);
    }
    this.gapTimerFar = far;
    // Never longer than the gap, should the wall clock step back.
    this.gapTimer = setTimeout(
      () => {
        this.gapTimer = undefined;
        this.schedule();
      },
      Math.min(ms, gap),
    );
    // The gap holds no process open: close() sends what waits.
    this.gapTimer.unref();
  }

  private takeOps(): Op[] {
    const ops: Op[] = [];
    for (const [key, op] of this.pending) {
      if (ops.length >= CHUNK) break;
      ops.push(op);
      this.pending.delete(key);
    }
    if (this.pending.size === 0) this.hurry = false;
    return ops;
  }

  /** A `g` op per counter in view: their values, and Redis filled from them where it lost them. */
  private catchUpOps(): Op[] {
    const t = this.now();
    const ops: Op[] = [];
    for (const [key, v] of this.views) {
      if (v.expiresAt > t) ops.push({ key, view: v, gen: -1, set: undefined, add: 0, expiresAt: v.expiresAt });
    }
    return ops;
  }

  private async send(ops: Op[]): Promise<void> {
    const t = this.now();
    const ex: Exchange = { seq: ++this.seq, ops, sentAt: Date.now(), acked: false };
    this.lastSendAt = ex.sentAt;
    this.exchanges.push(ex);
    const keys: string[] = [];
    const args: (string | number)[] = [t, this.channel, this.node, ex.seq];
    for (const op of ops) {
      const v = op.view;
      const seedOk = v.override === undefined && v.confirmedExp > t;
      keys.push(this.prefix + op.key);
      args.push(
        op.gen === -1 ? 'g' : op.set === undefined ? 'i' : 's',
        op.set === undefined ? op.add : op.set,
        op.expiresAt,
        seedOk ? v.confirmed : 0,
        seedOk ? v.confirmedExp : 0,
      );
    }
    try {
      await this.cmd.exchange(keys.length, ...keys, ...args);
      this.failing = false;
    } catch (err) {
      if (!ex.acked) this.giveBack(ex);
      throw err;
    }
  }

  /** A failed call's changes wait again, before whatever was changed since; late already, they wait no far gap. */
  private giveBack(ex: Exchange): void {
    this.exchanges.splice(this.exchanges.indexOf(ex), 1);
    for (const op of ex.ops) {
      if (op.gen === -1) {
        this.catchUp = true;
        continue;
      }
      this.hurry = true;
      const later = this.pending.get(op.key);
      if (!later) {
        this.pending.set(op.key, op);
      } else if (later.view === op.view && later.gen === op.gen) {
        // Same life and no set since: the earlier change goes first, in one op.
        later.set = op.set;
        later.add += op.add;
        if (op.view.overrideOp === op) op.view.overrideOp = later;
      }
    }
  }

  private receive(text: string): void {
    let msg: Message;
    try {
      msg = JSON.parse(text) as Message;
    } catch (err) {
      this.onError(err);
      return;
    }
    const results = Array.isArray(msg.k) ? msg.k : [];
    for (const [redisKey, value, expiresAt] of results) {
      const key = redisKey.slice(this.prefix.length);
      let v = this.views.get(key);
      if (!v) {
        v = this.fresh(key);
        this.views.set(key, v);
      }
      v.confirmed = value;
      v.confirmedExp = expiresAt;
      if (v.unseen === 0 && v.override === undefined && !this.pending.has(key)) v.expiresAt = expiresAt;
    }
    if (msg.n === this.node) {
      this.acknowledge(msg.s);
    } else {
      const known = this.heard.has(msg.n);
      this.heard.set(msg.n, Date.now());
      if (!known) this.nodes = this.heard.size + 1;
    }
  }

  /** This node's calls up to `seq` are in the message just applied: their changes are no longer unseen. */
  private acknowledge(seq: number): void {
    while (this.exchanges.length > 0 && this.exchanges[0]!.seq <= seq) {
      const ex = this.exchanges.shift()!;
      ex.acked = true;
      for (const op of ex.ops) {
        const v = op.view;
        if (op.gen !== v.gen) continue;
        v.unseen -= op.add;
        if (v.overrideOp === op) {
          v.override = undefined;
          v.overrideOp = undefined;
        }
      }
    }
    if (this.exchanges.length === 0 && this.pending.size === 0 && !this.catchUp && this.barriers === 0) {
      for (const w of this.waiters.splice(0)) w();
    }
    this.schedule();
  }

  private tick(): void {
    const t = this.now();
    const oldest = this.exchanges[0];
    // Its message never came (the subscription dropped meanwhile): ask for the values again.
    const wall = Date.now();
    if (oldest && wall - oldest.sentAt > LOST_MS && wall - this.caughtUpAt > LOST_MS) this.catchUp = true;
    if (t - this.lastSweep >= SWEEP_MS) this.sweep(t);
    for (const [node, at] of this.heard) if (wall - at > this.heardMs) this.heard.delete(node);
    this.nodes = this.heard.size + 1;
    this.schedule();
  }

  private sweep(t: number): void {
    this.lastSweep = t;
    for (const [key, v] of this.views) {
      if (v.expiresAt <= t && !this.pending.has(key) && v.unseen === 0 && v.override === undefined)
        this.views.delete(key);
    }
  }

  /** Reports a connection's first error of an outage; ioredis reconnects on its own. */
  private watch(conn: Redis, role: string): void {
    let down = false;
    const report = (why: string) => {
      if (down || this.closed) return;
      down = true;
      this.onError(new Error(`Redis counters, ${role} connection: ${why}`));
    };
    conn.on('error', (err: Error) => report(err.message));
    conn.on('close', () => report('closed; reconnecting'));
    conn.on('ready', () => (down = false));
  }

  private fail(err: unknown): void {
    if (this.failing || this.closed) return;
    this.failing = true;
    this.onError(err);
  }
}

function valueOf(v: View, t: number): number {
  const base = v.override ?? (v.confirmedExp > t ? v.confirmed : 0);
  return base + v.unseen;
}
