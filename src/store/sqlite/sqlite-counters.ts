import type { CounterEntry, CounterStore } from '../counters.ts';
import type { SqliteDatabase } from './database.ts';

/**
 * Where the embedded mode keeps its usage counters between restarts, and where `oddsbase keys show`
 * (another process) reads them. The server writes its changed counters every second.
 */
export class SqliteCounterStore implements CounterStore {
  constructor(private readonly db: SqliteDatabase) {}

  async load(now: number): Promise<CounterEntry[]> {
    this.db.prepare('DELETE FROM counters WHERE expires_at <= ?').run(now);
    return (
      this.db.prepare('SELECT key, value, expires_at FROM counters').all() as {
        key: string;
        value: number;
        expires_at: number;
      }[]
    ).map((r) => ({ key: r.key, value: r.value, expiresAt: r.expires_at }));
  }

  async save(entries: readonly CounterEntry[]): Promise<void> {
    const upsert = this.db.prepare(
      `INSERT INTO counters (key, value, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    );
    this.db.transaction(() => {
      for (const e of entries) upsert.run(e.key, e.value, e.expiresAt);
    })();
  }

  async add(entries: readonly CounterEntry[], now: number): Promise<void> {
    const upsert = this.db.prepare(
      `INSERT INTO counters (key, value, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN counters.expires_at <= ? THEN excluded.value ELSE counters.value + excluded.value END,
         expires_at = excluded.expires_at`,
    );
    this.db.transaction(() => {
      for (const e of entries) upsert.run(e.key, e.value, e.expiresAt, now);
    })();
  }

  /** Counters whose key starts with `prefix` and that have not expired. */
  async read(prefix: string, now: number): Promise<CounterEntry[]> {
    return (
      this.db
        .prepare('SELECT key, value, expires_at FROM counters WHERE key >= ? AND key < ? AND expires_at > ?')
        .all(prefix, `${prefix}\uffff`, now) as {
        key: string;
        value: number;
        expires_at: number;
      }[]
    ).map((r) => ({ key: r.key, value: r.value, expiresAt: r.expires_at }));
  }
}
