/**
 * The tables and indexes the SQLite and PostgreSQL stores define alike, each written out in either
 * dialect (`createTable`, `createIndex`). Where the dialects differ for a reason, each store keeps
 * its own text: the change log (SQLite keys its events by a small integer, PostgreSQL keeps the
 * text and a period column; see postgres/schema.ts), SQLite's `event_keys`, and PostgreSQL's order
 * column of `admin_tokens`.
 *
 * PostgreSQL's released migrations are written from these definitions, and a released migration is
 * never edited: a definition here is never changed either. A change of schema is a new definition
 * or a statement of its own, run by SQLite's open and by a new PostgreSQL migration.
 */

export type Dialect = 'sqlite' | 'postgres';

/**
 * A column's type: `key` is text compared by order (times, ids, prefixes), which PostgreSQL
 * compares in the "C" collation, byte by byte as SQLite does whatever the database's locale;
 * `serial` is a primary key the database assigns.
 */
export type ColumnType = 'text' | 'key' | 'int' | 'bigint' | 'real' | 'bytes' | 'serial';

/** A column: name, type and constraints (the same text in both dialects). */
export type Column = readonly [name: string, type: ColumnType, constraints?: string];

export interface TableDef {
  readonly name: string;
  readonly columns: readonly Column[];
  /** Table constraints, such as a UNIQUE over several columns. */
  readonly constraints?: readonly string[];
}

export interface IndexDef {
  readonly name: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** The predicate of a partial index. */
  readonly where?: string;
}

const TYPES: Record<Dialect, Record<ColumnType, string>> = {
  sqlite: {
    text: 'TEXT',
    key: 'TEXT',
    int: 'INTEGER',
    bigint: 'INTEGER',
    real: 'REAL',
    bytes: 'BLOB',
    serial: 'INTEGER PRIMARY KEY',
  },
  postgres: {
    text: 'text',
    key: 'text COLLATE "C"',
    int: 'integer',
    bigint: 'bigint',
    real: 'double precision',
    bytes: 'bytea',
    serial: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  },
};

/** The CREATE TABLE of `t` in `dialect`; SQLite's skips a table that exists (its schema runs at every open). */
export function createTable(t: TableDef, dialect: Dialect): string {
  const lines = [
    ...t.columns.map(([name, type, constraints]) =>
      [name, TYPES[dialect][type], constraints].filter((part) => part !== undefined && part !== '').join(' '),
    ),
    ...(t.constraints ?? []),
  ];
  const create = dialect === 'sqlite' ? 'CREATE TABLE IF NOT EXISTS' : 'CREATE TABLE';
  return `${create} ${t.name} (\n${lines.map((l) => `  ${l}`).join(',\n')}\n);`;
}

/** The CREATE INDEX of `i` in `dialect`; SQLite's skips an index that exists. */
export function createIndex(i: IndexDef, dialect: Dialect): string {
  const create = dialect === 'sqlite' ? 'CREATE INDEX IF NOT EXISTS' : 'CREATE INDEX';
  const where = i.where === undefined ? '' : ` WHERE ${i.where}`;
  return `${create} ${i.name} ON ${i.table} (${i.columns.join(', ')})${where};`;
}

export const META: TableDef = {
  name: 'meta',
  columns: [
    ['key', 'key', 'PRIMARY KEY'],
    ['value', 'text', 'NOT NULL'],
  ],
};

export const EVENTS: TableDef = {
  name: 'events',
  columns: [
    ['event_id', 'key', 'PRIMARY KEY'],
    ['sport_id', 'int', 'NOT NULL'],
    ['event_date', 'key', 'NOT NULL'],
    ['info', 'text', 'NOT NULL'],
    ['change_id', 'bigint', 'NOT NULL'],
  ],
};

export const MARKETS: TableDef = {
  name: 'markets',
  columns: [
    ['id', 'bigint', 'PRIMARY KEY'],
    ['event_id', 'key', 'NOT NULL'],
    ['market_id', 'int', 'NOT NULL'],
    ['period_id', 'int', 'NOT NULL'],
  ],
  constraints: ['UNIQUE (event_id, market_id, period_id)'],
};

export const API_KEYS: TableDef = {
  name: 'api_keys',
  columns: [
    ['key_hash', 'key', 'PRIMARY KEY'],
    ['key_prefix', 'key', 'NOT NULL'],
    ['tier', 'text', 'NOT NULL'],
    ['label', 'text', "NOT NULL DEFAULT ''"],
    ['created_at', 'key', 'NOT NULL'],
    ['revoked_at', 'text'],
    ['expires_at', 'text'],
    ['billing', 'text', "NOT NULL DEFAULT 'monthly'"],
    ['budget_cap_usd', 'real'],
    ['v1', 'int', 'NOT NULL DEFAULT 0'],
    ['v2', 'int', 'NOT NULL DEFAULT 1'],
    ['credits', 'int', 'NOT NULL DEFAULT 0'],
    ['credits_expiry', 'text'],
    ['custom', 'text'],
  ],
};

