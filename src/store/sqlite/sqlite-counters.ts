import type { CounterEntry, CounterStore } from '../counters.ts';
import { COUNTER_SQL, counterOf, type CounterRow, counterValues } from '../sql/counters.ts';
import type { SqliteDatabase } from './database.ts';

/**
 * Where the embedded mode keeps its usage counters between restarts, and where `oddsbase keys show`
 * (another process) reads them. The server writes its changed counters every second.
 */
export class SqliteCounterStore implements CounterStore {
  constructor(private readonly db: SqliteDatabase) {}

  async load(now: number): Promise<CounterEntry[]> {
    this.db.prepare(COUNTER_SQL.dropExpired.sqlite).run(now);
    return (this.db.prepare(COUNTER_SQL.all.sqlite).all() as CounterRow[]).map(counterOf);
  }

  async save(entries: readonly CounterEntry[]): Promise<void> {
    const upsert = this.db.prepare(COUNTER_SQL.save.sqlite);
    this.db.transaction(() => {
      for (const e of entries) upsert.run(...counterValues(e));
    })();
  }

  async add(entries: readonly CounterEntry[], now: number): Promise<void> {
    const upsert = this.db.prepare(COUNTER_SQL.add.sqlite);
    this.db.transaction(() => {
      for (const e of entries) upsert.run(...counterValues(e), now);
    })();
  }

  /** Counters whose key starts with `prefix` and that have not expired. */
  async read(prefix: string, now: number): Promise<CounterEntry[]> {
    // A range of the primary key (SQLite has no starts_with): keys compare byte by byte.
    const rows = this.db
      .prepare('SELECT key, value, expires_at FROM counters WHERE key >= ? AND key < ? AND expires_at > ?')
      .all(prefix, `${prefix}\uffff`, now) as CounterRow[];
    return rows.map(counterOf);
  }
}
