import type { MarketRecord } from '../store.ts';
import { NOT_ARCHIVED } from './archived-events.ts';
import { sqlText } from './dialect.ts';
import { fieldsOf } from './row-codec.ts';

/** `markets`: market instances, never changed once made; a row is a MarketRecord, its fields the columns. */
export const MARKET_FIELDS = fieldsOf<MarketRecord>({ id: true, event_id: true, market_id: true, period_id: true });

const COLUMNS = MARKET_FIELDS.join(', ');

export const MARKET_SQL = {
  /** One market (SQLite's commit runs it once a market; PostgreSQL's binds every market as arrays). */
  insert: sqlText(`INSERT INTO markets (${COLUMNS}) VALUES (${MARKET_FIELDS.map(() => '?').join(', ')})`),
  /** The markets of the events still on the board. */
  live: sqlText(`SELECT ${COLUMNS} FROM markets WHERE ${NOT_ARCHIVED} ORDER BY id`),
  ofEvent: sqlText(`SELECT ${COLUMNS} FROM markets WHERE event_id = ? ORDER BY id`),
  maxId: sqlText('SELECT max(id) AS max FROM markets'),
};
