import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { intPathParam } from '../../../projection/param-schemas.ts';
import type { BoardView } from '../../../board/board-view.ts';
import type { Catalog, SportTeams } from '../../../catalog/catalog.ts';
import type { TeamRecord } from '../../../catalog/teams/types.ts';
import { notFound } from '../../../projection/errors.ts';
import { parseSportId } from '../../../projection/params.ts';
import { callerOf, type RouteDeps } from '../../route-kit.ts';
import { ConferenceSchema, DivisionSchema, errorResponses, SportTeamSchema } from '../../../projection/schemas.ts';

type Conference = Static<typeof ConferenceSchema>;
type Division = Static<typeof DivisionSchema>;

/**
 * Conference and division ids are scoped by sport (the records carry sport_id): sport id x 100
 * plus the name's rank for conferences, sport id x 1000 plus the rank for divisions, so they stay
 * the same from one start to the next.
 */
export function structure(sportId: number, teams: readonly TeamRecord[]) {
  const confNames = [...new Set(teams.map((t) => t.conference))].sort();
  const conferences = new Map<string, Conference>(
    confNames.map((name, i) => [name, { conference_id: sportId * 100 + i + 1, sport_id: sportId, name }]),
  );
  const divKeys = [...new Set(teams.map((t) => `${t.conference}\u0000${t.division}`))].sort();
  const divisions = new Map<string, Division>(
    divKeys.map((key, i) => {
      const [conf, name] = key.split('\u0000') as [string, string];
      const conference_id = conferences.get(conf)!.conference_id;
      return [
        key,
        {
          division_id: sportId * 1000 + i + 1,
          conference_id,
          sport_id: sportId,
          name,
        },
      ];
    }),
  );
  return { conferences, divisions };
}

/** The league of a sport id path parameter: 400 when not an integer, 404 without teams. */
export function leagueOf(catalog: Catalog, raw: string): { sportId: number; league: SportTeams } {
  const sportId = parseSportId(catalog, raw);
  const league = catalog.teamsOfSport(sportId);
  if (!league) throw notFound('teams of sport', sportId);
  return { sportId, league };
}

/** A team's record as of its latest scheduled or played event of the sport, in a board view. */
function records(view: BoardView, sportId: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of view.eventsOfSport(sportId)) for (const t of e.info.teams) out.set(t.team_id, t.record);
  return out;
}

/** The teams of a sport with their conference, division and record. */
export function sportTeams(view: BoardView, sportId: number, league: SportTeams) {
  const { conferences, divisions } = structure(sportId, league.teams);
  const rec = records(view, sportId);
  return league.teams.map((t) => ({
    team_id: t.team_id,
    name: t.name,
    mascot: t.mascot,
    abbreviation: t.abbreviation,
    record: rec.get(t.team_id) ?? '',
    conference: conferences.get(t.conference)!,
    division: divisions.get(`${t.conference}\u0000${t.division}`)!,
  }));
}

export async function teamRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const sportParams = Type.Object({ sportID: intPathParam() });

  app.get(
    '/api/v2/sports/:sportID/teams',
    {
      config: { free: true },
      schema: {
        summary: 'Teams of a sport with conference and division',
        tags: ['teams'],
        params: sportParams,
        response: {
          200: Type.Object({ teams: Type.Array(SportTeamSchema) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { sportId, league } = leagueOf(deps.catalog, request.params.sportID);
      return { teams: sportTeams(callerOf(deps, request).view, sportId, league) };
    },
  );

  app.get(
    '/api/v2/sports/:sportID/conferences',
    {
      config: { free: true },
      schema: {
        summary: 'Conferences of a sport',
        tags: ['teams'],
        params: sportParams,
        response: {
          200: Type.Object({ conferences: Type.Array(ConferenceSchema) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { sportId, league } = leagueOf(deps.catalog, request.params.sportID);
      return {
        conferences: [...structure(sportId, league.teams).conferences.values()],
      };
    },
  );

  app.get(
    '/api/v2/sports/:sportID/divisions',
    {
      config: { free: true },
      schema: {
        summary: 'Divisions of a sport',
        tags: ['teams'],
        params: sportParams,
        response: {
          200: Type.Object({ divisions: Type.Array(DivisionSchema) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { sportId, league } = leagueOf(deps.catalog, request.params.sportID);
      return {
        divisions: [...structure(sportId, league.teams).divisions.values()],
      };
    },
  );
}
