import { byCompactionKey, chunkOf, type CompactionProbe, droppedOfKey } from '../compaction-rule.ts';
import {
  type CompactResult,
  type CompactStep,
  RETAINED_ID_META,
  RETAINED_SINCE_META,
  startAtOf,
} from '../retention.ts';
import { answerNow } from '../sql/asked.ts';
import { CHANGE_SQL, supersededQuestion } from '../sql/changes.ts';
import { SQLITE } from '../sql/dialect.ts';
import { EVENT_SQL } from '../sql/events.ts';
import type { ChangeRecord } from '../store.ts';
import { firstIdSince } from './log-times.ts';
import type { Statements } from './statements.ts';

/**
 * Free pages a compaction step leaves unreturned (16 MB of 4 KB pages): new rows take them first,
 * so a log that drops about what it gains does not shrink and regrow its file all day.
 */
const FREE_PAGES_KEPT = 4096;
/** Most pages one compaction step returns to the file system (each is moved, a few ms in all). */
const FREE_PAGES_PER_STEP = 256;
/**
 * A compaction step judges its chunk in parts of this many ids and takes no further part once it
 * has spent this long: its probes, run on the thread that serves requests, vary with the rows
 * (a price's later rows are walked to find one before the start), and it commits what it dropped.
 */
const COMPACT_PART_ROWS = 25;
const COMPACT_BUDGET_MS = 8;

/**
 * Retention's compaction of the log by the keep rules of store/retention.ts, a chunk of ids per
 * step, and the return of the pages it frees to the file system.
 */
export class SqliteCompaction {
  /** One step's chunk, in a transaction of its own. */
  readonly chunk: (step: CompactStep) => CompactResult;
  /** Whether the file was made with `auto_vacuum = INCREMENTAL` (database.ts). */
  private readonly incrementalVacuum: boolean;

  constructor(private readonly sql: Statements) {
    this.incrementalVacuum = sql.db.pragma('auto_vacuum', { simple: true }) === 2;
    this.chunk = sql.db.transaction((step: CompactStep) => this.compactChunk(step));
  }

  /**
   * Gives up to FREE_PAGES_PER_STEP of the pages that dropped and packed rows freed back to the file
   * system, beyond FREE_PAGES_KEPT; returns whether more wait. A store made before incremental
   * vacuuming (docs/operations.md) keeps its pages for reuse instead.
   */
  returnFreePages(): boolean {
    if (!this.incrementalVacuum) return false;
    const free = this.sql.db.pragma('freelist_count', { simple: true }) as number;
    const excess = free - FREE_PAGES_KEPT;
    if (excess <= 0) return false;
    this.sql.db.pragma(`incremental_vacuum(${Math.min(excess, FREE_PAGES_PER_STEP)})`);
    return excess > FREE_PAGES_PER_STEP;
  }

  /**
   * One chunk of ids below the boundary, judged a part of `COMPACT_PART_ROWS` ids at a time, each
   * part as a step of that many ids would judge it (so the outcome is the same): the step ends
   * after the part that passes `COMPACT_BUDGET_MS`, and the next one goes on from there.
   */
  private compactChunk(step: CompactStep): CompactResult {
    const retained = Number(this.sql.meta(RETAINED_ID_META) ?? 1);
    const head = this.sql.headId();
    const bound = firstIdSince(this.sql, step.cutoffMs, (row) => row.committed_ms) ?? head + 1;
    const next = this.sql.prepared(CHANGE_SQL.firstFrom.sqlite).pluck().get(retained) as number | null;
    const { from, end } = chunkOf(retained, next ?? undefined, bound, step.maxRows);
    if (from > retained) this.sql.writeMeta(RETAINED_ID_META, String(from));
    if (end <= from) return { scanned: 0, dropped: 0, oldestId: from, more: false };
    const cutoffAt = new Date(step.cutoffMs).toISOString();
    const starts = new Map<string, string | undefined>();
    const startOf = (eventId: string) => {
      if (!starts.has(eventId)) {
        const date = this.sql.prepared(EVENT_SQL.dateOf.sqlite).pluck().get(eventId) as string | undefined;
        starts.set(eventId, date === undefined ? undefined : startAtOf(date));
      }
      return starts.get(eventId);
    };
    const began = performance.now();
    let done = from;
    let dropped = 0;
    while (done < end && (done === from || performance.now() - began < COMPACT_BUDGET_MS)) {
      const partEnd = Math.min(end, done + COMPACT_PART_ROWS);
      dropped += this.compactPart(done, partEnd, bound, cutoffAt, startOf);
      done = partEnd;
    }
    this.sql.writeMeta(RETAINED_ID_META, String(done));
    if (dropped > 0) {
      const since = Math.max(Number(this.sql.meta(RETAINED_SINCE_META) ?? 0), step.cutoffMs);
      this.sql.writeMeta(RETAINED_SINCE_META, String(since));
    }
    return { scanned: done - from, dropped, oldestId: done, more: done < bound };
  }

