import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../../../catalog/catalog.ts';
import type { Affiliate, MarketDefinition } from '../../../domain/types.ts';
import { SEASON_TYPES } from '../../../catalog/sports.ts';
import { parseInclude } from '../../../projection/params.ts';
import { includeParam } from '../../../projection/param-schemas.ts';
import {
  AffiliateSchema,
  ErrorBody,
  errorResponses,
  MarketDefinitionSchema,
  SportSchema,
} from '../../../projection/schemas.ts';
import type { RouteDeps } from '../../route-kit.ts';
import { SeasonTypesSchema } from '../../listing-schemas.ts';

const seasonTypeIds = new Map(SEASON_TYPES.map((t) => [t.name, t.season_type_id]));

/** What the listing routes serve of one version of the catalog, made once per change of it. */
interface Bodies {
  version: number;
  sports: { sports: { sport_id: number; sport_name: string }[] };
  seasonTypes: {
    season_types: { sport_id: number; sport_name: string; season_type_id: number; season_type_name: string }[];
  };
  affiliates: { affiliates: Omit<Affiliate, 'regions'>[] };
  affiliatesWithRegions: { affiliates: Affiliate[] };
}

const made = new WeakMap<Catalog, Bodies>();

/**
 * The bodies of the sports, season types and affiliates lists for the current catalog. Season
 * types per sport: preseason, playoff and special-event games have sport ids of their own, so each
 * sport id has the one season type of its games.
 */
export function catalogBodies(catalog: Catalog): Bodies {
  const kept = made.get(catalog);
  if (kept && kept.version === catalog.version) return kept;
  const sports = catalog.sports();
  const books = catalog.books();
  const bodies: Bodies = {
    version: catalog.version,
    sports: { sports: sports.map(({ sport_id, sport_name }) => ({ sport_id, sport_name })) },
    seasonTypes: {
      season_types: sports.map(({ sport_id, sport_name, season_type }) => ({
        sport_id,
        sport_name,
        season_type_id: seasonTypeIds.get(season_type)!,
        season_type_name: season_type,
      })),
    },
    affiliates: {
      affiliates: books.map(({ affiliate_id, affiliate_name, affiliate_url, status }) => ({
        affiliate_id,
        affiliate_name,
        affiliate_url,
        status,
      })),
    },
    affiliatesWithRegions: { affiliates: [...books] },
  };
  made.set(catalog, bodies);
  return bodies;
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
export const affiliates =
  (catalog: Catalog) => async (request: { query: { include?: string | readonly string[] } }) => {
    const bodies = catalogBodies(catalog);
    return parseInclude(request.query.include, ['regions']).has('regions')
      ? bodies.affiliatesWithRegions
      : bodies.affiliates;
  };

/** Catalog routes: the same answer for every caller, no data points. */
export async function referenceRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const catalog = deps.catalog;
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
    async () => catalogBodies(catalog).sports,
  );

  app.get(
    '/api/v2/affiliates',
    {
      config: { public: true },
      schema: { ...affiliatesSchema, summary: 'Sportsbooks (no key needed)' },
    },
    affiliates(catalog),
  );
  app.get(
    '/api/v2/sportsbooks',
    {
      config: { free: true },
      schema: { ...affiliatesSchema, summary: 'Alias of /api/v2/affiliates' },
    },
    affiliates(catalog),
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
    // The catalog's own list, never changed in place: a change of the catalog makes a new one.
    async () => catalog.markets() as MarketDefinition[],
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
    async () => catalogBodies(catalog).seasonTypes,
  );
}
