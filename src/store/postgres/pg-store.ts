import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { describedMs, type EventHeader, type FuturesPriceFact, type StatValue } from '../../changelog/change.ts';
import { eventFromRows, movesLiveState, type ScoreFacts } from '../../domain/event-header.ts';
import { archivedEventOf, packRows, playsOf, priceIdsOf, statsOf } from '../packed-rows.ts';
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
  type ChangeKind,
  type ChangeQuery,
  type ChangeRecord,
  type Commit,
  EPOCH_META,
  type EventRecord,
  type LoadedState,
  type LoadOptions,
  type MarketRecord,
  type PayloadBytes,
  type PriceRowSummary,
  type Store,
} from '../store.ts';
import { inTransaction, migrate, openPool, type PgClient, type PgOptions, type PgPool } from './database.ts';
import { PgHistoryStore } from './pg-history.ts';
import { PgPackedRows } from './pg-packed.ts';
import { PgWriter } from './pg-writer.ts';

/** Rows a load reads at a time (latest prices, stat rows), and a scan of price rows. */
const LOAD_PAGE = 5000;

/** A change row's columns as `ChangeRecord` has them. */
const ROW = 'id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail';
const EVENT = 'event_id, sport_id, event_date, info, change_id';
const MARKET = 'id, event_id, market_id, period_id';
/** A row of an event still on the board (archived events are left out of a start's load). */
const LIVE = 'event_id NOT IN (SELECT event_id FROM archived_events)';
const FUTURES = "kind IN ('futures_board', 'futures_price', 'futures_settlement')";

/** The period a row's detail names, or null: the SQLite store's json_extract(detail, '$.period_id'). */
function periodOf(detail: string | null): number | null {
  const m = detail === null ? null : /"period_id":(-?\d+)/.exec(detail);
  return m ? Number(m[1]) : null;
}

export interface PgStoreOptions extends PgOptions {
  onError?: (err: unknown) => void;
}

/**
 * The store in PostgreSQL, for several nodes on one database. Reads go through a pool; every write
 * goes through the single writer (pg-writer.ts), one connection that holds the writer's advisory
 * lock: a second process that writes waits for the lock, so ids are never raced. A process that
 * only reads (an API node, `oddsbase keys`) never takes it.
 */
export class PgStore implements Store {
  readonly writer: PgWriter;
  private readonly packed: PgPackedRows;
  private filling = false;
  private closed = false;
  /** The log's head as this store's writer last wrote it; read at its first commit. */
  private head: number | undefined;

