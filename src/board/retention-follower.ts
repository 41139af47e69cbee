import type { Store } from '../store/store.ts';
import type { Board } from './board.ts';
import { forgetArchivedHeaders, planLeaving } from './leaving.ts';
import type { LogFloor } from './log-floor.ts';

export interface RetentionFollowerOptions {
  /** How often the store is read. */
  everyMs: number;
  /** Headers of archived events are forgotten this long after their scheduled start (the writer's rule). */
  headersKeepMs: number;
  now: () => number;
  /** Where a failed read goes (the next one tries again). */
  onError: (err: unknown) => void;
}

/**
 * What the writer's retention does, taken over by a node that follows it (an API node, a standby):
 * the events the writer archived leave this board as they left the writer's (their reads then go to
 * the store, as there), and the log floor rises to what the store still keeps whole, so that the
 * node refuses the cursors the writer refuses. Neither is a change row the bus carries, so the
 * store is read every `everyMs`: a node lags the writer's retention by at most that.
 */
export class RetentionFollower {
  /** Archivings at or after this (the writer's clock, epoch ms) are read next; the first read takes them all. */
  private since = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<Store, 'archivedSince' | 'retained'>,
    private readonly board: Board,
    private readonly floor: LogFloor,
    private readonly opts: RetentionFollowerOptions,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.running ??= this.sync()
        .catch(this.opts.onError)
        .finally(() => {
          this.running = undefined;
        });
    }, this.opts.everyMs);
    this.timer.unref();
  }

  /** Stops the timer; resolves once a read in flight is done. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Reads the store once and brings the board and the floor to what it says. */
  async sync(): Promise<void> {
    const marks = await this.store.archivedSince(this.since);
    const leaving = [];
    for (const m of marks) {
      const ev = this.board.events.get(m.eventId);
      if (ev) leaving.push(ev);
    }
    if (leaving.length > 0) planLeaving(this.board, leaving).apply();
    if (marks.length > 0) this.since = marks.at(-1)!.archivedMs;
    forgetArchivedHeaders(this.board, this.opts.now() - this.opts.headersKeepMs);
    const retained = await this.store.retained();
    this.floor.raiseId(retained.oldestId);
    if (retained.sinceMs !== undefined) this.floor.raiseSince(retained.sinceMs);
  }
}
