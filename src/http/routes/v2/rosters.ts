import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { intPathParam } from '../../../projection/param-schemas.ts';
import type { Catalog } from '../../../catalog/catalog.ts';
import type { RosterPlayer } from '../../../catalog/rosters/index.ts';
import type { TeamRecord } from '../../../catalog/teams/types.ts';
import type { Same } from '../../../domain/shape-tie.ts';
import { notFound } from '../../../projection/errors.ts';
import { parseIdParam } from '../../../projection/params.ts';
import type { RouteDeps } from '../../route-kit.ts';
import {
  errorResponses,
  PlayerRecordSchema,
  RosterPlayerSchema,
  TeamDetailSchema,
} from '../../../projection/schemas.ts';

/**
 * Team detail, rosters and player records: reference data from the catalog, the same whatever
 * feed runs. Like the sport team listing they are catalog responses: a key and a V2 subscription
 * are needed, no data points are counted (docs/spec-gaps.md), and they are not stats features.
 */

/* One definition per shape: the catalog's RosterPlayer tied to the schemas of the two routes below. */
const _rosterPlayer: Same<Omit<RosterPlayer, 'first_name' | 'last_name'>, typeof RosterPlayerSchema> = true;
const _playerRecord: Same<
  RosterPlayer & { team: Pick<TeamRecord, 'team_id' | 'name' | 'abbreviation'>; sport_id: number },
  typeof PlayerRecordSchema
> = true;

/** A team path parameter: 400 unless a positive integer, 404 unless a catalog team with a home sport. */
export function knownTeam(catalog: Catalog, raw: string) {
  const teamId = parseIdParam('team_id', raw);
  const team = catalog.team(teamId);
  const sportId = catalog.homeSportOf(teamId);
  if (!team || sportId === undefined) throw notFound('team', teamId);
  return { team, sportId };
}

export async function rosterRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const catalog = deps.catalog;
  const teamParams = Type.Object({ teamID: intPathParam() });

  app.get(
    '/api/v2/teams/:teamID',
    {
      config: { free: true },
      schema: {
        summary: 'Team detail',
        tags: ['teams'],
        params: teamParams,
        response: { 200: TeamDetailSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { team, sportId } = knownTeam(catalog, request.params.teamID);
      return {
        team_id: team.team_id,
        name: team.name,
        abbreviation: team.abbreviation,
        mascot: team.mascot,
        sport_id: sportId,
        conference: team.conference,
        division: team.division,
      };
    },
  );

  app.get(
    '/api/v2/teams/:teamID/players',
    {
      config: { free: true },
      schema: {
        summary: 'Roster of a team (empty for an individual competitor)',
        tags: ['teams'],
        params: teamParams,
        response: { 200: Type.Object({ players: Type.Array(RosterPlayerSchema) }), ...errorResponses },
      },
    },
    async (request) => {
      const { team } = knownTeam(catalog, request.params.teamID);
      const players = catalog.rosterOf(team.team_id).map((p) => ({
        player_id: p.player_id,
        name: p.name,
        position: p.position,
        jersey_number: p.jersey_number,
        team_id: p.team_id,
      }));
      return { players };
    },
  );

  app.get(
    '/api/v2/players/:playerID',
    {
      config: { free: true },
      schema: {
        summary: 'A player',
        tags: ['teams'],
        params: Type.Object({ playerID: intPathParam() }),
        response: {
          200: Type.Object({ ...PlayerRecordSchema.properties, players: Type.Array(PlayerRecordSchema) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const playerId = parseIdParam('player_id', request.params.playerID);
      const player = catalog.player(playerId);
      const team = player && catalog.team(player.team_id);
      const sportId = player && catalog.homeSportOf(player.team_id);
      if (!player || !team || sportId === undefined) throw notFound('player', playerId);
      const record = {
        ...player,
        team: { team_id: team.team_id, name: team.name, abbreviation: team.abbreviation },
        sport_id: sportId,
      };
      // The record itself, and as `players: [record]`, the list existing clients read.
      return { ...record, players: [record] };
    },
  );
}
