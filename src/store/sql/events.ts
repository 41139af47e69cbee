import type { EventRecord } from '../store.ts';
import { NOT_ARCHIVED } from './archived-events.ts';
import { sqlText } from './dialect.ts';
import { fieldsOf } from './row-codec.ts';

/** `events`: the kept record of each event; a row is an EventRecord, its fields the columns. */
export const EVENT_FIELDS = fieldsOf<EventRecord>({
  event_id: true,
  sport_id: true,
  event_date: true,
  info: true,
  change_id: true,
});

/** The select list of an EventRecord; `alias` names the table when the query joins it. */
const columns = (alias = '') => EVENT_FIELDS.map((f) => (alias ? `${alias}.${f}` : f)).join(', ');

/** A commit's event replaces the kept record of its id. */
export const EVENT_UPSERT = `ON CONFLICT (event_id) DO UPDATE SET ${EVENT_FIELDS.filter((f) => f !== 'event_id')
  .map((f) => `${f} = excluded.${f}`)
  .join(', ')}`;

export const EVENT_SQL = {
  /** One event (SQLite's commit runs it once an event; PostgreSQL's binds every event as arrays). */
  upsert: sqlText(
    `INSERT INTO events (${columns()}) VALUES (${EVENT_FIELDS.map(() => '?').join(', ')}) ${EVENT_UPSERT}`,
  ),
  /** The events still on the board. */
  live: sqlText(`SELECT ${columns()} FROM events WHERE ${NOT_ARCHIVED}`),
  /** The archived events scheduled at or after a time. */
  archivedSince: sqlText(
    `SELECT ${columns('e')} FROM events e JOIN archived_events a ON a.event_id = e.event_id WHERE e.event_date >= ?`,
  ),
  /** An event's record if it is archived. */
  archived: sqlText(
    `SELECT ${columns('e')} FROM events e JOIN archived_events a ON a.event_id = e.event_id WHERE e.event_id = ?`,
  ),
  dateOf: sqlText('SELECT event_date FROM events WHERE event_id = ?'),
};
