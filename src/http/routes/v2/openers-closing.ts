import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { datePathParam, intPathParam } from '../../../projection/param-schemas.ts';
import type { EventState } from '../../../board/event-state.ts';
import { type EventFilter, type EventView, viewEvent } from '../../../projection/event-view.ts';
import type { MarketNames } from '../../../perf/event-text.ts';
import type { DeltaRow, Event, Price } from '../../../domain/types.ts';
import type { PriceDetail } from '../../../changelog/change.ts';
import type { HistoryStore, PriceRecord } from '../../../store/history.ts';
import { notFound } from '../../../projection/errors.ts';
import { type EventQuery, EventQuerySchema, statusAllowed } from '../../../projection/event-query.ts';
import { dayWindow, parseDate, parseSportId } from '../../../projection/params.ts';
import { callerOf, eventById, gateDate, type RouteDeps } from '../../route-kit.ts';
import { EventsEnvelope, errorResponses } from '../../../projection/schemas.ts';
import { eventPoints } from '../../../projection/event-view.ts';
import { OpeningLayoutSchema } from '../../opening-schema.ts';

export type Kind = 'openers' | 'closing';

/** A recorded price row, parsed: the Delta row as served and its detail. */
export interface RecordedPrice {
  row: DeltaRow;
  detail: PriceDetail;
}

/** price_id -> the recorded row that stands for that price. */
export type RecordedPrices = ReadonlyMap<number, RecordedPrice>;

/** The prices of an event that the board-level filters keep: markets, books, participants. */
function selectedPriceIds(state: EventState, f: EventFilter, out: number[]): void {
  for (const m of state.markets.values()) {
    if (!f.marketIds.has(m.market_id)) continue;
    if (f.periodIds && !f.periodIds.has(m.period_id)) continue;
    for (const part of m.participants.values()) {
      if (f.participantType && part.type !== f.participantType) continue;
      if (f.participantIds && !f.participantIds.has(part.id)) continue;
      for (const line of part.lines.values()) {
        for (const p of line.prices.values()) {
          if (!f.affiliateIds || f.affiliateIds.has(p.affiliate_id)) out.push(p.id);
        }
      }
    }
  }
}

/**
 * The recorded row of every selected price of `events`: its first row (openers), or its last row
 * at or before the event's scheduled start (closing; every market, period markets included, uses
 * the event start). Prices without such a row are absent.
 */
export async function recordedPrices(
  history: HistoryStore,
  events: readonly EventState[],
  f: EventFilter,
  kind: Kind,
  uptoId: number,
): Promise<Map<number, RecordedPrice>> {
  const records: PriceRecord[] = [];
  if (kind === 'openers') {
    const ids: number[] = [];
    for (const state of events) selectedPriceIds(state, f, ids);
    records.push(...(await history.firstRows(ids, uptoId)));
  } else {
    // Events that start together share one read.
    const byCutoff = new Map<string, number[]>();
    for (const state of events) {
      const cutoff = new Date(state.startMs).toISOString();
      let ids = byCutoff.get(cutoff);
      if (!ids) {
        ids = [];
        byCutoff.set(cutoff, ids);
      }
      selectedPriceIds(state, f, ids);
    }
    for (const [cutoff, ids] of byCutoff) records.push(...(await history.lastRowsAtOrBefore(ids, cutoff, uptoId)));
  }
  const out = new Map<number, RecordedPrice>();
  // Two plain parses, not one merged object: merging costs more than parsing.
  for (const r of records) {
    out.set(r.price_id, {
      row: JSON.parse(r.payload),
      detail: JSON.parse(r.detail ?? '{}'),
    });
  }
  return out;
}

function recordedPrice({ row, detail }: RecordedPrice, includeDelta: boolean): Price {
  const out: Price = {
    id: String(detail.price_id),
    price: Number(row.price),
    is_main_line: row.is_main_line,
    updated_at: row.updated_at,
  };
  if (includeDelta) out.price_delta = detail.price_delta;
  if (detail.liquidity_usd !== undefined) out.liquidity_usd = detail.liquidity_usd;
  if (detail.source_id !== undefined) out.source_id = detail.source_id;
  return out;
}

/**
 * An event as the snapshot routes show it, with each price replaced by its recorded row. A price
 * absent from `rows` is left out; main_line and hide_closed apply to the recorded row.
 */
function recordedEvent(state: EventState, rows: RecordedPrices, f: EventFilter, names: MarketNames): EventView {
  return viewEvent(state, f, names, (p) => {
    const r = rows.get(p.id);
    if (!r) return undefined;
    if (f.mainLine && !r.row.is_main_line) return undefined;
    if (f.hideClosed && r.row.closed_at !== '') return undefined;
    return recordedPrice(r, f.includePriceDelta);
  });
}

/**
 * The events envelope of /api/v2/events/{eventID}, with recorded prices in place of current ones,
 * and its data points (metered as the events snapshot is).
 */
function recordedEnvelope(
  events: readonly EventState[],
  rows: RecordedPrices,
  q: EventQuery,
  head: number,
  names: MarketNames,
): {
  body: { meta: { delta_last_id: string }; events: Event[] };
  points: number;
} {
  const out: Event[] = [];
  let points = 0;
  for (const state of events) {
    const { event, priceCount } = recordedEvent(state, rows, q.filter, names);
    if (q.hideNoMarkets && event.markets.length === 0) continue;
    out.push(event);
    points += eventPoints(priceCount, event.live_game_state !== undefined);
  }
  return {
    body: { meta: { delta_last_id: String(head) }, events: out },
    points,
  };
}

