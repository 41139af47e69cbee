import { describedMs } from '../../changelog/change.ts';
import { CHANGE_SQL } from './changes.ts';
import type { SqlText } from './dialect.ts';

/**
 * The log's lookups by time (Store.committedMsAt, firstIdCommittedSince, firstIdDescribedSince), as
 * searches each store runs (asked.ts): every question is one statement of at most one row.
 */
export interface RowQuestion {
  sql: SqlText;
  args: unknown[];
}

/** A search: it asks rows (undefined: none) and gives `T`. */
export type LogSearch<T> = Generator<RowQuestion, T, unknown>;

interface TimedRow {
  id: number;
  committed_ms: number;
  at: string;
}

/** The commit time of the row at or below `id` nearest it. */
export function* committedMsAt(id: number): LogSearch<number | undefined> {
  const row = (yield { sql: CHANGE_SQL.committedMsAt, args: [id] }) as { committed_ms: number } | undefined;
  return row?.committed_ms;
}

/** The first row at or after `id`. */
function* timedFrom(id: number): LogSearch<TimedRow> {
  return (yield { sql: CHANGE_SQL.timedFrom, args: [id] }) as TimedRow;
}

/**
 * The smallest id whose time (by `timeOf`, never decreasing along the ids) is at or after `ms`:
 * a binary search over the primary key, a probe a step, never a scan.
 */
export function* firstIdSince(ms: number, timeOf: (row: TimedRow) => number): LogSearch<number | undefined> {
  const bounds = (yield { sql: CHANGE_SQL.bounds, args: [] }) as { lo: number | null; hi: number | null };
  if (bounds.lo === null || bounds.hi === null) return undefined;
  let lo = bounds.lo;
  let hi = bounds.hi;
  if (timeOf(yield* timedFrom(hi)) < ms) return undefined;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = yield* timedFrom(mid);
    if (timeOf(row) >= ms) hi = Math.min(mid, row.id);
    else lo = row.id + 1;
  }
  return (yield* timedFrom(lo)).id;
}

/** The first row described at or after `ms` (Store.firstIdDescribedSince). */
export function* firstIdDescribedSince(ms: number): LogSearch<number | undefined> {
  // Described times need not ascend along the ids (the background part of a first fill commits
  // the past beside the live feed); commit times do, and no row is described after its commit.
  // So the first row committed since `ms` bounds the search, and the rows from there are searched
  // in order: by their time's text a second early (`describedEarly`), each candidate then checked.
  let from = yield* firstIdSince(ms, (r) => r.committed_ms);
  const early = describedEarly(ms);
  while (from !== undefined) {
    const row = (yield { sql: CHANGE_SQL.describedFrom, args: [from, early] }) as TimedRow | undefined;
    if (!row || describedMs(row) >= ms) return row?.id;
    from = row.id + 1;
  }
  return undefined;
}

/**
 * The text a row's time is compared with to find those described at or after `ms`: a second
 * early, as a time's text sorts apart from its instant within a second (a time that is no ISO
 * text is the commit's, and matches whatever its text).
 */
export function describedEarly(ms: number): string {
  return new Date(ms - 1000).toISOString();
}
