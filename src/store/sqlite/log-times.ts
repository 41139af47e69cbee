import { answerNow } from '../sql/asked.ts';
import { CHANGE_SQL } from '../sql/changes.ts';
import * as search from '../sql/log-times.ts';
import type { Statements } from './statements.ts';

/** Runs a search of the log (sql/log-times.ts) on this connection, each question answered at once. */
function run<T>(sql: Statements, s: search.LogSearch<T>): T {
  return answerNow(s, (q) => sql.prepared(q.sql.sqlite).get(...q.args));
}

/** The commit time of the row at or below `id` nearest it. */
export function committedMsAt(sql: Statements, id: number): number | undefined {
  return run(sql, search.committedMsAt(id));
}

/** The first row described at or after `ms` (Store.firstIdDescribedSince). */
export function firstIdDescribedSince(sql: Statements, ms: number): number | undefined {
  return run(sql, search.firstIdDescribedSince(ms));
}

/** The first row whose `timeOf` is at or after `ms` (synchronous: compaction runs it inside its transaction). */
export function firstIdSince(
  sql: Statements,
  ms: number,
  timeOf: (row: { committed_ms: number; at: string }) => number,
): number | undefined {
  return run(sql, search.firstIdSince(ms, timeOf));
}

/** The events with a row from `fromId` to `toId` described at or after `ms`, and a few more (Store.eventsDescribedSince). */
export function eventsDescribedSince(sql: Statements, ms: number, fromId: number, toId: number): string[] {
  return sql
    .prepared(CHANGE_SQL.eventsDescribedSince.sqlite)
    .pluck()
    .all(fromId, search.describedEarly(ms), toId) as string[];
}
