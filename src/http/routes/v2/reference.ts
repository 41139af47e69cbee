import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AFFILIATES } from '../../../catalog/affiliates.ts';
import { MARKET_DEFINITIONS } from '../../../catalog/markets.ts';
import { SEASON_TYPES, SPORTS } from '../../../catalog/sports.ts';
import type { Affiliate } from '../../../domain/types.ts';
import { parseInclude } from '../../../projection/params.ts';
import { includeParam } from '../../../projection/param-schemas.ts';
import {
  AffiliateSchema,
  ErrorBody,
  errorResponses,
  MarketDefinitionSchema,
  SportSchema,
} from '../../../projection/schemas.ts';
import { SeasonTypesSchema } from '../../listing-schemas.ts';

export const sportsBody = {
  sports: SPORTS.map(({ sport_id, sport_name }) => ({ sport_id, sport_name })),
};

const seasonTypeIds = new Map(SEASON_TYPES.map((t) => [t.name, t.season_type_id]));

/**
 * Season types per sport. Preseason, playoff and special-event games have sport ids of their own,
 * so each sport id has the one season type of its games.
 */
export const seasonTypesBody = {
  season_types: SPORTS.map(({ sport_id, sport_name, season_type }) => ({
    sport_id,
    sport_name,
    season_type_id: seasonTypeIds.get(season_type)!,
    season_type_name: season_type,
  })),
};

function affiliateList(withRegions: boolean): Affiliate[] | Omit<Affiliate, 'regions'>[] {
  return AFFILIATES.map(({ affiliate_id, affiliate_name, affiliate_url, status, regions }) =>
    withRegions
      ? { affiliate_id, affiliate_name, affiliate_url, status, regions }
      : { affiliate_id, affiliate_name, affiliate_url, status },
  );
}

/** The affiliates list and its sportsbooks alias: schema and handler. */
export const affiliatesSchema = {
  tags: ['reference'],
  querystring: Type.Object(
    {
      include: includeParam('regions adds each book’s regions', ['regions']),
    },
    { additionalProperties: true },
  ),
  response: {
    200: Type.Object({ affiliates: Type.Array(AffiliateSchema) }),
    400: ErrorBody,
  },
};
export const affiliates = async (request: { query: { include?: string | readonly string[] } }) => {
  const include = parseInclude(request.query.include, ['regions']);
  return { affiliates: affiliateList(include.has('regions')) };
};

/** Catalog routes: the same answer for every caller, no data points. */
export async function referenceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v2/sports',
    {
      config: { public: true },
      schema: {
        summary: 'Sports and their ids (no key needed)',
        tags: ['reference'],
        response: { 200: Type.Object({ sports: Type.Array(SportSchema) }) },
      },
    },
    async () => sportsBody,
  );

  app.get(
    '/api/v2/affiliates',
    {
      config: { public: true },
      schema: { ...affiliatesSchema, summary: 'Sportsbooks (no key needed)' },
    },
    affiliates,
  );
  app.get(
    '/api/v2/sportsbooks',
    {
      config: { free: true },
      schema: { ...affiliatesSchema, summary: 'Alias of /api/v2/affiliates' },
    },
    affiliates,
  );

  app.get(
    '/api/v2/markets',
    {
      config: { free: true },
      schema: {
        summary: 'Market definitions',
        tags: ['reference'],
        response: {
          200: Type.Array(MarketDefinitionSchema),
          ...errorResponses,
        },
      },
    },
    async () => [...MARKET_DEFINITIONS],
  );

  app.get(
    '/api/v2/season_types',
    {
      config: { free: true },
      schema: {
        summary: 'Season types per sport (2 = regular season, the default elsewhere)',
        description: '1 Preseason, 2 Regular Season, 3 Postseason, 4 Special.',
        tags: ['reference'],
        response: {
          200: SeasonTypesSchema,
          ...errorResponses,
        },
      },
    },
    async () => seasonTypesBody,
  );
}
