import { type Static, Type } from '@sinclair/typebox';
import { lowestTierWith, upgradeMessage } from '../access/entitlements.ts';
import type { PlanScope } from '../access/plan-scope.ts';
import type { EventState } from '../board/event-state.ts';
import type { EventFilter } from './event-view.ts';
import { filterKey } from './event-view.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { withLiveVariants, withPeriodMarkets } from '../catalog/markets.ts';
import { EVENT_STATUSES, type EventStatus, PARTICIPANT_TYPES } from '../domain/types.ts';
import { type ByteBudget, stringBytes } from '../perf/byte-budget.ts';
import { type FreshCache, freshCache, KEEPING, type Keeping } from '../perf/fresh-cache.ts';
import { forbidden } from './errors.ts';
import {
  MAX_MARKET_IDS,
  MAX_PARTICIPANT_IDS,
  parseBoolean,
  parseInclude,
  parseIntList,
  parseMarketIds,
  parseOffset,
  parseParticipantType,
  parseStatuses,
} from './params.ts';
import {
  boolParam,
  enumListParam,
  enumParam,
  includeParam,
  intListParam,
  offsetParam,
  queryParam,
} from './param-schemas.ts';

export type Query = Record<string, string | undefined>;

const INCLUDES = ['price_delta', 'all_periods'] as const;

/** The spec's shared event parameters, for the OpenAPI document. */
export const EventQuerySchema = Type.Object(
  {
    market_ids: intListParam(
      'comma-separated market ids, at most 12; default 1,2,3 (1,2,3,563 for soccer and hockey)',
      MAX_MARKET_IDS,
    ),
    affiliate_ids: intListParam('comma-separated affiliate ids; default all'),
    offset: offsetParam(),
    exclude_status: enumListParam('comma-separated event statuses to exclude', EVENT_STATUSES),
    event_status: enumListParam(
      'comma-separated event statuses to include (applied before exclude_status)',
      EVENT_STATUSES,
    ),
    main_line: boolParam('true returns only main lines; default false'),
    participant_ids: intListParam('comma-separated participant ids, at most 99', MAX_PARTICIPANT_IDS),
    participant_type: enumParam('TYPE_TEAM, TYPE_PLAYER or TYPE_RESULT', PARTICIPANT_TYPES),
    hide_no_markets: boolParam('true excludes events without market data; default false'),
    hide_closed: boolParam('true excludes closed prices'),
    include: includeParam(
      'price_delta adds price_delta to every price; all_periods adds the half, quarter and set markets of ' +
        'the requested families (a comma list, or the parameter repeated)',
      INCLUDES,
    ),
    key: queryParam('API key (the X-Service-Key header is recommended instead)'),
  },
  { additionalProperties: true },
);

export type EventParams = Static<typeof EventQuerySchema>;

/** Parsed once and then shared between requests (see EventQueryCache): treat it as read-only. */
export interface EventQuery {
  filter: EventFilter;
  filterKey: string;
  include: Set<EventStatus> | undefined;
  exclude: Set<EventStatus> | undefined;
  /** The status filters and hide_no_markets as one canonical text, for response cache keys. */
  statusKey: string;
  hideNoMarkets: boolean;
  offset: number;
}

/** The catalog's part in a query: a sport's default market ids, and its version (raised by every change). */
export type QueryCatalog = Pick<Catalog, 'defaultMarketIds' | 'isProposition' | 'version'>;

/**
 * Parses the shared event parameters within the caller's plan; `sportId` picks the default market
 * ids, as the current catalog's record of the sport says.
 */