export const INGEST_BATCHES: TableDef = {
  name: 'ingest_batches',
  columns: [
    ['batch_id', 'key', 'PRIMARY KEY'],
    ['head_id', 'bigint', 'NOT NULL'],
    ['committed_ms', 'bigint', 'NOT NULL'],
  ],
};

/** Named batches by the head they left: a recording reads them beside the rows, in log order. */
export const INGEST_BATCHES_BY_HEAD: IndexDef = {
  name: 'ingest_batches_by_head',
  table: 'ingest_batches',
  columns: ['head_id'],
};

export const COUNTERS: TableDef = {
  name: 'counters',
  columns: [
    ['key', 'key', 'PRIMARY KEY'],
    ['value', 'bigint', 'NOT NULL'],
    ['expires_at', 'bigint', 'NOT NULL'],
  ],
};

/**
 * Retention's tables:
 * - `archived_events`: events that left the in-memory board (finished long enough ago); a start
 *   loads the board without them and their reads come from the store.
 * - `season_totals`: the summed box scores of archived games per sport, team, season year and
 *   season type, so that season aggregates keep counting games the board no longer holds.
 * - `archived_rows`: the packed record of an archived event's rows (store/packed-rows.ts), once
 *   they all lie below the retained boundary; `archived_prices` finds the record of a price;
 *   `archive_pending` holds the archived events not packed yet, with their last row's id.
 */
export const RETENTION_TABLES: readonly TableDef[] = [
  {
    name: 'archived_events',
    columns: [
      ['event_id', 'key', 'PRIMARY KEY'],
      ['archived_ms', 'bigint', 'NOT NULL'],
    ],
  },
  {
    name: 'season_totals',
    columns: [
      ['season_key', 'key', 'PRIMARY KEY'],
      ['body', 'text', 'NOT NULL'],
    ],
  },
  {
    name: 'archived_rows',
    columns: [
      ['id', 'serial'],
      ['event_id', 'key', 'NOT NULL UNIQUE'],
      ['body', 'bytes', 'NOT NULL'],
    ],
  },
  {
    name: 'archived_prices',
    columns: [
      ['price_id', 'bigint', 'PRIMARY KEY'],
      ['record', 'bigint', 'NOT NULL'],
    ],
  },
  {
    name: 'archive_pending',
    columns: [
      ['event_id', 'key', 'PRIMARY KEY'],
      ['last_id', 'bigint', 'NOT NULL'],
    ],
  },
];

/**
 * The change log's indexes, over the column that names a row's event (`event_key` in SQLite,
 * `event_id` in PostgreSQL) and with the futures kinds as each dialect's planner matches them.
 */
export function changeIndexes(event: string, futuresKinds: string): IndexDef[] {
  return [
    { name: 'changes_by_event', table: 'changes', columns: [event, 'id'] },
    { name: 'changes_by_price', table: 'changes', columns: ['price_id', 'id'], where: 'price_id IS NOT NULL' },
    // The line chart of one market reads that market's rows only, not the whole event's.
    {
      name: 'changes_by_event_market',
      table: 'changes',
      columns: [event, 'market_id', 'id'],
      where: 'price_id IS NOT NULL',
    },
    // An event's plays are paged by their rank; its stat rows make its box score.
    { name: 'changes_plays', table: 'changes', columns: [event, 'id'], where: "kind = 'play'" },
    { name: 'changes_stats', table: 'changes', columns: [event, 'id'], where: "kind = 'stat'" },
    // A start reads the futures boards' newest rows without scanning the other kinds.
    { name: 'changes_futures', table: 'changes', columns: ['kind', 'id'], where: futuresKinds },
  ];
}

/**
 * Archiving's marks by time: an API node asks for those since its last look every few seconds
 * (`Store.archivedSince`, in their order), which without it read the whole table. Added after
 * the first release: SQLite makes it at open, PostgreSQL in migration 3.
 */
export const ARCHIVED_BY_TIME: IndexDef = {
  name: 'archived_events_by_time',
  table: 'archived_events',
  columns: ['archived_ms', 'event_id'],
};

/**
 * Keys by their stored prefix: a revocation by prefix (`oddsbase keys revoke PREFIX`) finds its
 * rows without reading the table. PostgreSQL's migration 1 made it; SQLite makes it at open, so a
 * file made before it gains it.
 */
export const KEYS_BY_PREFIX: IndexDef = {
  name: 'api_keys_by_prefix',
  table: 'api_keys',
  columns: ['key_prefix'],
};

/**
 * Admin tokens by their stored prefix, as `KEYS_BY_PREFIX` for keys: `oddsbase admin-tokens revoke
 * PREFIX` finds its rows without reading the table. Added after the first release: SQLite makes it
 * at open, PostgreSQL in migration 4.
 */
export const ADMIN_TOKENS_BY_PREFIX: IndexDef = {
  name: 'admin_tokens_by_prefix',
  table: 'admin_tokens',
  columns: ['token_prefix'],
};
