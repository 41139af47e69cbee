import { type Applied, type ApplyObserver, applyChange, applyPlannedPrice, type LoadProgress } from '../board/apply.ts';
import type { Board } from '../board/board.ts';
import { type LoadedLog, loadCommitted } from '../board/load.ts';
import type { Bus } from '../bus/bus.ts';
import type { ChangeRecord, CommittedBatch, LogPosition } from '../changelog/change.ts';
import type { RecordedBatch } from '../changelog/recording.ts';
import { LogFloor } from '../board/log-floor.ts';
import type { CompactResult, CompactStep } from '../store/retention.ts';
import { openCommit } from '../store/open-commit.ts';
import type { CommitRest, OpenCommit, Store } from '../store/store.ts';
import { BatchPlan } from './batch-plan.ts';
import { BatchPlanner } from './batch-planner.ts';
import { FuturesUpdateError } from './futures-plan.ts';
import { LedgerError } from './ledger-errors.ts';
import { planRecorded } from './recorded-plan.ts';
import { ARCHIVED_HEADERS_MS, archiveFinished, compactStep } from './retention-steps.ts';
import type { BatchOutcome, LedgerSink, RecordedSink, UpdateBatch } from './updates.ts';
import { validateBatch } from './validate.ts';
import { WriteQueue } from './write-queue.ts';
import { batchTurn } from '../perf/batch-turn.ts';

export { LedgerBusyError, LedgerError } from './ledger-errors.ts';

/**
 * Updates planned between two hand-overs of rows to an open commit (Store.openCommit): small enough
 * that PostgreSQL starts on a batch's rows soon, large enough that the turns of the loop between
 * parts cost nothing next to planning them.
 */
const PLAN_PART = 250;

/** A turn of the event loop: the store's socket is written and its answers read. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface LedgerOptions {
  now?: () => number;
  /** Batches that may wait for their commit at once; past it `apply` refuses (back-pressure). */
  maxQueuedBatches?: number;
  /** Told of every change applied to the board, with what it replaced (delayed views). */
  observe?: ApplyObserver;
  /**
   * Changes committed at or after this time (epoch ms) are applied again at start, through
   * `observe`, so that the delayed views know what they replaced across a restart.
   */
  replaySinceMs?: number;
  /**
   * Told of every store commit: the rows it wrote and the seconds it took, or that it failed (then
   * nothing was written). A batch the ledger itself refuses never reaches the store and is not told.
   */
  onCommit?: (rows: number, seconds: number, failed: boolean) => void;
  /** What the log keeps whole, raised around each compaction step for the readers. */
  floor?: LogFloor;
  /**
   * New ids continue above this when it is past the log's last row: a restored log's gap
   * (`EpochGap.to`), so the head the readers hand out is already the new epoch's.
   */
  idsAbove?: number;
  /**
   * The board is loaded already (a board snapshot, src/board/board-snapshot.ts): where the log
   * stands, so `open` does not load the store again.
   */
  loaded?: LoadedLog;
  /** Told how far `open`'s load of the store is (board/load.ts). */
  onLoadProgress?: (p: LoadProgress) => void;
}

/**
 * The single writer. For each batch it plans the change rows from the committed state
 * (batch-planner.ts) without touching the board, commits them to the store, and only then applies
 * them to the board and publishes them. Batches go through one queue (write-queue.ts), so ids stay
 * in commit order with an asynchronous store; a refused commit leaves nothing visible.
 */
export class Ledger implements LedgerSink, RecordedSink {
  private lastCommitMs = 0;
  private epoch = '';
  private readonly planner = new BatchPlanner();
  private readonly queue: WriteQueue;
  private readonly now: () => number;
  private readonly observe: ApplyObserver | undefined;
  private readonly onCommit: NonNullable<LedgerOptions['onCommit']>;
  private readonly floor: LogFloor;

  private constructor(
    private readonly store: Store,
    private readonly board: Board,
    private readonly bus: Bus,
    opts: LedgerOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.queue = new WriteQueue(opts.maxQueuedBatches ?? 64, batchTurn);
    this.observe = opts.observe;
    this.onCommit = opts.onCommit ?? (() => {});
    this.floor = opts.floor ?? new LogFloor();
  }

  /** Loads the committed state into `board` (board/load.ts) and returns the writer of that store. */
  static async open(store: Store, board: Board, bus: Bus, opts: LedgerOptions = {}): Promise<Ledger> {
    const loaded =
      opts.loaded ??
      (await loadCommitted(store, board, {
        ...(opts.replaySinceMs === undefined ? {} : { replaySinceMs: opts.replaySinceMs }),
        ...(opts.observe ? { observe: opts.observe } : {}),
        archivedSinceMs: (opts.now ?? Date.now)() - ARCHIVED_HEADERS_MS,
        idsAbove: opts.idsAbove,
        onProgress: opts.onLoadProgress,
      }));
    return Ledger.continuing(store, board, bus, opts, loaded);
  }

