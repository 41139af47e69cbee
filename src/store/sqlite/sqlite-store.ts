import { PackedLogStore } from '../packed-log-store.ts';
import type { CompactResult, CompactStep } from '../retention.ts';
import { ARCHIVED_SQL, archivedMarkOf, type ArchivedRow } from '../sql/archived-events.ts';
import { BATCH_SQL, batchValues } from '../sql/batches.ts';
import { CHANGE_SQL, changeColumns } from '../sql/changes.ts';
import { SQLITE } from '../sql/dialect.ts';
import { EVENT_FIELDS, EVENT_SQL } from '../sql/events.ts';
import { MARKET_FIELDS, MARKET_SQL } from '../sql/markets.ts';
import { valuesOf } from '../sql/row-codec.ts';
import type {
  ArchivedMark,
  ChangeQuery,
  ChangeRecord,
  Commit,
  EventRecord,
  HighestIds,
  MarketRecord,
  PayloadBytes,
  PriceRowSummary,
  Store,
} from '../store.ts';
import { pageStatements, ROWS_PER_THREAD_READ, rowsStatement } from './change-queries.ts';
import { Checkpointer } from './checkpointer.ts';
import type { SqliteDatabase } from './database.ts';
import { committedMsAt, eventsDescribedSince, firstIdDescribedSince, firstIdSince } from './log-times.ts';
import { type PageRead, PageReader, type PageStatements, type RowStatement } from './page-reader.ts';
import { SqliteCompaction } from './sqlite-compaction.ts';
import { SqliteHistoryStore } from './sqlite-history.ts';
import { SqliteLoader } from './sqlite-load.ts';
import { SqlitePackedRows } from './sqlite-packed.ts';
import { SqlitePacking } from './sqlite-packing.ts';
import { Statements } from './statements.ts';

const WRITER_CHECKPOINT_PAGES = 10_000;
/** Changes a fill's group holds at most, however fast they come (the history fill makes about 4,000 in FILL_GROUP_MS). */
export const FILL_GROUP_CHANGES = 20_000;
/**
 * How long a fill's group holds SQLite's write lock at most: a `keys` command beside the first
 * start waits for a gap between two groups (its statements give up after 5 s).
 */
export const FILL_GROUP_MS = 250;
const WAL_SIZE_LIMIT = 8 * 1024 * 1024;

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
export class SqliteStore extends PackedLogStore implements Store {
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
  private readonly sql: Statements;
  protected readonly loader: SqliteLoader;
  private readonly compaction: SqliteCompaction;
  protected readonly packing: SqlitePacking;
  protected readonly packed: SqlitePackedRows;
  private readonly checkpointer: Checkpointer | undefined;
  private readonly pageReader: PageReader | undefined;
  /** Changes committed in the open group of a fill, or undefined outside a fill. */
  private grouped: number | undefined;
  /** When the open group of a fill began (performance.now()). */
  private groupBegan = 0;

