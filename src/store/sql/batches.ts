import type { BatchMark } from '../store.ts';
import { sqlText } from './dialect.ts';

/** `ingest_batches`: each named batch a feed committed (Commit.batch). */
export function batchValues(b: BatchMark): [batchId: string, headId: number, committedMs: number] {
  return [b.id, b.headId, b.committedMs];
}

export const BATCH_SQL = {
  /** The primary key refuses a batch id already kept, and the whole commit with it. */
  insert: sqlText('INSERT INTO ingest_batches (batch_id, head_id, committed_ms) VALUES (?, ?, ?)'),
  headOf: sqlText('SELECT head_id FROM ingest_batches WHERE batch_id = ?'),
  /** The batches whose head lies in [lo, hi], in log order (a recording's `batch` lines). */
  between: sqlText(
    `SELECT 'batch' AS kind, batch_id, head_id, committed_ms FROM ingest_batches
      WHERE head_id >= ? AND head_id <= ? ORDER BY head_id, committed_ms, batch_id`,
  ),
};
