import { type SqlDialect, numbered, sqlText } from './dialect.ts';

/**
 * Packing's tables (store/packed-rows.ts): `archived_rows` (an archived event's packed record),
 * `archived_prices` (the record of each of its prices) and `archive_pending` (the archived events
 * not packed yet, or whose rows are still leaving the log, with their last row's id).
 */

/** A price points to its event's record; a price packed again points to the newer one. */
const POINT_TO = 'ON CONFLICT (price_id) DO UPDATE SET record = excluded.record';

/** Queues an event for packing (its id bound thrice), unless it is packed or queued. */
const queue = (d: SqlDialect) => `INSERT INTO archive_pending (event_id, last_id)
  SELECT CAST(? AS text), (SELECT coalesce(max(id), 0) FROM changes WHERE ${d.ofEvent('')})
   WHERE NOT EXISTS (SELECT 1 FROM archived_rows WHERE event_id = ?)
  ON CONFLICT (event_id) DO NOTHING`;

export const PACKED_SQL = {
  body: sqlText('SELECT body FROM archived_rows WHERE event_id = ?'),
  /** Stores an event's record; gives its id. */
  store: sqlText('INSERT INTO archived_rows (event_id, body) VALUES (?, ?) RETURNING id'),
  /** One price (SQLite runs it once a price, in the packing's transaction). */
  pointTo: sqlText(`INSERT INTO archived_prices (price_id, record) VALUES (?, ?) ${POINT_TO}`),
  /** Every price of a record, bound as one array after the record (PostgreSQL). */
  pointEvery: numbered(
    `INSERT INTO archived_prices (price_id, record) SELECT p, ? FROM unnest(?::bigint[]) AS p ${POINT_TO}`,
  ),
  maxPrice: sqlText('SELECT max(price_id) AS max FROM archived_prices'),
  queue: sqlText(queue),
  /** A packed event whose rows are still leaving the log. */
  draining: sqlText('SELECT p.event_id FROM archive_pending p JOIN archived_rows r ON r.event_id = p.event_id LIMIT 1'),
  /** The events waiting longest whose rows lie below an id (two: whether more waits). */
  ready: sqlText('SELECT event_id FROM archive_pending WHERE last_id < ? ORDER BY last_id LIMIT 2'),
  /** An event waits for a later last row. */
  waitFor: sqlText('UPDATE archive_pending SET last_id = ? WHERE event_id = ?'),
  done: sqlText('DELETE FROM archive_pending WHERE event_id = ?'),
};
