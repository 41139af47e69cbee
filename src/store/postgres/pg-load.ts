import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { CATALOG_EVENT_ID, type EventHeader, SEASON_EVENT_ID } from '../../changelog/change.ts';
import { eventFromRows, movesLiveState, type ScoreFacts } from '../../domain/event-header.ts';
import {
  type ChangeKind,
  type ChangeRecord,
  EPOCH_META,
  type EventRecord,
  type LoadedState,
  type LoadOptions,
  type MarketRecord,
} from '../store.ts';
import { ARCHIVED_SQL, NOT_ARCHIVED } from '../sql/archived-events.ts';
import { CHANGE_SQL, changeColumns } from '../sql/changes.ts';
import { POSTGRES } from '../sql/dialect.ts';
import { EVENT_SQL } from '../sql/events.ts';
import { MARKET_SQL } from '../sql/markets.ts';
import { META_SQL } from '../sql/meta.ts';
import { PACKED_SQL } from '../sql/packed-tables.ts';
import { SEASON_TOTALS_SQL, seasonTotalsOf, type SeasonTotalsRow } from '../sql/season-totals.ts';
import type { PgPool } from './database.ts';
import { committedMsAt } from './pg-log-times.ts';
import { FUTURES, LOAD_PAGE, readMeta, ROW } from './pg-queries.ts';
import type { PgWriter } from './pg-writer.ts';

/**
 * A start's load of the committed state (Store.load): the board's events, markets, latest prices,
 * futures, plays and box scores, the current ones or as of a row, latest prices a page at a time.
 * Reads go through the pool; the epoch, begun on first use, through the writer.
 */
export class PgLoader {
  constructor(
    private readonly pool: PgPool,
    private readonly writer: PgWriter,
  ) {}

