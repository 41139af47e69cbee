import type { ChangeRecord, EpochGap } from '../../changelog/change.ts';
import type { LogSnapshot } from '../log-reader.ts';
import { EPOCH_GAPS_META, EPOCH_META } from '../store.ts';
import { connectClient } from './database.ts';

/** Rows read per statement: a page of a recording, so the whole log is never held. */
const PAGE_ROWS = 2000;

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
    return {
      epoch,
      gaps: gapsText === undefined ? [] : (JSON.parse(gapsText) as EpochGap[]),
      headId: head,
      async *rows(afterId: number): AsyncGenerator<ChangeRecord> {
        for (let after = afterId; ;) {
          const { rows } = await client.query<ChangeRecord>(
            `SELECT id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail
               FROM changes WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3`,
            [after, head, PAGE_ROWS],
          );
          yield* rows;
          if (rows.length < PAGE_ROWS) return;
          after = rows[rows.length - 1]!.id;
        }
      },
      async close() {
        if (!open) return;
        open = false;
        await client.query('COMMIT').catch(() => undefined);
        await client.end();
      },
    };
  } catch (err) {
    await client.end();
    throw err;
  }
}