  private constructor(
    readonly pool: PgPool,
    url: string,
    onError: (err: unknown) => void,
  ) {
    this.writer = new PgWriter(url, {
      onError,
      // A commit whose answer the break lost may have landed, or another writer may have written
      // while this one was away: either way this writer's head is no longer the log's.
      regained: async (client) => {
        if (this.head === undefined) return;
        const found = (await client.query<{ max: number | null }>('SELECT max(id) AS max FROM changes')).rows[0]?.max;
        if ((found ?? 0) !== this.head) {
          throw new Error(`the log's head is ${found ?? 0}, not ${this.head} as this server last wrote it`);
        }
      },
    });
    this.packed = new PgPackedRows(pool);
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

  async load(uptoId?: number, opts: LoadOptions = {}): Promise<LoadedState> {
    const [head] = await this.rows<{ id: number; committed_ms: number }>(
      'SELECT id, committed_ms FROM changes ORDER BY id DESC LIMIT 1',
    );
    const headId = head?.id ?? 0;
    const markets = await this.rows<MarketRecord>(`SELECT ${MARKET} FROM markets WHERE ${LIVE} ORDER BY id`);
    const archived = {
      events: await this.rows<EventRecord>(
        `SELECT ${EVENT} FROM events WHERE event_id IN (SELECT event_id FROM archived_events) AND event_date >= $1`,
        [opts.archivedSince ?? ''],
      ),
      seasonTotals: await this.rows<{ key: string; body: string }>(
        'SELECT season_key AS key, body FROM season_totals ORDER BY season_key',
      ),
    };
    const epoch = await this.epoch();
    const current = () => this.rows<EventRecord>(`SELECT ${EVENT} FROM events WHERE ${LIVE}`);
    if (uptoId !== undefined && uptoId < headId) {
      const gone = new Set(
        (await this.rows<{ event_id: string }>('SELECT event_id FROM archived_events')).map((r) => r.event_id),
      );
      const limit: LoadLimit = { upto: uptoId, asOf: opts.asOfOnly };
      const asOf = opts.asOfOnly && new Set(opts.asOfOnly);
      const events = await this.eventsUpTo(limit);
      if (asOf) for (const e of await current()) if (!asOf.has(e.event_id)) events.push(e);
      return {
        epoch,
        events: events.filter((e) => !gone.has(e.event_id)),
        markets,
        ...(await this.prices(limit)),
        futures: await this.latestFutures(limit),
        headId: uptoId,
        headCommittedMs: (await this.committedMsAt(uptoId)) ?? 0,
        ...(await this.games(limit)),
        archived,
      };
    }
    const all: LoadLimit = { upto: Number.MAX_SAFE_INTEGER };
    return {
      epoch,
      events: await current(),
      markets,
      ...(await this.prices(all)),
      futures: await this.latestFutures(all),
      headId,
      headCommittedMs: head?.committed_ms ?? 0,
      ...(await this.games({ upto: headId })),
      archived,
    };
  }

  /** The log's epoch, begun on first use by the writer. */
  private async epoch(): Promise<string> {
    const known = await this.getMeta(EPOCH_META);
    if (known !== undefined) return known;
    const made = randomUUID();
    // Another writer may have begun it meanwhile: the first one kept wins.
    const [kept] = await this.writer.run(
      async (c) =>
        (
          await c.query<{ value: string }>(
            `INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = meta.value RETURNING value`,
            [EPOCH_META, made],
          )
        ).rows,
    );
    return kept!.value;
  }

  private async games(limit: LoadLimit): Promise<Pick<LoadedState, 'playCounts' | 'statRows'>> {
    const args: unknown[] = [];
    return {
      playCounts: await this.rows<{ event_id: string; plays: number }>(
        `SELECT event_id, count(*) AS plays FROM changes
          WHERE kind = 'play' AND ${within(limit, args)} AND ${LIVE} GROUP BY event_id`,
        args,
      ),
      statRows: this.statRows(limit),
    };
  }

  /**
   * The newest stat row of each box-score value (event, team, player, stat), each event's in the
   * order of the values' first rows, carrying the player's name and position when the value's first
   * row said them (a player is named once): folded, they give the boxes every row gives.
   */
  private async *statRows(limit: LoadLimit): AsyncGenerator<ChangeRecord> {
    const args: unknown[] = [];
    const columns = ROW.split(', ')
      .map((c) =>
        c === 'payload'
          ? `CASE WHEN f.id <> c.id AND f.payload::jsonb ? 'display_name'
               THEN (c.payload::jsonb || jsonb_build_object('display_name', f.payload::jsonb -> 'display_name',
                 'position', f.payload::jsonb -> 'position'))::text
               ELSE c.payload END AS payload`
          : `c.${c}`,
      )
      .join(', ');
    yield* await this.rows<ChangeRecord>(
      `SELECT ${columns} FROM changes c
       JOIN (SELECT max(id) AS id, min(id) AS first FROM changes
              WHERE kind = 'stat' AND ${within(limit, args)} AND ${LIVE}
              GROUP BY event_id, payload::jsonb -> 'team_id', payload::jsonb -> 'player_id', payload::jsonb -> 'stat_id') m
         ON c.id = m.id
       JOIN changes f ON f.id = m.first
       ORDER BY c.event_id, m.first`,
      args,
    );
  }

  /** The latest prices within `limit`, a page at a time, and the largest price id among them. */
  private async prices(limit: LoadLimit): Promise<Pick<LoadedState, 'latestPrices' | 'maxPriceId'>> {
    const [logged] = await this.rows<{ price_id: number }>(
      'SELECT price_id FROM changes WHERE price_id IS NOT NULL AND id <= $1 ORDER BY price_id DESC LIMIT 1',
      // With events at the head, the whole log's.
      [limit.asOf ? Number.MAX_SAFE_INTEGER : limit.upto],
    );
    // Packed prices were written below the retained boundary, which is below any replayed head.
    const [packed] = await this.rows<{ max: number | null }>('SELECT max(price_id) AS max FROM archived_prices');
    const maxPriceId = Math.max(logged?.price_id ?? 0, packed?.max ?? 0);
    return { latestPrices: this.latestPrices(limit, maxPriceId), maxPriceId };
  }

  /** The newest row of every price within `limit`, in price id order, a range of price ids a page. */
  private async *latestPrices(limit: LoadLimit, last: number): AsyncGenerator<ChangeRecord> {
    for (let from = 0; from < last; from += LOAD_PAGE) {
      const args: unknown[] = [from, from + LOAD_PAGE];
      yield* await this.rows<ChangeRecord>(
        `SELECT DISTINCT ON (price_id) ${ROW} FROM changes
          WHERE price_id > $1 AND price_id <= $2 AND ${within(limit, args)} AND ${LIVE}
          ORDER BY price_id, id DESC`,
        args,
      );
    }
  }

  /** The newest futures row of each key (changelog futuresRowKey) within `limit`, in id order. */
  private latestFutures(limit: LoadLimit): Promise<ChangeRecord[]> {
    const key = "event_id, kind, market_id, affiliate_id, (payload::jsonb ->> 'participant_id')";
    const args: unknown[] = [];
    return this.rows<ChangeRecord>(
      `SELECT ${ROW} FROM (SELECT DISTINCT ON (${key}) ${ROW} FROM changes WHERE ${FUTURES} AND ${within(limit, args)}
                            ORDER BY ${key}, id DESC) f
        ORDER BY id`,
      args,
    );
  }

  /** Each event as its last header and score rows up to `limit.upto` left it (with `asOf`, those events only). */
  private async eventsUpTo(limit: LoadLimit): Promise<EventRecord[]> {
    const latestOfKind = (kind: ChangeKind) =>
      this.rows<ChangeRecord>(
        `SELECT DISTINCT ON (event_id) ${ROW} FROM changes WHERE kind = $1 AND id <= $2
           ${limit.asOf ? 'AND event_id = ANY($3::text[])' : ''} ORDER BY event_id, id DESC`,
        limit.asOf ? [kind, limit.upto, limit.asOf] : [kind, limit.upto],
      );
    const scores = new Map((await latestOfKind('score')).map((r) => [r.event_id, r]));
    const out: EventRecord[] = [];
    for (const r of await latestOfKind('event')) {
      const score = scores.get(r.event_id);
      const facts = score ? (JSON.parse(score.payload) as ScoreFacts) : undefined;
      // A score row without a live state keeps the one an earlier row set: find that row.
      const [live] =
        facts && !movesLiveState(facts)
          ? await this.rows<{ payload: string }>(
              `SELECT payload FROM changes WHERE event_id = $1 AND id <= $2 AND kind = 'score'
                 AND payload::jsonb ? 'live_game_state' ORDER BY id DESC LIMIT 1`,
              [r.event_id, score!.id],
            )
          : [];
      const info = eventFromRows(
        JSON.parse(r.payload) as EventHeader,
        live && (JSON.parse(live.payload) as ScoreFacts),
        facts,
      );
      out.push({
        event_id: r.event_id,
        sport_id: r.sport_id,
        event_date: String(info.event_date),
        info: JSON.stringify(info),
        change_id: Math.max(r.id, score?.id ?? 0),
      });
    }
    return out;
  }

  /**
   * One statement, so one round trip and one transaction (data-modifying WITH clauses commit or
   * fail together): each table is written over arrays (unnest), so a batch of 2,000 rows is one
   * INSERT of changes, not 2,000. Refused whole if any id is at or below the head, which this store
   * reads once it writes and then keeps: only the holder of the writer's lock adds rows, and
   * retention never removes the head row.
   */
  async commit(c: Commit): Promise<void> {
    await this.writer.run(async (client) => {
      this.head ??=
        (await client.query<{ max: number | null }>('SELECT max(id) AS max FROM changes')).rows[0]?.max ?? 0;
      const head = this.head;
      let top = head;
      for (const r of c.changes) {
        // Ids only rise: a row below the head would be skipped by a reader whose cursor is at the head.
        if (r.id <= head) throw new Error(`change id ${r.id} is not above the head ${head}`);
        if (r.id > top) top = r.id;
      }
      await client.query(COMMIT_SQL, commitArgs(c));
      this.head = top;
    });
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
    const { where, args } = changeFilter(q);
    return this.rows<ChangeRecord>(`SELECT ${ROW} FROM changes WHERE ${where} ORDER BY id LIMIT $${args.length}`, args);
  }

  /** PostgreSQL joins the payloads itself: one text per page, no object per row. */
  async readPayloadBytes(q: ChangeQuery): Promise<PayloadBytes> {
    const { where, args } = changeFilter(q);
    const [page] = await this.rows<{ count: number; last: number | null; bytes: string | null }>(
      `SELECT count(*) AS count, max(id) AS last, string_agg(payload, ',' ORDER BY id) AS bytes
         FROM (SELECT id, payload FROM changes WHERE ${where} ORDER BY id LIMIT $${args.length}) p`,
      args,
    );
    const count = page!.count;
    const lastRowId = page!.last ?? 0;
    const bytes = Buffer.from(page!.bytes ?? '', 'utf8');
    if (count < q.limit || lastRowId === 0) return { bytes, count, lastRowId, more: false };
    const next = changeFilter({ ...q, afterId: lastRowId, limit: 1 });
    const more =
      (await this.rows(`SELECT 1 FROM changes WHERE ${next.where} LIMIT $${next.args.length}`, next.args)).length > 0;
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

  async readPlays(eventId: string, fromSequence: number, toSequence: number): Promise<Buffer> {
    const packed = await this.packed.rows(eventId);
    if (packed) return playsOf(packed, fromSequence, toSequence);
    const from = Math.max(1, fromSequence);
    if (toSequence < from) return Buffer.alloc(0);
    const [page] = await this.rows<{ bytes: string | null }>(
      `SELECT string_agg(payload, ',' ORDER BY id DESC) AS bytes FROM
         (SELECT id, payload FROM changes WHERE kind = 'play' AND event_id = $1 ORDER BY id LIMIT $2 OFFSET $3) p`,
      [eventId, toSequence - from + 1, from - 1],
    );
    return Buffer.from(page?.bytes ?? '', 'utf8');
  }

  async readStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    const packed = await this.packed.rows(eventId);
    if (packed) return statsOf(packed, uptoId);
    return this.rows<ChangeRecord>(
      `SELECT ${ROW} FROM changes WHERE kind = 'stat' AND event_id = $1 AND id <= $2 ORDER BY id`,
      [eventId, uptoId],
    );
  }

  async committedMsAt(id: number): Promise<number | undefined> {
    const [row] = await this.rows<{ committed_ms: number }>(
      'SELECT committed_ms FROM changes WHERE id <= $1 ORDER BY id DESC LIMIT 1',
      [id],
    );
    return row?.committed_ms;
  }

  firstIdCommittedSince(ms: number): Promise<number | undefined> {
    return firstIdSince(this.pool, ms, (row) => row.committed_ms);
  }

  async firstIdDescribedSince(ms: number): Promise<number | undefined> {
    // As in the SQLite store: described times need not ascend along the ids (a first fill's
    // background part), commit times do and bound the search; candidates by their time's text a
    // second early (a time that is no ISO text is the commit's), each then checked.
    let from = await firstIdSince(this.pool, ms, (r) => r.committed_ms);
    const early = new Date(ms - 1000).toISOString();
    while (from !== undefined) {
      const [row] = await this.rows<TimedRow>(
        "SELECT id, committed_ms, at FROM changes WHERE id >= $1 AND (at >= $2 OR at NOT LIKE '____-__-__T%') ORDER BY id LIMIT 1",
        [from, early],
      );
      if (!row || describedMs(row) >= ms) return row?.id;
      from = row.id + 1;
    }
    return undefined;
  }

  async eventsDescribedSince(ms: number, fromId: number): Promise<string[]> {
    // By their time's text a second early, as above: a few more events than asked, never fewer.
    const rows = await this.rows<{ event_id: string }>(
      "SELECT DISTINCT event_id FROM changes WHERE id >= $1 AND (at >= $2 OR at NOT LIKE '____-__-__T%')",
      [fromId, new Date(ms - 1000).toISOString()],
    );
    return rows.map((r) => r.event_id);
  }

  async compact(step: CompactStep): Promise<CompactResult> {
    const result = await this.writer.transaction((c) => compactChunk(c, step));
    const morePacks = await this.packStep(Math.min(result.oldestId, await this.lastRowId()), step.maxRows);
    return { ...result, more: result.more || morePacks };
  }

  /**
   * Packing's share of a step (as in the SQLite store): it goes on taking a packed event's rows out
   * of the log while any are left, else packs the next ready event. Returns whether more may wait.
   */
  private async packStep(limit: number, maxRows: number): Promise<boolean> {
    const [draining] = await this.rows<{ event_id: string }>(
      'SELECT p.event_id FROM archive_pending p JOIN archived_rows r ON r.event_id = p.event_id LIMIT 1',
    );
    if (draining === undefined) return this.packOne(limit, maxRows);
    await this.writer.transaction((c) => drain(c, draining.event_id, maxRows));
    return true;
  }

  /**
   * Packs the archived event waiting longest whose rows all lie below `limit`: its rows are read
   * and compressed outside the writer's queue, then one transaction stores the record, points its
   * prices to it and deletes the first `maxRows` of its rows, unless the event gained a row meanwhile.
   */
  private async packOne(limit: number, maxRows: number): Promise<boolean> {
    const ready = await this.rows<{ event_id: string }>(
      'SELECT event_id FROM archive_pending WHERE last_id < $1 ORDER BY last_id LIMIT 2',
      [limit],
    );
    const eventId = ready[0]?.event_id;
    if (eventId === undefined) return false;
    const rows = await this.rows<ChangeRecord>(`SELECT ${ROW} FROM changes WHERE event_id = $1 ORDER BY id`, [eventId]);
    const lastId = rows.at(-1)?.id ?? 0;
    // A row of the event committed since it was archived (the ledger refuses them) waits for the boundary.
    if (lastId >= limit) {
      await this.writer.run((c) =>
        c.query('UPDATE archive_pending SET last_id = $1 WHERE event_id = $2', [lastId, eventId]),
      );
      return ready.length > 1;
    }
    const body = await packRows(rows);
    const more = await this.writer.transaction(async (c) => {
      const [now] = (
        await c.query<{ max: number | null }>('SELECT max(id) AS max FROM changes WHERE event_id = $1', [eventId])
      ).rows;
      if ((now?.max ?? 0) !== lastId) {
        await c.query('UPDATE archive_pending SET last_id = $1 WHERE event_id = $2', [now?.max ?? 0, eventId]);
        return false;
      }
      const [record] = (
        await c.query<{ id: number }>('INSERT INTO archived_rows (event_id, body) VALUES ($1, $2) RETURNING id', [
          eventId,
          body,
        ])
      ).rows;
      await c.query(
        `INSERT INTO archived_prices (price_id, record) SELECT p, $2 FROM unnest($1::bigint[]) AS p
         ON CONFLICT (price_id) DO UPDATE SET record = excluded.record`,
        [priceIdsOf(rows), record!.id],
      );
      return drain(c, eventId, maxRows);
    });
    return more || ready.length > 1;
  }

  async retained(): Promise<RetainedLog> {
    const since = await this.getMeta(RETAINED_SINCE_META);
    return {
      oldestId: Number((await this.getMeta(RETAINED_ID_META)) ?? 1),
      sinceMs: since === undefined ? undefined : Number(since),
    };
  }

  async archive(a: ArchiveCommit): Promise<void> {
    await this.writer.transaction(async (c) => {
      for (const id of a.eventIds) {
        await c.query('INSERT INTO archived_events (event_id, archived_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          id,
          a.archivedMs,
        ]);
        await c.query(
          `INSERT INTO archive_pending (event_id, last_id)
             SELECT $1::text, (SELECT coalesce(max(id), 0) FROM changes WHERE event_id = $1::text)
              WHERE NOT EXISTS (SELECT 1 FROM archived_rows WHERE event_id = $1::text)
           ON CONFLICT (event_id) DO NOTHING`,
          [id],
        );
      }
      for (const t of a.seasonTotals) {
        await c.query(
          'INSERT INTO season_totals (season_key, body) VALUES ($1, $2) ON CONFLICT (season_key) DO UPDATE SET body = excluded.body',
          [t.key, t.body],
        );
      }
    });
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

  archivedSince(ms: number): Promise<ArchivedMark[]> {
    return this.rows<ArchivedMark>(
      'SELECT event_id AS "eventId", archived_ms AS "archivedMs" FROM archived_events WHERE archived_ms >= $1 ORDER BY archived_ms, event_id',
      [ms],
    );
  }

  async readArchivedEvent(eventId: string): Promise<ArchivedEvent | undefined> {
    const [event] = await this.rows<EventRecord>(
      `SELECT ${EVENT} FROM events WHERE event_id = $1 AND event_id IN (SELECT event_id FROM archived_events)`,
      [eventId],
    );
    if (!event) return undefined;
    const markets = await this.rows<MarketRecord>(`SELECT ${MARKET} FROM markets WHERE event_id = $1 ORDER BY id`, [
      eventId,
    ]);
    const packed = await this.packed.rows(eventId);
    if (packed) return archivedEventOf(event, markets, packed);
    const [plays] = await this.rows<{ n: number }>(
      "SELECT count(*) AS n FROM changes WHERE kind = 'play' AND event_id = $1",
      [eventId],
    );
    return {
      event,
      markets,
      latestPrices: await this.rows<ChangeRecord>(
        `SELECT DISTINCT ON (price_id) ${ROW} FROM changes WHERE event_id = $1 AND price_id IS NOT NULL
          ORDER BY price_id, id DESC`,
        [eventId],
      ),
      playCounts: plays!.n > 0 ? [{ event_id: eventId, plays: plays!.n }] : [],
      statRows: await this.readStats(eventId, Number.MAX_SAFE_INTEGER),
    };
  }

  async batchHead(batchId: string): Promise<number | undefined> {
    const [row] = await this.rows<{ head_id: number }>('SELECT head_id FROM ingest_batches WHERE batch_id = $1', [
      batchId,
    ]);
    return row?.head_id;
  }

  async lastRowId(): Promise<number> {
    const [head] = await this.rows<{ max: number | null }>('SELECT max(id) AS max FROM changes');
    return head?.max ?? 0;
  }

  async getMeta(key: string): Promise<string | undefined> {
    const [row] = await this.rows<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
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

async function writeMeta(c: PgClient, key: string, value: string): Promise<void> {
  await c.query(
    'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    [key, value],
  );
}

async function readMeta(c: PgClient, key: string): Promise<string | undefined> {
  return (await c.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key])).rows[0]?.value;
}

/** A commit's statement: markets, events and change rows, each table's rows bound as arrays. */
const COMMIT_SQL = `
WITH new_markets AS (
  INSERT INTO markets (id, event_id, market_id, period_id)
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[])
), new_events AS (
  INSERT INTO events (event_id, sport_id, event_date, info, change_id)
    SELECT * FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::bigint[])
  ON CONFLICT (event_id) DO UPDATE SET sport_id = excluded.sport_id, event_date = excluded.event_date,
    info = excluded.info, change_id = excluded.change_id
), new_batch AS (
  INSERT INTO ingest_batches (batch_id, head_id, committed_ms)
    SELECT $22::text, $23::bigint, $24::bigint WHERE $22::text IS NOT NULL
)
INSERT INTO changes (id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, period_id, payload, detail)
  SELECT * FROM unnest($10::bigint[], $11::text[], $12::text[], $13::int[], $14::text[], $15::bigint[], $16::bigint[],
                       $17::int[], $18::int[], $19::int[], $20::text[], $21::text[])`;

/** The arguments of COMMIT_SQL: a column of each table a parameter. */
function commitArgs(c: Commit): unknown[] {
  // One upsert may not touch a row twice: the last record of an event wins, as row by row.
  const events = [...new Map(c.events.map((e) => [e.event_id, e])).values()];
  const rows = c.changes;
  const n = rows.length;
  const cols = {
    id: new Array<number>(n),
    kind: new Array<string>(n),
    event: new Array<string>(n),
    sport: new Array<number>(n),
    at: new Array<string>(n),
    committed: new Array<number>(n),
    price: new Array<number | null>(n),
    affiliate: new Array<number | null>(n),
    market: new Array<number | null>(n),
    period: new Array<number | null>(n),
    payload: new Array<string>(n),
    detail: new Array<string | null>(n),
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    cols.id[i] = r.id;
    cols.kind[i] = r.kind;
    cols.event[i] = r.event_id;
    cols.sport[i] = r.sport_id;
    cols.at[i] = r.at;
    cols.committed[i] = r.committed_ms;
    cols.price[i] = r.price_id;
    cols.affiliate[i] = r.affiliate_id;
    cols.market[i] = r.market_id;
    cols.period[i] = periodOf(r.detail);
    cols.payload[i] = r.payload;
    cols.detail[i] = r.detail;
  }
  return [
    c.markets.map((m) => m.id),
    c.markets.map((m) => m.event_id),
    c.markets.map((m) => m.market_id),
    c.markets.map((m) => m.period_id),
    events.map((e) => e.event_id),
    events.map((e) => e.sport_id),
    events.map((e) => e.event_date),
    events.map((e) => e.info),
    events.map((e) => e.change_id),
    ...Object.values(cols),
    c.batch?.id ?? null,
    c.batch?.headId ?? null,
    c.batch?.committedMs ?? null,
  ];
}

/** The WHERE clause of a change read and its arguments, the LIMIT last. */
function changeFilter(q: ChangeQuery): { where: string; args: unknown[] } {
  const args: unknown[] = [q.afterId, q.toId];
  const arg = (value: unknown) => {
    args.push(value);
    return `$${args.length}`;
  };
  const where = ['id > $1', 'id <= $2'];
  if (q.pricesOnly) where.push('price_id IS NOT NULL');
  if (q.sportId !== undefined) where.push(`sport_id = ${arg(q.sportId)}`);
  if (q.eventId !== undefined) where.push(`event_id = ${arg(q.eventId)}`);
  if (q.eventIds !== undefined) where.push(`event_id = ANY(${arg(q.eventIds)}::text[])`);
  const within = (column: string, ids: readonly number[] | undefined) => {
    if (ids === undefined) return;
    // An empty list matches nothing, as `= ANY('{}')` does.
    where.push(`${column} = ANY(${arg(ids)}::bigint[])`);
  };
  within('affiliate_id', q.affiliateIds);
  within('market_id', q.marketIds);
  within('period_id', q.periodIds);
  arg(q.limit);
  return { where: where.join(' AND '), args };
}

type TimedRow = { id: number; committed_ms: number; at: string };

/** How far a load reads: up to `upto`, or with `asOf`, those events up to `upto` and every other one to the head. */
interface LoadLimit {
  upto: number;
  asOf?: readonly string[] | undefined;
}

/** A row within a load's limit; its parameters are appended to `args`. */
function within(limit: LoadLimit, args: unknown[]): string {
  args.push(limit.upto);
  const upto = `id <= $${args.length}`;
  if (limit.asOf === undefined) return upto;
  args.push(limit.asOf);
  return `(${upto} OR NOT event_id = ANY($${args.length}::text[]))`;
}

/** The pool or one connection: what runs a statement. */
type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * The smallest id whose time (by `timeOf`, never decreasing along the ids) is at or after `ms`:
 * a binary search over the primary key, a probe per step, never a scan.
 */
async function firstIdSince(
  pool: Queryable,
  ms: number,
  timeOf: (row: TimedRow) => number,
): Promise<number | undefined> {
  const [bounds] = (
    await pool.query<{ lo: number | null; hi: number | null }>(
      'SELECT (SELECT min(id) FROM changes) AS lo, (SELECT max(id) FROM changes) AS hi',
    )
  ).rows;
  if (bounds?.lo == null || bounds.hi == null) return undefined;
  const at = async (id: number) =>
    (await pool.query<TimedRow>('SELECT id, committed_ms, at FROM changes WHERE id >= $1 ORDER BY id LIMIT 1', [id]))
      .rows[0]!;
  let lo = bounds.lo;
  let hi = bounds.hi;
  if (timeOf(await at(hi)) < ms) return undefined;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = await at(mid);
    if (timeOf(row) >= ms) hi = Math.min(mid, row.id);
    else lo = row.id + 1;
  }
  return (await at(lo)).id;
}

