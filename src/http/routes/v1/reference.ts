import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../../../catalog/catalog.ts';
import { parseOffset, parseSportId } from '../../../projection/params.ts';
import { callerOf, type V1Deps } from '../../route-kit.ts';
import { ConferenceSchema, DivisionSchema, SportSchema, SportTeamSchema } from '../../../projection/schemas.ts';
import { intParam, intPathParam, offsetParam } from '../../../projection/param-schemas.ts';
import { v1ErrorResponses } from '../../../projection/v1-schemas.ts';
import { formatParam, parseFormat, sportDates } from '../v2/listings.ts';
import { affiliates, affiliatesSchema, catalogBodies } from '../v2/reference.ts';
import { DatesSchema, SeasonTypesSchema } from '../../listing-schemas.ts';
import { leagueOf, sportTeams, structure } from '../v2/teams.ts';

/**
 * Conferences and divisions of one sport (`sport_id`), or of every sport with teams: the same
 * records, with the same sport-scoped ids, as the V2 lists of each sport.
 */
function structures(catalog: Catalog, rawSportId: string | undefined) {
  if (rawSportId !== undefined && rawSportId !== '') {
    const { sportId, league } = leagueOf(catalog, rawSportId);
    return [structure(sportId, league.teams)];
  }
  return catalog.sports().flatMap(({ sport_id }) => {
    const league = catalog.teamsOfSport(sport_id);
    return league ? [structure(sport_id, league.teams)] : [];
  });
}

/** V1 reference data and listings: the V2 answers under the V1 paths; free, with a key. */
export async function v1ReferenceRoutes(fastify: FastifyInstance, deps: V1Deps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const free = { free: true };
  const tags = ['v1'];
  const catalog = deps.catalog;

  app.get(
    '/sports',
    {
      config: free,
      schema: {
        summary: 'V1: sports and their ids',
        tags,
        response: { 200: Type.Object({ sports: Type.Array(SportSchema) }), ...v1ErrorResponses },
      },
    },
    async () => catalogBodies(catalog).sports,
  );
  for (const path of ['/affiliates', '/sportsbooks']) {
    app.get(
      path,
      {
        config: free,
        schema: {
          ...affiliatesSchema,
          tags,
          summary: 'V1: sportsbooks',
          response: { ...affiliatesSchema.response, ...v1ErrorResponses },
        },
      },
      affiliates(catalog),
    );
  }
  app.get(
    '/season_types',
    {
      config: free,
      schema: {
        summary: 'V1: season types per sport',
        tags,
        response: { 200: SeasonTypesSchema, ...v1ErrorResponses },
      },
    },
    async () => catalogBodies(catalog).seasonTypes,
  );

  const sportParams = Type.Object({ sportID: intPathParam() });
  app.get(
    '/sports/:sportID/dates',
    {
      config: free,
      schema: {
        summary: 'V1: dates with events for one sport',
        tags,
        params: sportParams,
        querystring: Type.Object(
          {
            offset: offsetParam(),
            format: formatParam,
          },
          { additionalProperties: true },
        ),
        response: { 200: DatesSchema, ...v1ErrorResponses },
      },
    },
    async (request) => {
      const sportId = parseSportId(deps.catalog, request.params.sportID);
      const q = request.query;
      const { view } = callerOf(deps, request);
      return { dates: sportDates(view.eventsOfSport(sportId), parseOffset(q.offset), parseFormat(q.format)) };
    },
  );
  app.get(
    '/sports/:sportID/teams',
    {
      config: free,
      schema: {
        summary: 'V1: teams of a sport with conference and division',
        tags,
        params: sportParams,
        response: { 200: Type.Object({ teams: Type.Array(SportTeamSchema) }), ...v1ErrorResponses },
      },
    },
    async (request) => {
      const { sportId, league } = leagueOf(catalog, request.params.sportID);
      return { teams: sportTeams(callerOf(deps, request).view, sportId, league) };
    },
  );

  const sportQuery = Type.Object(
    { sport_id: intParam('only this sport; default every sport with teams', 0, 999_999) },
    { additionalProperties: true },
  );
  // The published OpenAPI's per-sport paths: the same lists as ?sport_id= gives.
  app.get(
    '/sports/:sportID/conferences',
    {
      config: free,
      schema: {
        summary: 'V1: conferences of a sport',
        tags,
        params: sportParams,
        response: { 200: Type.Object({ conferences: Type.Array(ConferenceSchema) }), ...v1ErrorResponses },
      },
    },
    async (request) => ({
      conferences: structures(catalog, request.params.sportID).flatMap((s) => [...s.conferences.values()]),
    }),
  );
  app.get(
    '/sports/:sportID/divisions',
    {
      config: free,
      schema: {
        summary: 'V1: divisions of a sport',
        tags,
        params: sportParams,
        response: { 200: Type.Object({ divisions: Type.Array(DivisionSchema) }), ...v1ErrorResponses },
      },
    },
    async (request) => ({
      divisions: structures(catalog, request.params.sportID).flatMap((s) => [...s.divisions.values()]),
    }),
  );
  app.get(
    '/conferences',
    {
      config: free,
      schema: {
        summary: 'V1: conferences',
        tags,
        querystring: sportQuery,
        response: { 200: Type.Object({ conferences: Type.Array(ConferenceSchema) }), ...v1ErrorResponses },
      },
    },
    async (request) => ({
      conferences: structures(catalog, request.query.sport_id).flatMap((s) => [...s.conferences.values()]),
    }),
  );
  app.get(
    '/divisions',
    {
      config: free,
      schema: {
        summary: 'V1: divisions',
        tags,
        querystring: sportQuery,
        response: { 200: Type.Object({ divisions: Type.Array(DivisionSchema) }), ...v1ErrorResponses },
      },
    },
    async (request) => ({
      divisions: structures(catalog, request.query.sport_id).flatMap((s) => [...s.divisions.values()]),
    }),
  );
}
