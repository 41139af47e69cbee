import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  compactionKey,
  type CompactResult,
  type CompactStep,
  dropsRow,
  RETAINED_ID_META,
  RETAINED_SINCE_META,
  type RetainedLog,
  startAtOf,
} from '../retention.ts';
import {
  type ArchiveCommit,
  type ArchivedEvent,
  type ArchivedMark,
  type HighestIds,
  EPOCH_META,
  type ChangeKind,
  type ChangeQuery,
  type ChangeRecord,
  type Commit,
  type EventRecord,
  type LoadedState,
  type LoadOptions,
  type MarketRecord,
  type PayloadBytes,
  type PriceRowSummary,
  type Store,
} from '../store.ts';
import { describedMs, type EventHeader, type FuturesPriceFact, type StatValue } from '../../changelog/change.ts';
import { eventFromRows, movesLiveState, type ScoreFacts } from '../../domain/event-header.ts';
import { archivedEventOf, packRows, playsOf, priceIdsOf, statsOf } from '../packed-rows.ts';
import { Checkpointer } from './checkpointer.ts';
import type { SqliteDatabase } from './database.ts';
import { type PageRead, PageReader, type PageStatements, type RowStatement } from './page-reader.ts';
import { eventIdColumn, FUTURES_KINDS, KEY_OF, rowColumns } from './schema.ts';
import { SqliteHistoryStore } from './sqlite-history.ts';
import { SqlitePackedRows } from './sqlite-packed.ts';

const WRITER_CHECKPOINT_PAGES = 10_000;
/** Rows a load reads at a time (latest prices, stat rows). */
const LOAD_PAGE = 5000;
/**
 * A value's newest stat row's payload, carrying the player's name and position when the value's
 * first row (`f`) said them: a player is named once, on the first value credited.
 */
const NAMED_AS_FIRST = `CASE WHEN f.id <> c.id AND json_extract(f.payload, '$.display_name') IS NOT NULL
  THEN json_set(c.payload, '$.display_name', json_extract(f.payload, '$.display_name'),
    '$.position', json_extract(f.payload, '$.position'))
  ELSE c.payload END`;
/** Events whose stat rows a start reads in one statement (a few thousand rows). */
const STAT_LOAD_EVENTS = 100;
/** Changes a fill's group holds at most, however fast they come (the history fill makes about 4,000 in FILL_GROUP_MS). */
export const FILL_GROUP_CHANGES = 20_000;
/**
 * How long a fill's group holds SQLite's write lock at most: a `keys` command beside the first
 * start waits for a gap between two groups (its statements give up after 5 s).
 */
export const FILL_GROUP_MS = 250;
const WAL_SIZE_LIMIT = 8 * 1024 * 1024;
/**
 * Free pages a compaction step leaves unreturned (16 MB of 4 KB pages): new rows take them first,
 * so a log that drops about what it gains does not shrink and regrow its file all day.
 */
const FREE_PAGES_KEPT = 4096;
/** Most pages one compaction step returns to the file system (each is moved, a few ms in all). */
const FREE_PAGES_PER_STEP = 256;
/**
 * A compaction step judges its chunk in parts of this many ids and takes no further part once it
 * has spent this long: its probes, run on the thread that serves requests, vary with the rows
 * (a price's later rows are walked to find one before the start), and it commits what it dropped.
 */
const COMPACT_PART_ROWS = 25;
const COMPACT_BUDGET_MS = 8;

export interface SqliteStoreOptions {
  /**
   * Checkpoint the write-ahead log on a thread of its own this often, instead of inside the
   * writer's commits (0: SQLite's automatic checkpoints). Ignored for an in-memory database.
   */
  checkpointMs?: number;
  /**
   * Read the change log's pages (the markets delta's bytes, whole rows for `readChanges`) on a thread
   * of its own (PageReader). Ignored for an in-memory database.
   */
  pageThread?: boolean;
  onError?: (err: unknown) => void;
}

/**
 * The embedded store over better-sqlite3. The driver is synchronous: each method does its work at
 * once and returns a settled Promise, as kysely's SQLite dialect does, so callers are written for
 * any backend.
 */
export class SqliteStore implements Store {
  private readonly insertChange;
  private readonly insertKey;
  /** Every event's key in `event_keys` (only this store adds them), for the rows it inserts. */
  private readonly keys = new Map<string, number>();
  /** Keys added by the commit under way, forgotten again if it rolls back. */
  private readonly addedKeys: string[] = [];
  private readonly upsertEvent;
  private readonly insertMarket;
  private readonly commitTx;
  private readonly batchHeadOf;
  private readonly compactTx;
  private readonly archiveTx;
  private readonly packTx;
  private readonly drainTx;
  private readonly packed: SqlitePackedRows;
  private readonly checkpointer: Checkpointer | undefined;
  private readonly pageReader: PageReader | undefined;
  /** Changes committed in the open group of a fill, or undefined outside a fill. */
  private grouped: number | undefined;
  /** When the open group of a fill began (performance.now()). */
  private groupBegan = 0;
  /** Whether the file was made with `auto_vacuum = INCREMENTAL` (database.ts). */
  private readonly incrementalVacuum: boolean;

