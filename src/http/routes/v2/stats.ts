import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { intParam } from '../../../projection/param-schemas.ts';
import { publicStat } from '../../../catalog/stats.ts';
import { sampleBox } from '../../box-sample.ts';
import { parseInteger, sportFilter } from '../../../projection/params.ts';
import type { RouteDeps } from '../../route-kit.ts';
import { sendJson } from '../../route-kit.ts';
import { ErrorBody, errorResponses } from '../../../projection/schemas.ts';
import { PlayerGameStatsSchema, StatDefinitionSchema, TeamGameStatsSchema } from '../../stats-schemas.ts';

/** The stat dictionary and the static sample box score: catalog routes, free for every key. */
export async function statRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const sample = Buffer.from(JSON.stringify(sampleBox()));

  app.get(
    '/api/v2/stats',
    {
      config: { free: true },
      schema: {
        summary: 'Stat definitions',
        description:
          'Every game-stat definition, or those of one id or one sport (404 for an unknown sport). Free for every key.',
        tags: ['stats'],
        querystring: Type.Object({
          id: intParam('only this stat', 1, Number.MAX_SAFE_INTEGER),
          sport_id: intParam('only this sport', 0, 1_000_000),
        }),
        response: { 200: Type.Array(StatDefinitionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const id = parseInteger('id', request.query.id, 1, Number.MAX_SAFE_INTEGER);
      const sportId = sportFilter(deps.catalog, request.query.sport_id);
      return deps.catalog
        .stats()
        .filter((s) => (id === undefined || s.id === id) && (sportId === undefined || s.sport_id === sportId))
        .map(publicStat);
    },
  );

  app.get(
    '/api/v2/stats/sample',
    {
      config: { free: true },
      schema: {
        summary: 'A static sample box score',
        description:
          'One fixed basketball game in the shapes of /api/v2/events/{eventID}/stats (team_stats) and ' +
          '/api/v2/events/{eventID}/players/stats (player_stats), for schema tests. Needs a key, costs ' +
          'no data points, never changes: do not poll it.',
        tags: ['stats'],
        response: {
          200: Type.Object({
            event_id: Type.String(),
            team_stats: TeamGameStatsSchema,
            player_stats: PlayerGameStatsSchema,
          }),
          401: ErrorBody,
        },
      },
    },
    async (_request, reply) => sendJson(reply, sample),
  );
}
