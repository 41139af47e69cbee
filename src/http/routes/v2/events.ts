import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { EventState } from '../../../board/board.ts';
import { boardFor, gateDate, type RouteDeps, sendJson } from '../../app.ts';
import { notFound } from '../../errors.ts';
import {
  type EventQuery,
  EventQuerySchema,
  eventQueryFor,
  type Query,
  statusAllowed,
} from '../../event-query.ts';
import { dayWindow, parseDate, parseSportId } from '../../params.ts';
import { EventsEnvelope, errorResponses } from '../../schemas.ts';

/** The events envelope, assembled from each event's cached bytes. */
function envelope(
  deps: RouteDeps,
  events: readonly EventState[],
  q: EventQuery,
  head: number,
): { body: Buffer; points: number } {
  const parts: string[] = [];
  let points = 0;
  for (const state of events) {
    if (!statusAllowed(q, state)) continue;
    const view = deps.cache.event(state, q.filter, q.filterKey);
    if (q.hideNoMarkets && view.marketCount === 0) continue;
    parts.push(view.json);
    points += view.points;
  }
  const body = Buffer.from(`{"meta":{"delta_last_id":"${head}"},"events":[${parts.join(',')}]}`);
  return { body, points };
}


/** The odds-screen snapshots: served from the board through the snapshot cache. */
export async function eventRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { cache } = deps;

  app.get(
    '/api/v2/sports/:sportID/events/:date',
    {
      schema: {
        summary: 'Events of a sport on a date, with markets (the odds screen)',
        description:
          'meta.delta_last_id bootstraps /api/v2/markets/delta. market_ids 1, 2, 3 (and 94, the tennis set ' +
          'markets) bring their live variants with them.',
        tags: ['events'],
        params: Type.Object({
          sportID: Type.String(),
          date: Type.String({ description: 'YYYY-MM-DD' }),
        }),
        querystring: EventQuerySchema,
        response: { 200: EventsEnvelope, ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = request.params as { sportID: string; date: string };
      const sportId = parseSportId(p.sportID);
      const dateMs = parseDate(p.date);
      gateDate(deps, request.account, dateMs);
      const q = eventQueryFor(request.url, request.query as Query, sportId, request.account);
      const [from, to] = dayWindow(dateMs, q.offset);
      const board = boardFor(deps, request.account);
      const head = board.head;
      const delay = request.account?.entitlements.delaySeconds ?? 0;
      const key = `s|${sportId}|${from}|${delay}|${q.filterKey}|${q.statusKey}`;
      const hit = cache.response(key, head);
      if (hit) {
        reply.meter(hit.points);
        return sendJson(reply, hit.body);
      }
      const built = envelope(deps, board.eventsInWindow(sportId, from, to), q, head);
      cache.storeResponse(key, head, built.body, built.points);
      reply.meter(built.points);
      return sendJson(reply, built.body);
    },
  );

  app.get(
    '/api/v2/events/:eventID',
    {
      schema: {
        summary: 'One event by event_id, with markets',
        tags: ['events'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: EventQuerySchema,
        response: { 200: EventsEnvelope, ...errorResponses },
      },
    },
    async (request, reply) => {
      const eventId = (request.params as { eventID: string }).eventID;
      const board = boardFor(deps, request.account);
      const state = board.getEvent(eventId);
      if (!state) throw notFound(`event ${eventId}`);
      const q = eventQueryFor(request.url, request.query as Query, state.info.sport_id, request.account);
      const built = envelope(deps, [state], q, board.head);
      reply.meter(built.points);
      return sendJson(reply, built.body);
    },
  );
}
