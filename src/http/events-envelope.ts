import type { EventState } from '../board/event-state.ts';
import type { BoardView } from '../board/board-view.ts';
import { type EventQuery, statusAllowed } from '../projection/event-query.ts';
import { joinJson } from '../projection/json-bytes.ts';
import type { SerializedEvent, SnapshotCache } from './snapshot-cache.ts';
import type { Turns } from '../perf/turns.ts';

export interface Envelope {
  body: Buffer;
  points: number;
  /** The head the body shows (its meta.delta_last_id). */
  head: number;
}

/** Each event's view under the query's filter. */
type ViewOf = (state: EventState) => SerializedEvent;

/**
 * The events envelope's bytes: each event's serialised view, those the query leaves out skipped,
 * copied into the body one after another. Joining them into one string first, then encoding
 * that, made two copies of the whole body on the heap (about a seventh of what a burst of
 * distinct filters allocated, sampled).
 */
function build(events: readonly EventState[], q: EventQuery, head: number, viewOf: ViewOf): Envelope {
  const bodies: Buffer[] = [];
  let points = 0;
  for (const state of events) {
    if (!statusAllowed(q, state)) continue;
    const view = viewOf(state);
    if (q.hideNoMarkets && view.marketCount === 0) continue;
    bodies.push(view.body);
    points += view.points;
  }
  return { body: joinJson(`{"meta":{"delta_last_id":"${head}"},"events":[`, bodies, ']}'), points, head };
}

/** The events envelope of `events` at `head`, built at once (a single event, or a small list). */
export function envelope(cache: SnapshotCache, events: readonly EventState[], q: EventQuery, head: number): Envelope {
  return build(events, q, head, (state) => cache.event(state, q.filter, q.filterKey));
}

export interface SliceOptions {
  /** Work between two yields, ms. */
  sliceMs: number;
  /** The server's turns (src/perf/turns.ts): a build takes one before each slice. */
  turns: Pick<Turns, 'next'>;
  now: () => number;
  /**
   * The build refreshes a kept answer: its turns rank `refresh`, ahead of every other; else its
   * later slices rank `started`, ahead of builds not begun (src/perf/turns.ts).
   */
  ahead?: boolean;
}

/**
 * Measured on `npm start`'s server (bench/bounded.ts --probe --cpu-prof): a cache miss of a
 * sport-date of many events under a filter no one asked before took up to about 200 ms in one go,
 * and every request that arrived meanwhile waited for it.
 */
export const SLICE_MS = 3;

/**
 * The events envelope of the events `inWindow` gives, with the same bytes as `envelope` would give
 * at once: the events' views are serialised in slices of about `sliceMs`, each in a turn of its own
 * (the caller holds the first; later ones go before builds not begun), then joined
 * in one go. If the board moved during a yield (a commit moves `live`, a delay moves `view` on its
 * own), the views made so far may show states other than the view's head shows now (a commit
 * changes the live objects a delayed view shares), so the window is read again and joined at the
 * new head, each event's view reused when its version is the one serialised, made again otherwise
 * (the events that changed: few).
 */
export async function envelopeInSlices(
  cache: SnapshotCache,
  live: BoardView,
  view: BoardView,
  inWindow: () => readonly EventState[],
  q: EventQuery,
  opts: SliceOptions,
): Promise<Envelope> {
  const head = view.head;
  const liveHead = live.head;
  const viewOf: ViewOf = (state) => cache.event(state, q.filter, q.filterKey);
  const made = new Map<string, { version: number; view: SerializedEvent }>();
  let events = inWindow();
  let until = opts.now() + opts.sliceMs;
  for (const state of events) {
    if (opts.now() >= until) {
      await opts.turns.next(opts.ahead ? 'refresh' : 'started');
      until = opts.now() + opts.sliceMs;
    }
    if (statusAllowed(q, state)) made.set(state.info.event_id, { version: state.version, view: viewOf(state) });
  }
  if (view.head !== head || live.head !== liveHead) events = inWindow();
  return build(events, q, view.head, (state) => {
    const m = made.get(state.info.event_id);
    return m && m.version === state.version ? m.view : viewOf(state);
  });
}
