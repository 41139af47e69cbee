import { answerAwaited } from '../sql/asked.ts';
import { CHANGE_SQL } from '../sql/changes.ts';
import * as search from '../sql/log-times.ts';
import type { Queryable } from './pg-queries.ts';

/** Runs a search of the log (sql/log-times.ts), each question a round trip. */
async function run<T>(q: Queryable, s: search.LogSearch<T>): Promise<T> {
  return answerAwaited(s, async (question) => (await q.query(question.sql.postgres, question.args)).rows[0]);
}

/** The commit time of the row at or below `id` nearest it. */
export function committedMsAt(q: Queryable, id: number): Promise<number | undefined> {
  return run(q, search.committedMsAt(id));
}

/** The first row described at or after `ms` (Store.firstIdDescribedSince). */
export function firstIdDescribedSince(q: Queryable, ms: number): Promise<number | undefined> {
  return run(q, search.firstIdDescribedSince(ms));
}

/** The first row whose `timeOf` is at or after `ms`. */
export function firstIdSince(
  q: Queryable,
  ms: number,
  timeOf: (row: { committed_ms: number; at: string }) => number,
): Promise<number | undefined> {
  return run(q, search.firstIdSince(ms, timeOf));
}

/** The events with a row from `fromId` to `toId` described at or after `ms`, and a few more. */
export async function eventsDescribedSince(q: Queryable, ms: number, fromId: number, toId: number): Promise<string[]> {
  const rows = await q.query<{ event_id: string }>(CHANGE_SQL.eventsDescribedSince.postgres, [
    fromId,
    search.describedEarly(ms),
    toId,
  ]);
  return rows.rows.map((r) => r.event_id);
}
