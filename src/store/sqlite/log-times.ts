import { describedMs } from '../../changelog/change.ts';
import type { Statements } from './statements.ts';

/** The commit time of the row at or below `id` nearest it. */
export function committedMsAt(sql: Statements, id: number): number | undefined {
  const row = sql.prepared('SELECT committed_ms FROM changes WHERE id <= ? ORDER BY id DESC LIMIT 1').get(id) as
    { committed_ms: number } | undefined;
  return row?.committed_ms;
}

/** The first row described at or after `ms` (Store.firstIdDescribedSince). */
export function firstIdDescribedSince(sql: Statements, ms: number): number | undefined {
  // Described times need not ascend along the ids (the background part of a first fill commits
  // the past beside the live feed); commit times do, and no row is described after its commit.
  // So the first row committed since `ms` bounds the search, and the rows from there are searched
  // in order: by their time's text a second early (a text that sorts apart from its instant
  // within a second; a time that is no ISO text is the commit's), each candidate then checked.
  let from = firstIdSince(sql, ms, (r) => r.committed_ms);
  const candidate = sql.prepared(
    "SELECT id, committed_ms, at FROM changes WHERE id >= ? AND (at >= ? OR at NOT LIKE '____-__-__T%') ORDER BY id LIMIT 1",
  );
  const early = new Date(ms - 1000).toISOString();
  while (from !== undefined) {
    const row = candidate.get(from, early) as { id: number; committed_ms: number; at: string } | undefined;
    if (!row || describedMs(row) >= ms) return row?.id;
    from = row.id + 1;
  }
  return undefined;
}

/** The events with a row from `fromId` on described at or after `ms`, and a few more (Store.eventsDescribedSince). */
export function eventsDescribedSince(sql: Statements, ms: number, fromId: number): string[] {
  // By their time's text a second early, as above: a few more events than asked, never fewer.
  return sql
    .prepared(
      `SELECT event_id FROM event_keys WHERE key IN
       (SELECT event_key FROM changes WHERE id >= ? AND (at >= ? OR at NOT LIKE '____-__-__T%'))`,
    )
    .pluck()
    .all(fromId, new Date(ms - 1000).toISOString()) as string[];
}

/** The first row whose `timeOf` is at or after `ms`: a binary search, the time never decreasing along the ids. */
export function firstIdSince(
  sql: Statements,
  ms: number,
  timeOf: (row: { committed_ms: number; at: string }) => number,
): number | undefined {
  // One aggregate per query: SQLite reads min() or max() alone from the end of the primary key,
  // but both in one query scan the whole table (75 ms for a million rows, run by every retention
  // step, which stalled every request behind it).
  const minId = sql.prepared('SELECT min(id) FROM changes').pluck().get() as number | null;
  const maxId = sql.prepared('SELECT max(id) FROM changes').pluck().get() as number | null;
  if (minId === null || maxId === null) return undefined;
  const at = sql.prepared('SELECT id, committed_ms, at FROM changes WHERE id >= ? ORDER BY id LIMIT 1');
  // The time never decreases along the ids, so a binary search over the primary key finds it.
  type Row = { id: number; committed_ms: number; at: string };
  let lo = minId;
  let hi = maxId;
  const last = at.get(hi) as Row;
  if (timeOf(last) < ms) return undefined;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = at.get(mid) as Row;
    if (timeOf(row) >= ms) hi = Math.min(mid, row.id);
    else lo = row.id + 1;
  }
  return (at.get(lo) as { id: number }).id;
}
