import type { Bus, CommittedBatch } from '../bus/bus.ts';
import type { Store } from '../store/store.ts';
import { Board } from './board.ts';
import { applyChange, loadBoard } from './replay.ts';

interface Delayed {
  board: Board;
  queue: CommittedBatch[];
}

/**
 * Boards that show the state as of now minus a delay (Free 5 min, Starter 60 s, Pro 30 s). Each is
 * built from the change log up to the cutoff, then follows the live bus with its batches held back
 * until they are old enough: the same log, replayed late, never a second feed. A delayed board is
 * made the first time a plan with that delay asks, so a server whose keys are all real-time keeps
 * only the live board in memory.
 */
export class DelayedBoards {
  private readonly delayed = new Map<number, Delayed>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly live: Board,
    private readonly store: Store,
    bus: Bus,
    private readonly now: () => number = Date.now,
  ) {
    this.unsubscribe = bus.subscribe((batch) => {
      for (const d of this.delayed.values()) d.queue.push(batch);
    });
    this.timer = setInterval(() => this.advance(), 250);
    this.timer.unref();
  }

  /** The board a plan with `delaySeconds` sees. */
  forDelay(delaySeconds: number): Board {
    if (delaySeconds <= 0) return this.live;
    let d = this.delayed.get(delaySeconds);
    if (!d) {
      d = this.create(delaySeconds);
      this.delayed.set(delaySeconds, d);
    }
    this.catchUp(delaySeconds, d);
    return d.board;
  }

  close(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    this.delayed.clear();
  }

  private create(delaySeconds: number): Delayed {
    const cutoffMs = this.now() - delaySeconds * 1000;
    const first = this.store.firstIdCommittedSince(cutoffMs);
    const uptoId = first === undefined ? this.live.head : first - 1;
    const board = new Board();
    loadBoard(board, this.store.loadUpTo(uptoId));
    const queue: CommittedBatch[] = [];
    // Rows committed after the cutoff but before this board existed wait in the queue like live ones.
    if (uptoId < this.live.head) {
      const rows = this.store.readChangesRange(uptoId, this.live.head);
      if (rows.length > 0) queue.push({ changes: rows, eventIds: [], headId: this.live.head });
    }
    return { board, queue };
  }

  private advance(): void {
    for (const [delay, d] of this.delayed) this.catchUp(delay, d);
  }

  /** Applies every queued row committed at or before now minus the delay. */
  private catchUp(delaySeconds: number, d: Delayed): void {
    const cutoffMs = this.now() - delaySeconds * 1000;
    while (d.queue.length > 0) {
      const batch = d.queue[0]!;
      let applied = 0;
      for (const row of batch.changes) {
        if (row.committed_ms > cutoffMs) break;
        if (row.id > d.board.head) applyChange(d.board, row);
        applied++;
      }
      if (applied < batch.changes.length) {
        batch.changes = batch.changes.slice(applied);
        return;
      }
      d.queue.shift();
    }
  }
}
