import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { intListParam, intParam } from '../../../projection/param-schemas.ts';
import type { PlanScope } from '../../../access/plan-scope.ts';
import type { StatsRequest } from '../../../access/stats-policy.ts';
import { seasonYear } from '../../../catalog/seasons.ts';
import { foldStats } from '../../../board/apply.ts';
import type { EventState } from '../../../board/event-state.ts';
import { GAME_STARTED } from '../../../board/event-state.ts';
import {
  type BoxBody,
  boxBody,
  type Group,
  type SerializedBox,
  serializeBox,
  type Standing,
  wholeBody,
} from '../../box-score.ts';
import { notFound } from '../../../projection/errors.ts';
import { parseInteger, parseIntList } from '../../../projection/params.ts';
import {
  callerOf,
  eventById,
  keptStatsLane,
  nowOf,
  requireStats,
  type RouteDeps,
  sendJson,
  sendKept,
  standing,
} from '../../route-kit.ts';
import { rulesOf } from '../../caller-rules.ts';
import { keepBody } from '../../encoding.ts';
import { errorResponses } from '../../../projection/schemas.ts';
import { PlayerGameStatsSchema, TeamGameStatsSchema } from '../../stats-schemas.ts';

export const MAX_STATS_IDS = 12;
export const MAX_PLAYER_IDS = 6;

/** A started event's box as the caller's view shows it, and what the stats-access policy was asked for it. */
interface Box {
  box: SerializedBox;
  stats: StatsRequest;
  scope: PlanScope;
  /**
   * Where the views and the day stood when the event was read, when `box` is the live board's kept
   * box (not one folded for a view behind the event, nor an archived event's): the whole body is
   * then kept for the URL while they stand there.
   */
  stand?: Standing & { eventId: string };
}

/**
 * The box of an event as the caller's view shows it, or undefined before the game has started.
 * A real-time plan reads the cached box of the board; a delayed plan whose view is behind the
 * event's last stat row gets the box folded from the store's stat rows up to its head.
 */
async function boxFor(deps: RouteDeps, request: FastifyRequest, eventId: string): Promise<Box | undefined> {
  const { scope, view } = callerOf(deps, request);
  // Read before the event is: a commit while it is awaited then leaves these behind the views, so the
  // body is answered again by the router rather than kept as current.
  const stand = { eventId, ...standing(deps, view) };
  const seen = await eventById(deps, view, eventId);
  if (!seen) throw notFound('event', eventId);
  const status = seen.info.score?.event_status;
  if (status === undefined || !GAME_STARTED.has(status)) return undefined;
  const complete = status === 'STATUS_FINAL';
  const sport = deps.catalog.sport(seen.info.sport_id);
  const stats: StatsRequest = {
    feature: complete ? 'completed_box_scores' : 'live_game_stats',
    currentSeason: sport !== undefined && seen.info.schedule.season_year === seasonYear(sport, nowOf(deps)),
  };
  requireStats(deps, request, stats);
  const onBoard = deps.views.forDelay(0).getEvent(eventId);
  // An archived event is the same for every plan: it is its own live state.
  const live: EventState = onBoard ?? seen;
  const game = live.game;
  if (!game || game.version <= view.head) {
    return { box: deps.boxes.box(live, complete), stats, scope, stand: onBoard ? stand : undefined };
  }
  return {
    box: serializeBox(seen.info, foldStats(await deps.games.readStats(eventId, view.head)), complete, deps.catalog),
    stats,
    scope,
  };
}

function send(reply: Parameters<typeof sendJson>[0], body: BoxBody) {
  reply.meter(body.values);
  return sendJson(reply, body.json);
}

/**
 * Sends `groups` filtered by `groupIds` and `statIds`. The whole body of the live board's kept box
 * (no filter) is also kept for this URL and data delay, and the fast lane told how to answer the URL
 * again from it.
 */
function sendBox(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  found: Box,
  groups: readonly Group[],
  groupIds: ReadonlySet<number> | undefined,
  statIds: ReadonlySet<number> | undefined,
) {
  if (groupIds || statIds || !found.stand) return send(reply, boxBody(groups, groupIds, statIds));
  const body = wholeBody(groups);
  const { scope, stand } = found;
  const key = `${scope.delaySeconds}|${request.url}`;
  let kept = deps.boxes.responses.get(key, stand);
  if (!kept) {
    // Compressed and tagged once, as it is kept: the lane and later polls send these bytes.
    const lane = {
      ...keepBody(body.json, deps.boxes.responses.previous(key)?.lane),
      points: body.values,
      rules: rulesOf(request),
    };
    kept = { ...stand, lane };
    deps.boxes.responses.set(key, kept);
  }
  deps.lane?.remember(request, scope, 'v2', () => keptStatsLane(deps, deps.boxes.responses, key, scope.delaySeconds));
  return sendKept(reply, kept.lane);
}

export const statsIdsParam = intListParam(
  `comma-separated stat ids, at most ${MAX_STATS_IDS}; every stat when omitted`,
  MAX_STATS_IDS,
);

/** Team and player game stats of one event: live during the game, complete once it is final. */
export async function gameStatRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v2/events/:eventID/stats',
    {
      schema: {
        summary: 'Team game stats of an event',
        description: 'An empty array before the game starts. Values are strings. One data point per stat value.',
        tags: ['stats'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: Type.Object({
          stats_ids: statsIdsParam,
          team_id: intParam('only this team', 1, Number.MAX_SAFE_INTEGER),
        }),
        response: { 200: TeamGameStatsSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const statIds = parseIntList('stats_ids', request.query.stats_ids, MAX_STATS_IDS);
      const teamId = parseInteger('team_id', request.query.team_id, 1, Number.MAX_SAFE_INTEGER);
      const found = await boxFor(deps, request, request.params.eventID);
      if (!found) return send(reply, { json: '[]', values: 0 });
      const teams = teamId === undefined ? undefined : new Set([teamId]);
      return sendBox(deps, request, reply, found, found.box.teams, teams, statIds && new Set(statIds));
    },
  );

  app.get(
    '/api/v2/events/:eventID/players/stats',
    {
      schema: {
        summary: 'Player game stats of an event',
        description: 'An empty array before the game starts. Values are strings. One data point per stat value.',
        tags: ['stats'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: Type.Object({
          stats_ids: statsIdsParam,
          player_ids: intListParam(`comma-separated player ids, at most ${MAX_PLAYER_IDS}`, MAX_PLAYER_IDS),
        }),
        response: { 200: PlayerGameStatsSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const statIds = parseIntList('stats_ids', request.query.stats_ids, MAX_STATS_IDS);
      const playerIds = parseIntList('player_ids', request.query.player_ids, MAX_PLAYER_IDS);
      const found = await boxFor(deps, request, request.params.eventID);
      if (!found) return send(reply, { json: '[]', values: 0 });
      const players = playerIds && new Set(playerIds);
      return sendBox(deps, request, reply, found, found.box.players, players, statIds && new Set(statIds));
    },
  );
}