  /**
   * The writer of a store whose committed state `board` already holds up to the store's head (a
   * standby that followed the writer it takes over from, or a start from a board snapshot), going
   * on from `log`. The caller reads `log` once no one else can write (it holds the store's writer
   * lock), so no id is handed out twice.
   */
  static continuing(store: Store, board: Board, bus: Bus, opts: LedgerOptions, log: LoadedLog): Ledger {
    const ledger = new Ledger(store, board, bus, opts);
    ledger.epoch = log.epoch;
    ledger.lastCommitMs = log.headCommittedMs;
    ledger.planner.restart(log.maxMarketId + 1, log.maxPriceId + 1);
    return ledger;
  }

  get headId(): number {
    return this.board.head;
  }

  /** Where the writer's counters stand, as a load of the store would find them (for a board snapshot). */
  get counters(): LoadedLog {
    return {
      epoch: this.epoch,
      headCommittedMs: this.lastCommitMs,
      maxMarketId: this.planner.nextMarketId - 1,
      maxPriceId: this.planner.nextPriceId - 1,
    };
  }

  /** The newest committed position of the log. */
  get position(): LogPosition {
    return { id: this.board.head, epoch: this.epoch };
  }

  /** Batches handed in and not yet committed. */
  get backlog(): number {
    return this.queue.backlog;
  }

  /** One step of retention's compaction of the store (store/retention.ts), between two batches. */
  compact(step: CompactStep): Promise<CompactResult> {
    return this.queue.serial(() => compactStep(this.store, this.board, this.floor, step));
  }

  /**
   * Archives the events that are over and quiet since `finishedBeforeMs` (retention-steps.ts),
   * between two batches. Returns how many left the board.
   */
  archiveFinished(finishedBeforeMs: number, headersBeforeMs: number): Promise<number> {
    return this.queue.serial(() =>
      archiveFinished(this.store, this.board, this.now, finishedBeforeMs, headersBeforeMs),
    );
  }

  /** Resolves once every batch handed in so far has been committed or refused. */
  settled(): Promise<void> {
    return this.queue.settled();
  }

  /**
   * Commits a batch after those handed in before it. Resolves once the batch is committed, on the
   * board and published; rejects, with nothing written, when the batch is invalid or the store
   * refuses it, and at once with LedgerBusyError when `maxQueuedBatches` are already waiting.
   */
  async apply(batch: UpdateBatch): Promise<void> {
    await this.applyNamed(batch);
  }

  /**
   * As `apply`, and says whether the batch was committed now or, named by a `batch_id` the store
   * already keeps, had been before: then nothing is written and the head it left is given.
   */
  applyNamed(batch: UpdateBatch): Promise<BatchOutcome> {
    return this.queue.admit(() => this.commit(batch));
  }

  /**
   * Commits rows of a recorded change log as they were recorded (a replay), after everything handed
   * in before: ids, times, payloads and details are kept, so every read of them gives the bytes the
   * recorded log gave. The rows must continue this log: ids above its head, commit times not before
   * its last, events known or made by the rows. The event records and market instances the store
   * keeps beside the rows are derived from them as a batch's plan derives them; then the rows are
   * applied to the board by the function a restart uses, observed and published. A recorded named
   * batch is kept with them as it was (its id, head and time), so the id sent again applies nothing;
   * one the store keeps already (a replay finished with `--append`) is left as it is. Back-pressure
   * as `apply`.
   */
  applyRecorded(rows: readonly ChangeRecord[], batch?: RecordedBatch): Promise<void> {
    return this.queue.admit(() => this.commitRecorded(rows, batch));
  }

  private async commitRecorded(rows: readonly ChangeRecord[], batch: RecordedBatch | undefined): Promise<void> {
    const named = batch !== undefined && (await this.store.batchHead(batch.batch_id)) === undefined;
    if (rows.length === 0) {
      if (named) {
        const mark = { id: batch.batch_id, headId: batch.head_id, committedMs: batch.committed_ms };
        await this.store.commit({ changes: [], markets: [], events: [], batch: mark });
      }
      return;
    }
    const { nextMarketId, nextPriceId } = this.planner;
    const recorded = planRecorded(this.board, rows, this.lastCommitMs, nextMarketId, nextPriceId);
    if (named) recorded.commit.batch = { id: batch.batch_id, headId: batch.head_id, committedMs: batch.committed_ms };
    const started = performance.now();
    try {
      await this.store.commit(recorded.commit);
    } catch (err) {
      this.onCommit(0, 0, true);
      throw err;
    }
    this.onCommit(rows.length, (performance.now() - started) / 1000, false);
    this.lastCommitMs = recorded.lastMs;
    this.planner.restart(recorded.nextMarketId, recorded.nextPriceId);
    const fromId = this.board.head;
    for (let i = 0; i < rows.length; i++) {
      const applied = applyChange(this.board, recorded.changes[i]!);
      if (applied && this.observe) this.observe(rows[i]!, applied);
      this.board.head = rows[i]!.id;
    }
    this.bus.publish({
      epoch: this.epoch,
      fromId,
      headId: recorded.head,
      changes: [...rows],
      eventIds: [...recorded.touched.keys()],
    });
  }

