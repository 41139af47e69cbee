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
  /**
   * A list of ids as one bound value (`list`), so that a statement reading it is one SQL text, and
   * one prepared statement, whatever the list's length: the condition that `column` is one of the
   * list bound to the one parameter it holds (an empty list matches nothing).
   */
  inList(column: string): string;
  /** The value a list of ids is bound as (`inList`, `unpackedAmong`, `eachListed`). */
  list(ids: readonly number[]): unknown;
  /** The condition that no packed record holds the price `price` names (its rows are read from the log). */
  unpacked(price: string): string;
  /**
   * The condition that `column` is a price of the list bound to the one parameter it holds that no
   * packed record holds (`unpacked`). SQLite leaves the packed prices out of the list, a probe a
   * price; PostgreSQL leaves out the rows, so its list stays the index condition (`= ANY`).
   */
  unpackedAmong(column: string): string;
  /**
   * A FROM clause: each id of the list bound to its first parameter (`j.value`) with the one change
   * row `c` (its `columns`) that `search` finds first, a WHERE and an ORDER BY over `changes` naming
   * `j.value`. SQLite finds the row's id by a scalar subquery, PostgreSQL the row by a LATERAL join:
   * one index probe a listed id in each.
   */
  eachListed(columns: string, search: string): string;
  /**
   * The newest change rows (`columns`) `where` matches, at most the limit bound to the last
   * parameter, newest first. SQLite picks the ids first (from an index alone when no condition
   * needs the row), so only the rows returned are read whole; PostgreSQL plans the plain query.
   */
  newestRows(columns: string, where: string): string;
  /** The condition that a change row's payload has its boolean `field` set (a JSON true). */
  payloadFlag(field: string): string;
  /** A scalar `field` of a change row's payload, compared with a value bound as `payloadScalar` gives it. */
  payloadField(field: string): string;
  /** A payload's scalar as `payloadField` reads it: SQLite's JSON value as it is, PostgreSQL's text (null stays null). */
  payloadScalar(value: number | undefined): unknown;
  /** The condition that `expr` is the value bound to the one parameter it holds, a null the same as a null. */
  sameAs(expr: string): string;
  /** A text written with `?` parameters as this dialect binds them (SQLite's as written, PostgreSQL's numbered). */
  parameters(sql: string): string;
}

/** SQLite's `unpacked`: a search of archived_prices' rowid for the IN operator, no subquery run a price. */
const notPackedSqlite = (price: string) => `${price} NOT IN (SELECT price_id FROM archived_prices)`;

/** PostgreSQL's `unpacked`: an anti-join probing archived_prices' key (NOT IN over a subquery reads the whole table). */
const notPackedPostgres = (price: string) =>
  `NOT EXISTS (SELECT 1 FROM archived_prices ap WHERE ap.price_id = ${price})`;

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
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  list: (ids) => JSON.stringify(ids),
  unpacked: notPackedSqlite,
  unpackedAmong: (column) => `${column} IN (SELECT value FROM json_each(?) WHERE ${notPackedSqlite('value')})`,
  eachListed: (_columns, search) =>
    `json_each(?) j JOIN changes c ON c.id = (SELECT id FROM changes WHERE ${search} LIMIT 1)`,
  newestRows: (columns, where) =>
    `SELECT ${columns} FROM changes WHERE id IN (SELECT id FROM changes WHERE ${where} ORDER BY id DESC LIMIT ?) ` +
    'ORDER BY id DESC',
  payloadFlag: (field) => `json_extract(payload, '$.${field}') = 1`,
  payloadField: (field) => `json_extract(payload, '$.${field}')`,
  payloadScalar: (value) => value ?? null,
  sameAs: (expr) => `${expr} IS ?`,
  parameters: (sql) => sql,
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
  inList: (column) => `${column} = ANY(?::bigint[])`,
  list: (ids) => ids,
  // The rows' column is named by its table: within the probe, `price_id` is archived_prices'.
  unpacked: notPackedPostgres,
  unpackedAmong: (column) => `${column} = ANY(?::bigint[]) AND ${notPackedPostgres(`changes.${column}`)}`,
  eachListed: (columns, search) =>
    `unnest(?::bigint[]) AS j(value) JOIN LATERAL (SELECT ${columns} FROM changes WHERE ${search} LIMIT 1) c ON true`,
  newestRows: (columns, where) => `SELECT ${columns} FROM changes WHERE ${where} ORDER BY id DESC LIMIT ?`,
  payloadFlag: (field) => `(payload::jsonb ->> '${field}') = 'true'`,
  payloadField: (field) => `(payload::jsonb ->> '${field}')`,
  payloadScalar: (value) => (value === undefined ? null : String(value)),
  sameAs: (expr) => `${expr} IS NOT DISTINCT FROM ?`,
  parameters: (sql) => numbered(sql),
};

/** A statement's text in either dialect, made once when its module loads. */
export type SqlText = Readonly<Record<Dialect, string>>;

/**
 * The text `write` gives in each dialect, its `?` parameters numbered for PostgreSQL (`$1`, `$2`,
 * … in order of appearance: a value used twice is bound twice).
 */
export function sqlText(write: string | ((d: SqlDialect) => string)): SqlText {
  const of = (d: SqlDialect) => (typeof write === 'string' ? write : write(d));
  return { sqlite: SQLITE.parameters(of(SQLITE)), postgres: POSTGRES.parameters(of(POSTGRES)) };
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
