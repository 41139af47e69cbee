/**
 * The PostgreSQL store's schema as versioned migrations: each runs once, in order, in its own
 * transaction, and `schema_migrations` records it (database.ts runs them under an advisory lock).
 * A released migration is never edited; a change of schema is a new one at the end.
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
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'change log, events, markets, keys, counters, retention',
    sql: `
CREATE TABLE meta (
  key text COLLATE "C" PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE changes (
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
);
CREATE INDEX changes_by_event ON changes (event_id, id);
CREATE INDEX changes_by_price ON changes (price_id, id) WHERE price_id IS NOT NULL;
CREATE INDEX changes_by_event_market ON changes (event_id, market_id, id) WHERE price_id IS NOT NULL;
CREATE INDEX changes_plays ON changes (event_id, id) WHERE kind = 'play';
CREATE INDEX changes_stats ON changes (event_id, id) WHERE kind = 'stat';
CREATE INDEX changes_futures ON changes (kind, id)
  WHERE kind IN ('futures_board', 'futures_price', 'futures_settlement');
CREATE TABLE events (
  event_id text COLLATE "C" PRIMARY KEY,
  sport_id integer NOT NULL,
  event_date text COLLATE "C" NOT NULL,
  info text NOT NULL,
  change_id bigint NOT NULL
);
CREATE TABLE markets (
  id bigint PRIMARY KEY,
  event_id text COLLATE "C" NOT NULL,
  market_id integer NOT NULL,
  period_id integer NOT NULL,
  UNIQUE (event_id, market_id, period_id)
);
CREATE TABLE api_keys (
  key_hash text COLLATE "C" PRIMARY KEY,
  key_prefix text COLLATE "C" NOT NULL,
  tier text NOT NULL,
  label text NOT NULL DEFAULT '',
  created_at text COLLATE "C" NOT NULL,
  revoked_at text,
  expires_at text,
  billing text NOT NULL DEFAULT 'monthly',
  budget_cap_usd double precision,
  v1 integer NOT NULL DEFAULT 0,
  v2 integer NOT NULL DEFAULT 1,
  credits integer NOT NULL DEFAULT 0,
  credits_expiry text,
  custom text
);
CREATE INDEX api_keys_by_prefix ON api_keys (key_prefix);
CREATE TABLE counters (
  key text COLLATE "C" PRIMARY KEY,
  value bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE TABLE archived_events (
  event_id text COLLATE "C" PRIMARY KEY,
  archived_ms bigint NOT NULL
);
CREATE TABLE season_totals (
  season_key text COLLATE "C" PRIMARY KEY,
  body text NOT NULL
);
CREATE TABLE archived_rows (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id text COLLATE "C" NOT NULL UNIQUE,
  body bytea NOT NULL
);
CREATE TABLE archived_prices (
  price_id bigint PRIMARY KEY,
  record bigint NOT NULL
);
CREATE TABLE archive_pending (
  event_id text COLLATE "C" PRIMARY KEY,
  last_id bigint NOT NULL
);
`,
  },
  {
    version: 2,
    name: 'admin tokens, ingest batch ids',
    sql: `
CREATE TABLE admin_tokens (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  token_hash text COLLATE "C" PRIMARY KEY,
  token_prefix text COLLATE "C" NOT NULL,
  label text NOT NULL DEFAULT '',
  created_at text COLLATE "C" NOT NULL,
  revoked_at text
);
CREATE TABLE ingest_batches (
  batch_id text COLLATE "C" PRIMARY KEY,
  head_id bigint NOT NULL,
  committed_ms bigint NOT NULL
);
`,
  },
];