type OpeningLayout = Static<typeof OpeningLayoutSchema>;

/**
 * An event's opening prices in the published layout: markets keyed by market_id (a market id that
 * comes in several periods keeps its first, the full game where it has one), lines keyed by
 * participant and line value, prices by affiliate with the opening row's time.
 */
function openingLayout(eventId: string, event: Event | undefined): OpeningLayout {
  const markets: OpeningLayout['markets'] = {};
  for (const m of event?.markets ?? []) {
    const key = String(m.market_id);
    if (markets[key]) continue;
    const lines: OpeningLayout['markets'][string]['lines'] = {};
    for (const part of m.participants) {
      for (const line of part.lines) {
        const prices: Record<string, { price: number; timestamp: string }> = {};
        for (const [book, p] of Object.entries(line.prices)) prices[book] = { price: p.price, timestamp: p.updated_at };
        lines[`${part.id}:${line.value}`] = {
          participant_id: part.id,
          participant_type: part.type,
          participant_name: part.name,
          prices,
        };
      }
    }
    markets[key] = { market_id: m.market_id, market_name: m.name, lines };
  }
  return { meta: { event_id: eventId, count: Object.keys(markets).length }, markets };
}

const DESCRIPTIONS: Record<Kind, string> = {
  openers: 'the earliest recorded price of every line at every sportsbook',
  closing:
    'the latest recorded price of every line at every sportsbook at or before the scheduled start ' +
    '(provisional before the start; period markets use the event start too; prices first recorded ' +
    'after the start are left out)',
};

/** Opening and closing lines: the event snapshot shape, priced from the recorded rows. */
export async function openersClosingRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { history } = deps;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /** Every row the answer uses is at or below the head of the view the caller sees. */
  const answer = async (
    reply: FastifyReply,
    head: number,
    events: readonly EventState[],
    q: EventQuery,
    kind: Kind,
  ) => {
    const kept = events.filter((e) => statusAllowed(q, e));
    const rows = await recordedPrices(history, kept, q.filter, kind, head);
    const built = recordedEnvelope(kept, rows, q, head, deps.catalog);
    reply.meter(built.points);
    return built.body;
  };

  /** The caller's view, the event the path names (404 when there is none) and the caller's query. */
  const eventAsked = async (request: FastifyRequest, eventId: string, query: Static<typeof EventQuerySchema>) => {
    const { scope, view } = callerOf(deps, request);
    const state = await eventById(deps, view, eventId);
    if (!state) throw notFound('event', eventId);
    return { view, state, q: deps.queries.get(request.url, query, state.info.sport_id, scope) };
  };

  const eventRoute = (path: string, kind: Kind, summary: string) =>
    app.get(
      path,
      {
        schema: {
          summary,
          description:
            `${DESCRIPTIONS[kind]}. Shared event parameters; main_line and hide_closed apply to the ` +
            'recorded row (its is_main_line flag and whether it was closed).',
          tags: ['events'],
          params: Type.Object({ eventID: Type.String() }),
          querystring: EventQuerySchema,
          response: { 200: EventsEnvelope, ...errorResponses },
        },
      },
      async (request, reply) => {
        const { view, state, q } = await eventAsked(request, request.params.eventID, request.query);
        return answer(reply, view.head, [state], q, kind);
      },
    );

  const sportRoute = (kind: Kind) =>
    app.get(
      `/api/v2/sports/:sportID/${kind}/:date`,
      {
        schema: {
          summary: `${kind === 'openers' ? 'Opening' : 'Closing'} lines of a sport's events on a date`,
          description:
            `${DESCRIPTIONS[kind]}, for every event of the sport starting in the day window. Same ` +
            'parameters and envelope as /api/v2/sports/{sportID}/events/{date}.',
          tags: ['events'],
          params: Type.Object({
            sportID: intPathParam(),
            date: datePathParam(),
          }),
          querystring: EventQuerySchema,
          response: { 200: EventsEnvelope, ...errorResponses },
        },
      },
      async (request, reply) => {
        const sportId = parseSportId(deps.catalog, request.params.sportID);
        const dateMs = parseDate(request.params.date);
        gateDate(deps, request, dateMs);
        const { scope, view } = callerOf(deps, request);
        const q = deps.queries.get(request.url, request.query, sportId, scope);
        const [from, to] = dayWindow(dateMs, q.offset);
        return answer(reply, view.head, view.eventsInWindow(sportId, from, to), q, kind);
      },
    );

  eventRoute('/api/v2/events/:eventID/openers', 'openers', 'Opening lines of an event');
  app.get(
    '/api/v2/events/:eventID/markets/opening',
    {
      schema: {
        summary: 'Opening lines of an event, in the published markets layout',
        description:
          `${DESCRIPTIONS.openers}, as /api/v2/events/{eventID}/openers selects them (the same parameters and ` +
          'cost), keyed by market id, then "<participant_id>:<line>", then affiliate id.',
        tags: ['events'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: EventQuerySchema,
        response: { 200: OpeningLayoutSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { view, state, q } = await eventAsked(request, request.params.eventID, request.query);
      const kept = statusAllowed(q, state) ? [state] : [];
      const rows = await recordedPrices(history, kept, q.filter, 'openers', view.head);
      const built = recordedEnvelope(kept, rows, q, view.head, deps.catalog);
      reply.meter(built.points);
      return openingLayout(state.info.event_id, built.body.events[0]);
    },
  );
  eventRoute('/api/v2/events/:eventID/closing', 'closing', 'Closing lines of an event');
  sportRoute('openers');
  sportRoute('closing');
}
