import type { CounterEntry } from '../counters.ts';
import { numbered, sqlText } from './dialect.ts';

/** A row of `counters`. */
export interface CounterRow {
  key: string;
  value: number;
  expires_at: number;
}

export function counterOf(row: CounterRow): CounterEntry {
  return { key: row.key, value: row.value, expiresAt: row.expires_at };
}

/** An entry's values in the order of the table's columns. */
export function counterValues(e: CounterEntry): [key: string, value: number, expiresAt: number] {
  return [e.key, e.value, e.expiresAt];
}

/**
 * What a write does with a key already kept: `save` replaces its value and expiry; `add` adds to
 * its value, or starts again from the one given when the kept one has expired by the time bound to
 * its last parameter.
 */
const SAVED = 'ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at';
const ADDED = `ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN counters.expires_at <= ? THEN excluded.value ELSE counters.value + excluded.value END,
         expires_at = excluded.expires_at`;
/** One entry's values (SQLite runs the statement once an entry, in one transaction). */
const ONE = 'VALUES (?, ?, ?)';
/** Every entry, as one array a column (PostgreSQL's one statement for the whole set). */
const EVERY = 'SELECT * FROM unnest(?::text[], ?::bigint[], ?::bigint[])';
const upsert = (source: string, onConflict: string) =>
  `INSERT INTO counters (key, value, expires_at) ${source} ${onConflict}`;

export const COUNTER_SQL = {
  dropExpired: sqlText('DELETE FROM counters WHERE expires_at <= ?'),
  all: sqlText('SELECT key, value, expires_at FROM counters'),
  save: sqlText(upsert(ONE, SAVED)),
  add: sqlText(upsert(ONE, ADDED)),
  saveEvery: numbered(upsert(EVERY, SAVED)),
  addEvery: numbered(upsert(EVERY, ADDED)),
};
