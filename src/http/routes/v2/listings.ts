import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { PlanScope } from '../../../access/plan-scope.ts';
import type { EventState, MarketState } from '../../../board/event-state.ts';
import { marketDefinition, marketName } from '../../../catalog/markets.ts';
import { SPORTS } from '../../../catalog/sports.ts';
import type { MarketDefinition } from '../../../domain/types.ts';
import { badRequest, notFound, quote } from '../../../projection/errors.ts';
import {
  dayWindow,
  parseBoolean,
  parseDate,
  parseIntList,
  parseOffset,
  parseSportId,
} from '../../../projection/params.ts';
import { callerOf, gateDate, type RouteDeps } from '../../route-kit.ts';
import { errorResponses, keyed, MarketDefinitionSchema } from '../../../projection/schemas.ts';
import {
  boolParam,
  datePathParam,
  enumParam,
  intListParam,
  intPathParam,
  offsetParam,
} from '../../../projection/param-schemas.ts';
import { DatesSchema } from '../../listing-schemas.ts';

type DateFormat = 'date' | 'iso8601' | 'epoch';
/** `iso` is the name this server used before iso8601, kept for the clients that send it. */
const DATE_FORMATS: ReadonlyMap<string, DateFormat> = new Map([
  ['date', 'date'],
  ['iso8601', 'iso8601'],
  ['iso', 'iso8601'],
  ['epoch', 'epoch'],
]);

function parseSportIds(raw: string | undefined): number[] {
  const ids = parseIntList('sport_ids', raw);
  if (!ids) return SPORTS.map((s) => s.sport_id);
  for (const id of ids) if (!SPORTS.some((s) => s.sport_id === id)) throw notFound('sport', id);
  return ids;
}

/**
 * The local calendar dates (under `offset`) on which a sport has events, ascending: as YYYY-MM-DD,
 * or as the instant each local day starts (ISO 8601, or Unix seconds).
 */
export function sportDates(events: readonly EventState[], offset: number, format: DateFormat): string[] | number[] {
  const days = new Set<string>();
  for (const e of events) days.add(new Date(e.startMs - offset * 60_000).toISOString().slice(0, 10));
  const sorted = [...days].sort();
  if (format === 'date') return sorted;
  const starts = sorted.map((day) => Date.parse(day) + offset * 60_000);
  return format === 'epoch' ? starts.map((ms) => ms / 1000) : starts.map((ms) => new Date(ms).toISOString());
}

/** The date-format parameter of the date lists. */
export const formatParam = enumParam(
  'date (YYYY-MM-DD, the default), iso8601 (the UTC instant each local day starts) or epoch ' +
    '(that instant in Unix seconds)',
  ['date', 'iso8601', 'epoch'],
  { default: 'date' },
);

/** The parameters of the date lists. */
export const datesQuery = Type.Object(
  {
    sport_ids: intListParam('comma-separated sport ids; default all'),
    offset: offsetParam(),
    format: formatParam,
  },
  { additionalProperties: true },
);
/** The date-format parameter `format`: date (the default), iso8601 (or its former name iso) or epoch. */
export const parseFormat = (raw: string | undefined): DateFormat => {
  if (raw === undefined || raw === '') return 'date';
  const format = DATE_FORMATS.get(raw.trim().toLowerCase());
  if (!format) throw badRequest(`format must be date, iso8601 or epoch, got '${quote(raw)}'`);
  return format;
};

/** True when a book the plan covers prices the market (an open price with `openOnly`). */
function priced(market: MarketState, openOnly: boolean, scope: PlanScope): boolean {
  if (!scope.coversMarket(market.market_id) || !scope.coversPeriod(market.period_id)) return false;
  for (const p of market.participants.values()) {
    for (const l of p.lines.values()) {
      for (const price of l.prices.values()) {
        if (scope.coversBook(price.affiliate_id) && (!openOnly || price.closed_at === '')) return true;
      }
    }
  }
  return false;
}

function definitionOf(marketId: number): MarketDefinition {
  return (
    marketDefinition(marketId) ?? {
      id: marketId,
      name: marketName(marketId),
      description: marketName(marketId),
      short_description: marketName(marketId),
      line_value_is_participant: false,
      proposition: false,
      period_id: 0,
      updated_at: new Date(0).toISOString(),
    }
  );
}

/** Definitions of the markets with prices on a set of events, by market id ascending. */
function marketsOf(events: readonly EventState[], openOnly: boolean, scope: PlanScope): MarketDefinition[] {
  const ids = new Set<number>();
  for (const e of events) {
    for (const m of e.markets.values()) {
      if (!ids.has(m.market_id) && priced(m, openOnly, scope)) ids.add(m.market_id);
    }
  }
  return [...ids].sort((a, b) => a - b).map(definitionOf);
}

