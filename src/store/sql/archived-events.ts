import type { ArchivedMark } from '../store.ts';
import { sqlText } from './dialect.ts';

/** `archived_events`: the events taken off the board (Store.archive), each with when it first was. */
export interface ArchivedRow {
  event_id: string;
  archived_ms: number;
}

export function archivedMarkOf(row: ArchivedRow): ArchivedMark {
  return { eventId: row.event_id, archivedMs: row.archived_ms };
}

export function archivedValues(m: ArchivedMark): [eventId: string, archivedMs: number] {
  return [m.eventId, m.archivedMs];
}

/** A row (of events or markets) of an event still on the board: a start's load leaves archived events out. */
export const NOT_ARCHIVED = 'event_id NOT IN (SELECT event_id FROM archived_events)';

export const ARCHIVED_SQL = {
  /** Marks an event archived; one archived already keeps its first time. */
  mark: sqlText('INSERT INTO archived_events (event_id, archived_ms) VALUES (?, ?) ON CONFLICT DO NOTHING'),
  /** The marks at or after a time, through their index (sql-tables.ts, ARCHIVED_BY_TIME), in its order. */
  since: sqlText(
    'SELECT event_id, archived_ms FROM archived_events WHERE archived_ms >= ? ORDER BY archived_ms, event_id',
  ),
  ids: sqlText('SELECT event_id FROM archived_events'),
};