export function parseEventQuery(
  q: EventParams,
  sportId: number | undefined,
  scope: PlanScope,
  catalog: Pick<Catalog, 'defaultMarketIds' | 'isProposition'>,
): EventQuery {
  const requested = parseMarketIds(q.market_ids) ?? catalog.defaultMarketIds(sportId);
  const affiliates = parseIntList('affiliate_ids', q.affiliate_ids);
  const participants = parseIntList('participant_ids', q.participant_ids, MAX_PARTICIPANT_IDS);
  const include = parseInclude(q.include, INCLUDES);
  // The 12-id limit counts the ids sent; all_periods and the live variants widen them afterwards.
  const families = include.has('all_periods') ? withPeriodMarkets(requested) : requested;
  if (!scope.playerProps && requested.some((id) => catalog.isProposition(id))) {
    throw forbidden(
      upgradeMessage(
        'Player prop markets',
        lowestTierWith((x) => x.playerProps),
        true,
      ),
      { feature: 'player_props' },
    );
  }
  const filter: EventFilter = {
    marketIds: new Set(scope.marketIdsFor(withLiveVariants(families))),
    affiliateIds: scope.booksFor(affiliates),
    periodIds: scope.periods,
    mainLine: parseBoolean('main_line', q.main_line, false),
    participantIds: participants ? new Set(participants) : null,
    participantType: parseParticipantType(q.participant_type) ?? null,
    hideClosed: parseBoolean('hide_closed', q.hide_closed, false),
    includePriceDelta: include.has('price_delta'),
    liveGameState: scope.liveGameState,
  };
  const statuses = parseStatuses('event_status', q.event_status);
  const exclude = parseStatuses('exclude_status', q.exclude_status);
  const hideNoMarkets = parseBoolean('hide_no_markets', q.hide_no_markets, false);
  return {
    filter,
    filterKey: filterKey(filter),
    include: statuses,
    exclude,
    statusKey: `${statusList(statuses)}/${statusList(exclude)}/${hideNoMarkets ? 1 : 0}`,
    hideNoMarkets,
    offset: parseOffset(q.offset),
  };
}

const statusList = (s: Set<EventStatus> | undefined) => (s ? [...s].sort().join(',') : '*');

/**
 * parseEventQuery for a request, kept per plan scope by sport and raw query string: odds screens
 * poll the same URL again and again, and the filter, its sets and its canonical key need not be
 * rebuilt for each poll. Entries draw from the shared byte budget; a query is kept from its second
 * request (the first leaves a mark), for the catalog version it was parsed at (a sport's record
 * decides its default markets). A query that fails to parse is not kept, so it fails the same way
 * every time.
 */
export class EventQueryCache {
  private readonly perScope = new WeakMap<PlanScope, FreshCache<string, number, EventQuery>>();

  constructor(
    private readonly budget: ByteBudget,
    private readonly catalog: QueryCatalog,
    private readonly keeping: Keeping = KEEPING,
  ) {}

  get(url: string, query: EventParams, sportId: number | undefined, scope: PlanScope): EventQuery {
    let cache = this.perScope.get(scope);
    if (!cache) {
      cache = freshCache(this.budget, { fromSecond: true }, this.keeping);
      this.perScope.set(scope, cache);
    }
    const at = url.indexOf('?');
    const key = `${sportId}|${at < 0 ? '' : url.slice(at + 1)}`;
    const version = this.catalog.version;
    const hit = cache.get(key, version);
    if (hit) return hit;
    const parsed = parseEventQuery(query, sportId, scope, this.catalog);
    cache.set(key, version, parsed, eventQueryBytes(parsed));
    return parsed;
  }
}

/**
 * Heap bytes of a parsed query besides its strings: the objects, then each Set and each member
 * (fitted to measurements: 0.48 kB for the default query, 1.1 kB with 12 markets and 11 books,
 * 4.1 kB with 99 participants and status filters). The periods' Set is the plan's, not the query's.
 */
const QUERY_BYTES = 184;
const SET_BYTES = 64;
const SET_MEMBER_BYTES = 28;

function eventQueryBytes(q: EventQuery): number {
  const f = q.filter;
  let bytes = QUERY_BYTES + stringBytes(q.filterKey) + stringBytes(q.statusKey);
  for (const s of [f.marketIds, f.affiliateIds, f.participantIds, q.include, q.exclude]) {
    if (s) bytes += SET_BYTES + s.size * SET_MEMBER_BYTES;
  }
  return bytes;
}

export function eventStatus(state: EventState): EventStatus {
  return state.info.score?.event_status ?? 'STATUS_SCHEDULED';
}

/** event_status is applied first, then exclude_status. */
export function statusAllowed(q: EventQuery, state: EventState): boolean {
  const s = eventStatus(state);
  if (q.include && !q.include.has(s)) return false;
  if (q.exclude?.has(s)) return false;
  return true;
}