/**
 * One chunk of ids below the boundary, judged as the SQLite store judges it (retention.ts): every
 * row of the chunk with what earlier steps kept of its key, in the writer's transaction.
 */
async function compactChunk(c: PgClient, step: CompactStep): Promise<CompactResult> {
  const one = async <T extends pg.QueryResultRow>(sql: string, args: unknown[] = []) =>
    (await c.query<T>(sql, args)).rows[0];
  const retained = Number((await readMeta(c, RETAINED_ID_META)) ?? 1);
  const head = (await one<{ max: number | null }>('SELECT max(id) AS max FROM changes'))?.max ?? 0;
  const bound = (await firstIdSince(c, step.cutoffMs, (row) => row.committed_ms)) ?? head + 1;
  // Ids no row has take no step: a restored log skips 10^12 of them (src/ops/backup.ts).
  const next = (await one<{ min: number | null }>('SELECT min(id) AS min FROM changes WHERE id >= $1', [retained]))
    ?.min;
  const from = Math.max(retained, Math.min(next ?? bound, bound));
  if (from > retained) await writeMeta(c, RETAINED_ID_META, String(from));
  const end = Math.min(bound, from + step.maxRows);
  if (end <= from) return { scanned: 0, dropped: 0, oldestId: from, more: false };
  const cutoffAt = new Date(step.cutoffMs).toISOString();
  const chunk = (
    await c.query<ChangeRecord>(`SELECT ${ROW} FROM changes WHERE id >= $1 AND id < $2 ORDER BY id`, [from, end])
  ).rows;
  const byKey = new Map<string, ChangeRecord[]>();
  for (const r of chunk) {
    const key = compactionKey(r);
    if (key === undefined) continue;
    let rows = byKey.get(key);
    if (!rows) byKey.set(key, (rows = []));
    rows.push(r);
  }
  const starts = new Map<string, string | undefined>();
  const startOf = async (eventId: string) => {
    if (!starts.has(eventId)) {
      const date = (await one<{ event_date: string }>('SELECT event_date FROM events WHERE event_id = $1', [eventId]))
        ?.event_date;
      starts.set(eventId, date === undefined ? undefined : startAtOf(date));
    }
    return starts.get(eventId);
  };
  const olderOfFamily = new Map<string, Map<string, ChangeRecord[]>>();
  const gone: number[] = [];
  for (const [key, rows] of byKey) {
    const all = [...(await olderRows(c, rows[0]!, key, from, olderOfFamily)), ...rows];
    const startAt = all[0]!.kind === 'price' ? await startOf(all[0]!.event_id) : undefined;
    let beforeStartAfter: boolean | undefined;
    for (let i = all.length - 1; i >= 0; i--) {
      const r = all[i]!;
      if (r.at < cutoffAt && (i < all.length - 1 || (await supersededBelow(c, r, bound)))) {
        const first = r.kind === 'price' && i === 0;
        let laterBeforeStart = false;
        if (!first && startAt !== undefined && r.at <= startAt) {
          beforeStartAfter ??=
            (await one('SELECT 1 FROM changes WHERE price_id = $1 AND id >= $2 AND at <= $3 LIMIT 1', [
              r.price_id,
              end,
              startAt,
            ])) !== undefined;
          laterBeforeStart = beforeStartAfter;
        }
        if (dropsRow(r, { cutoffAt, superseded: true, first, startAt, laterBeforeStart })) gone.push(r.id);
      }
      if (startAt !== undefined && r.at <= startAt) beforeStartAfter = true;
    }
  }
  if (gone.length > 0) await c.query('DELETE FROM changes WHERE id = ANY($1::bigint[])', [gone]);
  await writeMeta(c, RETAINED_ID_META, String(end));
  if (gone.length > 0) {
    const since = Math.max(Number((await readMeta(c, RETAINED_SINCE_META)) ?? 0), step.cutoffMs);
    await writeMeta(c, RETAINED_SINCE_META, String(since));
  }
  return { scanned: end - from, dropped: gone.length, oldestId: end, more: end < bound };
}

