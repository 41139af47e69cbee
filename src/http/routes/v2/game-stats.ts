import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { seasonYear } from '../../../catalog/seasons.ts';
import { sportProfile } from '../../../catalog/sports.ts';
import { foldStats } from '../../../board/apply.ts';
import type { EventState } from '../../../board/board.ts';
import { GAME_STARTED } from '../../../board/season-totals.ts';
import { type BoxBody, boxBody, type SerializedBox, serializeBox } from '../../box-score.ts';
import { notFound } from '../../errors.ts';
import { parseInteger, parseIntList } from '../../params.ts';
import { callerOf, eventById, requireStats, type RouteDeps, sendJson } from '../../route-kit.ts';
import { errorResponses } from '../../schemas.ts';
import { PlayerGameStatsSchema, TeamGameStatsSchema } from '../../stats-schemas.ts';

export const MAX_STATS_IDS = 12;
export const MAX_PLAYER_IDS = 6;

/**
 * The box of an event as the caller's view shows it, or undefined before the game has started.
 * A real-time plan reads the cached box of the board; a delayed plan whose view is behind the
 * event's last stat row gets the box folded from the store's stat rows up to its head.
 */
async function boxFor(deps: RouteDeps, request: FastifyRequest, eventId: string): Promise<SerializedBox | undefined> {
  const { view } = callerOf(deps, request);
  const seen = await eventById(deps, view, eventId);
  if (!seen) throw notFound('event', eventId);
  const status = seen.info.score?.event_status;
  if (status === undefined || !GAME_STARTED.has(status)) return undefined;
  const complete = status === 'STATUS_FINAL';
  const sport = sportProfile(seen.info.sport_id);
  requireStats(deps, request, {
    feature: complete ? 'completed_box_scores' : 'live_game_stats',
    currentSeason: sport !== undefined && seen.info.schedule.season_year === seasonYear(sport, deps.access?.time() ?? Date.now()),
  });
  // An archived event is the same for every plan: it is its own live state.
  const live: EventState = deps.views.forDelay(0).getEvent(eventId) ?? seen;
  const game = live.game;
  if (!game || game.version <= view.head) return deps.boxes.box(live, complete);
  return serializeBox(seen.info, foldStats(await deps.games.readStats(eventId, view.head)), complete);
}

export function send(reply: Parameters<typeof sendJson>[0], body: BoxBody) {
  reply.meter(body.values);
  return sendJson(reply, body.json);
}

export const statsIdsParam = Type.Optional(
  Type.String({ description: `comma-separated stat ids, at most ${MAX_STATS_IDS}; every stat when omitted` }),
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
        querystring: Type.Object({ stats_ids: statsIdsParam, team_id: Type.Optional(Type.String()) }),
        response: { 200: TeamGameStatsSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const statIds = parseIntList('stats_ids', request.query.stats_ids, MAX_STATS_IDS);
      const teamId = parseInteger('team_id', request.query.team_id, 1, Number.MAX_SAFE_INTEGER);
      const box = await boxFor(deps, request, request.params.eventID);
      if (!box) return send(reply, { json: '[]', values: 0 });
      const teams = teamId === undefined ? undefined : new Set([teamId]);
      return send(reply, boxBody(box.teams, teams, statIds && new Set(statIds)));
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
          player_ids: Type.Optional(Type.String({ description: `comma-separated player ids, at most ${MAX_PLAYER_IDS}` })),
        }),
        response: { 200: PlayerGameStatsSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const statIds = parseIntList('stats_ids', request.query.stats_ids, MAX_STATS_IDS);
      const playerIds = parseIntList('player_ids', request.query.player_ids, MAX_PLAYER_IDS);
      const box = await boxFor(deps, request, request.params.eventID);
      if (!box) return send(reply, { json: '[]', values: 0 });
      return send(reply, boxBody(box.players, playerIds && new Set(playerIds), statIds && new Set(statIds)));
    },
  );
}
