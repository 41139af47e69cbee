import type { ChangeRecord } from '../../changelog/change.ts';
import { type LogSnapshot, snapshotOf } from '../log-reader.ts';
import { EPOCH_GAPS_META, EPOCH_META } from '../store.ts';
import { connectClient } from './database.ts';
import { ROW } from './pg-queries.ts';

/**
 * A snapshot of a PostgreSQL store's change log: one connection of its own in a read-only
 * repeatable-read transaction, so the header and every row are as of one moment while the writer
 * goes on. Takes no lock a writer waits for.
 */
export async function openPgLogSnapshot(url: string): Promise<LogSnapshot> {
  const client = await connectClient(url);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const meta = async (key: string) =>
      (await client.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key])).rows[0]?.value;
    const epoch = await meta(EPOCH_META);
    const gapsText = await meta(EPOCH_GAPS_META);
    const head = (await client.query<{ id: number | null }>('SELECT max(id) AS id FROM changes')).rows[0]?.id ?? 0;
    let open = true;
    return snapshotOf(
      { epoch, gapsText, headId: head },
      async (afterId, toId, limit) =>
        (
          await client.query<ChangeRecord>(
            `SELECT ${ROW} FROM changes WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3`,
            [afterId, toId, limit],
          )
        ).rows,
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