/**
 * The rows of `sample`'s key below `from`, in id order (what earlier steps kept). A price's come
 * from its index; other kinds' are read once per event and kind for the step and grouped by key.
 */
async function olderRows(
  c: PgClient,
  sample: ChangeRecord,
  key: string,
  from: number,
  ofFamily: Map<string, Map<string, ChangeRecord[]>>,
): Promise<ChangeRecord[]> {
  if (sample.kind === 'price') {
    return (
      await c.query<ChangeRecord>(`SELECT ${ROW} FROM changes WHERE price_id = $1 AND id < $2 ORDER BY id`, [
        sample.price_id,
        from,
      ])
    ).rows;
  }
  const family = `${sample.kind}|${sample.event_id}`;
  let byKey = ofFamily.get(family);
  if (!byKey) {
    const rows = (
      await c.query<ChangeRecord>(
        `SELECT ${ROW} FROM changes WHERE kind = $1 AND event_id = $2 AND id < $3 ORDER BY id`,
        [sample.kind, sample.event_id, from],
      )
    ).rows;
    byKey = new Map();
    for (const r of rows) {
      const k = compactionKey(r);
      if (k === undefined) continue;
      let same = byKey.get(k);
      if (!same) byKey.set(k, (same = []));
      same.push(r);
    }
    ofFamily.set(family, byKey);
  }
  return byKey.get(key) ?? [];
}

