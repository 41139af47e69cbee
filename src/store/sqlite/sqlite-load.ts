import { randomUUID } from 'node:crypto';
import { CATALOG_EVENT_ID, type EventHeader, SEASON_EVENT_ID } from '../../changelog/change.ts';
import { eventFromRows, movesLiveState, type ScoreFacts } from '../../domain/event-header.ts';
import {
  EPOCH_META,
  type ChangeKind,
  type ChangeRecord,
  type EventRecord,
  type LoadedState,
  type LoadOptions,
  type MarketRecord,
} from '../store.ts';
import { ARCHIVED_SQL } from '../sql/archived-events.ts';
import { CHANGE_SQL, changeColumns } from '../sql/changes.ts';
import { SQLITE } from '../sql/dialect.ts';
import { EVENT_SQL } from '../sql/events.ts';
import { MARKET_SQL } from '../sql/markets.ts';
import { META_SQL } from '../sql/meta.ts';
import { PACKED_SQL } from '../sql/packed-tables.ts';
import { SEASON_TOTALS_SQL, seasonTotalsOf, type SeasonTotalsRow } from '../sql/season-totals.ts';
import { committedMsAt } from './log-times.ts';
import { FUTURES_KINDS } from './schema.ts';
import type { Statements } from './statements.ts';

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

/**
 * A start's load of the committed state (Store.load): the board's events, markets, latest prices,
 * futures, plays and box scores, the current ones or as of a row, latest prices and stat rows paged.
 */
export class SqliteLoader {
  constructor(private readonly sql: Statements) {}

  /** Store.load: the committed state, the current one or as of `uptoId`. */
  async load(uptoId?: number, opts: LoadOptions = {}): Promise<LoadedState> {
    const head = this.sql.prepared(CHANGE_SQL.headRow.sqlite).get() as { id: number; committed_ms: number } | undefined;
    const headId = head?.id ?? 0;
    const gone = new Set(this.sql.prepared(ARCHIVED_SQL.ids.sqlite).pluck().all() as string[]);
    const markets = this.sql.prepared(MARKET_SQL.live.sqlite).all() as MarketRecord[];
    const archived = {
      events: this.sql.prepared(EVENT_SQL.archivedSince.sqlite).all(opts.archivedSince ?? '') as EventRecord[],
      seasonTotals: (this.sql.prepared(SEASON_TOTALS_SQL.all.sqlite).all() as SeasonTotalsRow[]).map(seasonTotalsOf),
    };
    const current = () => this.sql.prepared(EVENT_SQL.live.sqlite).all() as EventRecord[];
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
        catalog: this.catalogRows(),
        seasonRecords: this.seasonRows(),
        headId: uptoId,
        headCommittedMs: committedMsAt(this.sql, uptoId) ?? 0,
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
      catalog: this.catalogRows(),
      seasonRecords: this.seasonRows(),
      headId,
      headCommittedMs: head?.committed_ms ?? 0,
      ...this.games({ upto: headId }),
      archived,
    };
  }

  /** Play counts and stat rows within `limit`, through the partial indexes of those kinds. */
  private games(limit: LoadLimit): Pick<LoadedState, 'playCounts' | 'statRows'> {
    return {
      playCounts: this.sql
        .prepared(
          `SELECT ${EVENT_ID}, count(*) AS plays FROM changes
          WHERE kind = 'play' AND ${within(limit)} AND ${LIVE_ROW} GROUP BY event_key`,
        )
        .all(limit) as { event_id: string; plays: number }[],
      statRows: this.statRows(limit),
    };
  }

  /**
   * The newest stat row of each box-score value (event, team, player, stat), each event's in the
   * order of the values' first rows, a range of events at a time. Every value is absolute, so
   * these fold to the same boxes as every row does: about a tenth of the rows after a fill.
   */
  private async *statRows(limit: LoadLimit): AsyncGenerator<ChangeRecord> {
    const lastKey = (this.sql.prepared('SELECT max(key) FROM event_keys').pluck().get() as number | null) ?? 0;
    const page = this.sql.prepared(
      `SELECT ${changeColumns(SQLITE, 'c', NAMED_AS_FIRST)} FROM changes c
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

  /** Each event as its last header and score rows up to `limit.upto` left it (with `asOf`, those events only). */
  private eventsUpTo(limit: LoadLimit): EventRecord[] {
    const only = limit.asOf === undefined ? '' : `AND event_key IN ${AS_OF_KEYS}`;
    const latestOfKind = (kind: ChangeKind) =>
      this.sql
        .prepared(
          `SELECT ${changeColumns(SQLITE, 'c')} FROM changes c
         JOIN (SELECT max(id) AS id FROM changes WHERE kind = @kind AND id <= @upto ${only} GROUP BY event_key) m
           ON c.id = m.id`,
        )
        .all({ ...limit, kind }) as ChangeRecord[];
    const scores = new Map(latestOfKind('score').map((r) => [r.event_id, r]));
    // A score row without a live state keeps the one an earlier row set: find that row, per event.
    const lastLive = this.sql.prepared(
      `SELECT payload FROM changes WHERE ${SQLITE.ofEvent('')} AND id <= ? AND kind = 'score'
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
    return (
      this.sql.meta(EPOCH_META) ??
      (this.sql.prepared(META_SQL.begin.sqlite).pluck().get(EPOCH_META, randomUUID()) as string)
    );
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
    const page = this.sql.prepared(
      `SELECT ${changeColumns(SQLITE, 'c')} FROM
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
    const page = this.sql.prepared(
      `SELECT ${changeColumns(SQLITE, 'c')} FROM changes c
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

  /** The highest price id at or below `uptoId`, packed prices included (where new price ids go on). */
  maxPriceId(uptoId: number): number {
    const logged = (this.sql.prepared(CHANGE_SQL.maxPriceUpTo.sqlite).pluck().get(uptoId) as number | undefined) ?? 0;
    // Packed prices were written below the retained boundary, which is below any replayed head.
    const packed = (this.sql.prepared(PACKED_SQL.maxPrice.sqlite).pluck().get() as number | null) ?? 0;
    return Math.max(logged, packed);
  }

  /** Every season row, in id order, through the event index (they share one event id). */
  private seasonRows(): ChangeRecord[] {
    return this.sql.prepared(CHANGE_SQL.seasonRecords.sqlite).all(SEASON_EVENT_ID) as ChangeRecord[];
  }

  /** Every catalog row, in id order, through the event index (they share one event id). */
  private catalogRows(): ChangeRecord[] {
    return this.sql.prepared(CHANGE_SQL.catalog.sqlite).all(CATALOG_EVENT_ID) as ChangeRecord[];
  }

  /** The newest futures row of each key (changelog futuresRowKey) within `limit`, in id order. */
  private latestFutures(limit: LoadLimit): ChangeRecord[] {
    return this.sql
      .prepared(
        `SELECT ${changeColumns(SQLITE, 'c')} FROM changes c
       JOIN (SELECT max(id) AS id FROM changes
              WHERE ${FUTURES_KINDS} AND ${within(limit)}
              GROUP BY event_key, kind, market_id, affiliate_id, json_extract(payload, '$.participant_id')) m
         ON c.id = m.id
       ORDER BY c.id`,
      )
      .all(limit) as ChangeRecord[];
  }
}

/** A change row of an event still on the board (archived events are left out of a start's load). */
const LIVE_ROW = 'event_key NOT IN (SELECT k.key FROM archived_events a JOIN event_keys k ON k.event_id = a.event_id)';

/** A change row's event id, in a select list. */
const EVENT_ID = `${SQLITE.eventId('')} AS event_id`;

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
