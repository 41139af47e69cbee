import type pg from 'pg';
import { describedMs } from '../../changelog/change.ts';
import type { Queryable } from './pg-queries.ts';

type TimedRow = { id: number; committed_ms: number; at: string };

async function rowsOf<T extends pg.QueryResultRow>(q: Queryable, sql: string, args: unknown[]): Promise<T[]> {
  return (await q.query<T>(sql, args)).rows;
}

/** The commit time of the row at or below `id` nearest it. */
export async function committedMsAt(q: Queryable, id: number): Promise<number | undefined> {
  const [row] = await rowsOf<{ committed_ms: number }>(
    q,
    'SELECT committed_ms FROM changes WHERE id <= $1 ORDER BY id DESC LIMIT 1',
    [id],
  );
  return row?.committed_ms;
}

/** The first row described at or after `ms` (Store.firstIdDescribedSince). */
export async function firstIdDescribedSince(q: Queryable, ms: number): Promise<number | undefined> {
  // As in the SQLite store: described times need not ascend along the ids (a first fill's
  // background part), commit times do and bound the search; candidates by their time's text a
  // second early (a time that is no ISO text is the commit's), each then checked.
  let from = await firstIdSince(q, ms, (r) => r.committed_ms);
  const early = new Date(ms - 1000).toISOString();
  while (from !== undefined) {
    const [row] = await rowsOf<TimedRow>(
      q,
      "SELECT id, committed_ms, at FROM changes WHERE id >= $1 AND (at >= $2 OR at NOT LIKE '____-__-__T%') ORDER BY id LIMIT 1",
      [from, early],
    );
    if (!row || describedMs(row) >= ms) return row?.id;
    from = row.id + 1;
  }
  return undefined;
}

/** The events with a row from `fromId` on described at or after `ms`, and a few more. */
export async function eventsDescribedSince(q: Queryable, ms: number, fromId: number): Promise<string[]> {
  // By their time's text a second early, as above: a few more events than asked, never fewer.
  const rows = await rowsOf<{ event_id: string }>(
    q,
    "SELECT DISTINCT event_id FROM changes WHERE id >= $1 AND (at >= $2 OR at NOT LIKE '____-__-__T%')",
    [fromId, new Date(ms - 1000).toISOString()],
  );
  return rows.map((r) => r.event_id);
}

/**
 * The smallest id whose time (by `timeOf`, never decreasing along the ids) is at or after `ms`:
 * a binary search over the primary key, a probe per step, never a scan.
 */
export async function firstIdSince(
  pool: Queryable,
  ms: number,
  timeOf: (row: TimedRow) => number,
): Promise<number | undefined> {
  const [bounds] = (
    await pool.query<{ lo: number | null; hi: number | null }>(
      'SELECT (SELECT min(id) FROM changes) AS lo, (SELECT max(id) FROM changes) AS hi',
    )
  ).rows;
  if (bounds?.lo == null || bounds.hi == null) return undefined;
  const at = async (id: number) =>
    (await pool.query<TimedRow>('SELECT id, committed_ms, at FROM changes WHERE id >= $1 ORDER BY id LIMIT 1', [id]))
      .rows[0]!;
  let lo = bounds.lo;
  let hi = bounds.hi;
  if (timeOf(await at(hi)) < ms) return undefined;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = await at(mid);
    if (timeOf(row) >= ms) hi = Math.min(mid, row.id);
    else lo = row.id + 1;
  }
  return (await at(lo)).id;
}
