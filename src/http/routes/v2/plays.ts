import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { intParam, limitParam } from '../../../projection/param-schemas.ts';
import { lowestTierWith, upgradeMessage } from '../../../access/entitlements.ts';
import { forbidden, notFound } from '../../../projection/errors.ts';
import { MAX_PLAYS, parseInteger } from '../../../projection/params.ts';
import { callerOf, eventById, type RouteDeps, sendParts } from '../../route-kit.ts';
import { ErrorBody, errorResponses } from '../../../projection/schemas.ts';
import { PlaysPageSchema } from '../../stats-schemas.ts';
import fastJson from 'fast-json-stringify';
import { listOpen, type PlaysMeta, playsOpen } from '../../../perf/envelope-text.ts';
import { pick } from '../../../perf/switch.ts';

const serializePlaysPage = fastJson(PlaysPageSchema);

/** The page up to its plays: written by hand, or cut from the schema's serialiser. */
export const playsPageOpen: (meta: PlaysMeta) => string = pick(playsOpen, (meta) =>
  listOpen(serializePlaysPage({ meta, plays: [] })),
);

/**
 * Play-by-play of an event (Ultra and above): newest first, up to 500 a page; `before_sequence`
 * pages back. Plays are numbered 1, 2, ... in the order they happened, so a page is a range of
 * numbers read from the store by rank, whatever the size of the event's log.
 */
export async function playRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v2/events/:eventID/plays',
    {
      schema: {
        summary: 'Play-by-play of an event',
        description:
          'Ultra tier and above. Newest first; `before_sequence` returns the plays numbered below it. ' +
          'One data point per play returned.',
        tags: ['stats'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: Type.Object({
          limit: limitParam('plays per page', MAX_PLAYS, MAX_PLAYS),
          before_sequence: intParam('return plays numbered below this', 1, Number.MAX_SAFE_INTEGER),
        }),
        response: { 200: PlaysPageSchema, 403: ErrorBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const limit = parseInteger('limit', request.query.limit, 1, MAX_PLAYS) ?? MAX_PLAYS;
      const before = parseInteger('before_sequence', request.query.before_sequence, 1, Number.MAX_SAFE_INTEGER);
      const { scope, view } = callerOf(deps, request);
      if (!scope.liveGameState) {
        throw forbidden(
          upgradeMessage(
            'Live game state',
            lowestTierWith((e) => e.liveGameState),
          ),
          { feature: 'plays' },
        );
      }
      const eventId = request.params.eventID;
      const ev = await eventById(deps, view, eventId);
      if (!ev) throw notFound('event', eventId);
      const last = ev.game?.plays ?? 0;
      const to = Math.min(last, before === undefined ? last : before - 1);
      const from = Math.max(1, to - limit + 1);
      const count = Math.max(0, to - from + 1);
      const plays = count > 0 ? await deps.games.readPlays(eventId, from, to) : Buffer.alloc(0);
      const next = count > 0 && from > 1 ? from : null;
      reply.meter(count);
      return sendParts(reply, [
        Buffer.from(playsPageOpen({ event_id: eventId, count, last_sequence: last, next_before_sequence: next })),
        plays,
        Buffer.from(']}'),
      ]);
    },
  );
}
