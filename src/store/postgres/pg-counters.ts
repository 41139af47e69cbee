import type { CounterEntry, CounterStore } from '../counters.ts';
import { COUNTER_SQL, counterOf, type CounterRow, counterValues } from '../sql/counters.ts';
import { columnsOf } from '../sql/row-codec.ts';
import type { PgPool } from './database.ts';

/** Usage counters in PostgreSQL, saved by the server every second and read by `oddsbase keys show`. */
export class PgCounterStore implements CounterStore {
  constructor(private readonly pool: PgPool) {}

  async load(now: number): Promise<CounterEntry[]> {
    await this.pool.query(COUNTER_SQL.dropExpired.postgres, [now]);
    return (await this.pool.query<CounterRow>(COUNTER_SQL.all.postgres)).rows.map(counterOf);
  }

  /** One statement for the whole set: a key given twice keeps its last entry. */
  async save(entries: readonly CounterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const last = new Map(entries.map((e) => [e.key, e]));
    await this.pool.query(COUNTER_SQL.saveEvery, columns(last.values()));
  }

  /** One statement for the whole set: a key given twice adds both, with the last expiry. */
  async add(entries: readonly CounterEntry[], now: number): Promise<void> {
    if (entries.length === 0) return;
    const merged = new Map<string, CounterEntry>();
    for (const e of entries) {
      const before = merged.get(e.key);
      merged.set(e.key, before ? { ...e, value: before.value + e.value } : e);
    }
    await this.pool.query(COUNTER_SQL.addEvery, [...columns(merged.values()), now]);
  }

  async read(prefix: string, now: number): Promise<CounterEntry[]> {
    const found = await this.pool.query<CounterRow>(
      'SELECT key, value, expires_at FROM counters WHERE starts_with(key, $1) AND expires_at > $2',
      [prefix, now],
    );
    return found.rows.map(counterOf);
  }
}

/** Entries as the three arrays `unnest` takes. */
function columns(entries: Iterable<CounterEntry>): unknown[][] {
  return columnsOf([...entries].map(counterValues), 3);
}
