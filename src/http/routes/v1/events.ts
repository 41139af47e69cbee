import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PlanScope } from '../../../access/plan-scope.ts';
import type { EventState } from '../../../board/event-state.ts';
import type { EventFilter } from '../../../projection/event-view.ts';
import { notFound } from '../../../projection/errors.ts';
import { dayWindow, parseDate, parseOffset, parseSportId } from '../../../projection/params.ts';
import { joinJson } from '../../../projection/json-bytes.ts';
import fastJson from 'fast-json-stringify';
import { eventsOpen, listOpen } from '../../../perf/envelope-text.ts';
import { pick } from '../../../perf/switch.ts';
import { callerOf, eventById, gateDate, keptSnapshot, sendJson, sendSnapshot, type V1Deps } from '../../route-kit.ts';
import { eventPoints } from '../../../projection/event-view.ts';
import { serializeV1Event, type V1Filter, V1EventQuerySchema, viewV1Event } from '../../../projection/v1-event.ts';
import type { LinePriceResolver } from '../../../projection/v1-line-sets.ts';
import { V1EventSchema, V1EventsEnvelope, v1ErrorResponses } from '../../../projection/v1-schemas.ts';
import { dateParam, datePathParam, intPathParam } from '../../../projection/param-schemas.ts';
import { MONEYLINE, SPREAD, TOTAL } from '../../../catalog/markets.ts';
import { type Kind, type RecordedPrices, recordedPrices } from '../v2/openers-closing.ts';

/** The V1 events envelope around serialised events; meta.delta_last_id is the head they were read at. */
export function v1Envelope(head: number, events: readonly Buffer[]): Buffer {
  return joinJson(v1EnvelopeOpen(head), events, ']}');
}

const serializeV1Envelope = fastJson(V1EventsEnvelope);

/** The V1 envelope up to its events: written by hand, or cut from the schema's serialiser. */
export const v1EnvelopeOpen: (head: number) => string = pick(eventsOpen, (head) =>
  listOpen(serializeV1Envelope({ meta: { delta_last_id: String(head) }, events: [] })),
);

/** The board-level filter that selects the prices V1 line sets can show, for the recorded-price reads. */
function recordedFilter(scope: PlanScope, f: V1Filter): EventFilter {
  const families = [...MONEYLINE, ...SPREAD, ...TOTAL];
  return {
    marketIds: new Set(scope.marketIdsFor(families)),
    affiliateIds: f.books,
    periodIds: f.periods,
    mainLine: false,
    participantIds: null,
    participantType: null,
    hideClosed: false,
    includePriceDelta: true,
    liveGameState: false,
  };
}

/** Line prices from recorded rows: a price without one is left out. */
function recordedResolver(rows: RecordedPrices): LinePriceResolver {
  return (p) => {
    const r = rows.get(p.id);
    if (!r) return undefined;
    const out = {
      price: Number(r.row.price),
      price_delta: r.detail.price_delta,
      is_main_line: r.row.is_main_line,
      updated_at: r.row.updated_at,
    };
    return r.detail.moved_from === undefined ? out : { ...out, moved_from: r.detail.moved_from };
  };
}

/**
 * What a sport-and-date V1 route starts from: the sport and day window (the date within the
 * caller's history window), the caller's scope and view, its parsed V1 filter and the view's head.
 */
function sportDay(
  deps: V1Deps,
  request: FastifyRequest,
  params: { sportID: string; date: string },
  query: Static<typeof V1EventQuerySchema>,
) {
  const sportId = parseSportId(deps.catalog, params.sportID);
  const dateMs = parseDate(params.date);
  gateDate(deps, request, dateMs);
  const { scope, view } = callerOf(deps, request);
  const f = deps.v1Filters.get(scope, query);
  const [from, to] = dayWindow(dateMs, parseOffset(query.offset));
  return { sportId, dateMs, scope, view, f, from, to, head: view.head };
}

const DESCRIPTIONS: Record<Kind, string> = {
  openers: 'each line set priced from the first recorded row of every price (the main lines as they opened)',
  closing:
    'each line set priced from the last recorded row of every price at or before the scheduled start ' +
    '(provisional before the start)',
};

