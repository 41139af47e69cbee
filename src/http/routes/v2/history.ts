import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { coverageOf } from '../../../access/plan-scope.ts';
import type { EventState } from '../../../board/event-state.ts';
import type { DeltaRow } from '../../../domain/types.ts';
import type { HistoryScope, PriceRecord } from '../../../store/history.ts';
import { badRequest, notFound, quote } from '../../../projection/errors.ts';
import type { Query } from '../../../projection/event-query.ts';
import {
  MAX_MARKET_IDS,
  MAX_PARTICIPANT_IDS,
  parseBoolean,
  parseInteger,
  parseIntList,
} from '../../../projection/params.ts';
import { callerOf, eventById, historyFloorOf, type RouteDeps } from '../../route-kit.ts';
import { errorResponses } from '../../../projection/schemas.ts';
import {
  boolParam,
  intListParam,
  intParam,
  limitParam,
  intPathParam,
  queryParam,
  timeParam,
} from '../../../projection/param-schemas.ts';
import { ChartPointSchema, ChartResponse, HistoryResponse, HistoryRowSchema } from '../../history-schemas.ts';

const HISTORY_LIMIT_DEFAULT = 1000;
const HISTORY_LIMIT_MAX = 5000;
const MAX_PRICE_IDS = 50;

const keyParam = queryParam('API key (the X-Service-Key header is recommended instead)');
const rowsParam = limitParam('rows per response', HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX);
const fromParam = timeParam('RFC 3339 time; only rows updated at or after it');
const toParam = timeParam('RFC 3339 time; only rows updated at or before it');
const mainLineParam = boolParam('true keeps only rows that were on the main line');

type HistoryRow = Static<typeof HistoryRowSchema>;
type ChartPoint = Static<typeof ChartPointSchema>;