  constructor(
    private readonly db: SqliteDatabase,
    opts: SqliteStoreOptions = {},
  ) {
    super();
    if (opts.checkpointMs && !db.memory) {
      // The writer still checkpoints when the log outgrows this (40 MB): only a burst the thread
      // cannot keep up with (the history fill) pays for it on the writer's thread.
      db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
      // After such a burst the log file is cut back when it next starts over, not kept at its peak.
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
      this.checkpointer = new Checkpointer(db.name, opts.checkpointMs, opts.onError ?? (() => {}));
    }
    if (opts.pageThread && !db.memory) this.pageReader = new PageReader(db.name, opts.onError ?? (() => {}));
    this.sql = new Statements(db);
    this.insertChange = db.prepare(
      `INSERT INTO changes
         (id, kind, event_key, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertKey = db.prepare('INSERT INTO event_keys (event_id) VALUES (?)');
    for (const k of db.prepare('SELECT key, event_id FROM event_keys').all() as { key: number; event_id: string }[]) {
      this.keys.set(k.event_id, k.key);
    }
    this.upsertEvent = db.prepare(EVENT_SQL.upsert.sqlite);
    this.insertMarket = db.prepare(MARKET_SQL.insert.sqlite);
    const headId = db.prepare(CHANGE_SQL.head.sqlite).pluck();
    const insertBatch = db.prepare(BATCH_SQL.insert.sqlite);
    this.batchHeadOf = db.prepare(BATCH_SQL.headOf.sqlite).pluck();
    this.commitTx = db.transaction((c: Commit) => {
      // Ids only rise: a row below the head would be skipped by a reader whose cursor is at the head.
      const head = (headId.get() as number | null) ?? 0;
      for (const r of c.changes) {
        if (r.id <= head) throw new Error(`change id ${r.id} is not above the head ${head}`);
      }
      for (const m of c.markets) this.insertMarket.run(...valuesOf(m, MARKET_FIELDS));
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
      for (const e of c.events) this.upsertEvent.run(...valuesOf(e, EVENT_FIELDS));
      if (c.batch) insertBatch.run(...batchValues(c.batch));
    });
    this.loader = new SqliteLoader(this.sql);
    this.compaction = new SqliteCompaction(this.sql);
    this.packing = new SqlitePacking(this.sql);
    this.packed = new SqlitePackedRows(db);
  }

  protected async logPlays(eventId: string, limit: number, offset: number): Promise<Buffer> {
    // SQLite joins the payloads in the order of the ordered subquery and hands over one buffer.
    const [bytes] = this.sql
      .prepared(
        `SELECT CAST(group_concat(payload, ',') AS BLOB) FROM (SELECT id, payload FROM
         (SELECT id, payload FROM changes WHERE kind = 'play' AND ${SQLITE.ofEvent('')} ORDER BY id LIMIT ? OFFSET ?)
       ORDER BY id DESC)`,
        true,
      )
      .get(eventId, limit, offset) as [Buffer | null];
    return bytes ?? Buffer.alloc(0);
  }

  protected logStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    return this.readRows<ChangeRecord>({ sql: CHANGE_SQL.statsUpTo.sqlite, args: [eventId, uptoId] });
  }

  async committedMsAt(id: number): Promise<number | undefined> {
    return committedMsAt(this.sql, id);
  }

  async firstIdCommittedSince(ms: number): Promise<number | undefined> {
    return firstIdSince(this.sql, ms, (row) => row.committed_ms);
  }

  async firstIdDescribedSince(ms: number): Promise<number | undefined> {
    return firstIdDescribedSince(this.sql, ms);
  }

  async eventsDescribedSince(ms: number, fromId: number, toId: number): Promise<string[]> {
    return eventsDescribedSince(this.sql, ms, fromId, toId);
  }

  async commit(commit: Commit): Promise<void> {
    // In a fill, the batch is a savepoint of the group's transaction (better-sqlite3 nests them),
    // begun here rather than at the last group's end: another process's writer (a keys command)
    // gets the lock between two groups. IMMEDIATE: the write lock is taken (or waited for) at the
    // start; a deferred transaction that read the head before another process's write commits
    // fails at its first insert, whatever the busy timeout.
    if (this.grouped !== undefined && !this.db.inTransaction) {
      this.db.exec('BEGIN IMMEDIATE');
      this.groupBegan = performance.now();
    }
    try {
      this.commitTx.immediate(commit);
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
      return this.sql.prepared(statement.sql).all(...statement.args) as ChangeRecord[];
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
      () => this.sql.prepared(statement.sql).all(...statement.args) as T[],
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

  async compact(step: CompactStep): Promise<CompactResult> {
    const result = this.compaction.chunk(step);
    const morePacks = await this.packing.step(Math.min(result.oldestId, this.sql.headId()), step.maxRows);
    const moreFree = this.compaction.returnFreePages();
    return { ...result, more: result.more || morePacks || moreFree };
  }

  async highestIds(): Promise<HighestIds> {
    return {
      priceId: this.loader.maxPriceId(Number.MAX_SAFE_INTEGER),
      marketId: (this.sql.prepared(MARKET_SQL.maxId.sqlite).pluck().get() as number | null) ?? 0,
    };
  }

  async archivedSince(ms: number): Promise<ArchivedMark[]> {
    return (this.sql.prepared(ARCHIVED_SQL.since.sqlite).all(ms) as ArchivedRow[]).map(archivedMarkOf);
  }

  protected async archivedHeader(
    eventId: string,
  ): Promise<{ event: EventRecord; markets: MarketRecord[] } | undefined> {
    const event = this.sql.prepared(EVENT_SQL.archived.sqlite).get(eventId) as EventRecord | undefined;
    if (!event) return undefined;
    const markets = this.sql.prepared(MARKET_SQL.ofEvent.sqlite).all(eventId) as MarketRecord[];
    return { event, markets };
  }

  protected async logArchived(eventId: string): Promise<{ latestPrices: ChangeRecord[]; plays: number }> {
    const plays = this.sql.prepared(CHANGE_SQL.playCount.sqlite).pluck().get(eventId) as number;
    // The last row of each of the event's prices, through the per-price index.
    const latestPrices = this.sql
      .prepared(
        `SELECT ${changeColumns(SQLITE, 'c')} FROM changes c JOIN (SELECT max(id) AS id FROM changes
         WHERE ${SQLITE.ofEvent('')} AND price_id IS NOT NULL GROUP BY price_id) m ON c.id = m.id ORDER BY c.price_id`,
      )
      .all(eventId) as ChangeRecord[];
    return { latestPrices, plays };
  }

  async batchHead(batchId: string): Promise<number | undefined> {
    return (this.batchHeadOf.get(batchId) as number | undefined) ?? undefined;
  }

  async lastRowId(): Promise<number> {
    return this.sql.headId();
  }

  /**
   * Counted: ids are no count (compaction and packing delete rows, a restored log skips 10^12 ids),
   * and SQLite counts through its smallest index in one process, without a network or other nodes.
   */
  async rowCount(): Promise<number> {
    return this.sql.prepared(CHANGE_SQL.rowCount.sqlite).pluck().get() as number;
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.sql.meta(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.sql.writeMeta(key, value);
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
    const [count, lastRowId, bytes] = this.sql.prepared(page.sql, true).get(...page.args) as [
      number,
      number | null,
      Buffer | null,
    ];
    const limit = page.args.at(-1) as number;
    if (count < limit || lastRowId === null) return { count, lastRowId, bytes, more: false };
    const args = [lastRowId, ...page.args.slice(1, -1), 1];
    return { count, lastRowId, bytes, more: this.sql.prepared(next, true).get(...args) !== undefined };
  }

  /** A detail that names no period is period 0, as PostgreSQL's reads and periodOfDetail say. */
  async scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): Promise<void> {
    const rows = this.sql
      .prepared(
        `SELECT id, sport_id, ${SQLITE.eventId('')} AS event_id, affiliate_id, market_id, coalesce(${SQLITE.period('')}, 0) AS period_id,
         payload FROM changes
        WHERE id > ? AND id <= ? AND price_id IS NOT NULL ORDER BY id`,
      )
      .iterate(afterId, toId) as IterableIterator<PriceRowSummary>;
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
