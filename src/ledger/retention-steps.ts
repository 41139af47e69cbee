import type { Board } from '../board/board.ts';
import type { EventState } from '../board/event-state.ts';
import type { LogFloor } from '../board/log-floor.ts';
import { forgetArchivedHeaders, planLeaving } from '../board/leaving.ts';
import type { CompactResult, CompactStep } from '../store/retention.ts';
import type { Store } from '../store/store.ts';

/** Statuses of an event that is over: such events leave the board once they have been quiet long enough. */
const FINISHED: ReadonlySet<string> = new Set(['STATUS_FINAL', 'STATUS_CANCELED']);

/**
 * How long the headers of archived events are kept after their scheduled start: longer than any
 * feed looks back (the simulator's window starts three days back), so a resuming feed sees them over.
 */
export const ARCHIVED_HEADERS_MS = 10 * 24 * 3_600_000;

/** One step of retention's compaction of the store (store/retention.ts), run in the ledger's queue. */
export async function compactStep(
  store: Store,
  board: Board,
  floor: LogFloor,
  step: CompactStep,
): Promise<CompactResult> {
  // Delta readers stop at the boundary before any row below it can go.
  floor.raiseId((await store.firstIdCommittedSince(step.cutoffMs)) ?? board.head + 1);
  const result = await store.compact(step);
  if (result.dropped > 0) floor.raiseSince(step.cutoffMs);
  return result;
}

/**
 * Archives the events that are over (final or canceled) and whose last change was committed
 * before `finishedBeforeMs`: the store marks them (at `now()`) and keeps their season totals
 * in the same transaction, then they leave the board (their reads go to the store). The headers of
 * archived events scheduled before `headersBeforeMs` are forgotten. Returns how many left the board.
 */
export async function archiveFinished(
  store: Store,
  board: Board,
  now: () => number,
  finishedBeforeMs: number,
  headersBeforeMs: number,
): Promise<number> {
  forgetArchivedHeaders(board, headersBeforeMs);
  // Commit times rise with the ids: an event whose last change id lies below the first id
  // committed since the cutoff changed last before it. One lookup, not one per finished event.
  const since = (await store.firstIdCommittedSince(finishedBeforeMs)) ?? Number.POSITIVE_INFINITY;
  const leaving: EventState[] = [];
  for (const ev of board.events.values()) {
    if (ev.version < since && FINISHED.has(ev.info.score?.event_status ?? '')) leaving.push(ev);
  }
  if (leaving.length === 0) return 0;
  const plan = planLeaving(board, leaving);
  await store.archive({
    eventIds: leaving.map((ev) => ev.info.event_id),
    archivedMs: now(),
    seasonTotals: plan.seasonTotals,
  });
  plan.apply();
  return leaving.length;
}