  /**
   * A named batch is not looked up before its commit: the commit keeps its name in the same
   * transaction and the store refuses a name it keeps (Commit.batch), so the name is read only
   * when the batch fails, refused by the store or no longer valid (its event archived since it was
   * committed). Either way a name found kept means the batch was applied before, once.
   */
  private async commit(batch: UpdateBatch): Promise<BatchOutcome> {
    const named = batch.batch_id;
    try {
      return await this.commitNew(batch);
    } catch (err) {
      const refused = err instanceof CommitRefused;
      const before = named === undefined ? undefined : await this.store.batchHead(named).catch(() => undefined);
      if (before !== undefined) return { applied: false, headId: before };
      if (refused) this.onCommit(0, 0, true);
      throw refused ? err.cause : err;
    }
  }

  /**
   * Checks and plans `batch` a part at a time, each part's rows handed to `open` as it is planned,
   * then finishes `open`; or says what the batch leaves when it has nothing to commit. Throws with
   * nothing committed, the ids of the plan handed out again, when the batch is invalid or the
   * store refuses it (CommitRefused). The board is not touched.
   */
  private async planAndCommit(
    batch: UpdateBatch,
    open: OpenCommit,
  ): Promise<
    | { outcome: BatchOutcome }
    | { outcome?: undefined; plan: BatchPlan; committedMs: number; published: CommittedBatch | undefined }
  > {
    const named = batch.batch_id;
    validateBatch(this.board, batch);
    // One spelling of time in every row (24-character UTC ISO), so stored times compare as strings.
    const at = new Date(batch.at).toISOString();
    // Commit times never go backwards along the ids, even if the wall clock does.
    const committedMs = Math.max(this.lastCommitMs, this.now());
    const ids = { market: this.planner.nextMarketId, price: this.planner.nextPriceId };
    const plan = new BatchPlan(this.board, this.board.head, committedMs);
    let published: CommittedBatch | undefined;
    try {
      // The wait for the store counts the time spent handing it rows (COPY text) as `commit` did.
      let inStore = 0;
      const n = batch.updates.length;
      for (let from = 0, sent = 0; from < n; from += PLAN_PART) {
        this.planner.plan(this.board, plan, batch, at, from, Math.min(n, from + PLAN_PART));
        if (plan.records.length > sent) {
          const began = performance.now();
          open.add(plan.records.slice(sent));
          inStore += performance.now() - began;
          sent = plan.records.length;
        }
        // The store's socket is written and read only between turns: the server works on this part
        // while the next is planned.
        if (open.streams && from + PLAN_PART < n) await nextTurn();
      }
      if (plan.records.length === 0 && plan.markets.length === 0 && named === undefined) {
        return { outcome: { applied: true, headId: this.board.head } };
      }
      const rest: CommitRest = { markets: plan.markets, events: plan.eventRecords() };
      // A named batch that changes nothing is kept all the same: sent again later it must still apply nothing.
      if (named !== undefined) rest.batch = { id: named, headId: plan.head, committedMs };
      // A named batch that changed nothing has nothing to tell the readers.
      published =
        plan.records.length > 0 || named === undefined
          ? {
              epoch: this.epoch,
              fromId: this.board.head,
              headId: plan.head,
              changes: plan.records,
              eventIds: [...plan.touched.keys()],
            }
          : undefined;
      // Told before the store's answer: the bus may make its entry while the server works.
      if (published) this.bus.prepare?.(published);
      const started = performance.now();
      try {
        await open.finish(rest);
      } catch (err) {
        throw new CommitRefused(err);
      }
      this.onCommit(plan.records.length, (inStore + performance.now() - started) / 1000, false);
    } catch (err) {
      // Nothing reached the board; ids handed out by the plan are handed out again.
      this.planner.restart(ids.market, ids.price);
      // A refused futures update is an invalid batch, as a refused event update is.
      throw err instanceof FuturesUpdateError ? new LedgerError(err.message) : err;
    }
    return { plan, committedMs, published };
  }

  private async commitNew(batch: UpdateBatch): Promise<BatchOutcome> {
    const open = openCommit(this.store);
    let plan: BatchPlan;
    let committedMs: number;
    let published: CommittedBatch | undefined;
    try {
      const planned = await this.planAndCommit(batch, open);
      if (planned.outcome) {
        await open.abort();
        return planned.outcome;
      }
      ({ plan, committedMs, published } = planned);
    } catch (err) {
      await open.abort();
      throw err;
    }
    this.lastCommitMs = committedMs;
    const observe = this.observe;
    for (let i = 0; i < plan.steps.length; i++) {
      const step = plan.steps[i]!;
      const applied: Applied | undefined =
        step.kind === 'price' ? applyPlannedPrice(step) : applyChange(this.board, step.change, step.fresh);
      if (applied && observe) observe(plan.records[i]!, applied);
    }
    this.board.head = plan.head;
    if (published) this.bus.publish(published);
    return { applied: true, headId: plan.head };
  }
}

/** The store refused a batch's commit; told as a failed commit unless the batch's name was kept. */
class CommitRefused extends Error {
  constructor(override readonly cause: unknown) {
    super('the store refused the commit');
  }
}
