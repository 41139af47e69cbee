import type { Static } from '@sinclair/typebox';
import type { EventState, MarketState, ParticipantState, PriceState } from '../board/event-state.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { isLiveVariant, MONEYLINE, SPREAD, TOTAL } from '../catalog/markets.ts';
import { type NamedPeriod, periodByName, periodOf } from '../catalog/periods.ts';
import { OFF_BOARD } from '../domain/odds.ts';
import type {
  ExtendedSpreadSchema,
  ExtendedTotalSchema,
  LineSetSchema,
  MoneylineSchema,
  SpreadSchema,
  TeamTotalSchema,
  TotalSchema,
  V1AffiliateSchema,
} from './v1-schemas.ts';

/**
 * The line-based interface's line sets, derived from the board's markets: one set per sportsbook and
 * period, holding the book's main moneyline, spread and total (and, for the line routes, its team
 * totals). Every number is the V2 price or line value it comes from; a side the book does not price
 * carries the off-board sentinel 0.0001, so the shape and the number types never change.
 */

export type Family = 'moneyline' | 'spread' | 'total' | 'team_total';

/** Team totals, prematch and in play. */
const TEAM_TOTAL: ReadonlySet<number> = new Set([94, 96]);

export function familyOf(marketId: number): Family | undefined {
  if (MONEYLINE.has(marketId)) return 'moneyline';
  if (SPREAD.has(marketId)) return 'spread';
  if (TOTAL.has(marketId)) return 'total';
  if (TEAM_TOTAL.has(marketId)) return 'team_total';
  return undefined;
}

export interface V1Period {
  named: NamedPeriod;
  description: string;
}

const v1Period = (name: string, description: string): V1Period => ({ named: periodByName(name)!, description });

/** The periods of `line_periods`, in their order there. */
export const V1_PERIODS: readonly V1Period[] = [
  v1Period('period_full_game', 'Full Game'),
  v1Period('period_first_half', '1st Half'),
  v1Period('period_second_half', '2nd Half'),
  v1Period('period_first_period', '1st Period'),
  v1Period('period_second_period', '2nd Period'),
  v1Period('period_third_period', '3rd Period'),
  v1Period('period_fourth_period', '4th Period'),
  v1Period('period_live_full_game', 'Live Full Game'),
];
export const FULL_GAME = V1_PERIODS[0]!;

const byNamed = new Map(V1_PERIODS.map((p) => [p.named, p]));

/** The V1 period a market of an event belongs to, if it is one of them. */
export function v1PeriodOf(m: Pick<MarketState, 'market_id' | 'period_id'>): V1Period | undefined {
  const named = periodOf(m.market_id, m.period_id);
  return named && byNamed.get(named);
}

/** A price as a line set reads it: the board's current price, or a recorded row (openers, closing). */
export interface LinePrice {
  price: number;
  price_delta: number;
  is_main_line: boolean;
  updated_at: string;
  /** The line value the main line moved from, when this price's latest row moved it. */
  moved_from?: string;
}

/** The LinePrice a line set shows for a board price, or undefined to leave the price out. */
export type LinePriceResolver = (p: PriceState) => LinePrice | undefined;

export const currentLinePrices: LinePriceResolver = (p) => p;

/** Which of an event's prices line sets may show: the caller's books, periods and in-play coverage. */
export interface LineScope {
  /** null: every book. */
  books: ReadonlySet<number> | null;
  /** null: every period id. */
  periods: ReadonlySet<number> | null;
  liveOdds: boolean;
}

export function coversMarket(scope: LineScope, m: Pick<MarketState, 'market_id' | 'period_id'>): boolean {
  if (scope.periods && !scope.periods.has(m.period_id)) return false;
  return scope.liveOdds || !isLiveVariant(m.market_id);
}

interface Side {
  value: string;
  p: LinePrice;
}

/*
 * The shapes below are the V1 wire schemas' types (src/projection/v1-schemas.ts): one definition,
 * the schema, gives the OpenAPI document, the serialiser and these types.
 */
export type MoneylineSet = Static<typeof MoneylineSchema>;
export type ExtendedSpread = Static<typeof ExtendedSpreadSchema>;
export type SpreadSet = Static<typeof SpreadSchema>;
export type ExtendedTotal = Static<typeof ExtendedTotalSchema>;
export type TotalSet = Static<typeof TotalSchema>;
export type TeamTotalSet = Static<typeof TeamTotalSchema>;
export type Affiliate = Static<typeof V1AffiliateSchema>;
export type LineSet = Static<typeof LineSetSchema>;

/** Where a family's object belongs: every moneyline, spread, total and team total carries it. */
export type Placed = Pick<MoneylineSet, 'line_id' | 'event_id' | 'affiliate_id'>;

