import {
  ADMIN_TOKENS_BY_PREFIX,
  API_KEYS,
  ARCHIVED_BY_TIME,
  changeIndexes,
  COUNTERS,
  createIndex,
  createTable,
  EVENTS,
  type IndexDef,
  INGEST_BATCHES,
  INGEST_BATCHES_BY_HEAD,
  KEYS_BY_PREFIX,
  MARKETS,
  META,
  RETENTION_TABLES,
  type TableDef,
} from '../sql-tables.ts';

/**
 * The PostgreSQL store's schema as versioned migrations: each runs once, in order, in its own
 * transaction, and `schema_migrations` records it (database.ts runs them under an advisory lock).
 * A released migration is never edited; a change of schema is a new one at the end. The tables
 * and indexes both stores define alike are written from ../sql-tables.ts.
 *
 * Differences from the SQLite schema (sqlite/schema.ts), each for a reason:
 * - Change rows name their event by its id, not by a key of a side table: PostgreSQL's B-trees
 *   store a repeated key once (deduplication), so the text costs little in the indexes, and a
 *   commit needs no key lookups or a map of keys in memory (several nodes read the same log).
 * - `period_id` is a column, filled from the row's detail at commit: filters by period and the
 *   delta's row summaries read it without parsing JSON.
 * - Texts compared by order (times, ids, counter prefixes) use the "C" collation: byte order, as
 *   SQLite compares them, whatever locale the database was made with.
 */
const table = (t: TableDef) => createTable(t, 'postgres');
const index = (i: IndexDef) => createIndex(i, 'postgres');

export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'change log, events, markets, keys, counters, retention',
    sql: [
      table(META),
      `CREATE TABLE changes (
  id bigint PRIMARY KEY,
  kind text COLLATE "C" NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  sport_id integer NOT NULL,
  at text COLLATE "C" NOT NULL,
  committed_ms bigint NOT NULL,
  price_id bigint,
  affiliate_id integer,
  market_id integer,
  period_id integer,
  payload text NOT NULL,
  detail text
);`,
      ...changeIndexes('event_id', "kind IN ('futures_board', 'futures_price', 'futures_settlement')").map(index),
      table(EVENTS),
      table(MARKETS),
      table(API_KEYS),
      index(KEYS_BY_PREFIX),
      table(COUNTERS),
      ...RETENTION_TABLES.map(table),
    ].join('\n'),
  },
  {
    version: 2,
    name: 'admin tokens, ingest batch ids',
    sql: [
      `CREATE TABLE admin_tokens (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  token_hash text COLLATE "C" PRIMARY KEY,
  token_prefix text COLLATE "C" NOT NULL,
  label text NOT NULL DEFAULT '',
  created_at text COLLATE "C" NOT NULL,
  revoked_at text
);`,
      table(INGEST_BATCHES),
    ].join('\n'),
  },
  {
    version: 3,
    name: 'archived events by time',
    sql: index(ARCHIVED_BY_TIME),
  },
  {
    version: 4,
    name: 'admin tokens by prefix',
    sql: index(ADMIN_TOKENS_BY_PREFIX),
  },
  {
    version: 5,
    name: 'ingest batch ids by head',
    sql: index(INGEST_BATCHES_BY_HEAD),
  },
];