/** Whether a newer row of `r`'s compaction key lies below `bound`. */
async function supersededBelow(c: PgClient, r: ChangeRecord, bound: number): Promise<boolean> {
  const any = async (sql: string, args: unknown[]) =>
    (await c.query(`SELECT 1 FROM changes WHERE ${sql} LIMIT 1`, args)).rows.length > 0;
  switch (r.kind) {
    case 'price':
      return any('price_id = $1 AND id > $2 AND id < $3', [r.price_id, r.id, bound]);
    case 'stat': {
      const v = JSON.parse(r.payload) as StatValue;
      return any(
        `kind = 'stat' AND event_id = $1 AND id > $2 AND id < $3 AND payload::jsonb ->> 'team_id' = $4
           AND payload::jsonb ->> 'stat_id' = $5 AND (payload::jsonb ->> 'player_id') IS NOT DISTINCT FROM $6`,
        [
          r.event_id,
          r.id,
          bound,
          String(v.team_id),
          String(v.stat_id),
          v.player_id == null ? null : String(v.player_id),
        ],
      );
    }
    case 'futures_price': {
      const participant = (JSON.parse(r.payload) as FuturesPriceFact).participant_id;
      return any(
        `kind = 'futures_price' AND event_id = $1 AND id > $2 AND id < $3 AND market_id IS NOT DISTINCT FROM $4
           AND affiliate_id IS NOT DISTINCT FROM $5 AND payload::jsonb ->> 'participant_id' = $6`,
        [r.event_id, r.id, bound, r.market_id, r.affiliate_id, String(participant)],
      );
    }
    case 'event':
    case 'score':
    case 'futures_board':
      return any('kind = $1 AND event_id = $2 AND id > $3 AND id < $4', [r.kind, r.event_id, r.id, bound]);
    default:
      return false;
  }
}

/**
 * Deletes at most `maxRows` rows of a packed event from the log; once none is left the event is
 * no longer pending. Returns whether rows are left.
 */
async function drain(c: PgClient, eventId: string, maxRows: number): Promise<boolean> {
  const deleted = await c.query(
    'DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE event_id = $1 ORDER BY id LIMIT $2)',
    [eventId, maxRows],
  );
  if (deleted.rowCount === maxRows) return true;
  await c.query('DELETE FROM archive_pending WHERE event_id = $1', [eventId]);
  return false;
}
