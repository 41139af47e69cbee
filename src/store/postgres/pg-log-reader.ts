import type { ChangeRecord } from '../../changelog/change.ts';
import { type LogSnapshot, snapshotOf } from '../log-reader.ts';
import type { RecordedBatch } from '../../changelog/recording.ts';
import { BATCH_SQL } from '../sql/batches.ts';
import { CHANGE_SQL } from '../sql/changes.ts';
import { EPOCH_GAPS_META, EPOCH_META } from '../store.ts';
import { connectClient } from './database.ts';
import { readMeta } from './pg-queries.ts';

/**
 * A snapshot of a PostgreSQL store's change log: one connection of its own in a read-only
 * repeatable-read transaction, so the header and every row are as of one moment while the writer
 * goes on. Takes no lock a writer waits for.
 */
export async function openPgLogSnapshot(url: string): Promise<LogSnapshot> {
  const client = await connectClient(url);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const epoch = await readMeta(client, EPOCH_META);
    const gapsText = await readMeta(client, EPOCH_GAPS_META);
    const head = (await client.query<{ max: number | null }>(CHANGE_SQL.head.postgres)).rows[0]?.max ?? 0;
    let open = true;
    return snapshotOf(
      { epoch, gapsText, headId: head },
      {
        rows: async (afterId, toId, limit) =>
          (await client.query<ChangeRecord>(CHANGE_SQL.page.postgres, [afterId, toId, limit])).rows,
        batches: async (lo, hi) => (await client.query<RecordedBatch>(BATCH_SQL.between.postgres, [lo, hi])).rows,
      },
      async () => {
        if (!open) return;
        open = false;
        await client.query('COMMIT').catch(() => undefined);
        await client.end();
      },
    );
  } catch (err) {
    await client.end();
    throw err;
  }
}
