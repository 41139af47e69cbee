import type { CounterEntry, CounterStore } from '../counters.ts';
import type { PgPool } from './database.ts';

type Row = { key: string; value: number; expires_at: number };
const entryOf = (r: Row): CounterEntry => ({ key: r.key, value: r.value, expiresAt: r.expires_at });

/** Usage counters in PostgreSQL, saved by the server every second and read by `oddsbase keys show`. */
export class PgCounterStore implements CounterStore {
  constructor(private readonly pool: PgPool) {}

  async load(now: number): Promise<CounterEntry[]> {
    await this.pool.query('DELETE FROM counters WHERE expires_at <= $1', [now]);
    return (await this.pool.query<Row>('SELECT key, value, expires_at FROM counters')).rows.map(entryOf);
  }

  /** One statement for the whole set: a key given twice keeps its last entry. */
  async save(entries: readonly CounterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const last = new Map(entries.map((e) => [e.key, e]));
    const { keys, values, expiries } = columns(last.values());
    await this.pool.query(
      `INSERT INTO counters (key, value, expires_at)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
      [keys, values, expiries],
    );
  }

  /** One statement for the whole set: a key given twice adds both, with the last expiry. */
  async add(entries: readonly CounterEntry[], now: number): Promise<void> {
    if (entries.length === 0) return;
    const merged = new Map<string, CounterEntry>();
    for (const e of entries) {
      const before = merged.get(e.key);
      merged.set(e.key, before ? { ...e, value: before.value + e.value } : e);
    }
    const { keys, values, expiries } = columns(merged.values());
    await this.pool.query(
      `INSERT INTO counters (key, value, expires_at)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
       ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN counters.expires_at <= $4 THEN excluded.value ELSE counters.value + excluded.value END,
         expires_at = excluded.expires_at`,
      [keys, values, expiries, now],
    );
  }

  async read(prefix: string, now: number): Promise<CounterEntry[]> {
    const found = await this.pool.query<Row>(
      'SELECT key, value, expires_at FROM counters WHERE starts_with(key, $1) AND expires_at > $2',
      [prefix, now],
    );
    return found.rows.map(entryOf);
  }
}

/** Entries as the three arrays `unnest` takes. */
function columns(entries: Iterable<CounterEntry>): { keys: string[]; values: number[]; expiries: number[] } {
  const keys: string[] = [];
  const values: number[] = [];
  const expiries: number[] = [];
  for (const e of entries) {
    keys.push(e.key);
    values.push(e.value);
    expiries.push(e.expiresAt);
  }
  return { keys, values, expiries };
}
