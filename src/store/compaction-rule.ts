import type { ChangeRecord } from '../changelog/change.ts';
import { compactionKey, dropsRow } from './retention.ts';

/**
 * A fact about rows beyond those a compaction step holds, answered by the step's store from an
 * index probe of its own, and asked only when the rule needs it:
 * - `superseded`: a newer row of `row`'s key lies below the boundary;
 * - `before-start`: a row of `row`'s price from the step's end on describes a time at or before `startAt`.
 */
export type CompactionProbe =
  | { readonly probe: 'superseded'; readonly row: ChangeRecord }
  | { readonly probe: 'before-start'; readonly row: ChangeRecord; readonly startAt: string };

/** The ids a step looks at: `[from, end)`. */
export interface ChunkRange {
  from: number;
  end: number;
}

/**
 * The chunk of a step that finds every id below `retained` judged, `next` the first id a row has
 * from there (ids no row has take no step: a restored log skips 10^12 of them, src/ops/backup.ts),
 * and the boundary at `bound`: at most `maxRows` ids, none at or past the boundary.
 */
export function chunkOf(retained: number, next: number | undefined, bound: number, maxRows: number): ChunkRange {
  const from = Math.max(retained, Math.min(next ?? bound, bound));
  return { from, end: Math.min(bound, from + maxRows) };
}

/** The rows of `rows` of each compaction key, in their order; rows that are never dropped are left out. */
export function byCompactionKey(rows: readonly ChangeRecord[]): Map<string, ChangeRecord[]> {
  const byKey = new Map<string, ChangeRecord[]>();
  for (const r of rows) {
    const key = compactionKey(r);
    if (key === undefined) continue;
    let same = byKey.get(key);
    if (!same) byKey.set(key, (same = []));
    same.push(r);
  }
  return byKey;
}

/**
 * The ids a step drops of one key by `dropsRow`: `rows` are every row of the key below the step's
 * end in id order (what earlier steps kept, then the chunk's own), `startAt` the event's start when
 * the key is a price's. A row is judged only if its time is before the cutoff and a newer row of
 * its key lies below the boundary (for the last of `rows`, a probe); a price's row at or before the
 * start needs to know whether a newer one also is (past the last of `rows`, one probe per key).
 *
 * Pure: it yields each probe and is handed the answer, so that SQLite's synchronous transaction
 * and PostgreSQL's awaited one judge by the same rule (sql/asked.ts).
 */
export function* droppedOfKey(
  rows: readonly ChangeRecord[],
  cutoffAt: string,
  startAt: string | undefined,
): Generator<CompactionProbe, number[], boolean> {
  const gone: number[] = [];
  // Whether a row after the one judged describes a time at or before the start (undefined: not known yet).
  let beforeStartAfter: boolean | undefined;
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    if (r.at < cutoffAt && (i < rows.length - 1 || (yield { probe: 'superseded', row: r }))) {
      const first = r.kind === 'price' && i === 0;
      const laterBeforeStart =
        !first &&
        startAt !== undefined &&
        r.at <= startAt &&
        (beforeStartAfter ??= yield { probe: 'before-start', row: r, startAt });
      if (dropsRow(r, { cutoffAt, superseded: true, first, startAt, laterBeforeStart })) gone.push(r.id);
    }
    if (startAt !== undefined && r.at <= startAt) beforeStartAfter = true;
  }
  return gone;
}
