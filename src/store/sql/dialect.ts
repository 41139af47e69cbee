import type { Dialect } from '../sql-tables.ts';

export type { Dialect };

/**
 * What the SQLite and PostgreSQL stores spell differently in a statement they otherwise share,
 * each difference named once. Shared statements are written with `?` parameters (`sqlText`);
 * `c` below is the changes table's alias with its dot, or '' for the table itself.
 */
export interface SqlDialect {
  readonly name: Dialect;
  /**
   * A change row's event id as a select list's expression: SQLite's log names an event by a small
   * key of `event_keys` (sqlite/schema.ts), PostgreSQL's by its id.
   */
  eventId(c: string): string;
  /** The condition that a change row is of the event whose id is bound to the one parameter it holds. */
  ofEvent(c: string): string;
  /** A change row's period: read from its detail in SQLite, a column filled at commit in PostgreSQL. */
  period(c: string): string;
  /** The ids of the events of the change rows `where` matches, each once (SQLite looks the keys' ids up). */
  eventsWhere(where: string): string;
  /** The condition that a change row's event is one of `ids`, which it binds to `args` as one value. */
  ofEvents(ids: readonly string[], args: unknown[]): string;
  /** The condition that `column` is one of `ids` (none: matches nothing), whose values it binds to `args`. */
  among(column: string, ids: readonly number[], args: unknown[]): string;
}

/** The key of the event bound to the next parameter (NULL, matching nothing, if the log never named it). */
const KEY_OF = '(SELECT key FROM event_keys WHERE event_id = ?)';

export const SQLITE: SqlDialect = {
  name: 'sqlite',
  eventId: (c) => `(SELECT event_id FROM event_keys WHERE key = ${c}event_key)`,
  ofEvent: (c) => `${c}event_key = ${KEY_OF}`,
  period: (c) => `json_extract(${c}detail, '$.period_id')`,
  eventsWhere: (where) => `SELECT event_id FROM event_keys WHERE key IN (SELECT event_key FROM changes WHERE ${where})`,
  // The list as JSON: one SQL text whatever its length.
  ofEvents: (ids, args) => {
    args.push(JSON.stringify(ids));
    return 'event_key IN (SELECT key FROM event_keys WHERE event_id IN (SELECT value FROM json_each(?)))';
  },
  // `IN ()` is not SQL: an empty list is spelled as a false condition.
  among: (column, ids, args) => {
    if (ids.length === 0) return '0';
    args.push(...ids);
    return `${column} IN (${ids.map(() => '?').join(',')})`;
  },
};

export const POSTGRES: SqlDialect = {
  name: 'postgres',
  eventId: (c) => `${c}event_id`,
  ofEvent: (c) => `${c}event_id = ?`,
  period: (c) => `${c}period_id`,
  eventsWhere: (where) => `SELECT DISTINCT event_id FROM changes WHERE ${where}`,
  ofEvents: (ids, args) => {
    args.push(ids);
    return 'event_id = ANY(?::text[])';
  },
  // An empty list matches nothing, as `= ANY('{}')` does.
  among: (column, ids, args) => {
    args.push(ids);
    return `${column} = ANY(?::bigint[])`;
  },
};

/** A statement's text in either dialect, made once when its module loads. */
export type SqlText = Readonly<Record<Dialect, string>>;

/**
 * The text `write` gives in each dialect, its `?` parameters numbered for PostgreSQL (`$1`, `$2`,
 * … in order of appearance: a value used twice is bound twice).
 */
export function sqlText(write: string | ((d: SqlDialect) => string)): SqlText {
  const of = (d: SqlDialect) => (typeof write === 'string' ? write : write(d));
  return { sqlite: of(SQLITE), postgres: numbered(of(POSTGRES)) };
}

/** `sql` with each `?` outside quotes replaced by `$1`, `$2`, … in order. */
export function numbered(sql: string): string {
  let n = 0;
  let quoted = false;
  let out = '';
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    out += ch === '?' && !quoted ? `$${++n}` : ch;
  }
  return out;
}