/** Where an alternate line belongs. */
export type PlacedItem = Pick<ExtendedSpread, 'event_id' | 'affiliate_id'>;

const FORMAT = 'American';

/** A line value as a number; a value that is not one (a label) is off the board. */
function points(value: string): number {
  const n = Number(value);
  return value !== '' && Number.isFinite(n) ? n : OFF_BOARD;
}

/** How far the main line moved in its latest row (0 when that row did not move it). */
function pointsDelta(s: Side | undefined): number {
  if (!s || s.p.moved_from === undefined) return 0;
  const d = points(s.value) - points(s.p.moved_from);
  return Math.round(d * 1e4) / 1e4;
}

const latest = (...sides: (Side | undefined)[]): string =>
  sides.reduce((t, s) => (s && s.p.updated_at > t ? s.p.updated_at : t), '');

/**
 * Gives a line set and its three objects their line id: the id is known only once the set shows a
 * price (0 when it shows none).
 */
export function setLineId(set: LineSet, lineId: number): void {
  set.line_id = lineId;
  set.moneyline.line_id = lineId;
  set.spread.line_id = lineId;
  set.total.line_id = lineId;
}

/** Where a line set's book comes from: the current catalog. */
export type LineBooks = Pick<Catalog, 'book'>;

/** A line set's `affiliate`, as the catalog lists the book; one it lacks gets a neutral label. */
function affiliateOf(books: LineBooks, affiliateId: number): Affiliate {
  const book = books.book(affiliateId);
  return {
    affiliate_id: affiliateId,
    affiliate_name: book?.affiliate_name ?? `Affiliate ${affiliateId}`,
    affiliate_url: book?.affiliate_url ?? '',
  };
}

/**
 * Builds line sets and counts the prices they show (the odds points of metering). One builder
 * serves one event and one resolver; books are named as `books` (the current catalog) names them.
 */
export class LineSetBuilder {
  /** Prices shown so far. */
  prices = 0;
  private readonly away: number | undefined;
  private readonly home: number | undefined;
  private readonly bookTimes = new Map<number, string>();

  constructor(
    private readonly state: EventState,
    private readonly books: LineBooks,
    private readonly resolve: LinePriceResolver = currentLinePrices,
  ) {
    this.away = state.info.teams[0]?.team_id;
    this.home = state.info.teams[1]?.team_id;
  }

  /**
   * `date_updated` of an object: its latest side's time; an object the book does not price takes the
   * latest time of any price the book shows on the event's line markets (clients parse it as a date),
   * else the event's start.
   */
  private stamp(book: number, ...sides: (Side | undefined)[]): string {
    const own = latest(...sides);
    if (own !== '') return own;
    let t = this.bookTimes.get(book);
    if (t === undefined) {
      t = '';
      for (const m of this.state.markets.values()) {
        if (!familyOf(m.market_id)) continue;
        for (const part of m.participants.values()) {
          for (const line of part.lines.values()) {
            const raw = line.prices.get(book);
            const p = raw && this.resolve(raw);
            if (p && p.updated_at > t) t = p.updated_at;
          }
        }
      }
      if (t === '') t = this.state.info.event_date;
      this.bookTimes.set(book, t);
    }
    return t;
  }

  private placed(book: number, lineId: number): Placed {
    return { line_id: lineId, event_id: this.state.info.event_id, affiliate_id: book };
  }

  private item(book: number): PlacedItem {
    return { event_id: this.state.info.event_id, affiliate_id: book };
  }

  /** The book's main line of a participant: its flagged line, else its only priced line. */
  private main(part: ParticipantState | undefined, book: number, skip?: (value: string) => boolean): Side | undefined {
    if (!part) return undefined;
    let only: Side | undefined;
    let count = 0;
    for (const line of part.lines.values()) {
      if (skip?.(line.value)) continue;
      const raw = line.prices.get(book);
      const p = raw && this.resolve(raw);
      if (!p) continue;
      if (p.is_main_line) return this.count({ value: line.value, p });
      only = { value: line.value, p };
      count++;
    }
    return count === 1 ? this.count(only!) : undefined;
  }

  private count(s: Side): Side {
    this.prices++;
    return s;
  }

  private team(m: MarketState | undefined, teamId: number | undefined): ParticipantState | undefined {
    return teamId === undefined ? undefined : m?.participants.get(`TYPE_TEAM:${teamId}`);
  }

  private result(m: MarketState | undefined, id: number): ParticipantState | undefined {
    return m?.participants.get(`TYPE_RESULT:${id}`);
  }

