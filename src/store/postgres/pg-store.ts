import type pg from 'pg';
import { PackedLogStore } from '../packed-log-store.ts';
import type { CompactResult, CompactStep } from '../retention.ts';
import { ARCHIVED_SQL, archivedMarkOf, type ArchivedRow } from '../sql/archived-events.ts';
import { BATCH_SQL } from '../sql/batches.ts';
import { CHANGE_SQL, changeFilter } from '../sql/changes.ts';
import { numbered, POSTGRES } from '../sql/dialect.ts';
import { EVENT_SQL } from '../sql/events.ts';
import { MARKET_SQL } from '../sql/markets.ts';
import { META_SQL } from '../sql/meta.ts';
import type {
  ArchivedMark,
  ChangeQuery,
  ChangeRecord,
  Commit,
  EventRecord,
  HighestIds,
  MarketRecord,
  OpenCommit,
  PayloadBytes,
  PriceRowSummary,
  Store,
} from '../store.ts';
import { inTransaction, migrate, openPool, type PgOptions, type PgPool } from './database.ts';
import { PgOpenCommit } from './pg-commit.ts';
import { compactChunk } from './pg-compaction.ts';
import { PgHistoryStore } from './pg-history.ts';
import { PgLoader } from './pg-load.ts';
import { committedMsAt, eventsDescribedSince, firstIdDescribedSince, firstIdSince } from './pg-log-times.ts';
import { PgPackedRows } from './pg-packed.ts';
import { PgPacking } from './pg-packing.ts';
import { LOAD_PAGE, ROW, ROWS_ESTIMATE, writeMeta } from './pg-queries.ts';
import { PgWriter } from './pg-writer.ts';

export interface PgStoreOptions extends PgOptions {
  onError?: (err: unknown) => void;
}

/**
 * The store in PostgreSQL, for several nodes on one database. Reads go through a pool; every write
 * goes through the single writer (pg-writer.ts), one connection that holds the writer's advisory
 * lock: a second process that writes waits for the lock, so ids are never raced. A process that
 * only reads (an API node, `oddsbase keys`) never takes it.
 */
export class PgStore extends PackedLogStore implements Store {
  readonly writer: PgWriter;
  protected readonly packed: PgPackedRows;
  protected readonly loader: PgLoader;
  protected readonly packing: PgPacking;
  private filling = false;
  private closed = false;
  /** The log's head as this store's writer last wrote it; read at its first commit. */
  private head: number | undefined;

  private constructor(
    readonly pool: PgPool,
    url: string,
    onError: (err: unknown) => void,
  ) {
    super();
    this.writer = new PgWriter(url, {
      onError,
      // A commit whose answer the break lost may have landed, or another writer may have written
      // while this one was away: either way this writer's head is no longer the log's.
      regained: async (client) => {
        if (this.head === undefined) return;
        const found = (await client.query<{ max: number | null }>(CHANGE_SQL.head.postgres)).rows[0]?.max;
        if ((found ?? 0) !== this.head) {
          throw new Error(`the log's head is ${found ?? 0}, not ${this.head} as this server last wrote it`);
        }
      },
    });
    this.packed = new PgPackedRows(pool);
    this.loader = new PgLoader(pool, this.writer);
    this.packing = new PgPacking(pool, this.writer);
  }

