import type { Bus, CommittedBatch } from '../bus/bus.ts';
import { changesEvent, type ChangeRecord, type LogPosition } from '../changelog/change.ts';
import type { Store } from '../store/store.ts';
import { applyRows } from './apply.ts';
import type { Board } from './board.ts';
import { type LoadOptions, loadCommitted } from './load.ts';

export interface FollowerOptions extends LoadOptions {
  /** Where a failed read of the store goes (it is retried). */
  onError: (err: unknown) => void;
  /** Told of every batch applied, with its newest row's commit time (the lag metric). */
  onApplied?: (committedMs: number) => void;
  /** Rows read from the store per page when a gap is filled. */
  fillPage?: number;
  /** The wait before a failed read of the store is tried again, doubled up to `retryMaxMs`. */
  retryMs?: number;
  retryMaxMs?: number;
  /** Batches that may wait while the store is away; older ones are let go (the store has them). */
  maxWaiting?: number;
}

/** Where the follower stands: `following` once it applied everything it was handed. */
export type FollowState = 'following' | 'filling' | { waitingForStore: string };

/**
 * The board of a node without a ledger (an API node): loaded from the store as a restart loads it, then kept current from the cluster bus, each batch applied through apply.ts
 * as the writer applied it. The batches it applies go on, without gaps or repeats, to `local`,
 * which the node's change feed and streams read as a writer's read its ledger's.
 *
 * Order of the start: the bus is subscribed to first and its batches held, then the store is
 * loaded, then the held batches are applied: those at or below the loaded head are skipped, and a
 * batch that starts past the board's head (a gap: Redis dropped or trimmed part of the stream) is
 * preceded by the missing range read from the store, so the board never holds a hole. A read of the
 * store that fails (PostgreSQL away) is retried with backoff; batches wait meanwhile, and past
 * `maxWaiting` the oldest are let go, to be read from the store with the gap.
 */
export class Follower {
  private readonly waiting: CommittedBatch[] = [];
  private running: Promise<void> | undefined;
  private readonly unsubscribe: () => void;
  private epoch = '';
  private started = false;
  private stopped = false;
  state: FollowState = 'filling';

  private constructor(
    private readonly store: Store,
    private readonly board: Board,
    bus: Bus,
    private readonly local: Bus,
    private readonly opts: FollowerOptions,
  ) {
    this.unsubscribe = bus.subscribe((batch) => this.hand(batch));
  }

  /**
   * Subscribes to `bus` and loads `board` from `store`. Batches are held until `start`, so that
   * whatever reads `local` can subscribe to it first.
   */
  static async open(store: Store, board: Board, bus: Bus, local: Bus, opts: FollowerOptions): Promise<Follower> {
    const follower = new Follower(store, board, bus, local, opts);
    try {
      follower.epoch = (await loadCommitted(store, board, opts)).epoch;
    } catch (err) {
      follower.stop();
      throw err;
    }
    return follower;
  }

  /** Applies the batches held since `open`, and each one as it comes from then on. */
  start(): Promise<void> {
    this.started = true;
    return this.drain();
  }

  /** The newest position the board holds. */
  get position(): LogPosition {
    return { id: this.board.head, epoch: this.epoch };
  }

  /** Resolves once every batch handed in so far has been applied (or the follower stopped). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Stops following and brings the board up to `headId`: a standby that took the writer lock hands
   * its board to its own ledger, and reads the store's head only then, when no one else can commit.
   * Batches still on their way from the writer that died are not waited for: their rows are read
   * from the store, and handed on to `local` as every batch was. A failed read is tried again.
   */
  async handOver(headId: number): Promise<void> {
    this.unsubscribe();
    await this.settled();
    this.waiting.length = 0;
    for (let retryMs = this.opts.retryMs ?? 500; ; retryMs = Math.min(retryMs * 2, this.opts.retryMaxMs ?? 5000)) {
      try {
        await this.fill(headId);
        break;
      } catch (err) {
        if (this.stopped) throw err;
        this.opts.onError(err);
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
    this.stopped = true;
    this.state = 'following';
  }

  /** Stops following: batches are no longer taken from the bus. */
  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
    this.unsubscribe();
  }

  private hand(batch: CommittedBatch): void {
    if (this.stopped) return;
    this.waiting.push(batch);
    const max = this.opts.maxWaiting ?? 10_000;
    if (this.waiting.length > max) this.waiting.splice(0, this.waiting.length - max);
    // Held until `start`.
    if (this.started) void this.drain();
  }

  /** Applies the waiting batches one after another; one drain runs at a time. */
  private drain(): Promise<void> {
    this.running ??= this.applyWaiting().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async applyWaiting(): Promise<void> {
    let retryMs = this.opts.retryMs ?? 500;
    while (this.waiting.length > 0 && !this.stopped) {
      const batch = this.waiting[0]!;
      try {
        await this.apply(batch);
        // Unless `maxWaiting` let it go meanwhile (its rows then came with the next one's gap).
        if (this.waiting[0] === batch) this.waiting.shift();
        retryMs = this.opts.retryMs ?? 500;
        this.state = 'following';
      } catch (err) {
        this.state = { waitingForStore: String((err as Error).message ?? err) };
        this.opts.onError(err);
        await new Promise((r) => setTimeout(r, retryMs));
        retryMs = Math.min(retryMs * 2, this.opts.retryMaxMs ?? 5000);
      }
    }
    if (this.waiting.length === 0 && this.state === 'filling') this.state = 'following';
  }

  private async apply(batch: CommittedBatch): Promise<void> {
    if (batch.headId <= this.board.head) return;
    this.epoch = batch.epoch;
    if (batch.fromId > this.board.head) {
      this.state = 'filling';
      await this.fill(batch.fromId);
    }
    const from = this.board.head;
    this.pass(batch.fromId === from ? batch.changes : batch.changes.filter((r) => r.id > from), batch.headId);
  }

  /** Reads the rows after the board's head up to `toId` from the store and applies them. */
  private async fill(toId: number): Promise<void> {
    const page = this.opts.fillPage ?? 5000;
    while (this.board.head < toId) {
      const rows = await this.store.readChanges({ pricesOnly: false, afterId: this.board.head, toId, limit: page });
      if (this.stopped) return;
      // No row left in the range: ids need not be dense (a restore's gap), the head moves on.
      this.pass(rows, rows.length < page ? toId : rows.at(-1)!.id);
    }
  }

  /** Applies rows above the head, moves the head to `headId`, and hands the batch on. */
  private pass(rows: ChangeRecord[], headId: number): void {
    const fromId = this.board.head;
    applyRows(this.board, rows, this.opts.observe);
    this.board.head = headId;
    const eventIds = new Set<string>();
    for (const r of rows) if (changesEvent(r.kind)) eventIds.add(r.event_id);
    const last = rows.at(-1);
    if (last) this.opts.onApplied?.(last.committed_ms);
    this.local.publish({ epoch: this.epoch, fromId, headId, changes: rows, eventIds: [...eventIds] });
  }
}