  private async rows<T extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(sql, args)).rows;
  }
  /** Store.load: the committed state, the current one or as of `uptoId`. */
  async load(uptoId?: number, opts: LoadOptions = {}): Promise<LoadedState> {
    const [head] = await this.rows<{ id: number; committed_ms: number }>(CHANGE_SQL.headRow.postgres);
    const headId = head?.id ?? 0;
    const markets = await this.rows<MarketRecord>(MARKET_SQL.live.postgres);
    const archived = {
      events: await this.rows<EventRecord>(EVENT_SQL.archivedSince.postgres, [opts.archivedSince ?? '']),
      seasonTotals: (await this.rows<SeasonTotalsRow>(SEASON_TOTALS_SQL.all.postgres)).map(seasonTotalsOf),
    };
    const epoch = await this.epoch();
    const current = () => this.rows<EventRecord>(EVENT_SQL.live.postgres);
    if (uptoId !== undefined && uptoId < headId) {
      const gone = new Set((await this.rows<{ event_id: string }>(ARCHIVED_SQL.ids.postgres)).map((r) => r.event_id));
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
        catalog: await this.catalogRows(),
        seasonRecords: await this.seasonRows(),
        headId: uptoId,
        headCommittedMs: (await committedMsAt(this.pool, uptoId)) ?? 0,
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
      catalog: await this.catalogRows(),
      seasonRecords: await this.seasonRows(),
      headId,
      headCommittedMs: head?.committed_ms ?? 0,
      ...(await this.games({ upto: headId })),
      archived,
    };
  }

  /** The log's epoch, begun on first use by the writer. */
  private async epoch(): Promise<string> {
    const known = await readMeta(this.pool, EPOCH_META);
    if (known !== undefined) return known;
    const made = randomUUID();
    // Another writer may have begun it meanwhile: the first one kept wins.
    const [kept] = await this.writer.run(
      async (c) => (await c.query<{ value: string }>(META_SQL.begin.postgres, [EPOCH_META, made])).rows,
    );
    return kept!.value;
  }

  private async games(limit: LoadLimit): Promise<Pick<LoadedState, 'playCounts' | 'statRows'>> {
    // Asked now, read after the latest prices: PostgreSQL folds the stat rows while the board
    // takes the prices in.
    const stats = early(this.statRows(limit));
    const args: unknown[] = [];
    return {
      playCounts: await this.rows<{ event_id: string; plays: number }>(
        `SELECT event_id, count(*) AS plays FROM changes
          WHERE kind = 'play' AND ${within(limit, args)} AND ${NOT_ARCHIVED} GROUP BY event_id`,
        args,
      ),
      statRows: (async function* () {
        yield* await stats;
      })(),
    };
  }

  /**
   * The newest stat row of each box-score value (event, team, player, stat), each event's in the
   * order of the values' first rows, carrying the player's name and position when the value's first
   * row said them (a player is named once): folded, they give the boxes every row gives. Each
   * row's payload is parsed once, as json (`json_to_record`), and the fold is made once (a
   * materialised CTE): grouped by three jsonb casts of it, and recomputed by each parallel worker
   * of the join, a day of log's 300,000 stat rows took 17-22 s of a 47 s start.
   */
  private statRows(limit: LoadLimit): Promise<ChangeRecord[]> {
    const args: unknown[] = [];
    return this.rows<ChangeRecord>(
      `WITH m AS MATERIALIZED (
         SELECT max(s.id) AS id, min(s.id) AS first
           FROM changes s, json_to_record(s.payload::json) AS k(team_id text, player_id text, stat_id text)
          WHERE s.kind = 'stat' AND ${within(limit, args, 's.')} AND s.${NOT_ARCHIVED}
          GROUP BY s.event_id, k.team_id, k.player_id, k.stat_id)
       SELECT ${changeColumns(POSTGRES, 'c', NAMED_AS_FIRST)} FROM m
         JOIN changes c ON c.id = m.id
         JOIN changes f ON f.id = m.first
       ORDER BY c.event_id, m.first`,
      args,
    );
  }

  /** The latest prices within `limit`, a page at a time, and the largest price id among them. */
  private async prices(limit: LoadLimit): Promise<Pick<LoadedState, 'latestPrices' | 'maxPriceId'>> {
    const [logged] = await this.rows<{ price_id: number }>(
      CHANGE_SQL.maxPriceUpTo.postgres,
      // With events at the head, the whole log's.
      [limit.asOf ? Number.MAX_SAFE_INTEGER : limit.upto],
    );
    // Packed prices were written below the retained boundary, which is below any replayed head.
    const [packed] = await this.rows<{ max: number | null }>(PACKED_SQL.maxPrice.postgres);
    const maxPriceId = Math.max(logged?.price_id ?? 0, packed?.max ?? 0);
    return { latestPrices: this.latestPrices(limit, maxPriceId), maxPriceId };
  }

  /**
   * The newest row of every price within `limit`, in price id order, a range of price ids a page;
   * the next page is asked for as one is handed out, so PostgreSQL reads it while the board takes
   * this one in.
   */
  private async *latestPrices(limit: LoadLimit, last: number): AsyncGenerator<ChangeRecord> {
    const page = (from: number) => {
      const args: unknown[] = [from, from + LOAD_PAGE];
      return early(
        this.rows<ChangeRecord>(
          `SELECT DISTINCT ON (price_id) ${ROW} FROM changes
            WHERE price_id > $1 AND price_id <= $2 AND ${within(limit, args)} AND ${NOT_ARCHIVED}
            ORDER BY price_id, id DESC`,
          args,
        ),
      );
    };
    const asked: Promise<ChangeRecord[]>[] = [];
    let from = 0;
    const ask = () => {
      for (; asked.length < PAGES_AHEAD && from < last; from += LOAD_PAGE) asked.push(page(from));
    };
    ask();
    while (asked.length > 0) {
      const rows = await asked.shift()!;
      ask();
      yield* rows;
    }
  }

  /** Every season row, in id order, through the event index (they share one event id). */
  private seasonRows(): Promise<ChangeRecord[]> {
    return this.rows<ChangeRecord>(CHANGE_SQL.seasonRecords.postgres, [SEASON_EVENT_ID]);
  }

  /** Every catalog row, in id order, through the event index (they share one event id). */
  private catalogRows(): Promise<ChangeRecord[]> {
    return this.rows<ChangeRecord>(CHANGE_SQL.catalog.postgres, [CATALOG_EVENT_ID]);
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
}

/**
 * A value's newest stat row's payload, carrying the player's name and position when the value's
 * first row (`f`) said them: a player is named once, on the first value credited.
 */
const NAMED_AS_FIRST = `CASE WHEN f.id <> c.id AND f.payload::jsonb ? 'display_name'
  THEN (c.payload::jsonb || jsonb_build_object('display_name', f.payload::jsonb -> 'display_name',
    'position', f.payload::jsonb -> 'position'))::text
  ELSE c.payload END`;

/**
 * Pages of latest prices asked for ahead of the one the board takes in: PostgreSQL reads them on
 * connections of their own, each in a backend process, beside the node's work.
 */
const PAGES_AHEAD = 2;

/** How far a load reads: up to `upto`, or with `asOf`, those events up to `upto` and every other one to the head. */
interface LoadLimit {
  upto: number;
  asOf?: readonly string[] | undefined;
}

/** A row within a load's limit, its columns named after `table` (an alias and a dot); its parameters are appended to `args`. */
function within(limit: LoadLimit, args: unknown[], table = ''): string {
  args.push(limit.upto);
  const upto = `${table}id <= $${args.length}`;
  if (limit.asOf === undefined) return upto;
  args.push(limit.asOf);
  return `(${upto} OR NOT ${table}event_id = ANY($${args.length}::text[]))`;
}

/**
 * A read asked for before it is awaited: its failure is marked handled here, so that it surfaces
 * where it is awaited (or nowhere, when the load stops before it), never as an unhandled rejection.
 */
function early<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}