/** Sport, date and event listings: cheap reads of the board's indexes. */
export async function listingRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v2/sports/dates',
    {
      config: { free: true },
      schema: {
        summary: 'Dates with events, per sport',
        tags: ['schedule'],
        querystring: datesQuery,
        response: {
          200: keyed(DatesSchema),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { view } = callerOf(deps, request);
      const offset = parseOffset(q.offset);
      const format = parseFormat(q.format);
      const out: Record<string, { dates: string[] | number[] }> = {};
      for (const id of parseSportIds(q.sport_ids)) {
        out[String(id)] = {
          dates: sportDates(view.eventsOfSport(id), offset, format),
        };
      }
      return out;
    },
  );

  app.get(
    '/api/v2/sports/:sportID/dates',
    {
      config: { free: true },
      schema: {
        summary: 'Dates with events for one sport',
        tags: ['schedule'],
        params: Type.Object({ sportID: intPathParam() }),
        querystring: datesQuery,
        response: {
          200: DatesSchema,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const sportId = parseSportId(deps.catalog, request.params.sportID);
      const q = request.query;
      const { view } = callerOf(deps, request);
      return {
        dates: sportDates(view.eventsOfSport(sportId), parseOffset(q.offset), parseFormat(q.format)),
      };
    },
  );

  app.get(
    '/api/v2/sports/events/:date',
    {
      config: { free: true },
      schema: {
        summary: 'Event ids of a date, per sport',
        tags: ['schedule'],
        params: Type.Object({
          date: datePathParam(),
        }),
        querystring: Type.Object(
          {
            sport_ids: intListParam('comma-separated sport ids; default all'),
            offset: offsetParam(),
          },
          { additionalProperties: true },
        ),
        response: { 200: keyed(Type.Array(Type.String())), ...errorResponses },
      },
    },
    async (request) => {
      const dateMs = parseDate(request.params.date);
      gateDate(deps, request, dateMs);
      const q = request.query;
      const { view } = callerOf(deps, request);
      const [from, to] = dayWindow(dateMs, parseOffset(q.offset));
      const out: Record<string, string[]> = {};
      for (const id of parseSportIds(q.sport_ids)) {
        out[String(id)] = view.eventsInWindow(id, from, to).map((e) => e.info.event_id);
      }
      return out;
    },
  );

  app.get(
    '/api/v2/sports/markets/:date',
    {
      config: { free: true },
      schema: {
        summary: 'Market definitions with prices on a date, per sport',
        tags: ['markets'],
        params: Type.Object({
          date: datePathParam(),
        }),
        querystring: Type.Object(
          {
            hide_closed_markets: boolParam('true (or 1) hides markets whose prices are all closed'),
            offset: offsetParam(),
            sport_ids: intListParam('comma-separated sport ids; default all'),
          },
          { additionalProperties: true },
        ),
        response: {
          200: keyed(Type.Array(MarketDefinitionSchema)),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const dateMs = parseDate(request.params.date);
      gateDate(deps, request, dateMs);
      const q = request.query;
      const { scope, view } = callerOf(deps, request);
      const [from, to] = dayWindow(dateMs, parseOffset(q.offset));
      const openOnly = parseBoolean('hide_closed_markets', q.hide_closed_markets, false);
      const out: Record<string, MarketDefinition[]> = {};
      for (const id of parseSportIds(q.sport_ids)) {
        const events = view.eventsInWindow(id, from, to);
        if (events.length > 0) out[String(id)] = marketsOf(events, openOnly, scope);
      }
      return out;
    },
  );

  app.get(
    '/api/v2/sports/:sportID/markets/:date',
    {
      config: { free: true },
      schema: {
        summary: 'Active markets with pricing for a sport and date',
        description:
          'Keyed by the sport id, like /api/v2/sports/markets/{date}; the sport is there (with an empty list) ' +
          'when it has no events that day.',
        tags: ['markets'],
        params: Type.Object({
          sportID: intPathParam(),
          date: datePathParam(),
        }),
        querystring: Type.Object(
          {
            offset: offsetParam(),
            hide_closed_markets: boolParam('true (or 1) hides markets whose prices are all closed'),
          },
          { additionalProperties: true },
        ),
        response: {
          200: keyed(Type.Array(MarketDefinitionSchema)),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const sportId = parseSportId(deps.catalog, request.params.sportID);
      const dateMs = parseDate(request.params.date);
      gateDate(deps, request, dateMs);
      const q = request.query;
      const { scope, view } = callerOf(deps, request);
      const [from, to] = dayWindow(dateMs, parseOffset(q.offset));
      const openOnly = parseBoolean('hide_closed_markets', q.hide_closed_markets, false);
      return { [String(sportId)]: marketsOf(view.eventsInWindow(sportId, from, to), openOnly, scope) };
    },
  );

  app.get(
    '/api/v2/events/:eventID/markets',
    {
      config: { free: true },
      schema: {
        summary: 'Markets available for an event',
        description:
          'The definitions of the markets that books of the plan price on the event, one per market and ' +
          'period, with the period the event carries it in (tennis in-play full-match markets: 7).',
        tags: ['markets'],
        params: Type.Object({ eventID: Type.String() }),
        response: {
          200: Type.Array(MarketDefinitionSchema),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const eventId = request.params.eventID;
      const { scope, view } = callerOf(deps, request);
      const state = view.getEvent(eventId);
      if (!state) throw notFound('event', eventId);
      return [...state.markets.values()]
        .filter((m) => priced(m, false, scope))
        .sort((a, b) => a.market_id - b.market_id || a.period_id - b.period_id)
        .map((m) => ({ ...definitionOf(m.market_id), period_id: m.period_id }));
    },
  );
}