  /**
   * Drops what `dropsRow` drops of the ids in [from, end), each row judged from a few index probes:
   * whether a newer row of its key lies below the boundary and, for a price, whether a newer row
   * also lies at or before the event's start. Returns how many rows went.
   */
  private compactPart(
    from: number,
    end: number,
    bound: number,
    cutoffAt: string,
    startOf: (eventId: string) => string | undefined,
  ): number {
    const chunk = this.sql.prepared(CHANGE_SQL.chunk.sqlite).all(from, end) as ChangeRecord[];
    const probe = (p: CompactionProbe) =>
      p.probe === 'superseded'
        ? this.supersededBelow(p.row, bound)
        : this.sql.prepared(CHANGE_SQL.laterBeforeStart.sqlite).get(p.row.price_id, end, p.startAt) !== undefined;
    const olderOfEvent = new Map<string, Map<string, ChangeRecord[]>>();
    const gone: number[] = [];
    // Each key of the chunk with its rows below the chunk's end: what earlier steps kept of it
    // (a newer row now lies below the boundary, so those may go) and the chunk's own rows.
    for (const [key, rows] of byCompactionKey(chunk)) {
      const all = [...this.olderRows(rows[0]!, key, from, olderOfEvent), ...rows];
      const startAt = all[0]!.kind === 'price' ? startOf(all[0]!.event_id) : undefined;
      gone.push(...answerNow(droppedOfKey(all, cutoffAt, startAt), probe));
    }
    if (gone.length > 0)
      this.sql.prepared('DELETE FROM changes WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(gone));
    return gone.length;
  }

  /**
   * The rows of `sample`'s key below `from`, in id order (what earlier steps kept). A price's come
   * from its index; other kinds' are read once per event and kind for the step and grouped by key
   * (a stat row's key is parsed from its payload: once per row, not once per key of the chunk).
   */
  private olderRows(
    sample: ChangeRecord,
    key: string,
    from: number,
    ofEvent: Map<string, Map<string, ChangeRecord[]>>,
  ): ChangeRecord[] {
    if (sample.kind === 'price') {
      return this.sql.prepared(CHANGE_SQL.olderOfPrice.sqlite).all(sample.price_id, from) as ChangeRecord[];
    }
    const family = `${sample.kind}|${sample.event_id}`;
    let byKey = ofEvent.get(family);
    if (!byKey) {
      const rows = this.sql
        .prepared(CHANGE_SQL.olderOfKind[sample.kind].sqlite)
        .all(sample.event_id, from) as ChangeRecord[];
      byKey = byCompactionKey(rows);
      ofEvent.set(family, byKey);
    }
    return byKey.get(key) ?? [];
  }

  /** Whether a newer row of `r`'s compaction key lies below `bound`. */
  private supersededBelow(r: ChangeRecord, bound: number): boolean {
    const question = supersededQuestion(SQLITE, r, bound);
    return question !== undefined && this.sql.prepared(question.sql.sqlite).get(...question.args) !== undefined;
  }
}
