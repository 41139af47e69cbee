import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { KeyRecord } from '../../src/store/keys.ts';
import { ADMIN_TOKENS, API_KEYS } from '../../src/store/secret-tables.ts';
import { ARCHIVED_SQL, archivedMarkOf, type ArchivedRow, archivedValues } from '../../src/store/sql/archived-events.ts';
import { BATCH_SQL, batchValues } from '../../src/store/sql/batches.ts';
import { CHANGE_SQL, changeColumns, periodOf, supersededQuestion } from '../../src/store/sql/changes.ts';
import { COUNTER_SQL, counterOf, type CounterRow, counterValues } from '../../src/store/sql/counters.ts';
import { numbered, POSTGRES, SQLITE, type SqlDialect, type SqlText, sqlText } from '../../src/store/sql/dialect.ts';
import { EVENT_FIELDS, EVENT_SQL } from '../../src/store/sql/events.ts';
import {
  firstRowsStatement,
  HISTORY_SQL,
  lastRowsStatement,
  logRowsStatement,
} from '../../src/store/sql/history-reads.ts';
import { MARKET_FIELDS, MARKET_SQL } from '../../src/store/sql/markets.ts';
import { META_SQL } from '../../src/store/sql/meta.ts';
import { PACKED_SQL } from '../../src/store/sql/packed-tables.ts';
import { fieldColumns, valuesOf } from '../../src/store/sql/row-codec.ts';
import {
  SEASON_TOTALS_SQL,
  seasonTotalsOf,
  type SeasonTotalsRow,
  seasonTotalsValues,
} from '../../src/store/sql/season-totals.ts';
import { secretSql, secretValues } from '../../src/store/sql/secrets.ts';
import { openSqlite, type SqliteDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { HistoryQuery } from '../../src/store/history.ts';
import type { ChangeRecord } from '../../src/store/store.ts';
import { EVENT_A, eventRecord, marketRecord, playRow, priceRow, statRow } from '../contract/fixtures.ts';

/**
 * The statements and row codecs the SQL stores share (src/store/sql/): a record written by a
 * codec's encode and read back by its decode is the record again, in SQLite (a real database) and
 * in the rows PostgreSQL's driver gives (its columns as named, bigints read as numbers).
 */

function sqliteFile(t: TestContext): SqliteDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-sql-codecs-'));
  const db = openSqlite(dir);
  t.after(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

/** Every shared statement, by where it sits. */
function sharedTexts(): [string, SqlText][] {
  const out: [string, SqlText][] = [];
  const walk = (path: string, value: unknown) => {
    if (typeof value !== 'object' || value === null) return;
    if ('sqlite' in value && 'postgres' in value) out.push([path, value as SqlText]);
    else for (const [k, v] of Object.entries(value)) walk(`${path}.${k}`, v);
  };
  const tables = {
    ARCHIVED_SQL,
    BATCH_SQL,
    CHANGE_SQL,
    COUNTER_SQL,
    EVENT_SQL,
    HISTORY_SQL,
    MARKET_SQL,
    META_SQL,
    PACKED_SQL,
  };
  for (const [name, texts] of Object.entries(tables)) walk(name, texts);
  walk('SEASON_TOTALS_SQL', SEASON_TOTALS_SQL);
  walk('secretSql(API_KEYS)', secretSql(API_KEYS, 'created_at'));
  return out;
}

test("a shared text: SQLite's `?` parameters, numbered in PostgreSQL's, quoted text left alone", () => {
  assert.deepEqual(sqlText("SELECT ? WHERE at NOT LIKE '?_' AND id = ?"), {
    sqlite: "SELECT ? WHERE at NOT LIKE '?_' AND id = ?",
    postgres: "SELECT $1 WHERE at NOT LIKE '?_' AND id = $2",
  });
  assert.equal(numbered('unnest(?::bigint[]), ?'), 'unnest($1::bigint[]), $2');
  const texts = sharedTexts();
  assert.ok(texts.length > 40, `${texts.length} shared statements found`);
  for (const [where, text] of texts) {
    const marks = text.sqlite.replace(/'[^']*'/g, '').split('?').length - 1;
    assert.equal(text.postgres.match(/\$\d+/g)?.length ?? 0, marks, where);
    assert.doesNotMatch(text.sqlite, /\$\d/, where);
  }
});

test('every shared statement prepares against the SQLite schema', (t) => {
  const db = sqliteFile(t);
  for (const [where, text] of sharedTexts()) assert.doesNotThrow(() => db.prepare(text.sqlite), where);
});

test('the dialects name a change row event, period and events of rows, each its own way', () => {
  assert.equal(SQLITE.ofEvent('c.'), 'c.event_key = (SELECT key FROM event_keys WHERE event_id = ?)');
  assert.equal(POSTGRES.ofEvent('c.'), 'c.event_id = ?');
  assert.equal(SQLITE.period(''), "json_extract(detail, '$.period_id')");
  assert.equal(POSTGRES.period('c.'), 'c.period_id');
  assert.equal(CHANGE_SQL.lastOfEvent.postgres, 'SELECT max(id) AS max FROM changes WHERE event_id = $1');
});

/** A history read of each scope, with each filter. */
const HISTORY_QUERIES: HistoryQuery[] = [
  { eventId: EVENT_A, uptoId: 100, limit: 10 },
  {
    eventId: EVENT_A,
    marketId: 2,
    uptoId: 100,
    from: '2026-01-01T00:00:00.000Z',
    to: '2026-12-31T00:00:00.000Z',
    mainLineOnly: true,
    coverage: { affiliateIds: [19, 22], marketIds: [1, 2], periodIds: [0] },
    limit: 10,
  },
  { priceIds: [7, 8], uptoId: 100, limit: 10 },
  { priceIds: [7], uptoId: 100, mainLineOnly: true, coverage: { periodIds: [] }, limit: 10 },
];

/** The parameters of a text in `d`: SQLite's `?` outside quotes, PostgreSQL's `$n` (each bound once here). */
function parameterCount(d: SqlDialect, sql: string): number {
  return d === SQLITE ? sql.replace(/'[^']*'/g, '').split('?').length - 1 : (sql.match(/\$\d+/g)?.length ?? 0);
}

/** `q` with each id list three times as long. */
function longerLists(q: HistoryQuery): HistoryQuery {
  const longer = (ids?: readonly number[]) =>
    ids && [...ids, ...ids.map((id) => id + 100), ...ids.map((id) => id + 200)];
  const coverage = q.coverage && {
    affiliateIds: longer(q.coverage.affiliateIds),
    marketIds: longer(q.coverage.marketIds),
    periodIds: longer(q.coverage.periodIds),
  };
  return 'priceIds' in q ? { ...q, priceIds: longer(q.priceIds)!, coverage } : { ...q, coverage };
}

test('the history reads: one text a filter combination in either dialect, a parameter an argument', (t) => {
  const db = sqliteFile(t);
  for (const d of [SQLITE, POSTGRES]) {
    const statements = HISTORY_QUERIES.map((q) => {
      const statement = logRowsStatement(d, q)!;
      assert.equal(logRowsStatement(d, longerLists(q))!.sql, statement.sql, `${d.name}: a longer list, the same text`);
      return statement;
    });
    statements.push(firstRowsStatement(d, [7, 8], 100), lastRowsStatement(d, [7, 8], '2026-12-31T00:00:00.000Z', 100));
    for (const { sql, args } of statements) {
      assert.equal(parameterCount(d, sql), args.length, `${d.name}: ${sql}`);
      if (d === POSTGRES) assert.doesNotMatch(sql.replace(/'[^']*'/g, ''), /\?(?!:)/, sql);
      // SQLite's: prepared and planned with their arguments, never a scan of the log.
      else
        for (const { detail } of db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]) {
          assert.doesNotMatch(detail, /^SCAN changes\b/, sql);
        }
    }
    assert.equal(
      logRowsStatement(d, { priceIds: [], uptoId: 100, limit: 10 }),
      undefined,
      'an empty list reads nothing',
    );
  }
  // What each dialect keeps its own: SQLite picks a read's ids first and probes a price's row by its
  // id; PostgreSQL plans the plain read and probes by a LATERAL join. Lists: one JSON text, one array.
  assert.match(
    logRowsStatement(SQLITE, HISTORY_QUERIES[0]!)!.sql,
    /^SELECT id, price_id, payload, detail FROM changes WHERE id IN \(SELECT id FROM changes WHERE/,
  );
  assert.match(
    logRowsStatement(POSTGRES, HISTORY_QUERIES[0]!)!.sql,
    /^SELECT id, price_id, payload, detail FROM changes WHERE event_id = \$1 AND .* ORDER BY id DESC LIMIT \$3$/,
  );
  assert.match(
    HISTORY_SQL.firstRows.postgres,
    /JOIN LATERAL \(SELECT id, price_id, payload, detail FROM changes WHERE price_id = j\.value AND id <= \$2 ORDER BY id LIMIT 1\)/,
  );
  assert.match(
    HISTORY_SQL.lastRows.sqlite,
    /JOIN changes c ON c\.id = \(SELECT id FROM changes WHERE price_id = j\.value AND id <= \? AND at <= \? ORDER BY id DESC LIMIT 1\)/,
  );
  assert.deepEqual(firstRowsStatement(SQLITE, [7, 8], 100).args, ['[7,8]', 100]);
  assert.deepEqual(firstRowsStatement(POSTGRES, [7, 8], 100).args, [[7, 8], 100]);
});

test('the history reads through SQLite: the rows each filter keeps, newest first, packed prices left out', async (t) => {
  const db = sqliteFile(t);
  const store = new SqliteStore(db);
  const rows: ChangeRecord[] = [
    priceRow({ id: 1, price_id: 7, at: '2026-03-01T00:00:00.000Z' }),
    priceRow({ id: 2, price_id: 8, market_id: 2, affiliate_id: 22, is_main_line: false }),
    priceRow({ id: 3, price_id: 7, period_id: 1 }),
    playRow({ id: 4, sequence: 1 }),
    priceRow({ id: 5, price_id: 9, market_id: 2 }),
    priceRow({ id: 6, price_id: 8, market_id: 2, affiliate_id: 22 }),
  ];
  await store.commit({ changes: rows, events: [], markets: [] });
  const ids = (statement: { sql: string; args: unknown[] } | undefined) =>
    (db.prepare(statement!.sql).all(...statement!.args) as { id: number }[]).map((r) => r.id);
  assert.deepEqual(ids(logRowsStatement(SQLITE, { eventId: EVENT_A, uptoId: 5, limit: 3 })), [5, 3, 2]);
  assert.deepEqual(ids(logRowsStatement(SQLITE, { eventId: EVENT_A, marketId: 2, uptoId: 6, limit: 9 })), [6, 5, 2]);
  const covered = { eventId: EVENT_A, uptoId: 6, mainLineOnly: true, limit: 9 };
  assert.deepEqual(ids(logRowsStatement(SQLITE, { ...covered, coverage: { affiliateIds: [22] } })), [6]);
  assert.deepEqual(ids(logRowsStatement(SQLITE, { ...covered, coverage: { periodIds: [0] } })), [6, 5, 1]);
  assert.deepEqual(ids(logRowsStatement(SQLITE, { ...covered, coverage: { marketIds: [] } })), []);
  assert.deepEqual(ids(logRowsStatement(SQLITE, { ...covered, to: '2026-03-01T00:00:00.000Z' })), [1]);
  assert.deepEqual(ids(firstRowsStatement(SQLITE, [7, 8, 10], 6)), [1, 2]);
  assert.deepEqual(ids(lastRowsStatement(SQLITE, [7, 8], '2026-03-01T00:00:00.000Z', 6)), [1]);
  // A price a packed record holds is read from the record, not the log.
  db.prepare('INSERT INTO archived_prices (price_id, record) VALUES (8, 1)').run();
  assert.deepEqual(ids(logRowsStatement(SQLITE, { priceIds: [7, 8], uptoId: 6, limit: 9 })), [3, 1]);
  assert.deepEqual(ids(firstRowsStatement(SQLITE, [7, 8], 6)), [1]);
  await store.close();
});

test("compaction's question of a newer row of a key: one text, the payload's scalars bound as each dialect reads them", async (t) => {
  const db = sqliteFile(t);
  const store = new SqliteStore(db);
  const team = statRow({ id: 1, stat_id: 5, value: 3 });
  const player = statRow({ id: 2, stat_id: 5, value: 1, player_id: 77 });
  const futures: ChangeRecord = {
    ...priceRow({ id: 3, price_id: 9 }),
    kind: 'futures_price',
    price_id: null,
    affiliate_id: null,
    payload: JSON.stringify({ participant_id: 4004 }),
    detail: null,
  };
  const rows = [team, player, futures, statRow({ id: 4, stat_id: 5, value: 4 }), { ...futures, id: 5 }];
  await store.commit({ changes: rows, events: [], markets: [] });
  const found = (r: ChangeRecord, bound: number) => {
    const question = supersededQuestion(SQLITE, r, bound)!;
    return db.prepare(question.sql.sqlite).get(...question.args) !== undefined;
  };
  // The team's value is superseded by row 4, the player's by none (a null player is a team's, not any).
  assert.equal(found(team, 4), false);
  assert.equal(found(team, 5), true);
  assert.equal(found(player, 6), false);
  assert.equal(found(futures, 5), false);
  assert.equal(found(futures, 6), true);
  assert.equal(supersededQuestion(SQLITE, playRow({ id: 6, sequence: 1 }), 9), undefined);
  // PostgreSQL reads the payload's scalars as text, and compares nulls by IS NOT DISTINCT FROM.
  assert.deepEqual(supersededQuestion(POSTGRES, player, 6)!.args, [EVENT_A, 2, 6, '2002', '5', '77']);
  assert.deepEqual(supersededQuestion(POSTGRES, team, 6)!.args, [EVENT_A, 1, 6, '2002', '5', null]);
  assert.deepEqual(supersededQuestion(SQLITE, team, 6)!.args, [EVENT_A, 1, 6, 2002, 5, null]);
  assert.match(
    CHANGE_SQL.futuresSuperseded.postgres,
    /market_id IS NOT DISTINCT FROM \$4 AND affiliate_id IS NOT DISTINCT FROM \$5 AND \(payload::jsonb ->> 'participant_id'\) = \$6/,
  );
  await store.close();
});

test('a change row through SQLite: committed, then selected by its columns, is the record', async (t) => {
  const db = sqliteFile(t);
  const store = new SqliteStore(db);
  const rows: ChangeRecord[] = [
    priceRow({ id: 1, price_id: 7, period_id: 2 }),
    playRow({ id: 2, sequence: 1 }),
    priceRow({ id: 3, price_id: 8, event_id: 'b'.repeat(32), affiliate_id: 22 }),
  ];
  await store.commit({ changes: rows, events: [], markets: [] });
  assert.deepEqual(db.prepare(CHANGE_SQL.page.sqlite).all(0, 10, 10), rows);
  assert.deepEqual(db.prepare(CHANGE_SQL.ofEvent.sqlite).all(EVENT_A), [rows[0], rows[1]]);
  // The payload's expression can be rewritten, its name kept.
  const [rewritten] = db
    .prepare(`SELECT ${changeColumns(SQLITE, 'c', "'{}'")} FROM changes c WHERE c.id = 1`)
    .all() as ChangeRecord[];
  assert.deepEqual(rewritten, { ...rows[0], payload: '{}' });
  await store.close();
});

test("a row's period: the number its detail names, or null", () => {
  assert.equal(periodOf('{"period_id":3,"x":1}'), 3);
  assert.equal(periodOf('{"x":1,"period_id":-10}'), -10);
  assert.equal(periodOf('{"x":1}'), null);
  assert.equal(periodOf(null), null);
});

test('events, markets and batch marks: bound by their field lists, read back whole', (t) => {
  const db = sqliteFile(t);
  const event = eventRecord(EVENT_A, 12);
  const market = marketRecord(5, EVENT_A, 9, 1);
  db.prepare(EVENT_SQL.upsert.sqlite).run(...valuesOf(event, EVENT_FIELDS));
  db.prepare(EVENT_SQL.upsert.sqlite).run(...valuesOf({ ...event, change_id: 13 }, EVENT_FIELDS));
  db.prepare(MARKET_SQL.insert.sqlite).run(...valuesOf(market, MARKET_FIELDS));
  assert.deepEqual(db.prepare(EVENT_SQL.live.sqlite).all(), [{ ...event, change_id: 13 }]);
  assert.deepEqual(db.prepare(MARKET_SQL.ofEvent.sqlite).all(EVENT_A), [market]);
  db.prepare(BATCH_SQL.insert.sqlite).run(...batchValues({ id: 'feed-1', headId: 40, committedMs: 1e12 }));
  assert.equal(db.prepare(BATCH_SQL.headOf.sqlite).pluck().get('feed-1'), 40);
  // PostgreSQL binds each field as one array, in the same order.
  assert.deepEqual(fieldColumns([event, { ...event, event_id: 'x' }], EVENT_FIELDS), [
    [EVENT_A, 'x'],
    [4, 4],
    [event.event_date, event.event_date],
    [event.info, event.info],
    [12, 12],
  ]);
});

test('counters: an entry through either dialect comes back equal', (t) => {
  const db = sqliteFile(t);
  const entries = [
    { key: 'usage:a:2026-12', value: 12, expiresAt: 2e12 },
    { key: 'usage:b:2026-12', value: 0, expiresAt: 2e12 + 1 },
  ];
  for (const e of entries) db.prepare(COUNTER_SQL.save.sqlite).run(...counterValues(e));
  assert.deepEqual((db.prepare(COUNTER_SQL.all.sqlite).all() as CounterRow[]).map(counterOf), entries);
  // `add` adds to a kept value, or starts again from an expired one.
  db.prepare(COUNTER_SQL.add.sqlite).run(...counterValues({ ...entries[0]!, value: 5 }), 0);
  db.prepare(COUNTER_SQL.add.sqlite).run(...counterValues({ ...entries[1]!, value: 7 }), 3e12);
  assert.deepEqual(
    (db.prepare(COUNTER_SQL.all.sqlite).all() as CounterRow[]).map((r) => r.value),
    [17, 7],
  );
  // PostgreSQL's row: the table's columns by name.
  const pgRow = (e: (typeof entries)[number]): CounterRow => {
    const [key, value, expires_at] = counterValues(e);
    return { key, value, expires_at };
  };
  assert.deepEqual(entries.map(pgRow).map(counterOf), entries);
});

test('archived marks and season totals: through either dialect, back equal', (t) => {
  const db = sqliteFile(t);
  const marks = [
    { eventId: EVENT_A, archivedMs: 2000 },
    { eventId: 'b'.repeat(32), archivedMs: 1000 },
  ];
  for (const m of marks) db.prepare(ARCHIVED_SQL.mark.sqlite).run(...archivedValues(m));
  // An event archived again keeps its first time.
  db.prepare(ARCHIVED_SQL.mark.sqlite).run(...archivedValues({ eventId: EVENT_A, archivedMs: 9000 }));
  assert.deepEqual((db.prepare(ARCHIVED_SQL.since.sqlite).all(0) as ArchivedRow[]).map(archivedMarkOf), [
    marks[1],
    marks[0],
  ]);
  const totals = { key: '4|2026|REG', body: '{"games":3}' };
  db.prepare(SEASON_TOTALS_SQL.put.sqlite).run(...seasonTotalsValues({ ...totals, body: '{}' }));
  db.prepare(SEASON_TOTALS_SQL.put.sqlite).run(...seasonTotalsValues(totals));
  assert.deepEqual((db.prepare(SEASON_TOTALS_SQL.all.sqlite).all() as SeasonTotalsRow[]).map(seasonTotalsOf), [totals]);
  const [eventId, archived_ms] = archivedValues(marks[0]!);
  assert.deepEqual(archivedMarkOf({ event_id: eventId, archived_ms }), marks[0]);
  const [season_key, body] = seasonTotalsValues(totals);
  assert.deepEqual(seasonTotalsOf({ season_key, body }), totals);
});

test("secrets: a record's values in its table's column order, read back whole", (t) => {
  const db = sqliteFile(t);
  const key: KeyRecord = {
    key_hash: 'h'.repeat(64),
    key_prefix: 'ob_live_abcd',
    tier: 'pro',
    label: 'a label',
    created_at: '2026-12-07T00:00:00.000Z',
    revoked_at: null,
    expires_at: null,
    billing: 'monthly',
    budget_cap_usd: 12.5,
    v1: 0,
    v2: 1,
    credits: 100,
    credits_expiry: null,
    custom: null,
  };
  const sql = secretSql(API_KEYS, 'created_at');
  db.prepare(sql.insert.sqlite).run(...secretValues(API_KEYS, key));
  assert.deepEqual(db.prepare(sql.byHash.sqlite).get(key.key_hash), key);
  assert.equal(db.prepare(sql.revokeByPrefix.sqlite).run('2026-12-08T00:00:00.000Z', key.key_prefix).changes, 1);
  assert.equal((db.prepare(sql.byHash.sqlite).get(key.key_hash) as KeyRecord).revoked_at, '2026-12-08T00:00:00.000Z');
  assert.equal(
    secretSql(ADMIN_TOKENS, 'created_at, seq').list.postgres,
    `SELECT token_hash, token_prefix, label, created_at, revoked_at FROM admin_tokens ORDER BY created_at, seq`,
  );
});
