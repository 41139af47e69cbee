import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ChangeRecord } from '../../changelog/change.ts';
import { type LogSnapshot, snapshotOf } from '../log-reader.ts';
import type { RecordedBatch } from '../../changelog/recording.ts';
import { BATCH_SQL } from '../sql/batches.ts';
import { CHANGE_SQL } from '../sql/changes.ts';
import { META_SQL } from '../sql/meta.ts';
import { EPOCH_GAPS_META, EPOCH_META } from '../store.ts';
import { STORE_FILE } from './database.ts';

/**
 * A snapshot of the change log of the SQLite store under `dataDir`, opened read-only beside a
 * running server (WAL mode lets a reader keep one read transaction while the writer commits).
 * Returns undefined when there is no store file.
 */
export function openSqliteLogSnapshot(dataDir: string): LogSnapshot | undefined {
  const file = join(dataDir, STORE_FILE);
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // One read transaction for the whole recording: the header and every row come from one commit.
  db.exec('BEGIN');
  const meta = db.prepare(META_SQL.read.sqlite).pluck();
  const epoch = meta.get(EPOCH_META) as string | undefined;
  const gapsText = meta.get(EPOCH_GAPS_META) as string | undefined;
  const headId = (db.prepare(CHANGE_SQL.head.sqlite).pluck().get() as number | null) ?? 0;
  const page = db.prepare(CHANGE_SQL.page.sqlite);
  // A file no server has opened since named batches were kept has no table of them: it holds none.
  const hasBatches = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ingest_batches'").get();
  const batches = hasBatches ? db.prepare(BATCH_SQL.between.sqlite) : undefined;
  return snapshotOf(
    { epoch, gapsText, headId },
    {
      rows: (afterId, toId, limit) => page.all(afterId, toId, limit) as ChangeRecord[],
      batches: (lo, hi) => (batches ? (batches.all(lo, hi) as RecordedBatch[]) : []),
    },
    async () => {
      if (!db.open) return;
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  );
}
