import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { intListParam, intParam, intPathParam } from '../../../projection/param-schemas.ts';
import type { StatsRequest } from '../../../access/stats-policy.ts';
import type { BoardView } from '../../../board/board-view.ts';
import { foldStats } from '../../../board/apply.ts';
import { seasonGames, sumBoxes } from '../../../board/season-totals.ts';
import { seasonYear } from '../../../catalog/seasons.ts';
import { SEASON_TYPES } from '../../../catalog/sports.ts';
import { type BoxBody, boxBody, type SerializedBox } from '../../box-score.ts';
import { badRequest, notFound } from '../../../projection/errors.ts';
import { parseInteger, parseIntList } from '../../../projection/params.ts';
import { applyRule, rulesOf } from '../../caller-rules.ts';
import { callerOf, keptStatsLane, nowOf, requireStats, type RouteDeps, sendKept, standing } from '../../route-kit.ts';
import { keepBody } from '../../encoding.ts';
import { errorResponses } from '../../../projection/schemas.ts';
import { type SeasonScope, serializeSeason } from '../../season-stats.ts';
import { PlayerSeasonStatsSchema, TeamSeasonStatsSchema } from '../../stats-schemas.ts';
import { MAX_STATS_IDS, statsIdsParam } from './game-stats.ts';
import { knownTeam } from './rosters.ts';

/** Regular season, as /api/v2/season_types numbers it. */
const DEFAULT_SEASON_TYPE = 2;
/** A roster has fewer than 100 slots (player ids are team_id x 100 + slot), so no real filter is longer. */
export const MAX_SEASON_PLAYER_IDS = 99;
const MIN_YEAR = 1900;
const MAX_YEAR = 2100;

const seasonQuery = {
  stats_ids: statsIdsParam,
  year: intParam("season year; the team's sport's current season when omitted", MIN_YEAR, MAX_YEAR),
  season_type: intParam(
    'season type id as /api/v2/season_types lists it (1 preseason, 2 regular, 3 postseason, 4 special); 2 when omitted',
    1,
    Number.MAX_SAFE_INTEGER,
    { default: DEFAULT_SEASON_TYPE },
  ),
};

type SeasonQuery = Static<TObject<typeof seasonQuery>>;

interface Season {
  box: SerializedBox;
}

/**
 * The season aggregate of a team path parameter, as the caller's view shows it: the source's record
 * of that season (a season_stats record, docs/feeds.md) the view's head shows, when one is held, for
 * it counts games the server never held; else the sum of its games. The games are the
 * started ones of the team's home league (every sport id it plays under) of that season year and
 * type that the board holds. A caller whose view is behind a game's last stat row (a delayed plan
 * during a game) gets that game's box folded from the store's stat rows up to its head (kept only
 * as part of the whole answer for that head, by `serveSeason`).
 */
async function seasonFor(
  deps: RouteDeps,
  request: FastifyRequest,
  view: BoardView,
  rawTeam: string,
  q: SeasonQuery,
): Promise<Season> {
  const { team, sportId } = knownTeam(deps.catalog, rawTeam);
  const sport = deps.catalog.sport(sportId);
  const sportIds = deps.catalog.homeSportIds(team.team_id);
  if (!sport || !sportIds) throw notFound('team', team.team_id);
  const current = seasonYear(sport, nowOf(deps));
  const year = parseInteger('year', q.year, MIN_YEAR, MAX_YEAR) ?? current;
  const seasonTypeId = parseInteger('season_type', q.season_type, 1, Number.MAX_SAFE_INTEGER) ?? DEFAULT_SEASON_TYPE;
  const seasonType = SEASON_TYPES.find((t) => t.season_type_id === seasonTypeId);
  if (!seasonType) {
    throw badRequest(
      `season_type must be one of ${SEASON_TYPES.map((t) => t.season_type_id).join(', ')}, got ${seasonTypeId}`,
    );
  }
  const stats: StatsRequest = { feature: 'season_stats', currentSeason: year === current };
  requireStats(deps, request, stats);

  const scope: SeasonScope = {
    teamId: team.team_id,
    teamName: team.name,
    year,
    seasonTypeId,
    roster: deps.catalog.rosterOf(team.team_id),
    stats: deps.catalog,
  };
  const record = deps.seasonRecords.at(team.team_id, year, seasonTypeId, view.head);
  if (record) return { box: deps.seasons.held(scope, record) };
  const live = deps.views.forDelay(0);
  const found = deps.seasons.games(scope, live.head, () =>
    seasonGames(live, { teamId: team.team_id, sportIds, year, seasonType: seasonType.name }),
  );
  if (found.games.every((g) => g.box.version <= view.head)) return { box: deps.seasons.season(scope, found) };
  const boxes = await Promise.all(
    found.games.map(async (g) =>
      g.box.version <= view.head ? g.box : foldStats(await deps.games.readStats(g.eventId, view.head)),
    ),
  );
  return { box: serializeSeason(scope, sumBoxes(team.team_id, boxes)) };
}

