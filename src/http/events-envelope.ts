import type { EventState } from '../board/board.ts';
import type { BoardView } from '../board/board-view.ts';
import { type EventQuery, statusAllowed } from './event-query.ts';
import type { SnapshotCache } from './snapshot-cache.ts';

export interface Envelope {
  body: Buffer;
  points: number;
  /** The head the body shows (its meta.delta_last_id). */
  head: number;
}

/** The events envelope's bytes: each event's cached view under the filter, joined. */
class EnvelopeParts {
  private readonly parts: string[] = [];
  points = 0;

  constructor(
    private readonly cache: SnapshotCache,
    private readonly q: EventQuery,
  ) {}

  add(state: EventState): void {
    if (!statusAllowed(this.q, state)) return;
    const view = this.cache.event(state, this.q.filter, this.q.filterKey);
    if (this.q.hideNoMarkets && view.marketCount === 0) return;
    this.parts.push(view.json);
    this.points += view.points;
  }

  finish(head: number): Envelope {
    const body = Buffer.from(`{"meta":{"delta_last_id":"${head}"},"events":[${this.parts.join(',')}]}`);
    return { body, points: this.points, head };
  }
}

/** The events envelope of `events` at `head`, built at once (a single event, or a small list). */
export function envelope(cache: SnapshotCache, events: readonly EventState[], q: EventQuery, head: number): Envelope {
  const parts = new EnvelopeParts(cache, q);
  for (const state of events) parts.add(state);
  return parts.finish(head);
}

/**
 * Turns of the event loop handed out one at a time: each waiter resumes in a turn of its own,
 * after the loop has polled for I/O, in the order they asked. So however many long builds are
 * under way, a turn runs at most one slice of one of them, and a request that arrives meanwhile
 * (a cached snapshot) is answered after at most that slice.
 */
export class LoopTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()!();
      // Scheduled from the check phase, so it runs in the next turn, after the next poll.
      this.schedule();
    });
  }
}

export interface SliceOptions {
  /** Work between two yields, ms. */
  sliceMs: number;
  /** Builds begun again because the board moved during a yield before the last one runs at once. */
  maxRestarts: number;
  turns: LoopTurns;
  now: () => number;
}

/**
 * Measured on `npm start`'s server: a cache miss of a sport-date of many events under a filter no
 * one asked before took up to tens of ms in one go, and 200 such requests a second kept the loop
 * busy for hundreds of ms at a time, every other request waiting behind them.
 */
const SLICES: SliceOptions = { sliceMs: 3, maxRestarts: 2, turns: new LoopTurns(), now: () => performance.now() };

/**
 * The events envelope of the events `inWindow` gives, built in slices of about `sliceMs` that
 * yield to the event loop between them, with the same bytes as `envelope` would give at once.
 * Both `live` (the board every commit moves) and `view` (the caller's, which a delay moves on its
 * own) are read at the start of a build; if either moved during a yield, the events read before
 * it may show a state past the view's head (a commit changes the live objects a delayed view
 * shares), so the build begins again at the new head. Views already serialised are cached by
 * event version, so only what changed is made again; after `maxRestarts` the last build runs
 * without yielding.
 */
export async function envelopeInSlices(
  cache: SnapshotCache,
  live: BoardView,
  view: BoardView,
  inWindow: () => readonly EventState[],
  q: EventQuery,
  opts: SliceOptions = SLICES,
): Promise<Envelope> {
  for (let attempt = 0; ; attempt++) {
    const head = view.head;
    const liveHead = live.head;
    const events = inWindow();
    const parts = new EnvelopeParts(cache, q);
    const yields = attempt < opts.maxRestarts;
    let until = opts.now() + opts.sliceMs;
    let moved = false;
    for (const state of events) {
      if (yields && opts.now() >= until) {
        await opts.turns.next();
        if (view.head !== head || live.head !== liveHead) {
          moved = true;
          break;
        }
        until = opts.now() + opts.sliceMs;
      }
      parts.add(state);
    }
    if (!moved) return parts.finish(head);
  }
}