  constructor(
    private readonly db: SqliteDatabase,
    opts: SqliteStoreOptions = {},
  ) {
    if (opts.checkpointMs && !db.memory) {
      // The writer still checkpoints when the log outgrows this (40 MB): only a burst the thread
      // cannot keep up with (the history fill) pays for it on the writer's thread.
      db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
      // After such a burst the log file is cut back when it next starts over, not kept at its peak.
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
      this.checkpointer = new Checkpointer(db.name, opts.checkpointMs, opts.onError ?? (() => {}));
    }
    if (opts.pageThread && !db.memory) this.pageReader = new PageReader(db.name, opts.onError ?? (() => {}));
    this.incrementalVacuum = db.pragma('auto_vacuum', { simple: true }) === 2;
    this.insertChange = db.prepare(
      `INSERT INTO changes
         (id, kind, event_key, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertKey = db.prepare('INSERT INTO event_keys (event_id) VALUES (?)');
    for (const k of db.prepare('SELECT key, event_id FROM event_keys').all() as { key: number; event_id: string }[]) {
      this.keys.set(k.event_id, k.key);
    }
    this.upsertEvent = db.prepare(
      `INSERT INTO events (event_id, sport_id, event_date, info, change_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (event_id) DO UPDATE SET sport_id = excluded.sport_id, event_date = excluded.event_date,
         info = excluded.info, change_id = excluded.change_id`,
    );
    this.insertMarket = db.prepare('INSERT INTO markets (id, event_id, market_id, period_id) VALUES (?, ?, ?, ?)');
    const headId = db.prepare('SELECT max(id) FROM changes').pluck();
    const insertBatch = db.prepare('INSERT INTO ingest_batches (batch_id, head_id, committed_ms) VALUES (?, ?, ?)');
    this.batchHeadOf = db.prepare('SELECT head_id FROM ingest_batches WHERE batch_id = ?').pluck();
    this.commitTx = db.transaction((c: Commit) => {
      // Ids only rise: a row below the head would be skipped by a reader whose cursor is at the head.
      const head = (headId.get() as number | null) ?? 0;
      for (const r of c.changes) {
        if (r.id <= head) throw new Error(`change id ${r.id} is not above the head ${head}`);
      }
      for (const m of c.markets) this.insertMarket.run(m.id, m.event_id, m.market_id, m.period_id);
      for (const r of c.changes) {
        this.insertChange.run(
          r.id,
          r.kind,
          this.keys.get(r.event_id) ?? this.addKey(r.event_id),
          r.sport_id,
          r.at,
          r.committed_ms,
          r.price_id,
          r.affiliate_id,
          r.market_id,
          r.payload,
          r.detail,
        );
      }
      for (const e of c.events) this.upsertEvent.run(e.event_id, e.sport_id, e.event_date, e.info, e.change_id);
      // The primary key refuses a batch id already kept, and the whole commit with it.
      if (c.batch) insertBatch.run(c.batch.id, c.batch.headId, c.batch.committedMs);
    });
    this.compactTx = db.transaction((step: CompactStep) => this.compactChunk(step));
    const archiveEvent = db.prepare('INSERT OR IGNORE INTO archived_events (event_id, archived_ms) VALUES (?, ?)');
    const putTotals = db.prepare(
      'INSERT INTO season_totals (season_key, body) VALUES (?, ?) ON CONFLICT (season_key) DO UPDATE SET body = excluded.body',
    );
    const queuePack = db.prepare(
      `INSERT INTO archive_pending (event_id, last_id)
         SELECT @id, (SELECT coalesce(max(id), 0) FROM changes WHERE event_key = (SELECT key FROM event_keys WHERE event_id = @id))
          WHERE @id NOT IN (SELECT event_id FROM archived_rows)
         ON CONFLICT (event_id) DO NOTHING`,
    );
    this.archiveTx = db.transaction((a: ArchiveCommit) => {
      for (const id of a.eventIds) {
        archiveEvent.run(id, a.archivedMs);
        queuePack.run({ id });
      }
      for (const t of a.seasonTotals) putTotals.run(t.key, t.body);
    });
    this.packed = new SqlitePackedRows(db);
    this.packTx = db.transaction((eventId: string, rows: readonly ChangeRecord[], body: Buffer, maxRows: number) =>
      this.storePacked(eventId, rows, body, maxRows),
    );
    this.drainTx = db.transaction((eventId: string, maxRows: number) => this.drain(eventId, maxRows));
  }

  async load(uptoId?: number, opts: LoadOptions = {}): Promise<LoadedState> {
    const head = this.db.prepare('SELECT id, committed_ms FROM changes ORDER BY id DESC LIMIT 1').get() as
      { id: number; committed_ms: number } | undefined;
    const headId = head?.id ?? 0;
    const gone = new Set(this.prepared('SELECT event_id FROM archived_events').pluck().all() as string[]);
    const markets = this.prepared(`SELECT * FROM markets WHERE ${LIVE} ORDER BY id`).all() as MarketRecord[];
    const archived = {
      events: this.prepared(
        'SELECT e.* FROM events e JOIN archived_events a ON a.event_id = e.event_id WHERE e.event_date >= ?',
      ).all(opts.archivedSince ?? '') as EventRecord[],
      seasonTotals: this.prepared('SELECT season_key AS key, body FROM season_totals ORDER BY season_key').all() as {
        key: string;
        body: string;
      }[],
    };
    const current = () => this.prepared(`SELECT * FROM events WHERE ${LIVE}`).all() as EventRecord[];
    if (uptoId !== undefined && uptoId < headId) {
      const limit: LoadLimit = { upto: uptoId, ...(opts.asOfOnly ? { asOf: JSON.stringify(opts.asOfOnly) } : {}) };
      const asOf = opts.asOfOnly && new Set(opts.asOfOnly);
      const events = this.eventsUpTo(limit);
      if (asOf) for (const e of current()) if (!asOf.has(e.event_id)) events.push(e);
      return {
        epoch: this.epoch(),
        events: events.filter((e) => !gone.has(e.event_id)),
        markets,
        ...(asOf ? this.prices(Number.MAX_SAFE_INTEGER, limit) : this.prices(uptoId)),
        futures: this.latestFutures(limit),
        headId: uptoId,
        headCommittedMs: (await this.committedMsAt(uptoId)) ?? 0,
        ...this.games(limit),
        archived,
      };
    }
    const all: LoadLimit = { upto: Number.MAX_SAFE_INTEGER };
    return {
      epoch: this.epoch(),
      events: current(),
      markets,
      ...this.prices(Number.MAX_SAFE_INTEGER),
      futures: this.latestFutures(all),
      headId,
      headCommittedMs: head?.committed_ms ?? 0,
      ...this.games({ upto: headId }),
      archived,
    };
  }

  /** Play counts and stat rows within `limit`, through the partial indexes of those kinds. */
  private games(limit: LoadLimit): Pick<LoadedState, 'playCounts' | 'statRows'> {
    return {
      playCounts: this.prepared(
        `SELECT ${EVENT_ID}, count(*) AS plays FROM changes
          WHERE kind = 'play' AND ${within(limit)} AND ${LIVE_ROW} GROUP BY event_key`,
      ).all(limit) as { event_id: string; plays: number }[],
      statRows: this.statRows(limit),
    };
  }

  /**
   * The newest stat row of each box-score value (event, team, player, stat), each event's in the
   * order of the values' first rows, a range of events at a time. Every value is absolute, so
   * these fold to the same boxes as every row does: about a tenth of the rows after a fill.
   */
  private async *statRows(limit: LoadLimit): AsyncGenerator<ChangeRecord> {
    const lastKey = (this.prepared('SELECT max(key) FROM event_keys').pluck().get() as number | null) ?? 0;
    const page = this.prepared(
      `SELECT ${rowColumns('c', NAMED_AS_FIRST)} FROM changes c
       JOIN (SELECT max(id) AS id, min(id) AS first FROM changes
              WHERE kind = 'stat' AND ${within(limit)} AND event_key > @from AND event_key <= @to AND ${LIVE_ROW}
              GROUP BY event_key, json_extract(payload, '$.team_id'), json_extract(payload, '$.player_id'),
                json_extract(payload, '$.stat_id')) m
         ON c.id = m.id
       JOIN changes f ON f.id = m.first
       ORDER BY c.event_key, m.first`,
    );
    for (let from = 0; from < lastKey; from += STAT_LOAD_EVENTS) {
      yield* page.all({ ...limit, from, to: from + STAT_LOAD_EVENTS }) as ChangeRecord[];
    }
  }

  async readPlays(eventId: string, fromSequence: number, toSequence: number): Promise<Buffer> {
    const packed = await this.packed.rows(eventId);
    if (packed) return playsOf(packed, fromSequence, toSequence);
    const from = Math.max(1, fromSequence);
    if (toSequence < from) return Buffer.alloc(0);
    // SQLite joins the payloads in the order of the ordered subquery and hands over one buffer.
    const [bytes] = this.prepared(
      `SELECT CAST(group_concat(payload, ',') AS BLOB) FROM (SELECT id, payload FROM
         (SELECT id, payload FROM changes WHERE kind = 'play' AND event_key = ${KEY_OF} ORDER BY id LIMIT ? OFFSET ?)
       ORDER BY id DESC)`,
      true,
    ).get(eventId, toSequence - from + 1, from - 1) as [Buffer | null];
    return bytes ?? Buffer.alloc(0);
  }

  async readStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    const packed = await this.packed.rows(eventId);
    if (packed) return statsOf(packed, uptoId);
    return this.readRows<ChangeRecord>({
      sql: `SELECT ${rowColumns()} FROM changes WHERE kind = 'stat' AND event_key = ${KEY_OF} AND id <= ? ORDER BY id`,
      args: [eventId, uptoId],
    });
  }

  /** Each event as its last header and score rows up to `limit.upto` left it (with `asOf`, those events only). */
  private eventsUpTo(limit: LoadLimit): EventRecord[] {
    const only = limit.asOf === undefined ? '' : `AND event_key IN ${AS_OF_KEYS}`;
    const latestOfKind = (kind: ChangeKind) =>
      this.prepared(
        `SELECT ${rowColumns('c')} FROM changes c
         JOIN (SELECT max(id) AS id FROM changes WHERE kind = @kind AND id <= @upto ${only} GROUP BY event_key) m
           ON c.id = m.id`,
      ).all({ ...limit, kind }) as ChangeRecord[];
    const scores = new Map(latestOfKind('score').map((r) => [r.event_id, r]));
    // A score row without a live state keeps the one an earlier row set: find that row, per event.
    const lastLive = this.prepared(
      `SELECT payload FROM changes WHERE event_key = ${KEY_OF} AND id <= ? AND kind = 'score'
         AND json_type(payload, '$.live_game_state') IS NOT NULL ORDER BY id DESC LIMIT 1`,
    );
    return latestOfKind('event').map((r) => {
      const score = scores.get(r.event_id);
      const facts = score ? (JSON.parse(score.payload) as ScoreFacts) : undefined;
      const live =
        facts && !movesLiveState(facts)
          ? (lastLive.get(r.event_id, score!.id) as { payload: string } | undefined)
          : undefined;
      const info = eventFromRows(
        JSON.parse(r.payload) as EventHeader,
        live && (JSON.parse(live.payload) as ScoreFacts),
        facts,
      );
      return {
        event_id: r.event_id,
        sport_id: r.sport_id,
        event_date: String(info.event_date),
        info: JSON.stringify(info),
        change_id: Math.max(r.id, score?.id ?? 0),
      };
    });
  }

  /** The log's epoch, begun on first use (an empty store, or a file written before epochs existed). */
  private epoch(): string {
    const known = this.meta(EPOCH_META);
    if (known !== undefined) return known;
    const epoch = randomUUID();
    this.writeMeta(EPOCH_META, epoch);
    return epoch;
  }

  async commit(commit: Commit): Promise<void> {
    // In a fill, the batch is a savepoint of the group's transaction (better-sqlite3 nests them),
    // begun here rather than at the last group's end: another process's writer (a keys command)
    // gets the lock between two groups.
    if (this.grouped !== undefined && !this.db.inTransaction) {
      this.db.exec('BEGIN');
      this.groupBegan = performance.now();
    }
    try {
      this.commitTx(commit);
    } catch (err) {
      for (const eventId of this.addedKeys) this.keys.delete(eventId);
      throw err;
    } finally {
      this.addedKeys.length = 0;
    }
    if (this.grouped === undefined) return;
    this.grouped += commit.changes.length;
    if (this.grouped >= FILL_GROUP_CHANGES || performance.now() - this.groupBegan >= FILL_GROUP_MS) this.endGroup();
  }

  /**
   * Each commit of the history fill was a transaction of its own (about 6,500 commits of 145 rows,
   * each writing every index page it touched to the log): 13.7 s of a 63 s fill went to the
   * transactions themselves. Grouped, a page is written once per group (docs/benchmarks.md).
   */
  async fill<T>(run: () => Promise<T>): Promise<T> {
    if (this.grouped !== undefined) throw new Error('a fill is already running');
    this.grouped = 0;
    try {
      const result = await run();
      this.endGroup();
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    } finally {
      this.grouped = undefined;
    }
  }

  private endGroup(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.grouped = 0;
  }

  /** Adds the key of an event the log has not named before, within the commit's transaction. */
  private addKey(eventId: string): number {
    const key = Number(this.insertKey.run(eventId).lastInsertRowid);
    this.keys.set(eventId, key);
    this.addedKeys.push(eventId);
    return key;
  }

  async readChanges(q: ChangeQuery): Promise<ChangeRecord[]> {
    if (!this.pageReader?.alive) {
      const statement = rowsStatement(q);
      return this.prepared(statement.sql).all(...statement.args) as ChangeRecord[];
    }
    // On the thread, a few hundred rows a statement: each batch is copied across and rebuilt on the
    // loop's thread, which so never spends more than a few ms on one.
    const rows: ChangeRecord[] = [];
    let afterId = q.afterId;
    while (rows.length < q.limit) {
      const limit = Math.min(ROWS_PER_THREAD_READ, q.limit - rows.length);
      const statement = rowsStatement({ ...q, afterId, limit });
      const batch = await this.readRows<ChangeRecord>(statement);
      for (const r of batch) rows.push(r);
      if (batch.length < limit) break;
      afterId = batch.at(-1)!.id;
    }
    return rows;
  }

  /**
   * The rows of a read-only statement, as objects: on the page reader's thread when there is one
   * (the history reads: SQLite's work for a 1,000-row read held the loop 4-26 ms), else here.
   */
  readRows<T>(statement: RowStatement): Promise<T[]> {
    return this.onThread(
      (reader) => reader.rows<T>(statement),
      () => this.prepared(statement.sql).all(...statement.args) as T[],
    );
  }

  /**
   * The history store of this store's database: its statements on the page reader's thread (when
   * there is one), its packed records from the same cache as `readPlays` and `readStats` (a game's
   * history and its box score decode the record once).
   */
  history(): SqliteHistoryStore {
    return new SqliteHistoryStore(this.db, { read: (statement) => this.readRows(statement), packed: this.packed });
  }

  /**
   * The latest prices up to `uptoId`, paged, and the largest price id among them (read once); with
   * `asOf`, those of the events it lists as of `asOf.upto`.
   */
  private prices(uptoId: number, asOf?: LoadLimit): Pick<LoadedState, 'latestPrices' | 'maxPriceId'> {
    const maxPriceId = this.maxPriceId(uptoId);
    const latestPrices = asOf ? this.latestPricesAsOf(asOf, maxPriceId) : this.latestPrices(uptoId, maxPriceId);
    return { latestPrices, maxPriceId };
  }

  /**
   * The newest row of every price, up to `limit.upto` for a price of an event `limit.asOf` lists,
   * in price id order. One pass of the price index gives both candidates of each price; the head
   * row says its event.
   */
  private async *latestPricesAsOf(limit: LoadLimit, last: number): AsyncGenerator<ChangeRecord> {
    const page = this.prepared(
      `SELECT ${rowColumns('c')} FROM
         (SELECT max(id) AS head, max(CASE WHEN id <= @upto THEN id END) AS upto FROM changes
           WHERE price_id > @from AND price_id <= @to GROUP BY price_id) m
       JOIN changes h ON h.id = m.head
       JOIN changes c ON c.id = CASE WHEN h.event_key IN ${AS_OF_KEYS} THEN m.upto ELSE m.head END
       WHERE c.${LIVE_ROW}
       ORDER BY c.price_id`,
    );
    for (let from = 0; from < last; from += LOAD_PAGE) {
      yield* page.all({ ...limit, from, to: from + LOAD_PAGE }) as ChangeRecord[];
    }
  }

  /** The newest row of every price at or below `uptoId`, in price id (creation) order, up to price id `last`. */
  private async *latestPrices(uptoId: number, last: number): AsyncGenerator<ChangeRecord> {
    const page = this.prepared(
      `SELECT ${rowColumns('c')} FROM changes c
       JOIN (SELECT max(id) AS id FROM changes WHERE price_id > ? AND price_id <= ? AND id <= ? GROUP BY price_id) m
         ON c.id = m.id
       WHERE c.${LIVE_ROW}
       ORDER BY c.price_id`,
    );
    // Price ids are handed out in sequence, so ranges of them make pages of about the same size.
    for (let from = 0; from < last; from += LOAD_PAGE) {
      yield* page.all(from, from + LOAD_PAGE, uptoId) as ChangeRecord[];
    }
  }

  private maxPriceId(uptoId: number): number {
    // Read backwards along the price index, not a max() over the table (which scans every row).
    const sql = 'SELECT price_id FROM changes WHERE price_id IS NOT NULL AND id <= ? ORDER BY price_id DESC LIMIT 1';
    const logged = (this.prepared(sql).pluck().get(uptoId) as number | undefined) ?? 0;
    // Packed prices were written below the retained boundary, which is below any replayed head.
    const packed = (this.prepared('SELECT max(price_id) FROM archived_prices').pluck().get() as number | null) ?? 0;
    return Math.max(logged, packed);
  }

  /** The newest futures row of each key (changelog futuresRowKey) within `limit`, in id order. */
  private latestFutures(limit: LoadLimit): ChangeRecord[] {
    return this.prepared(
      `SELECT ${rowColumns('c')} FROM changes c
       JOIN (SELECT max(id) AS id FROM changes
              WHERE ${FUTURES_KINDS} AND ${within(limit)}
              GROUP BY event_key, kind, market_id, affiliate_id, json_extract(payload, '$.participant_id')) m
         ON c.id = m.id
       ORDER BY c.id`,
    ).all(limit) as ChangeRecord[];
  }

  async committedMsAt(id: number): Promise<number | undefined> {
    const row = this.prepared('SELECT committed_ms FROM changes WHERE id <= ? ORDER BY id DESC LIMIT 1').get(id) as
      { committed_ms: number } | undefined;
    return row?.committed_ms;
  }

  async firstIdCommittedSince(ms: number): Promise<number | undefined> {
    return this.firstIdSince(ms, (row) => row.committed_ms);
  }

  async firstIdDescribedSince(ms: number): Promise<number | undefined> {
    // Described times need not ascend along the ids (the background part of a first fill commits
    // the past beside the live feed); commit times do, and no row is described after its commit.
    // So the first row committed since `ms` bounds the search, and the rows from there are searched
    // in order: by their time's text a second early (a text that sorts apart from its instant
    // within a second; a time that is no ISO text is the commit's), each candidate then checked.
    let from = this.firstIdSince(ms, (r) => r.committed_ms);
    const candidate = this.prepared(
      "SELECT id, committed_ms, at FROM changes WHERE id >= ? AND (at >= ? OR at NOT LIKE '____-__-__T%') ORDER BY id LIMIT 1",
    );
    const early = new Date(ms - 1000).toISOString();
    while (from !== undefined) {
      const row = candidate.get(from, early) as { id: number; committed_ms: number; at: string } | undefined;
      if (!row || describedMs(row) >= ms) return row?.id;
      from = row.id + 1;
    }
    return undefined;
  }

  async eventsDescribedSince(ms: number, fromId: number): Promise<string[]> {
    // By their time's text a second early, as above: a few more events than asked, never fewer.
    return this.prepared(
      `SELECT event_id FROM event_keys WHERE key IN
         (SELECT event_key FROM changes WHERE id >= ? AND (at >= ? OR at NOT LIKE '____-__-__T%'))`,
    )
      .pluck()
      .all(fromId, new Date(ms - 1000).toISOString()) as string[];
  }

  private firstIdSince(ms: number, timeOf: (row: { committed_ms: number; at: string }) => number): number | undefined {
    // One aggregate per query: SQLite reads min() or max() alone from the end of the primary key,
    // but both in one query scan the whole table (75 ms for a million rows, run by every retention
    // step, which stalled every request behind it).
    const minId = this.prepared('SELECT min(id) FROM changes').pluck().get() as number | null;
    const maxId = this.prepared('SELECT max(id) FROM changes').pluck().get() as number | null;
    if (minId === null || maxId === null) return undefined;
    const at = this.prepared('SELECT id, committed_ms, at FROM changes WHERE id >= ? ORDER BY id LIMIT 1');
    // The time never decreases along the ids, so a binary search over the primary key finds it.
    type Row = { id: number; committed_ms: number; at: string };
    let lo = minId;
    let hi = maxId;
    const last = at.get(hi) as Row;
    if (timeOf(last) < ms) return undefined;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = at.get(mid) as Row;
      if (timeOf(row) >= ms) hi = Math.min(mid, row.id);
      else lo = row.id + 1;
    }
    return (at.get(lo) as { id: number }).id;
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** Statements are prepared once per distinct SQL text; the filter combinations are few. */
  private prepared(sql: string, raw = false): Database.Statement {
    const key = raw ? `raw:${sql}` : sql;
    let st = this.statements.get(key);
    if (!st) {
      st = this.db.prepare(sql);
      if (raw) st.raw(true);
      this.statements.set(key, st);
    }
    return st;
  }

  async compact(step: CompactStep): Promise<CompactResult> {
    const result = this.compactTx(step);
    const morePacks = await this.packStep(Math.min(result.oldestId, this.headId()), step.maxRows);
    const moreFree = this.returnFreePages();
    return { ...result, more: result.more || morePacks || moreFree };
  }

  /**
   * Gives up to FREE_PAGES_PER_STEP of the pages that dropped and packed rows freed back to the file
   * system, beyond FREE_PAGES_KEPT; returns whether more wait. A store made before incremental
   * vacuuming (docs/operations.md) keeps its pages for reuse instead.
   */
  private returnFreePages(): boolean {
    if (!this.incrementalVacuum) return false;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    const excess = free - FREE_PAGES_KEPT;
    if (excess <= 0) return false;
    this.db.pragma(`incremental_vacuum(${Math.min(excess, FREE_PAGES_PER_STEP)})`);
    return excess > FREE_PAGES_PER_STEP;
  }

  private headId(): number {
    return (this.prepared('SELECT max(id) FROM changes').pluck().get() as number | null) ?? 0;
  }

  /**
   * Packing's share of a step: it goes on taking a packed event's rows out of the log while any
   * are left, else packs the next ready event. Returns whether more may wait (after deleting rows,
   * always: the next step looks).
   */
  private async packStep(limit: number, maxRows: number): Promise<boolean> {
    const draining = this.prepared(
      'SELECT p.event_id FROM archive_pending p JOIN archived_rows r ON r.event_id = p.event_id LIMIT 1',
    )
      .pluck()
      .get() as string | undefined;
    if (draining === undefined) return this.packOne(limit, maxRows);
    this.drainTx(draining, maxRows);
    return true;
  }

  /**
   * Packs the archived event waiting longest whose rows all lie below `limit` (the retained
   * boundary, and the head: ids continue from the head row, which stays). Its rows are read and
   * compressed off the request thread, then one transaction stores the record, points its prices to
   * it and deletes the first `maxRows` of its rows; later steps delete the rest. Returns whether
   * more waits.
   */
  private async packOne(limit: number, maxRows: number): Promise<boolean> {
    const ready = this.prepared('SELECT event_id FROM archive_pending WHERE last_id < ? ORDER BY last_id LIMIT 2')
      .pluck()
      .all(limit) as string[];
    const eventId = ready[0];
    if (eventId === undefined) return false;
    const rows = this.prepared(`SELECT ${rowColumns()} FROM changes WHERE event_key = ${KEY_OF} ORDER BY id`).all(
      eventId,
    ) as ChangeRecord[];
    // A row of the event committed since it was archived (the ledger refuses them) waits for the boundary.
    if ((rows.at(-1)?.id ?? 0) >= limit) {
      this.prepared('UPDATE archive_pending SET last_id = ? WHERE event_id = ?').run(rows.at(-1)!.id, eventId);
      return ready.length > 1;
    }
    return this.packTx(eventId, rows, await packRows(rows), maxRows) || ready.length > 1;
  }

  /**
   * Stores the record of `rows`, points their prices to it and deletes up to `maxRows` of them from
   * the log, unless the event gained a row while they were compressed (the ledger refuses rows of
   * archived events): it then waits for that one. From here on every reader takes the record and
   * not the rows, which stay pending until steps have deleted them all: a delete costs 50-180 µs,
   * and the thousands of a large event in one transaction held requests up for tens of ms.
   * Returns whether rows are left to delete.
   */
  private storePacked(eventId: string, rows: readonly ChangeRecord[], body: Buffer, maxRows: number): boolean {
    const last =
      (this.prepared(`SELECT max(id) FROM changes WHERE event_key = ${KEY_OF}`).pluck().get(eventId) as
        number | null) ?? 0;
    if (last !== (rows.at(-1)?.id ?? 0)) {
      this.prepared('UPDATE archive_pending SET last_id = ? WHERE event_id = ?').run(last, eventId);
      return false;
    }
    const record = this.prepared('INSERT INTO archived_rows (event_id, body) VALUES (?, ?)').run(
      eventId,
      body,
    ).lastInsertRowid;
    const pointTo = this.prepared('INSERT OR REPLACE INTO archived_prices (price_id, record) VALUES (?, ?)');
    for (const priceId of priceIdsOf(rows)) pointTo.run(priceId, record);
    return this.drain(eventId, maxRows);
  }

  /**
   * Deletes at most `maxRows` rows of a packed event from the log; once none is left the event is
   * no longer pending. Returns whether rows are left.
   */
  private drain(eventId: string, maxRows: number): boolean {
    const deleted = this.prepared(
      `DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE event_key = ${KEY_OF} ORDER BY id LIMIT ?)`,
    ).run(eventId, maxRows).changes;
    if (deleted === maxRows) return true;
    this.prepared('DELETE FROM archive_pending WHERE event_id = ?').run(eventId);
    return false;
  }

  /**
   * One chunk of ids below the boundary, judged a part of `COMPACT_PART_ROWS` ids at a time, each
   * part as a step of that many ids would judge it (so the outcome is the same): the step ends
   * after the part that passes `COMPACT_BUDGET_MS`, and the next one goes on from there.
   */
  private compactChunk(step: CompactStep): CompactResult {
    const retained = Number(this.meta(RETAINED_ID_META) ?? 1);
    const head = (this.prepared('SELECT max(id) FROM changes').pluck().get() as number | null) ?? 0;
    const bound = this.firstIdSince(step.cutoffMs, (row) => row.committed_ms) ?? head + 1;
    // Ids no row has take no step: a restored log skips 10^12 of them (src/ops/backup.ts).
    const next = this.prepared('SELECT min(id) FROM changes WHERE id >= ?').pluck().get(retained) as number | null;
    const from = Math.max(retained, Math.min(next ?? bound, bound));
    if (from > retained) this.writeMeta(RETAINED_ID_META, String(from));
    const end = Math.min(bound, from + step.maxRows);
    if (end <= from) return { scanned: 0, dropped: 0, oldestId: from, more: false };
    const cutoffAt = new Date(step.cutoffMs).toISOString();
    const starts = new Map<string, string | undefined>();
    const startOf = (eventId: string) => {
      if (!starts.has(eventId)) {
        const date = this.prepared('SELECT event_date FROM events WHERE event_id = ?').pluck().get(eventId) as
          string | undefined;
        starts.set(eventId, date === undefined ? undefined : startAtOf(date));
      }
      return starts.get(eventId);
    };
    const began = performance.now();
    let done = from;
    let dropped = 0;
    while (done < end && (done === from || performance.now() - began < COMPACT_BUDGET_MS)) {
      const partEnd = Math.min(end, done + COMPACT_PART_ROWS);
      dropped += this.compactPart(done, partEnd, bound, cutoffAt, startOf);
      done = partEnd;
    }
    this.writeMeta(RETAINED_ID_META, String(done));
    if (dropped > 0) {
      const since = Math.max(Number(this.meta(RETAINED_SINCE_META) ?? 0), step.cutoffMs);
      this.writeMeta(RETAINED_SINCE_META, String(since));
    }
    return { scanned: done - from, dropped, oldestId: done, more: done < bound };
  }

  /**
   * Drops what `dropsRow` drops of the ids in [from, end), each row judged from a few index probes:
   * whether a newer row of its key lies below the boundary and, for a price, whether a newer row
   * also lies at or before the event's start. Returns how many rows went.
   */
  private compactPart(
    from: number,
    end: number,
    bound: number,
    cutoffAt: string,
    startOf: (eventId: string) => string | undefined,
  ): number {
    const chunk = this.prepared(
      `SELECT id, kind, ${EVENT_ID}, price_id, market_id, affiliate_id, at, payload FROM changes
        WHERE id >= ? AND id < ? ORDER BY id`,
    ).all(from, end) as ChangeRecord[];
    // Each key of the chunk with its rows below the chunk's end: what earlier steps kept of it
    // (a newer row now lies below the boundary, so those may go) and the chunk's own rows.
    const byKey = new Map<string, ChangeRecord[]>();
    for (const r of chunk) {
      const key = compactionKey(r);
      if (key === undefined) continue;
      let rows = byKey.get(key);
      if (!rows) byKey.set(key, (rows = []));
      rows.push(r);
    }
    const olderOfEvent = new Map<string, Map<string, ChangeRecord[]>>();
    const gone: number[] = [];
    for (const [key, rows] of byKey) {
      // Every row of the key below `end`, in id order: a price's first row is the first of them,
      // and only a row after the last of them needs a probe to say whether one lies before the start.
      const all = [...this.olderRows(rows[0]!, key, from, olderOfEvent), ...rows];
      const startAt = all[0]!.kind === 'price' ? startOf(all[0]!.event_id) : undefined;
      let beforeStartAfter: boolean | undefined;
      for (let i = all.length - 1; i >= 0; i--) {
        const r = all[i]!;
        if (r.at < cutoffAt && (i < all.length - 1 || this.supersededBelow(r, bound))) {
          const first = r.kind === 'price' && i === 0;
          const laterBeforeStart =
            !first &&
            startAt !== undefined &&
            r.at <= startAt &&
            (beforeStartAfter ??=
              this.prepared('SELECT 1 FROM changes WHERE price_id = ? AND id >= ? AND at <= ? LIMIT 1').get(
                r.price_id,
                end,
                startAt,
              ) !== undefined);
          if (dropsRow(r, { cutoffAt, superseded: true, first, startAt, laterBeforeStart })) gone.push(r.id);
        }
        if (startAt !== undefined && r.at <= startAt) beforeStartAfter = true;
      }
    }
    if (gone.length > 0)
      this.prepared('DELETE FROM changes WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(gone));
    return gone.length;
  }

  /**
   * The rows of `sample`'s key below `from`, in id order (what earlier steps kept). A price's come
   * from its index; other kinds' are read once per event and kind for the step and grouped by key
   * (a stat row's key is parsed from its payload: once per row, not once per key of the chunk).
   */
  private olderRows(
    sample: ChangeRecord,
    key: string,
    from: number,
    ofEvent: Map<string, Map<string, ChangeRecord[]>>,
  ): ChangeRecord[] {
    if (sample.kind === 'price') {
      return this.prepared(
        `SELECT id, kind, ${EVENT_ID}, price_id, market_id, affiliate_id, at, '' AS payload FROM changes
          WHERE price_id = ? AND id < ? ORDER BY id`,
      ).all(sample.price_id, from) as ChangeRecord[];
    }
    const family = `${sample.kind}|${sample.event_id}`;
    let byKey = ofEvent.get(family);
    if (!byKey) {
      // The kind is spelled in the SQL so that the partial indexes of stats and futures apply.
      const rows = this.prepared(
        `SELECT id, kind, ${EVENT_ID}, price_id, market_id, affiliate_id, at, payload FROM changes
          WHERE kind = '${sample.kind}' AND event_key = ${KEY_OF} AND id < ? ORDER BY id`,
      ).all(sample.event_id, from) as ChangeRecord[];
      byKey = new Map();
      for (const r of rows) {
        const k = compactionKey(r);
        if (k === undefined) continue;
        let same = byKey.get(k);
        if (!same) byKey.set(k, (same = []));
        same.push(r);
      }
      ofEvent.set(family, byKey);
    }
    return byKey.get(key) ?? [];
  }

  /** Whether a newer row of `r`'s compaction key lies below `bound`. */
  private supersededBelow(r: ChangeRecord, bound: number): boolean {
    const after = 'id > ? AND id < ?';
    // Kinds are spelled in the SQL so that the partial indexes of stats and futures apply.
    let found: unknown;
    switch (r.kind) {
      case 'price':
        found = this.prepared(`SELECT 1 FROM changes WHERE price_id = ? AND ${after} LIMIT 1`).get(
          r.price_id,
          r.id,
          bound,
        );
        break;
      case 'stat': {
        const v = JSON.parse(r.payload) as StatValue;
        found = this.prepared(
          `SELECT 1 FROM changes WHERE kind = 'stat' AND event_key = ${KEY_OF} AND ${after}
             AND json_extract(payload, '$.team_id') = ? AND json_extract(payload, '$.stat_id') = ?
             AND json_extract(payload, '$.player_id') IS ? LIMIT 1`,
        ).get(r.event_id, r.id, bound, v.team_id, v.stat_id, v.player_id ?? null);
        break;
      }
      case 'futures_price': {
        const participant = (JSON.parse(r.payload) as FuturesPriceFact).participant_id;
        found = this.prepared(
          `SELECT 1 FROM changes WHERE kind = 'futures_price' AND event_key = ${KEY_OF} AND ${after}
             AND market_id IS ? AND affiliate_id IS ? AND json_extract(payload, '$.participant_id') = ? LIMIT 1`,
        ).get(r.event_id, r.id, bound, r.market_id, r.affiliate_id, participant);
        break;
      }
      case 'event':
      case 'score':
      case 'futures_board':
        found = this.prepared(
          `SELECT 1 FROM changes WHERE kind = '${r.kind}' AND event_key = ${KEY_OF} AND ${after} LIMIT 1`,
        ).get(r.event_id, r.id, bound);
        break;
      default:
        return false;
    }
    return found !== undefined;
  }

  async retained(): Promise<RetainedLog> {
    const since = this.meta(RETAINED_SINCE_META);
    return {
      oldestId: Number(this.meta(RETAINED_ID_META) ?? 1),
      sinceMs: since === undefined ? undefined : Number(since),
    };
  }

  async archive(commit: ArchiveCommit): Promise<void> {
    this.archiveTx(commit);
  }

  async highestIds(): Promise<HighestIds> {
    return {
      priceId: this.maxPriceId(Number.MAX_SAFE_INTEGER),
      marketId: (this.prepared('SELECT max(id) FROM markets').pluck().get() as number | null) ?? 0,
    };
  }

  async archivedSince(ms: number): Promise<ArchivedMark[]> {
    return this.prepared(
      'SELECT event_id AS eventId, archived_ms AS archivedMs FROM archived_events WHERE archived_ms >= ? ORDER BY archived_ms, event_id',
    ).all(ms) as ArchivedMark[];
  }

  async readArchivedEvent(eventId: string): Promise<ArchivedEvent | undefined> {
    const event = this.prepared(
      'SELECT e.* FROM events e JOIN archived_events a ON a.event_id = e.event_id WHERE e.event_id = ?',
    ).get(eventId) as EventRecord | undefined;
    if (!event) return undefined;
    const packed = await this.packed.rows(eventId);
    if (packed) {
      const markets = this.prepared('SELECT * FROM markets WHERE event_id = ? ORDER BY id').all(
        eventId,
      ) as MarketRecord[];
      return archivedEventOf(event, markets, packed);
    }
    const plays = this.prepared(`SELECT count(*) FROM changes WHERE kind = 'play' AND event_key = ${KEY_OF}`)
      .pluck()
      .get(eventId) as number;
    return {
      event,
      markets: this.prepared('SELECT * FROM markets WHERE event_id = ? ORDER BY id').all(eventId) as MarketRecord[],
      // The last row of each of the event's prices, through the per-price index.
      latestPrices: this.prepared(
        `SELECT ${rowColumns('c')} FROM changes c JOIN (SELECT max(id) AS id FROM changes
           WHERE event_key = ${KEY_OF} AND price_id IS NOT NULL GROUP BY price_id) m ON c.id = m.id ORDER BY c.price_id`,
      ).all(eventId) as ChangeRecord[],
      playCounts: plays > 0 ? [{ event_id: eventId, plays }] : [],
      statRows: await this.readStats(eventId, Number.MAX_SAFE_INTEGER),
    };
  }

  async batchHead(batchId: string): Promise<number | undefined> {
    return (this.batchHeadOf.get(batchId) as number | undefined) ?? undefined;
  }

  async lastRowId(): Promise<number> {
    return this.headId();
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.meta(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.writeMeta(key, value);
  }

  private meta(key: string): string | undefined {
    const row = this.prepared('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  private writeMeta(key: string, value: string): void {
    this.prepared(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, value);
  }

  async readPayloadBytes(q: ChangeQuery): Promise<PayloadBytes> {
    const statements = pageStatements(q);
    const read = await this.onThread(
      (reader) => reader.read(statements),
      () => this.readPage(statements),
    );
    const bytes = read.bytes
      ? Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength)
      : Buffer.alloc(0);
    const page: PayloadBytes = { bytes, count: read.count, lastRowId: read.lastRowId ?? 0, more: read.more };
    if (read.release) page.release = read.release;
    return page;
  }

  /**
   * A read on the page reader's thread, or `here` on this connection when there is no thread or it
   * has failed (a failed thread answers nothing more, its pending reads rejected).
   */
  private async onThread<T>(ask: (reader: PageReader) => Promise<T>, here: () => T): Promise<T> {
    const reader = this.pageReader;
    // The thread's connection would not see a fill's open group yet.
    if (!reader?.alive || this.grouped !== undefined) return here();
    try {
      return await ask(reader);
    } catch (err) {
      if (reader.alive) throw err;
      return here();
    }
  }

  /** A page read on this connection, as the page reader's thread makes it. */
  private readPage({ page, next }: PageStatements): PageRead {
    const [count, lastRowId, bytes] = this.prepared(page.sql, true).get(...page.args) as [
      number,
      number | null,
      Buffer | null,
    ];
    const limit = page.args.at(-1) as number;
    if (count < limit || lastRowId === null) return { count, lastRowId, bytes, more: false };
    const args = [lastRowId, ...page.args.slice(1, -1), 1];
    return { count, lastRowId, bytes, more: this.prepared(next, true).get(...args) !== undefined };
  }

  async scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): Promise<void> {
    const rows = this.prepared(
      `SELECT id, sport_id, ${EVENT_ID}, affiliate_id, market_id, json_extract(detail, '$.period_id') AS period_id,
         payload FROM changes
        WHERE id > ? AND id <= ? AND price_id IS NOT NULL ORDER BY id`,
    ).iterate(afterId, toId) as IterableIterator<PriceRowSummary>;
    for (const row of rows) each(row);
  }

  /**
   * Moves the write-ahead log into the database file and empties it before closing, so that a
   * stopped server leaves one self-contained file (a copy of it alone is complete) and the next
   * start has no log to replay. A reader in another process (a backup) may hold the log; the
   * checkpoint then copies what it can and the rest waits for the next start, still safe.
   */
  async close(): Promise<void> {
    await this.checkpointer?.stop();
    await this.pageReader?.stop();
    if (!this.db.open) return;
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.close();
  }
}

/** A row of an event still on the board (archived events are left out of a start's load). */
const LIVE = 'event_id NOT IN (SELECT event_id FROM archived_events)';

/** LIVE for a change row, which names its event by key. */
const LIVE_ROW = 'event_key NOT IN (SELECT k.key FROM archived_events a JOIN event_keys k ON k.event_id = a.event_id)';

/** A change row's event id, in a select list. */
const EVENT_ID = eventIdColumn();

/**
 * How far a load reads: up to `upto`, or with `asOf` (JSON of event ids), those events up to
 * `upto` and every other one to the head. Named parameters of the load's statements.
 */
interface LoadLimit {
  upto: number;
  asOf?: string;
}

/** The keys of the events of `@asOf`. */
const AS_OF_KEYS = '(SELECT key FROM event_keys WHERE event_id IN (SELECT value FROM json_each(@asOf)))';

/** A row within a load's limit. */
function within(limit: LoadLimit): string {
  return limit.asOf === undefined ? 'id <= @upto' : `(id <= @upto OR event_key NOT IN ${AS_OF_KEYS})`;
}

/** Whole rows a statement of `readChanges` asks of the page reader's thread. */
const ROWS_PER_THREAD_READ = 250;

/** The statement of `readChanges`: whole rows in id order. */
function rowsStatement(q: ChangeQuery): RowStatement {
  const { where, args } = changeFilter(q);
  return { sql: `SELECT ${rowColumns()} FROM changes WHERE ${where} ORDER BY id LIMIT ?`, args };
}

/**
 * The statements of a page of payloads: SQLite joins them itself and hands over one buffer, no
 * string per row and no encoding. The aggregate takes the rows in the ordered subquery's order
 * (test/unit/change-feed.test.ts).
 */
function pageStatements(q: ChangeQuery): PageStatements {
  const { where, args } = changeFilter(q);
  return {
    page: {
      sql: `SELECT count(*), max(id), CAST(group_concat(payload, ',') AS BLOB)
              FROM (SELECT id, payload FROM changes WHERE ${where} ORDER BY id LIMIT ?)`,
      args,
    },
    next: `SELECT 1 FROM changes WHERE ${where} LIMIT ?`,
  };
}

/** The WHERE clause of a change read and its arguments, the cursor (afterId) first and the LIMIT last. */
function changeFilter(q: ChangeQuery): {
  where: string;
  args: (number | string)[];
} {
  const where = ['id > ?', 'id <= ?'];
  if (q.pricesOnly) where.push('price_id IS NOT NULL');
  const args: (number | string)[] = [q.afterId, q.toId];
  if (q.sportId !== undefined) {
    where.push('sport_id = ?');
    args.push(q.sportId);
  }
  if (q.eventId !== undefined) {
    where.push(`event_key = ${KEY_OF}`);
    args.push(q.eventId);
  }
  if (q.eventIds !== undefined) {
    where.push('event_key IN (SELECT key FROM event_keys WHERE event_id IN (SELECT value FROM json_each(?)))');
    args.push(JSON.stringify(q.eventIds));
  }
  // An empty list matches nothing: `IN ()` is not SQL, so it is spelled as a false condition.
  const within = (column: string, ids: readonly number[] | undefined) => {
    if (ids === undefined) return;
    if (ids.length === 0) where.push('0');
    else {
      where.push(`${column} IN (${ids.map(() => '?').join(',')})`);
      args.push(...ids);
    }
  };
  within('affiliate_id', q.affiliateIds);
  within('market_id', q.marketIds);
  within("json_extract(detail, '$.period_id')", q.periodIds);
  args.push(q.limit);
  return { where: where.join(' AND '), args };
}