  moneyline(m: MarketState | undefined, book: number, lineId: number): MoneylineSet {
    const away = this.main(this.team(m, this.away), book);
    const home = this.main(this.team(m, this.home), book);
    let drawSide: ParticipantState | undefined;
    for (const p of m?.participants.values() ?? []) if (p.type === 'TYPE_RESULT') drawSide ??= p;
    const draw = this.main(drawSide, book);
    return {
      ...this.placed(book, lineId),
      moneyline_away: away?.p.price ?? OFF_BOARD,
      moneyline_away_delta: away?.p.price_delta ?? 0,
      moneyline_home: home?.p.price ?? OFF_BOARD,
      moneyline_home_delta: home?.p.price_delta ?? 0,
      moneyline_draw: draw?.p.price ?? OFF_BOARD,
      moneyline_draw_delta: draw?.p.price_delta ?? 0,
      date_updated: this.stamp(book, away, home, draw),
      format: FORMAT,
    };
  }

  /** Every other line the book prices for a pair of participants, paired by `pairKey`. */
  private extended(
    first: ParticipantState | undefined,
    second: ParticipantState | undefined,
    book: number,
    mains: [Side | undefined, Side | undefined],
    pairKey: [(value: string) => number, (value: string) => number],
  ): [Side | undefined, Side | undefined, number][] {
    const pairs = new Map<number, [Side | undefined, Side | undefined]>();
    const add = (part: ParticipantState | undefined, i: 0 | 1) => {
      for (const line of part?.lines.values() ?? []) {
        const raw = line.prices.get(book);
        const p = raw && this.resolve(raw);
        if (!p || line.value === mains[i]?.value) continue;
        const key = pairKey[i](line.value);
        if (!Number.isFinite(key)) continue;
        const pair = pairs.get(key) ?? [undefined, undefined];
        pair[i] = this.count({ value: line.value, p });
        pairs.set(key, pair);
      }
    };
    add(first, 0);
    add(second, 1);
    return [...pairs].sort((a, b) => a[0] - b[0]).map(([key, [a, b]]) => [a, b, key]);
  }

  spread(m: MarketState | undefined, book: number, lineId: number): SpreadSet {
    const awayPart = this.team(m, this.away);
    const homePart = this.team(m, this.home);
    const away = this.main(awayPart, book);
    const home = this.main(homePart, book);
    // An away line of +3.5 pairs with the home line of -3.5.
    const extended = this.extended(awayPart, homePart, book, [away, home], [Number, (v) => -Number(v) + 0]);
    return {
      ...this.placed(book, lineId),
      ...this.spreadPair(book, away, home),
      point_spread_away_delta: pointsDelta(away),
      point_spread_away_money_delta: away?.p.price_delta ?? 0,
      point_spread_home_delta: pointsDelta(home),
      point_spread_home_money_delta: home?.p.price_delta ?? 0,
      format: FORMAT,
      extended_spreads: extended.map(([a, h]) => this.spreadPair(book, a, h)),
    };
  }

  total(m: MarketState | undefined, book: number, lineId: number): TotalSet {
    const overPart = this.result(m, 0);
    const underPart = this.result(m, 1);
    const over = this.main(overPart, book);
    const under = this.main(underPart, book);
    const extended = this.extended(overPart, underPart, book, [over, under], [Number, Number]);
    return {
      ...this.placed(book, lineId),
      ...this.totalPair(book, over, under),
      total_over_delta: pointsDelta(over),
      total_over_money_delta: over?.p.price_delta ?? 0,
      total_under_delta: pointsDelta(under),
      total_under_money_delta: under?.p.price_delta ?? 0,
      format: FORMAT,
      extended_totals: extended.map(([o, u]) => this.totalPair(book, o, u)),
    };
  }

  /**
   * Team totals: each team's main `Over X` line (flagged, else its only Over line) and the `Under X`
   * line at the same number.
   */
  teamTotal(m: MarketState | undefined, book: number, lineId: number): TeamTotalSet {
    const sides = (part: ParticipantState | undefined) => {
      const over = this.main(part, book, (v) => !v.startsWith('Over '));
      const number = over?.value.slice('Over '.length);
      const under = number === undefined ? undefined : this.main(part, book, (v) => v !== `Under ${number}`);
      return { over, under, number: number === undefined ? OFF_BOARD : points(number) };
    };
    const a = sides(this.team(m, this.away));
    const h = sides(this.team(m, this.home));
    return {
      ...this.placed(book, lineId),
      total_over_away: a.over ? a.number : OFF_BOARD,
      total_over_away_money: a.over?.p.price ?? OFF_BOARD,
      total_under_away: a.under ? a.number : OFF_BOARD,
      total_under_away_money: a.under?.p.price ?? OFF_BOARD,
      total_over_home: h.over ? h.number : OFF_BOARD,
      total_over_home_money: h.over?.p.price ?? OFF_BOARD,
      total_under_home: h.under ? h.number : OFF_BOARD,
      total_under_home_money: h.under?.p.price ?? OFF_BOARD,
      date_updated: this.stamp(book, a.over, a.under, h.over, h.under),
      format: FORMAT,
    };
  }

