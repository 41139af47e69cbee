import { Type } from '@sinclair/typebox';
import type { Account } from '../access/authenticator.ts';
import { lowestTierWith, upgradeMessage } from '../access/entitlements.ts';
import type { EventState } from '../board/board.ts';
import type { EventFilter } from '../board/views.ts';
import { filterKey } from '../board/views.ts';
import { defaultMarketIds, isLiveVariant, isPropMarket, withLiveVariants } from '../catalog/markets.ts';
import type { EventStatus } from '../domain/types.ts';
import { forbidden } from './errors.ts';
import {
  MAX_PARTICIPANT_IDS,
  parseBoolean,
  parseInclude,
  parseIntList,
  parseMarketIds,
  parseOffset,
  parseParticipantType,
  parseStatuses,
} from './params.ts';

export type Query = Record<string, string | undefined>;

const opt = (description: string) => Type.Optional(Type.String({ description }));

/** The spec's shared event parameters, for the OpenAPI document. */
export const EventQuerySchema = Type.Object(
  {
    market_ids: opt(
      'comma-separated market ids, at most 12; default 1,2,3 (1,2,3,563 for soccer and hockey)',
    ),
    affiliate_ids: opt('comma-separated affiliate ids; default all'),
    offset: opt('minutes that shift the day boundary; default 0'),
    exclude_status: opt('comma-separated event statuses to exclude'),
    event_status: opt('comma-separated event statuses to include (applied before exclude_status)'),
    main_line: opt('true returns only main lines; default false'),
    participant_ids: opt('comma-separated participant ids, at most 99'),
    participant_type: opt('TYPE_TEAM, TYPE_PLAYER or TYPE_RESULT'),
    hide_no_markets: opt('true excludes events without market data; default false'),
    hide_closed: opt('true excludes closed prices'),
    include: opt('price_delta adds price_delta to every price'),
    key: opt('API key (the X-Service-Key header is recommended instead)'),
  },
  { additionalProperties: true },
);

export interface EventQuery {
  filter: EventFilter;
  filterKey: string;
  include: Set<EventStatus> | undefined;
  exclude: Set<EventStatus> | undefined;
  hideNoMarkets: boolean;
  offset: number;
}

/** Parses the shared event parameters; `sportId` picks the default market ids. */
export function parseEventQuery(
  q: Query,
  sportId: number | undefined,
  account: Account | undefined,
): EventQuery {
  const requested = parseMarketIds(q.market_ids) ?? defaultMarketIds(sportId);
  const affiliates = parseIntList('affiliate_ids', q.affiliate_ids);
  const participants = parseIntList('participant_ids', q.participant_ids, MAX_PARTICIPANT_IDS);
  const include = parseInclude(q.include, ['price_delta']);
  const e = account?.entitlements;
  if (e && !e.playerProps && requested.some(isPropMarket)) {
    throw forbidden(
      upgradeMessage(
        'Player prop markets',
        lowestTierWith((x) => x.playerProps),
      ),
    );
  }
  let marketIds = withLiveVariants(requested);
  if (e && !e.liveOdds) marketIds = marketIds.filter((id) => !isLiveVariant(id));
  const filter: EventFilter = {
    marketIds: new Set(marketIds),
    affiliateIds: coverage(affiliates, e?.bookmakers),
    periodIds: e && e.periods !== 'all' ? new Set(e.periods) : null,
    mainLine: parseBoolean('main_line', q.main_line, false),
    participantIds: participants ? new Set(participants) : null,
    participantType: parseParticipantType(q.participant_type) ?? null,
    hideClosed: parseBoolean('hide_closed', q.hide_closed, false),
    includePriceDelta: include.has('price_delta'),
    liveGameState: e?.liveGameState === true,
  };
  return {
    filter,
    filterKey: filterKey(filter),
    include: parseStatuses('event_status', q.event_status),
    exclude: parseStatuses('exclude_status', q.exclude_status),
    hideNoMarkets: parseBoolean('hide_no_markets', q.hide_no_markets, false),
    offset: parseOffset(q.offset),
  };
}

/** The books a request may see: those it asked for (default all) within the plan's coverage. */
function coverage(
  requested: number[] | undefined,
  plan: readonly number[] | 'all' | undefined,
): Set<number> | null {
  if (plan === undefined || plan === 'all') return requested ? new Set(requested) : null;
  const allowed = new Set(plan);
  return new Set(requested ? requested.filter((id) => allowed.has(id)) : plan);
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

export function statusKey(q: EventQuery): string {
  const list = (s: Set<EventStatus> | undefined) => (s ? [...s].sort().join(',') : '*');
  return `${list(q.include)}/${list(q.exclude)}/${q.hideNoMarkets ? 1 : 0}`;
}
