import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { lowestTierWith, upgradeMessage } from '../../../access/entitlements.ts';
import type { PlanScope } from '../../../access/plan-scope.ts';
import { boardMatches, type FuturesFilter, viewFutures } from '../../../board/futures-view.ts';
import { FUTURES_STATES } from '../../../domain/futures.ts';
import { PARTICIPANT_TYPES } from '../../../domain/types.ts';
import { forbidden, notFound } from '../../errors.ts';
import { parseBoolean, parseInteger, parseIntList, parseMarketIds, parseSportId } from '../../params.ts';
import { callerOf, type RouteDeps } from '../../route-kit.ts';
import { errorResponses, queryParam } from '../../schemas.ts';

export const FUTURES_LIMIT_DEFAULT = 20;
export const FUTURES_LIMIT_MAX = 100;
const OFFSET_MAX = 10_000;

const PriceSchema = Type.Object({
  affiliate_id: Type.Integer(),
  price: Type.Integer({ description: 'American odds' }),
  price_delta: Type.Number(),
  updated_at: Type.String(),
  closed_at: Type.String({ description: "'' while active; the settlement time once decided" }),
});

const BoardSchema = Type.Object({
  event_id: Type.String(),
  sport_id: Type.Integer(),
  name: Type.String(),
  season_year: Type.Integer(),
  starts_at: Type.String(),
  ends_at: Type.String(),
  updated_at: Type.String(),
  settlement: Type.Object({
    state: Type.Union(FUTURES_STATES.map((s) => Type.Literal(s))),
    winner_participant_id: Type.Union([Type.Integer(), Type.Null()]),
    settled_at: Type.String(),
  }),
  markets: Type.Array(
    Type.Object({
      market_id: Type.Integer(),
      name: Type.String(),
      participants: Type.Array(
        Type.Object({
          id: Type.Integer(),
          name: Type.String(),
          type: Type.Union(PARTICIPANT_TYPES.map((t) => Type.Literal(t))),
          team_id: Type.Optional(Type.Integer()),
          prices: Type.Record(Type.String(), PriceSchema, { description: 'keyed by affiliate id' }),
        }),
      ),
    }),
  ),
});

const forbiddenResponse = { 403: Type.Object({ error: Type.String(), upgrade_url: Type.String() }, { additionalProperties: true }) };

const filterParams = {
  market_ids: queryParam('comma-separated market ids, at most 12: 1140 championship winner, 1141 tournament winner'),
  affiliate_ids: queryParam('comma-separated affiliate ids; default every book the plan covers'),
};

/** 403 below the futures entitlement (Ultra and above). */
function checkEntitled(scope: PlanScope): void {
  if (!scope.futures) {
    throw forbidden(upgradeMessage('Futures', lowestTierWith((e) => e.futures)));
  }
}

function parseFilter(scope: PlanScope, q: { market_ids?: string; affiliate_ids?: string }): FuturesFilter {
  const markets = parseMarketIds(q.market_ids);
  return {
    marketIds: markets ? new Set(markets) : null,
    affiliateIds: scope.booksFor(parseIntList('affiliate_ids', q.affiliate_ids)),
  };
}

/** One events point per board and one odds point per returned price, as the events routes meter. */
const meter = (reply: FastifyReply, boards: number, prices: number) => reply.meter(boards + prices);

/** Futures boards per sport: served from the board to plans with the futures entitlement. */
export async function futuresRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['futures'];

  app.get(
    '/api/v2/sports/:sportID/futures',
    {
      schema: {
        summary: 'Futures boards of a sport: championship and tournament winners with prices per book',
        description:
          'Ultra tier and above. Open boards by default, the soonest decided first; include_settled=true adds ' +
          'settled and void ones. Each price costs one data point, each board one more.',
        tags,
        params: Type.Object({ sportID: Type.String() }),
        querystring: Type.Object(
          {
            ...filterParams,
            include_settled: queryParam('true adds settled and void boards (default false)'),
            limit: queryParam(`boards per response, default ${FUTURES_LIMIT_DEFAULT}, at most ${FUTURES_LIMIT_MAX}`),
            offset: queryParam(`boards to skip, at most ${OFFSET_MAX}`),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({
            meta: Type.Object({
              sport_id: Type.Integer(),
              count: Type.Integer(),
              total: Type.Integer({ description: 'boards matching the request before limit and offset' }),
              limit: Type.Integer(),
              offset: Type.Integer(),
            }),
            futures: Type.Array(BoardSchema),
          }),
          ...errorResponses,
          ...forbiddenResponse,
        },
      },
    },
    async (request, reply) => {
      const sportId = parseSportId(request.params.sportID);
      const { scope, view } = callerOf(deps, request);
      checkEntitled(scope);
      const q = request.query;
      const filter = parseFilter(scope, q);
      const limit = parseInteger('limit', q.limit, 1, FUTURES_LIMIT_MAX) ?? FUTURES_LIMIT_DEFAULT;
      const offset = parseInteger('offset', q.offset, 0, OFFSET_MAX) ?? 0;
      const settled = parseBoolean('include_settled', q.include_settled, false);
      const matching = view
        .futuresOfSport(sportId)
        .filter((b) => (settled || b.settlement.state === 'open') && boardMatches(b, filter));
      let prices = 0;
      const futures = matching.slice(offset, offset + limit).map((b) => {
        const v = viewFutures(b, filter);
        prices += v.prices;
        return v.board;
      });
      meter(reply, futures.length, prices);
      return { meta: { sport_id: sportId, count: futures.length, total: matching.length, limit, offset }, futures };
    },
  );

  app.get(
    '/api/v2/sports/:sportID/futures/:eventID',
    {
      schema: {
        summary: 'One futures board, open or decided',
        description: 'Ultra tier and above. The board of /api/v2/sports/{sportID}/futures, by its event_id.',
        tags,
        params: Type.Object({ sportID: Type.String(), eventID: Type.String() }),
        querystring: Type.Object(filterParams, { additionalProperties: true }),
        response: { 200: BoardSchema, ...errorResponses, ...forbiddenResponse },
      },
    },
    async (request, reply) => {
      const sportId = parseSportId(request.params.sportID);
      const { scope, view } = callerOf(deps, request);
      checkEntitled(scope);
      const filter = parseFilter(scope, request.query);
      const eventId = request.params.eventID;
      const state = view.getFutures(eventId);
      if (!state || state.header.sport_id !== sportId) throw notFound('futures event', eventId);
      const v = viewFutures(state, filter);
      meter(reply, 1, v.prices);
      return v.board;
    },
  );
}
