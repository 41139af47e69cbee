import type pg from 'pg';
import { byCompactionKey, chunkOf, type CompactionProbe, droppedOfKey } from '../compaction-rule.ts';
import {
  type CompactResult,
  type CompactStep,
  RETAINED_ID_META,
  RETAINED_SINCE_META,
  startAtOf,
} from '../retention.ts';
import { answerAwaited } from '../sql/asked.ts';
import { CHANGE_SQL, supersededQuestion } from '../sql/changes.ts';
import { POSTGRES } from '../sql/dialect.ts';
import { EVENT_SQL } from '../sql/events.ts';
import type { ChangeRecord } from '../store.ts';
import type { PgClient } from './database.ts';
import { firstIdSince } from './pg-log-times.ts';
import { readMeta, writeMeta } from './pg-queries.ts';

/**
 * One chunk of ids below the boundary, judged by the rule the SQLite store judges by
 * (compaction-rule.ts): every row of the chunk with what earlier steps kept of its key, each probe
 * awaited in the writer's transaction.
 */
export async function compactChunk(c: PgClient, step: CompactStep): Promise<CompactResult> {
  const one = async <T extends pg.QueryResultRow>(sql: string, args: unknown[] = []) =>
    (await c.query<T>(sql, args)).rows[0];
  const retained = Number((await readMeta(c, RETAINED_ID_META)) ?? 1);
  const head = (await one<{ max: number | null }>(CHANGE_SQL.head.postgres))?.max ?? 0;
  const bound = (await firstIdSince(c, step.cutoffMs, (row) => row.committed_ms)) ?? head + 1;
  const next = (await one<{ min: number | null }>(CHANGE_SQL.firstFrom.postgres, [retained]))?.min;
  const { from, end } = chunkOf(retained, next ?? undefined, bound, step.maxRows);
  if (from > retained) await writeMeta(c, RETAINED_ID_META, String(from));
  if (end <= from) return { scanned: 0, dropped: 0, oldestId: from, more: false };
  const cutoffAt = new Date(step.cutoffMs).toISOString();
  const chunk = (await c.query<ChangeRecord>(CHANGE_SQL.chunk.postgres, [from, end])).rows;
  const starts = new Map<string, string | undefined>();
  const startOf = async (eventId: string) => {
    if (!starts.has(eventId)) {
      const date = (await one<{ event_date: string }>(EVENT_SQL.dateOf.postgres, [eventId]))?.event_date;
      starts.set(eventId, date === undefined ? undefined : startAtOf(date));
    }
    return starts.get(eventId);
  };
  const probe = async (p: CompactionProbe) =>
    p.probe === 'superseded'
      ? supersededBelow(c, p.row, bound)
      : (await one(CHANGE_SQL.laterBeforeStart.postgres, [p.row.price_id, end, p.startAt])) !== undefined;
  const olderOfFamily = new Map<string, Map<string, ChangeRecord[]>>();
  const gone: number[] = [];
  for (const [key, rows] of byCompactionKey(chunk)) {
    const all = [...(await olderRows(c, rows[0]!, key, from, olderOfFamily)), ...rows];
    const startAt = all[0]!.kind === 'price' ? await startOf(all[0]!.event_id) : undefined;
    gone.push(...(await answerAwaited(droppedOfKey(all, cutoffAt, startAt), probe)));
  }
  if (gone.length > 0) await c.query('DELETE FROM changes WHERE id = ANY($1::bigint[])', [gone]);
  await writeMeta(c, RETAINED_ID_META, String(end));
  if (gone.length > 0) {
    const since = Math.max(Number((await readMeta(c, RETAINED_SINCE_META)) ?? 0), step.cutoffMs);
    await writeMeta(c, RETAINED_SINCE_META, String(since));
  }
  return { scanned: end - from, dropped: gone.length, oldestId: end, more: end < bound };
}

/**
 * The rows of `sample`'s key below `from`, in id order (what earlier steps kept). A price's come
 * from its index; other kinds' are read once per event and kind for the step and grouped by key.
 */
async function olderRows(
  c: PgClient,
  sample: ChangeRecord,
  key: string,
  from: number,
  ofFamily: Map<string, Map<string, ChangeRecord[]>>,
): Promise<ChangeRecord[]> {
  if (sample.kind === 'price') {
    return (await c.query<ChangeRecord>(CHANGE_SQL.olderOfPrice.postgres, [sample.price_id, from])).rows;
  }
  const family = `${sample.kind}|${sample.event_id}`;
  let byKey = ofFamily.get(family);
  if (!byKey) {
    const rows = await c.query<ChangeRecord>(CHANGE_SQL.olderOfKind[sample.kind].postgres, [sample.event_id, from]);
    byKey = byCompactionKey(rows.rows);
    ofFamily.set(family, byKey);
  }
  return byKey.get(key) ?? [];
}

/** Whether a newer row of `r`'s compaction key lies below `bound`. */
async function supersededBelow(c: PgClient, r: ChangeRecord, bound: number): Promise<boolean> {
  const question = supersededQuestion(POSTGRES, r, bound);
  return question !== undefined && (await c.query(question.sql.postgres, question.args)).rows.length > 0;
}