/** V1 events: the odds-screen snapshot of a sport and date, one event, and dated openers and closing. */
export async function v1EventRoutes(fastify: FastifyInstance, deps: V1Deps): Promise<void> {
  const { v1Cache } = deps;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['v1'];
  const sportDateParams = Type.Object({
    sportID: intPathParam(),
    date: datePathParam(),
  });

  type Query = Static<typeof V1EventQuerySchema>;
  /** `lane`: the URL names its day, so its answer may be kept for the fast lane. */
  const eventsOfDay = (
    request: FastifyRequest,
    reply: FastifyReply,
    params: { sportID: string; date: string },
    lane: boolean,
  ) => {
    const query = request.query as Query;
    const { sportId, scope, view, f, from, to } = sportDay(deps, request, params, query);
    // The V2 response cache, under keys of their own: V1 filter keys start with 'v1|'.
    const key = `${f.key}|s|${sportId}|${from}|${scope.delaySeconds}`;
    if (lane) deps.lane?.remember(request, scope, 'v1', () => keptSnapshot(deps, key, scope.delaySeconds), true);
    return sendSnapshot(deps, reply, key, view, () => {
      const at = view.head;
      const parts: Buffer[] = [];
      let points = 0;
      for (const state of view.eventsInWindow(sportId, from, to)) {
        const serialised = v1Cache.event(state, f);
        parts.push(serialised.body);
        points += serialised.points;
      }
      return { body: v1Envelope(at, parts), points, head: at };
    });
  };
  const recordedOfDay = async (
    kind: Kind,
    request: FastifyRequest,
    reply: FastifyReply,
    params: { sportID: string; date: string },
  ) => {
    const { sportId, scope, view, f, from, to, head } = sportDay(deps, request, params, request.query as Query);
    const events: EventState[] = view.eventsInWindow(sportId, from, to);
    const rows = await recordedPrices(deps.history, events, recordedFilter(scope, f), kind, head);
    const resolve = recordedResolver(rows);
    let points = 0;
    const parts = events.map((state) => {
      const { event, prices } = viewV1Event(state, f, deps.catalog, resolve);
      points += eventPoints(prices, false);
      return Buffer.from(serializeV1Event(event));
    });
    reply.meter(points);
    return sendJson(reply, v1Envelope(head, parts));
  };

  app.get(
    '/sports/:sportID/events/:date',
    {
      schema: {
        summary: 'V1: events of a sport on a date, with line sets per book',
        description:
          'meta.delta_last_id bootstraps /api/v1/sports/{id}/events/delta and /api/v1/delta. include=scores adds ' +
          'the score, include=all_periods adds line_periods.',
        tags,
        params: sportDateParams,
        querystring: V1EventQuerySchema,
        response: { 200: V1EventsEnvelope, ...v1ErrorResponses },
      },
    },
    async (request, reply) => eventsOfDay(request, reply, request.params, true),
  );

  // The published OpenAPI's widget paths: the date comes as a query parameter (default today, UTC).
  const widgetQuery = Type.Object(
    { ...V1EventQuerySchema.properties, date: dateParam('YYYY-MM-DD; default today (UTC)') },
    { additionalProperties: true },
  );
  const widgetParams = (sportID: string, date: string | undefined) => ({
    sportID,
    date: date || new Date().toISOString().slice(0, 10),
  });
  const widgets: { path: string; kind?: Kind; what: string }[] = [
    { path: 'events', what: '/api/v1/sports/{id}/events/{date}' },
    { path: 'opening', kind: 'openers', what: '/api/v1/sports/{id}/openers/{date}' },
    { path: 'closing', kind: 'closing', what: '/api/v1/sports/{id}/closing/{date}' },
  ];
  for (const { path, kind, what } of widgets) {
    app.get(
      `/sports/:sportID/widget/${path}`,
      {
        schema: {
          summary: `V1 widget: ${what} with the date as a query parameter`,
          tags,
          params: Type.Object({ sportID: intPathParam() }),
          querystring: widgetQuery,
          response: { 200: V1EventsEnvelope, ...v1ErrorResponses },
        },
      },
      async (request, reply) => {
        const params = widgetParams(request.params.sportID, request.query.date);
        if (kind) return recordedOfDay(kind, request, reply, params);
        // Without a date the day changes at midnight under the same URL.
        return eventsOfDay(request, reply, params, request.query.date !== undefined && request.query.date !== '');
      },
    );
  }

  app.get(
    '/events/:eventID',
    {
      schema: {
        summary: 'V1: one event by event_id (the event object itself, no envelope)',
        tags,
        params: Type.Object({ eventID: Type.String() }),
        querystring: V1EventQuerySchema,
        response: { 200: V1EventSchema, ...v1ErrorResponses },
      },
    },
    async (request, reply) => {
      const eventId = request.params.eventID;
      const { scope, view } = callerOf(deps, request);
      const state = await eventById(deps, view, eventId);
      if (!state) throw notFound('event', eventId);
      const serialised = v1Cache.event(state, deps.v1Filters.get(scope, request.query));
      reply.meter(serialised.points);
      return sendJson(reply, serialised.body);
    },
  );

  for (const kind of ['openers', 'closing'] as const) {
    app.get(
      `/sports/:sportID/${kind}/:date`,
      {
        schema: {
          summary: `V1: ${kind === 'openers' ? 'opening' : 'closing'} lines of a sport's events on a date`,
          description: `The events of /api/v1/sports/{id}/events/{date}, ${DESCRIPTIONS[kind]}.`,
          tags,
          params: sportDateParams,
          querystring: V1EventQuerySchema,
          response: { 200: V1EventsEnvelope, ...v1ErrorResponses },
        },
      },
      async (request, reply) => recordedOfDay(kind, request, reply, request.params),
    );
  }
}