  /** One book's line set of one period from that period's markets (by family). */
  lineSet(period: V1Period, markets: PeriodMarkets, book: number, lineId: number): LineSet {
    return {
      line_id: lineId,
      affiliate_id: book,
      period_id: period.named.periodId,
      period_description: period.description,
      affiliate: affiliateOf(this.books, book),
      moneyline: this.moneyline(markets.get('moneyline'), book, lineId),
      spread: this.spread(markets.get('spread'), book, lineId),
      total: this.total(markets.get('total'), book, lineId),
    };
  }

  private spreadPair(book: number, away: Side | undefined, home: Side | undefined): ExtendedSpread {
    return {
      ...this.item(book),
      point_spread_away: away ? points(away.value) : OFF_BOARD,
      point_spread_away_money: away?.p.price ?? OFF_BOARD,
      point_spread_home: home ? points(home.value) : OFF_BOARD,
      point_spread_home_money: home?.p.price ?? OFF_BOARD,
      date_updated: this.stamp(book, away, home),
    };
  }

  private totalPair(book: number, over: Side | undefined, under: Side | undefined): ExtendedTotal {
    return {
      ...this.item(book),
      total_over: over ? points(over.value) : OFF_BOARD,
      total_over_money: over?.p.price ?? OFF_BOARD,
      total_under: under ? points(under.value) : OFF_BOARD,
      total_under_money: under?.p.price ?? OFF_BOARD,
      date_updated: this.stamp(book, over, under),
    };
  }
}

/** The markets of one period, by family (the first one of each family the event carries). */
export type PeriodMarkets = Map<Family, MarketState>;

/** An event's line-set markets, by V1 period, and the books and line id of each (period, book). */
export interface EventLines {
  markets: Map<V1Period, PeriodMarkets>;
  /**
   * Line id per period and book: the smallest market_line_price id among the book's prices on the
   * period's moneyline, spread, total and team-total markets. Price ids are never reused and only
   * grow, so it stays the same for as long as the event exists.
   */
  lineIds: Map<V1Period, Map<number, number>>;
}

/** Finds an event's line-set markets and line ids (over every book and market, whatever the plan). */
export function eventLines(state: EventState): EventLines {
  const markets = new Map<V1Period, PeriodMarkets>();
  const lineIds = new Map<V1Period, Map<number, number>>();
  for (const m of state.markets.values()) {
    const family = familyOf(m.market_id);
    const period = family && v1PeriodOf(m);
    if (!family || !period) continue;
    let byFamily = markets.get(period);
    if (!byFamily) {
      byFamily = new Map();
      markets.set(period, byFamily);
    }
    if (!byFamily.has(family)) byFamily.set(family, m);
    let ids = lineIds.get(period);
    if (!ids) {
      ids = new Map();
      lineIds.set(period, ids);
    }
    for (const part of m.participants.values()) {
      for (const line of part.lines.values()) {
        for (const p of line.prices.values()) {
          const known = ids.get(p.affiliate_id);
          if (known === undefined || p.id < known) ids.set(p.affiliate_id, p.id);
        }
      }
    }
  }
  return { markets, lineIds };
}

/** The books with at least one price a line set of `period` shows, in ascending id order. */
export function booksOf(
  markets: PeriodMarkets | undefined,
  scope: LineScope,
  resolve: LinePriceResolver,
  families: readonly Family[] = ['moneyline', 'spread', 'total'],
): number[] {
  const books = new Set<number>();
  for (const family of families) {
    const m = markets?.get(family);
    if (!m || !coversMarket(scope, m)) continue;
    for (const part of m.participants.values()) {
      for (const line of part.lines.values()) {
        for (const p of line.prices.values()) {
          if (books.has(p.affiliate_id) || (scope.books && !scope.books.has(p.affiliate_id))) continue;
          if (resolve(p)) books.add(p.affiliate_id);
        }
      }
    }
  }
  return [...books].sort((a, b) => a - b);
}

/** A period's markets narrowed to those the scope covers. */
export function coveredMarkets(markets: PeriodMarkets | undefined, scope: LineScope): PeriodMarkets {
  const out: PeriodMarkets = new Map();
  for (const [family, m] of markets ?? []) if (coversMarket(scope, m)) out.set(family, m);
  return out;
}
