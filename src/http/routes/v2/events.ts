import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { datePathParam, intPathParam } from '../../../projection/param-schemas.ts';
import { notFound } from '../../../projection/errors.ts';
import { EventQuerySchema } from '../../../projection/event-query.ts';
import { envelope, envelopeInSlices, SLICE_MS, type SliceOptions } from '../../events-envelope.ts';
import { dayWindow, parseDate, parseSportId } from '../../../projection/params.ts';
import {
  callerOf,
  eventById,
  gateDate,
  keptSnapshot,
  type RouteDeps,
  sendJson,
  sendSnapshot,
} from '../../route-kit.ts';
import { EventsEnvelope, errorResponses } from '../../../projection/schemas.ts';

/** The odds-screen snapshots: served from the board through the snapshot cache. */
export async function eventRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { cache, queries } = deps;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const slices: SliceOptions = { sliceMs: SLICE_MS, turns: deps.turns, now: () => performance.now() };

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
      const q = queries.get(request.url, request.query, sportId, scope);
      const [from, to] = dayWindow(dateMs, q.offset);
      const key = `s|${sportId}|${from}|${scope.delaySeconds}|${q.filterKey}|${q.statusKey}`;
      deps.lane?.remember(request, scope, 'v2', () => keptSnapshot(deps, key, scope.delaySeconds), true);
      // A build yields a turn between slices of its events (src/http/events-envelope.ts).
      const inWindow = () => view.eventsInWindow(sportId, from, to);
      return sendSnapshot(deps, reply, key, view, (ahead) =>
        envelopeInSlices(cache, deps.views.forDelay(0), view, inWindow, q, { ...slices, ahead }),
      );
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
      const eventId = request.params.eventID;
      const { scope, view } = callerOf(deps, request);
      const state = await eventById(deps, view, eventId);
      if (!state) throw notFound('event', eventId);
      const q = queries.get(request.url, request.query, state.info.sport_id, scope);
      const built = envelope(cache, [state], q, view.head);
      reply.meter(built.points);
      return sendJson(reply, built.body);
    },
  );
}
