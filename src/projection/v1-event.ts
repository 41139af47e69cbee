import { type Static, Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import type { PlanScope } from '../access/plan-scope.ts';
import type { EventState } from '../board/event-state.ts';
import type { EventInfo } from '../domain/types.ts';
import { type ByteBudget, stringBytes } from '../perf/byte-budget.ts';
import { ALWAYS, type FreshCache, freshCache, KEEPING, type Keeping } from '../perf/fresh-cache.ts';
import { parseInclude, parseIntList } from './params.ts';
import { includeParam, intListParam, offsetParam, queryParam } from './param-schemas.ts';
import { ownBytes, VIEW_BYTES } from './json-bytes.ts';
import { eventPoints } from './event-view.ts';
import {
  booksOf,
  coveredMarkets,
  currentLinePrices,
  eventLines,
  FULL_GAME,
  type LinePriceResolver,
  type LineScope,
  type LineBooks,
  type LineSet,
  LineSetBuilder,
  setLineId,
  V1_PERIODS,
} from './v1-line-sets.ts';
import { V1EventSchema } from './v1-schemas.ts';

export type V1Event = Static<typeof V1EventSchema>;

/** What a V1 event request asks for, within the caller's plan. */
export interface V1Filter extends LineScope {
  /** include=scores: the score object. */
  scores: boolean;
  /** include=all_periods: line_periods. */
  allPeriods: boolean;
  /** Equal filters, equal keys: V1 views are cached by it. */
  key: string;
}

const V1_INCLUDES = ['scores', 'all_periods'] as const;

export const V1EventQuerySchema = Type.Object(
  {
    include: includeParam(
      'scores adds the score object; all_periods adds line_periods (a comma list, or the parameter repeated)',
      V1_INCLUDES,
    ),
    affiliate_ids: intListParam('comma-separated affiliate ids; default every book of the plan'),
    offset: offsetParam(),
    key: queryParam('API key (the key header is recommended instead)'),
  },
  { additionalProperties: true },
);

export type V1EventQuery = Static<typeof V1EventQuerySchema>;

const idList = (s: ReadonlySet<number> | null) => (s ? [...s].sort((a, b) => a - b).join(',') : '*');

/** The prices line sets may show: the books asked for (`affiliate_ids`) within the plan's coverage. */
export function lineScope(scope: PlanScope, affiliateIds: string | undefined): LineScope {
  return {
    books: scope.booksFor(parseIntList('affiliate_ids', affiliateIds)),
    periods: scope.periods,
    liveOdds: scope.liveOdds,
  };
}

/** Parses `include` and `affiliate_ids`; the plan narrows books, periods and in-play markets. */
export function v1Filter(scope: PlanScope, q: Pick<V1EventQuery, 'include' | 'affiliate_ids'>): V1Filter {
  const include = parseInclude(q.include, V1_INCLUDES);
  const lines = lineScope(scope, q.affiliate_ids);
  const scores = include.has('scores');
  const allPeriods = include.has('all_periods');
  const flags = `${lines.liveOdds ? 1 : 0}|${scores ? 1 : 0}|${allPeriods ? 1 : 0}`;
  return { ...lines, scores, allPeriods, key: `v1|${idList(lines.books)}|${idList(lines.periods)}|${flags}` };
}

/** Heap bytes of a parsed filter besides its key (its object, and a Set and its members when it names books). */
const FILTER_BYTES = 160;
const SET_BYTES = 64;
const SET_MEMBER_BYTES = 28;

/**
 * Parsed filters per plan scope, by the raw parameters: clients poll the same URL again and again,
 * and parsing cost about 2 µs of every poll. Charged to the shared byte budget. A filter is shared
 * between requests: treat it as read-only. A query that fails to parse is not kept.
 */
export class V1FilterCache {
  private readonly perScope = new WeakMap<PlanScope, FreshCache<string, typeof ALWAYS, V1Filter>>();

  constructor(
    private readonly budget: ByteBudget,
    private readonly keeping: Keeping = KEEPING,
  ) {}

  get(scope: PlanScope, q: Pick<V1EventQuery, 'include' | 'affiliate_ids'>): V1Filter {
    let known = this.perScope.get(scope);
    if (!known) {
      known = freshCache(this.budget, {}, this.keeping);
      this.perScope.set(scope, known);
    }
    // A repeated include arrives as an array: joined with commas, it means what the comma list means.
    const raw = `${q.include ?? ''}|${q.affiliate_ids ?? ''}`;
    let f = known.get(raw, ALWAYS);
    if (!f) {
      f = v1Filter(scope, q);
      const books = f.books ? SET_BYTES + f.books.size * SET_MEMBER_BYTES : 0;
      known.set(raw, ALWAYS, f, FILTER_BYTES + stringBytes(f.key) + books);
    }
    return f;
  }
}

export interface V1EventView {
  event: V1Event;
  /** Prices shown: the odds points of metering. */
  prices: number;
}

/**
 * The V1 event of a board event: header, teams, schedule, the score with include=scores, the
 * full-game line set of every book that prices the full game, and with include=all_periods every
 * period's line set of every book that prices any. `resolve` picks the prices (current ones, or
 * recorded rows for openers and closing).
 */
export function viewV1Event(
  state: EventState,
  f: V1Filter,
  books: LineBooks,
  resolve: LinePriceResolver = currentLinePrices,
): V1EventView {
  const info = state.info;
  const { markets, lineIds } = eventLines(state);
  const builder = new LineSetBuilder(state, books, resolve);
  const setOf = (period: (typeof V1_PERIODS)[number], book: number): LineSet => {
    const before = builder.prices;
    const covered = coveredMarkets(markets.get(period), f);
    const set = builder.lineSet(period, covered, book, lineIds.get(period)?.get(book) ?? 0);
    // A set that shows nothing has no line to name.
    if (builder.prices === before) setLineId(set, 0);
    return set;
  };

  const lines: Record<string, LineSet> = {};
  const fullGameBooks = booksOf(markets.get(FULL_GAME), f, resolve);
  let linePeriods: Record<string, Record<string, LineSet>> | undefined;
  if (f.allPeriods) {
    const books = new Set<number>();
    for (const period of V1_PERIODS) for (const b of booksOf(markets.get(period), f, resolve)) books.add(b);
    linePeriods = {};
    for (const book of [...books].sort((a, b) => a - b)) {
      const sets: Record<string, LineSet> = {};
      for (const period of V1_PERIODS) sets[period.named.name] = setOf(period, book);
      linePeriods[book] = sets;
    }
    // The same full-game sets: their prices are counted once.
    for (const book of fullGameBooks) lines[book] = linePeriods[book]![FULL_GAME.named.name]!;
  } else {
    for (const book of fullGameBooks) lines[book] = setOf(FULL_GAME, book);
  }

  const event: V1Event = {
    event_id: info.event_id,
    event_uuid: info.event_uuid,
    sport_id: info.sport_id,
    event_date: info.event_date,
    teams: info.teams.map((t) => ({
      team_id: t.team_id,
      team_normalized_id: t.team_id,
      name: t.name,
      is_away: t.is_away,
      is_home: t.is_home,
    })),
    teams_normalized: normalizedTeams(info),
    schedule: {
      season_type: info.schedule.season_type,
      season_year: info.schedule.season_year,
      event_name: info.schedule.event_name,
      attendance: 0,
    },
    lines,
  };
  if (info.rotation_number_away !== undefined) event.rotation_number_away = info.rotation_number_away;
  if (info.rotation_number_home !== undefined) event.rotation_number_home = info.rotation_number_home;
  if (f.scores && info.score) event.score = info.score;
  if (linePeriods) event.line_periods = linePeriods;
  return { event, prices: builder.prices };
}

/** V1's `teams_normalized`: the V2 teams with `ranking` 0 (no feed carries rankings). */
export function normalizedTeams(info: EventInfo): V1Event['teams_normalized'] {
  return info.teams.map((t) => ({
    team_id: t.team_id,
    name: t.name,
    mascot: t.mascot,
    abbreviation: t.abbreviation,
    ranking: 0,
    record: t.record,
    is_away: t.is_away,
    is_home: t.is_home,
  }));
}

export const serializeV1Event = fastJson(V1EventSchema);

export interface SerializedV1Event {
  /** The event's JSON in UTF-8, outside the heap (as the V2 views: src/http/snapshot-cache.ts). */
  body: Buffer;
  /** Data points of the event in a response: 1 events + 1 scores point + 1 per price shown. */
  points: number;
}

/**
 * Serialised V1 events, kept per event and filter and replaced when the event's version (the id of
 * the last change that touched it) moves: each event is serialised once per change, whatever the
 * number of requests. Charged to the shared byte budget, least recently used out first; entries also
 * go with their event object. As the V2 views (src/http/snapshot-cache.ts), a view is kept from the
 * second time its event and filter are asked, the first leaving a mark: one-off book lists do not
 * push out what polls reuse; and an event's views are made again once the catalog (which names the
 * books) has changed.
 */
export class V1EventCache {
  /** Per event, by filter key, for the event's version, at one catalog version. */
  private readonly views = new WeakMap<
    EventState,
    { catalog: number; kept: FreshCache<string, number, SerializedV1Event> }
  >();

  /** `books`: the current catalog, and its version (raised by every change of it). */
  constructor(
    private readonly budget: ByteBudget,
    private readonly books: LineBooks & { readonly version: number },
    private readonly keeping: Keeping = KEEPING,
  ) {}

  event(state: EventState, f: V1Filter): SerializedV1Event {
    const catalog = this.books.version;
    let perEvent = this.views.get(state);
    if (!perEvent || perEvent.catalog !== catalog) {
      // The old views go as the budget's least recently used.
      perEvent = { catalog, kept: freshCache(this.budget, { fromSecond: true }, this.keeping) };
      this.views.set(state, perEvent);
    }
    const hit = perEvent.kept.get(f.key, state.version);
    if (hit) return hit;
    const view = viewV1Event(state, f, this.books);
    const body = ownBytes(serializeV1Event(view.event));
    const entry = { body, points: eventPoints(view.prices, false) };
    perEvent.kept.set(f.key, state.version, entry, VIEW_BYTES + body.length);
    return entry;
  }
}
