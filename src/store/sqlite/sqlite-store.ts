import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  EPOCH_META,
  type ChangeKind,
  type ChangeQuery,
  type ChangeRecord,
  type Commit,
  type EventRecord,
  type LoadedState,
  type MarketRecord,
  type PayloadBytes,
  type PriceRowSummary,
  type Store,
} from '../store.ts';
import { Checkpointer } from './checkpointer.ts';
import type { SqliteDatabase } from './database.ts';

const WRITER_CHECKPOINT_PAGES = 10_000;
const WAL_SIZE_LIMIT = 8 * 1024 * 1024;

export interface SqliteStoreOptions {
  /**
   * Checkpoint the write-ahead log on a thread of its own this often, instead of inside the
   * writer's commits (0: SQLite's automatic checkpoints). Ignored for an in-memory database.
   */
  checkpointMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * The embedded store over better-sqlite3. The driver is synchronous: each method does its work at
 * once and returns a settled Promise, as kysely's SQLite dialect does, so callers are written for
 * any backend.
 */
export class SqliteStore implements Store {
  private readonly insertChange;
  private readonly upsertEvent;
  private readonly insertMarket;
  private readonly commitTx;
  private readonly checkpointer: Checkpointer | undefined;

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
    this.insertChange = db.prepare(
      `INSERT INTO changes
         (id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.upsertEvent = db.prepare(
      `INSERT INTO events (event_id, sport_id, event_date, info, change_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (event_id) DO UPDATE SET sport_id = excluded.sport_id, event_date = excluded.event_date,
         info = excluded.info, change_id = excluded.change_id`,
    );
    this.insertMarket = db.prepare(
      'INSERT INTO markets (id, event_id, market_id, period_id) VALUES (?, ?, ?, ?)',
    );
    const headId = db.prepare('SELECT max(id) FROM changes').pluck();
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
          r.event_id,
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
      for (const e of c.events)
        this.upsertEvent.run(e.event_id, e.sport_id, e.event_date, e.info, e.change_id);
    });
  }

  async load(uptoId?: number): Promise<LoadedState> {
    const head = this.db.prepare('SELECT id, committed_ms FROM changes ORDER BY id DESC LIMIT 1').get() as
      | { id: number; committed_ms: number }
      | undefined;
    const headId = head?.id ?? 0;
    const markets = this.db.prepare('SELECT * FROM markets ORDER BY id').all() as MarketRecord[];
    if (uptoId !== undefined && uptoId < headId) {
      return {
        epoch: this.epoch(),
        events: this.eventsUpTo(uptoId),
        markets,
        latestPrices: this.latestPrices(uptoId),
        futures: this.latestFutures(uptoId),
        headId: uptoId,
        headCommittedMs: (await this.committedMsAt(uptoId)) ?? 0,
        ...this.games(uptoId),
      };
    }
    return {
      epoch: this.epoch(),
      events: this.db.prepare('SELECT * FROM events').all() as EventRecord[],
      markets,
      latestPrices: this.latestPrices(Number.MAX_SAFE_INTEGER),
      futures: this.latestFutures(Number.MAX_SAFE_INTEGER),
      headId,
      headCommittedMs: head?.committed_ms ?? 0,
      ...this.games(headId),
    };
  }

  /** Play counts and stat rows up to `uptoId`, through the partial indexes of those kinds. */
  private games(uptoId: number): Pick<LoadedState, 'playCounts' | 'statRows'> {
    return {
      playCounts: this.prepared(
        `SELECT event_id, count(*) AS plays FROM changes WHERE kind = 'play' AND id <= ? GROUP BY event_id`,
      ).all(uptoId) as { event_id: string; plays: number }[],
      statRows: this.prepared(
        `SELECT * FROM changes WHERE kind = 'stat' AND id <= ? ORDER BY event_id, id`,
      ).all(uptoId) as ChangeRecord[],
    };
  }

  async readPlays(eventId: string, fromSequence: number, toSequence: number): Promise<Buffer> {
    const from = Math.max(1, fromSequence);
    if (toSequence < from) return Buffer.alloc(0);
    // SQLite joins the payloads in the order of the ordered subquery and hands over one buffer.
    const [bytes] = this.prepared(
      `SELECT CAST(group_concat(payload, ',') AS BLOB) FROM (SELECT id, payload FROM
         (SELECT id, payload FROM changes WHERE kind = 'play' AND event_id = ? ORDER BY id LIMIT ? OFFSET ?)
       ORDER BY id DESC)`,
      true,
    ).get(eventId, toSequence - from + 1, from - 1) as [Buffer | null];
    return bytes ?? Buffer.alloc(0);
  }

  async readStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    return this.prepared(
      `SELECT * FROM changes WHERE kind = 'stat' AND event_id = ? AND id <= ? ORDER BY id`,
    ).all(eventId, uptoId) as ChangeRecord[];
  }

  /** Each event as its last header and score rows up to `uptoId` left it. */
  private eventsUpTo(uptoId: number): EventRecord[] {
    const latestOfKind = (kind: ChangeKind) =>
      this.prepared(
        `SELECT c.* FROM changes c
         JOIN (SELECT max(id) AS id FROM changes WHERE kind = ? AND id <= ? GROUP BY event_id) m ON c.id = m.id`,
      ).all(kind, uptoId) as ChangeRecord[];
    const scores = new Map(latestOfKind('score').map((r) => [r.event_id, r]));
    return latestOfKind('event').map((r) => {
      const info = JSON.parse(r.payload) as Record<string, unknown>;
      const score = scores.get(r.event_id);
      if (score) {
        const u = JSON.parse(score.payload) as { score?: unknown; live_game_state?: unknown };
        if (u.score !== undefined) info.score = u.score;
        if (u.live_game_state) info.live_game_state = u.live_game_state;
      }
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
    this.commitTx(commit);
  }

  async readChanges(q: ChangeQuery): Promise<ChangeRecord[]> {
    const { where, args } = changeFilter(q);
    return this.prepared(`SELECT * FROM changes WHERE ${where} ORDER BY id LIMIT ?`).all(
      ...args,
    ) as ChangeRecord[];
  }

  /** The newest row of every price at or below `uptoId`, in price id (creation) order. */
  private latestPrices(uptoId: number): ChangeRecord[] {
    return this.prepared(
      `SELECT c.* FROM changes c
       JOIN (SELECT max(id) AS id FROM changes WHERE price_id IS NOT NULL AND id <= ? GROUP BY price_id) m
         ON c.id = m.id
       ORDER BY c.price_id`,
    ).all(uptoId) as ChangeRecord[];
  }

  /** The newest futures row of each key (changelog futuresRowKey) at or below `uptoId`, in id order. */
  private latestFutures(uptoId: number): ChangeRecord[] {
    return this.prepared(
      `SELECT c.* FROM changes c
       JOIN (SELECT max(id) AS id FROM changes
              WHERE kind IN ('futures_board', 'futures_price', 'futures_settlement') AND id <= ?
              GROUP BY event_id, kind, market_id, affiliate_id, json_extract(payload, '$.participant_id')) m
         ON c.id = m.id
       ORDER BY c.id`,
    ).all(uptoId) as ChangeRecord[];
  }

  async committedMsAt(id: number): Promise<number | undefined> {
    const row = this.prepared('SELECT committed_ms FROM changes WHERE id <= ? ORDER BY id DESC LIMIT 1').get(
      id,
    ) as { committed_ms: number } | undefined;
    return row?.committed_ms;
  }

  async firstIdCommittedSince(ms: number): Promise<number | undefined> {
    const bounds = this.db.prepare('SELECT min(id) AS lo, max(id) AS hi FROM changes').get() as {
      lo: number | null;
      hi: number | null;
    };
    if (bounds.lo === null || bounds.hi === null) return undefined;
    const at = this.prepared('SELECT id, committed_ms FROM changes WHERE id >= ? ORDER BY id LIMIT 1');
    // committed_ms never decreases along the ids, so a binary search over the primary key finds it.
    let lo = bounds.lo;
    let hi = bounds.hi;
    const last = at.get(hi) as { id: number; committed_ms: number };
    if (last.committed_ms < ms) return undefined;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = at.get(mid) as { id: number; committed_ms: number };
      if (row.committed_ms >= ms) hi = Math.min(mid, row.id);
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

  async getMeta(key: string): Promise<string | undefined> {
    return this.meta(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.writeMeta(key, value);
  }

  private meta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
      | { value: string }
      | undefined;
    return row?.value;
  }

  private writeMeta(key: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);
  }

  async readPayloadBytes(q: ChangeQuery): Promise<PayloadBytes> {
    const { where, args } = changeFilter(q);
    // SQLite joins the payloads itself and hands over one buffer: no string per row, no encoding.
    // The aggregate takes the rows in the ordered subquery's order (test/unit/change-feed.test.ts).
    const [count, lastRowId, bytes] = this.prepared(
      `SELECT count(*), max(id), CAST(group_concat(payload, ',') AS BLOB)
         FROM (SELECT id, payload FROM changes WHERE ${where} ORDER BY id LIMIT ?)`,
      true,
    ).get(...args) as [number, number | null, Buffer | null];
    const page = { bytes: bytes ?? Buffer.alloc(0), count, lastRowId: lastRowId ?? 0, more: false };
    if (count < q.limit || lastRowId === null) return page;
    const next = changeFilter({ ...q, afterId: lastRowId, limit: 1 });
    const after = this.prepared(`SELECT 1 FROM changes WHERE ${next.where} LIMIT ?`, true).get(...next.args);
    page.more = after !== undefined;
    return page;
  }

  async scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): Promise<void> {
    const rows = this.prepared(
      `SELECT id, sport_id, event_id, affiliate_id, market_id, json_extract(detail, '$.period_id') AS period_id,
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
    if (!this.db.open) return;
    await this.checkpointer?.stop();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.close();
  }
}

/** The WHERE clause of a change read and its arguments, the LIMIT last. */
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
    where.push('event_id = ?');
    args.push(q.eventId);
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