  /** Opens the store of `url`, its schema migrated first (schema.ts). */
  static async open(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
    const onError = opts.onError ?? (() => {});
    const pool = await openPool(url, { ...opts, onError });
    try {
      await migrate(pool);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PgStore(pool, url, onError);
  }

  /** The history store of this store's database, sharing its cache of packed records. */
  history(): PgHistoryStore {
    return new PgHistoryStore(this.pool, this.packed);
  }

  private async rows<T extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(sql, args)).rows;
  }

  /**
   * One transaction (pg-commit.ts): the change rows by COPY, then markets, events and the batch
   * name in one statement over arrays, so a batch of 2,000 rows is one bulk load, not 2,000
   * inserts. Refused whole if any id is at or below the head, which this store reads once it
   * writes and then keeps: only the holder of the writer's lock adds rows, and retention never
   * removes the head row.
   */
  async commit(c: Commit): Promise<void> {
    const open = this.openCommit();
    open.add(c.changes);
    await open.finish(c);
  }

  /** `commit`'s transaction, opened at once, its rows sent to the server as they are added. */
  openCommit(): OpenCommit {
    return new PgOpenCommit(
      (work) => this.writer.run(work),
      async (client) =>
        (this.head ??= (await client.query<{ max: number | null }>(CHANGE_SQL.head.postgres)).rows[0]?.max ?? 0),
      (head) => {
        this.head = head;
      },
    );
  }

  /**
   * The fill's commits are transactions of their own, committed without waiting for the disk
   * (`synchronous_commit = off` on the writer's connection): readers see each at once and a crash
   * loses at most the last few, never half of one. At the end a synchronous commit flushes the
   * log up to it, so the fill is durable when it ends.
   */
  async fill<T>(run: () => Promise<T>): Promise<T> {
    if (this.filling) throw new Error('a fill is already running');
    this.filling = true;
    try {
      await this.writer.run((c) => c.query('SET synchronous_commit = off'));
      try {
        return await run();
      } finally {
        await this.writer.run(async (c) => {
          await c.query('SET synchronous_commit = on');
          await inTransaction(c, () => c.query('SELECT pg_current_xact_id()'));
        });
      }
    } finally {
      this.filling = false;
    }
  }

  async readChanges(q: ChangeQuery): Promise<ChangeRecord[]> {
    const { where, args } = changeFilter(POSTGRES, q);
    return this.rows<ChangeRecord>(numbered(`SELECT ${ROW} FROM changes WHERE ${where} ORDER BY id LIMIT ?`), args);
  }

  /** PostgreSQL joins the payloads itself: one text per page, no object per row. */
  async readPayloadBytes(q: ChangeQuery): Promise<PayloadBytes> {
    const { where, args } = changeFilter(POSTGRES, q);
    const [page] = await this.rows<{ count: number; last: number | null; bytes: string | null }>(
      numbered(`SELECT count(*) AS count, max(id) AS last, string_agg(payload, ',' ORDER BY id) AS bytes
         FROM (SELECT id, payload FROM changes WHERE ${where} ORDER BY id LIMIT ?) p`),
      args,
    );
    const count = page!.count;
    const lastRowId = page!.last ?? 0;
    const bytes = Buffer.from(page!.bytes ?? '', 'utf8');
    if (count < q.limit || lastRowId === 0) return { bytes, count, lastRowId, more: false };
    const next = changeFilter(POSTGRES, { ...q, afterId: lastRowId, limit: 1 });
    const more = (await this.rows(numbered(`SELECT 1 FROM changes WHERE ${next.where} LIMIT ?`), next.args)).length > 0;
    return { bytes, count, lastRowId, more };
  }

  async scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): Promise<void> {
    for (let after = afterId; ;) {
      const rows = await this.rows<PriceRowSummary & { period_id: number | null }>(
        `SELECT id, sport_id, event_id, affiliate_id, market_id, period_id, payload FROM changes
          WHERE id > $1 AND id <= $2 AND price_id IS NOT NULL ORDER BY id LIMIT ${LOAD_PAGE}`,
        [after, toId],
      );
      for (const r of rows) each({ ...r, period_id: r.period_id ?? 0 });
      if (rows.length < LOAD_PAGE) return;
      after = rows.at(-1)!.id;
    }
  }

  protected async logPlays(eventId: string, limit: number, offset: number): Promise<Buffer> {
    const [page] = await this.rows<{ bytes: string | null }>(
      `SELECT string_agg(payload, ',' ORDER BY id DESC) AS bytes FROM
         (SELECT id, payload FROM changes WHERE kind = 'play' AND event_id = $1 ORDER BY id LIMIT $2 OFFSET $3) p`,
      [eventId, limit, offset],
    );
    return Buffer.from(page?.bytes ?? '', 'utf8');
  }

  protected logStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    return this.rows<ChangeRecord>(CHANGE_SQL.statsUpTo.postgres, [eventId, uptoId]);
  }

  committedMsAt(id: number): Promise<number | undefined> {
    return committedMsAt(this.pool, id);
  }

  firstIdCommittedSince(ms: number): Promise<number | undefined> {
    return firstIdSince(this.pool, ms, (row) => row.committed_ms);
  }

  firstIdDescribedSince(ms: number): Promise<number | undefined> {
    return firstIdDescribedSince(this.pool, ms);
  }

  eventsDescribedSince(ms: number, fromId: number, toId: number): Promise<string[]> {
    return eventsDescribedSince(this.pool, ms, fromId, toId);
  }

  async compact(step: CompactStep): Promise<CompactResult> {
    const result = await this.writer.transaction((c) => compactChunk(c, step));
    const morePacks = await this.packing.step(Math.min(result.oldestId, await this.lastRowId()), step.maxRows);
    return { ...result, more: result.more || morePacks };
  }

  async highestIds(): Promise<HighestIds> {
    // Backwards along the price index, not a max() over the log.
    const [row] = await this.rows<{ price: number | null; packed: number | null; market: number | null }>(
      `SELECT (SELECT price_id FROM changes WHERE price_id IS NOT NULL ORDER BY price_id DESC LIMIT 1) AS price,
              (SELECT max(price_id) FROM archived_prices) AS packed,
              (SELECT max(id) FROM markets) AS market`,
    );
    return { priceId: Math.max(row?.price ?? 0, row?.packed ?? 0), marketId: row?.market ?? 0 };
  }

  async archivedSince(ms: number): Promise<ArchivedMark[]> {
    return (await this.rows<ArchivedRow>(ARCHIVED_SQL.since.postgres, [ms])).map(archivedMarkOf);
  }

  protected async archivedHeader(
    eventId: string,
  ): Promise<{ event: EventRecord; markets: MarketRecord[] } | undefined> {
    const [event] = await this.rows<EventRecord>(EVENT_SQL.archived.postgres, [eventId]);
    if (!event) return undefined;
    const markets = await this.rows<MarketRecord>(MARKET_SQL.ofEvent.postgres, [eventId]);
    return { event, markets };
  }

  protected async logArchived(eventId: string): Promise<{ latestPrices: ChangeRecord[]; plays: number }> {
    const [plays] = await this.rows<{ n: number }>(CHANGE_SQL.playCount.postgres, [eventId]);
    const latestPrices = await this.rows<ChangeRecord>(
      `SELECT DISTINCT ON (price_id) ${ROW} FROM changes WHERE event_id = $1 AND price_id IS NOT NULL
        ORDER BY price_id, id DESC`,
      [eventId],
    );
    return { latestPrices, plays: plays!.n };
  }

  async batchHead(batchId: string): Promise<number | undefined> {
    const [row] = await this.rows<{ head_id: number }>(BATCH_SQL.headOf.postgres, [batchId]);
    return row?.head_id;
  }

  async lastRowId(): Promise<number> {
    const [head] = await this.rows<{ max: number | null }>(CHANGE_SQL.head.postgres);
    return head?.max ?? 0;
  }

  /**
   * An estimate, exact enough for the load estimate line it serves: count(*) scans the whole log
   * (1.3 M rows) at every API node's start, the statistics do not. A log never analysed yet (a new
   * or just restored database) is counted: a new one is small, and autovacuum analyses it soon.
   */
  async rowCount(): Promise<number> {
    const [estimate] = await this.rows<{ n: number | null }>(ROWS_ESTIMATE);
    if (estimate?.n !== null && estimate?.n !== undefined) return estimate.n;
    const [row] = await this.rows<{ n: number }>(CHANGE_SQL.rowCount.postgres);
    return row?.n ?? 0;
  }

  async getMeta(key: string): Promise<string | undefined> {
    const [row] = await this.rows<{ value: string }>(META_SQL.read.postgres, [key]);
    return row?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.writer.run((c) => writeMeta(c, key, value));
  }

  /** Waits for the queued writes, frees the writer's lock and closes every connection; once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.close();
    await this.pool.end();
  }
}