function historyRow(r: PriceRecord): HistoryRow {
  // The detail is not needed: parsing it and merging it into the row costs more than the rest.
  const c = JSON.parse(r.payload) as DeltaRow;
  return {
    id: c.id,
    market_line_price_id: r.price_id,
    event_id: c.event_id,
    sport_id: c.sport_id,
    affiliate_id: c.affiliate_id,
    market_participant_id: c.participant_id,
    market_id: c.market_id,
    line: c.line,
    price: c.price,
    previous_price: c.previous_price,
    change_type: c.change_type,
    is_main_line: c.is_main_line,
    closed_at: c.closed_at,
    updated_at: c.updated_at,
  };
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?(?:[Zz]|([+\- ])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time: the 24-character UTC form stored rows use, and the instant in ms with any
 * finer fraction (for comparing bounds). Rows carry milliseconds, so a finer fraction rounds towards
 * the inside of the window (`roundUp` for a lower bound). A `+` offset that arrived unescaped in a
 * query string reads as a space, and is taken as `+`.
 */
function parseTime(name: string, raw: string | undefined, roundUp: boolean): { ms: number; at: string } | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const m = RFC3339.exec(raw.trim());
  const local = m ? `${m[1]}T${m[2]}` : '';
  const base = Date.parse(`${local}.000Z`);
  if (!m || Number.isNaN(base) || new Date(base).toISOString().slice(0, 19) !== local) {
    throw badRequest(`${name} must be an RFC 3339 date-time such as 2026-01-31T18:00:00Z, got '${quote(raw)}'`);
  }
  const [offH, offM] = [Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (offH > 23 || offM > 59) throw badRequest(`${name} has an invalid UTC offset: '${quote(raw)}'`);
  // The fraction is read as digits: binary floating point would turn .007 s into 7.000000000000001 ms.
  const digits = (m[3] ?? '.').slice(1);
  const whole =
    base - (m[4] === '-' ? -1 : 1) * (offH * 60 + offM) * 60_000 + Number(digits.slice(0, 3).padEnd(3, '0'));
  const finer = Number(`0.${digits.slice(3) || '0'}`);
  return {
    ms: whole + finer,
    at: new Date(roundUp && finer > 0 ? whole + 1 : whole).toISOString(),
  };
}

function timeRange(q: Query, floorMs: number | undefined): { from?: string; to?: string } {
  const from = parseTime('from', q.from, true);
  const to = parseTime('to', q.to, false);
  if (from && to && from.ms > to.ms) throw badRequest(`from (${from.at}) is later than to (${to.at})`);
  // Rows older than the plan's history window are not served: the window raises `from`.
  const floor = floorMs !== undefined && (!from || from.ms < floorMs) ? new Date(floorMs).toISOString() : from?.at;
  return { from: floor, to: to?.at };
}

const parseLimit = (raw: string | undefined): number =>
  parseInteger('limit', raw, 1, HISTORY_LIMIT_MAX) ?? HISTORY_LIMIT_DEFAULT;

interface PriceSelection {
  marketIds?: ReadonlySet<number>;
  affiliateIds?: ReadonlySet<number>;
  participantIds?: ReadonlySet<number>;
  line?: string;
}

/** The ids of an event's prices that a selection names; the board holds every price ever written. */
function priceIdsOf(state: EventState, s: PriceSelection): number[] {
  const out: number[] = [];
  for (const m of state.markets.values()) {
    if (s.marketIds && !s.marketIds.has(m.market_id)) continue;
    for (const part of m.participants.values()) {
      if (s.participantIds && !s.participantIds.has(part.id)) continue;
      for (const line of part.lines.values()) {
        if (s.line !== undefined && line.value !== s.line) continue;
        for (const p of line.prices.values()) {
          if (!s.affiliateIds || s.affiliateIds.has(p.affiliate_id)) out.push(p.id);
        }
      }
    }
  }
  return out;
}

const asSet = (ids: number[] | undefined): Set<number> | undefined => (ids ? new Set(ids) : undefined);

/** Recorded price rows: an event's history, any prices' history, and one market's line chart. */
export async function historyRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { history } = deps;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The plan's history window, and what retention keeps whole: rows before either are not served.
  const floorOf = (request: FastifyRequest) => {
    const plan = historyFloorOf(deps, request);
    const kept = deps.floor.sinceMs;
    return plan === undefined ? kept : kept === undefined ? plan : Math.max(plan, kept);
  };

  /**
   * The head of the view the caller sees (no read looks past it) and the plan's coverage (no row of
   * a book, market or period outside it is read).
   */
  const readerOf = (request: FastifyRequest) => {
    const { scope, view } = callerOf(deps, request);
    return { view, uptoId: view.head, coverage: coverageOf(scope) };
  };

  /** The event in the caller's view, or as the store kept it once archived. */
  const eventOf = async (request: FastifyRequest, eventId: string) => {
    const reader = readerOf(request);
    const state: EventState | undefined = await eventById(deps, reader.view, eventId);
    if (!state) throw notFound('event', eventId);
    return { ...reader, state };
  };

  app.get(
    '/api/v2/events/:eventID/markets/history',
    {
      schema: {
        summary: 'Recorded price-history rows of an event, newest first',
        description:
          'No paging cursor and no truncation flag: when a response reaches limit, narrow it by market, ' +
          'sportsbook, participant or time window. market_ids are matched literally (no automatic live ' +
          'variants).',
        tags: ['history'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: Type.Object(
          {
            limit: rowsParam,
            market_ids: intListParam('comma-separated market ids, at most 12, matched literally', MAX_MARKET_IDS),
            affiliate_ids: intListParam('comma-separated affiliate ids'),
            participant_ids: intListParam(
              `comma-separated participant ids, at most ${MAX_PARTICIPANT_IDS}`,
              MAX_PARTICIPANT_IDS,
            ),
            main_line: mainLineParam,
            from: fromParam,
            to: toParam,
            key: keyParam,
          },
          { additionalProperties: true },
        ),
        response: { 200: HistoryResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { state, uptoId, coverage } = await eventOf(request, request.params.eventID);
      const q = request.query;
      const limit = parseLimit(q.limit);
      const selection: PriceSelection = {
        marketIds: asSet(parseIntList('market_ids', q.market_ids, MAX_MARKET_IDS)),
        affiliateIds: asSet(parseIntList('affiliate_ids', q.affiliate_ids)),
        participantIds: asSet(parseIntList('participant_ids', q.participant_ids, MAX_PARTICIPANT_IDS)),
      };
      const mainLineOnly = parseBoolean('main_line', q.main_line, false);
      const { from, to } = timeRange(q, floorOf(request));
      const filtered = selection.marketIds || selection.affiliateIds || selection.participantIds;
      const scope: HistoryScope = filtered
        ? { priceIds: priceIdsOf(state, selection) }
        : { eventId: state.info.event_id };
      const rows = await history.rows({ ...scope, uptoId, mainLineOnly, from, to, coverage, limit });
      reply.meter(rows.length);
      return { meta: { event_id: state.info.event_id, count: rows.length }, history: rows.map(historyRow) };
    },
  );

  app.get(
    '/api/v2/markets/history',
    {
      schema: {
        summary: 'Recorded price-history rows of up to 50 market_line_prices, newest first',
        description: 'market_line_price ids are the Price.id values of event snapshots.',
        tags: ['history'],
        querystring: Type.Object(
          {
            market_line_price_ids: intListParam(`comma-separated price ids, at most ${MAX_PRICE_IDS}`, MAX_PRICE_IDS, {
              required: true,
            }),
            main_line: mainLineParam,
            from: fromParam,
            to: toParam,
            limit: rowsParam,
            key: keyParam,
          },
          { additionalProperties: true },
        ),
        response: { 200: HistoryResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const ids = parseIntList('market_line_price_ids', q.market_line_price_ids, MAX_PRICE_IDS);
      if (!ids) {
        throw badRequest(
          'market_line_price_ids is required: comma-separated Price.id values of an events snapshot, ' +
            `at most ${MAX_PRICE_IDS}`,
        );
      }
      const limit = parseLimit(q.limit);
      const mainLineOnly = parseBoolean('main_line', q.main_line, false);
      const { uptoId, coverage } = readerOf(request);
      const rows = await history.rows({
        priceIds: ids,
        uptoId,
        mainLineOnly,
        ...timeRange(q, floorOf(request)),
        coverage,
        limit,
      });
      reply.meter(rows.length);
      const found = rows.map(historyRow);
      const events = new Set(found.map((h) => h.event_id));
      const eventId = events.size === 1 ? found[0]!.event_id : '';
      return { meta: { event_id: eventId, count: rows.length }, history: found };
    },
  );

  app.get(
    '/api/v2/events/:eventID/markets/:marketID/history',
    {
      schema: {
        summary: 'Line chart of one market of an event, per sportsbook',
        description:
          'series is keyed by affiliate id; points are oldest first: t time, l line value, p price, ' +
          'm main-line flag, c closed-at (only on closed rows). A series can mix participants and line ' +
          'values: main_line alone does not isolate a side (for totals ask for participant_id 0 and 1 ' +
          'separately). limit keeps the newest points of the whole response. No cursor and no truncation ' +
          'flag.',
        tags: ['history'],
        params: Type.Object({
          eventID: Type.String(),
          marketID: intPathParam(),
        }),
        querystring: Type.Object(
          {
            participant_id: intParam('participant.id (public canonical id) of one side', 0, 999_999_999),
            line: queryParam('one line value, exactly as in the event markets'),
            main_line: mainLineParam,
            limit: limitParam('points per response', HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX),
            key: keyParam,
          },
          { additionalProperties: true },
        ),
        response: { 200: ChartResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = request.params;
      if (!/^\d{1,9}$/.test(p.marketID)) throw badRequest(`marketID must be an integer, got '${quote(p.marketID)}'`);
      const marketId = Number(p.marketID);
      const { state, uptoId, coverage } = await eventOf(request, p.eventID);
      const q = request.query;
      const participantId = parseInteger('participant_id', q.participant_id, 0, 999_999_999);
      const line = q.line?.trim() || undefined;
      const mainLineOnly = parseBoolean('main_line', q.main_line, false);
      const limit = parseLimit(q.limit);
      const scope: HistoryScope =
        participantId !== undefined || line !== undefined
          ? {
              priceIds: priceIdsOf(state, {
                marketIds: new Set([marketId]),
                participantIds: participantId !== undefined ? new Set([participantId]) : undefined,
                line,
              }),
            }
          : { eventId: state.info.event_id, marketId };
      const { from } = timeRange({}, floorOf(request));
      const rows = await history.rows({
        ...scope,
        uptoId,
        mainLineOnly,
        from,
        coverage,
        limit,
      });
      reply.meter(rows.length);
      const series: Record<string, ChartPoint[]> = {};
      // Newest first from the store; the chart reads oldest first.
      for (let i = rows.length - 1; i >= 0; i--) {
        const c = JSON.parse(rows[i]!.payload) as DeltaRow;
        const point: ChartPoint = {
          t: c.updated_at,
          l: c.line,
          p: Number(c.price),
          m: c.is_main_line,
        };
        if (c.closed_at !== '') point.c = c.closed_at;
        const key = String(c.affiliate_id);
        if (series[key]) series[key].push(point);
        else series[key] = [point];
      }
      const eventId = state.info.event_id;
      return {
        meta: { event_id: eventId, market_id: marketId, market_name: deps.catalog.marketName(marketId) },
        event_id: eventId,
        market_id: marketId,
        series,
      };
    },
  );
}