/**
 * Answers a season route: from the body kept for this URL and data delay while the board has not
 * moved, else built by `build` (which validates the request and asks the stats-access policy) and
 * kept. A kept body asks the rules it was given under (the stats-access policy) for this caller,
 * before it is metered.
 */
async function serveSeason(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  build: (view: BoardView) => Promise<BoxBody>,
) {
  const { scope, view } = callerOf(deps, request);
  // As the build reads them (before its first await): a delayed view moves on by itself
  // meanwhile, and a body kept under its later head would miss what came in between.
  const now = standing(deps, view);
  const key = `${scope.delaySeconds}|${request.url}`;
  let answer = deps.seasons.responses.get(key, now);
  if (answer) {
    for (const rule of answer.lane.rules) applyRule(request, rule);
  } else {
    const body = await build(view);
    const json = typeof body.json === 'string' ? Buffer.from(body.json) : body.json;
    // Compressed and tagged once, as it is kept: the lane and later polls send these bytes.
    const lane = {
      ...keepBody(json, deps.seasons.responses.previous(key)?.lane),
      points: body.values,
      rules: rulesOf(request),
    };
    answer = { json, values: body.values, ...now, lane };
    deps.seasons.responses.set(key, answer);
  }
  deps.lane?.remember(request, scope, 'v2', () => keptStatsLane(deps, deps.seasons.responses, key, scope.delaySeconds));
  return sendKept(reply, answer.lane);
}

/** Season aggregates of a team and of its current roster's players. */
export async function seasonStatRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const params = Type.Object({ teamID: intPathParam() });
  const description =
    'The season as its source published it (a season_stats record) when the server holds one; else sums over the games of the season and season type that the server holds, final and in progress. Team values are strings, player values numbers. One data point per stat value.';

  app.get(
    '/api/v2/teams/:teamID/stats',
    {
      schema: {
        summary: 'Team season stats',
        description,
        tags: ['stats'],
        params,
        querystring: Type.Object(seasonQuery),
        response: { 200: TeamSeasonStatsSchema, ...errorResponses },
      },
    },
    (request, reply) =>
      serveSeason(deps, request, reply, async (view) => {
        const statIds = parseIntList('stats_ids', request.query.stats_ids, MAX_STATS_IDS);
        const season = await seasonFor(deps, request, view, request.params.teamID, request.query);
        return boxBody(season.box.teams, undefined, statIds && new Set(statIds));
      }),
  );

  app.get(
    '/api/v2/teams/:teamID/players/stats',
    {
      schema: {
        summary: 'Player season stats of a team',
        description: `${description} Players are the team's current roster.`,
        tags: ['stats'],
        params,
        querystring: Type.Object({
          ...seasonQuery,
          player_ids: intListParam('comma-separated player ids of the roster', MAX_SEASON_PLAYER_IDS),
        }),
        response: { 200: PlayerSeasonStatsSchema, ...errorResponses },
      },
    },
    (request, reply) =>
      serveSeason(deps, request, reply, async (view) => {
        const statIds = parseIntList('stats_ids', request.query.stats_ids, MAX_STATS_IDS);
        const playerIds = parseIntList('player_ids', request.query.player_ids, MAX_SEASON_PLAYER_IDS);
        const season = await seasonFor(deps, request, view, request.params.teamID, request.query);
        return boxBody(season.box.players, playerIds && new Set(playerIds), statIds && new Set(statIds));
      }),
  );
}
