import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { lowestTierWith, upgradeMessage } from '../../../access/entitlements.ts';
import type { PlanScope } from '../../../access/plan-scope.ts';
import { boardMatches, type FuturesFilter, viewFutures } from '../../../board/futures-view.ts';
import type { FuturesBoardState } from '../../../board/futures.ts';
import type { FuturesBoardView } from '../../../domain/futures.ts';
import { badRequest, forbidden, notFound, quote } from '../../../projection/errors.ts';
import {
  MAX_MARKET_IDS,
  dayWindow,
  parseBoolean,
  parseDate,
  parseInteger,
  parseIntList,
  parseMarketIds,
  parseOffset,
  parseSportId,
} from '../../../projection/params.ts';
import { callerOf, type RouteDeps } from '../../route-kit.ts';
import { errorResponses } from '../../../projection/schemas.ts';
import {
  boolParam,
  dateParam,
  intListParam,
  limitParam,
  intPathParam,
  offsetParam,
  queryParam,
} from '../../../projection/param-schemas.ts';
import { BoardSchema, FuturesListSchema, ListedBoardSchema } from '../../futures-schemas.ts';

export const FUTURES_LIMIT_DEFAULT = 20;
export const FUTURES_LIMIT_MAX = 100;

type ListedBoard = Static<typeof ListedBoardSchema>;

function listed(board: FuturesBoardView): ListedBoard {
  const settlement: ListedBoard['settlement'] = {};
  for (const m of board.markets) settlement[m.market_id] = board.settlement;
  return {
    ...board,
    event_date: board.starts_at,
    settle_by: board.ends_at,
    schedule: { event_name: board.name, season_year: board.season_year },
    settlement,
  };
}

/** A page cursor: the last board's place in the order (ends_at, then event_id). */
const cursorOf = (b: { ends_at: string; event_id: string }) =>
  Buffer.from(`${b.ends_at}|${b.event_id}`).toString('base64url');

function parseCursor(raw: string | undefined): { endsAt: string; eventId: string } | undefined {
  if (raw === undefined || raw === '') return undefined;
  const [endsAt, eventId, ...rest] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (!endsAt || !eventId || rest.length > 0) throw badRequest(`cursor is not a futures cursor: '${quote(raw)}'`);
  return { endsAt, eventId };
}

const forbiddenResponse = {
  403: Type.Object({ error: Type.String(), upgrade_url: Type.String() }, { additionalProperties: true }),
};

const filterParams = {
  market_ids: intListParam(
    'comma-separated market ids, at most 12: 1141, the winner market of every board',
    MAX_MARKET_IDS,
  ),
  affiliate_ids: intListParam('comma-separated affiliate ids; default every book the plan covers'),
};

/** 403 below the futures entitlement (Ultra and above). */
function checkEntitled(scope: PlanScope): void {
  if (!scope.futures) {
    throw forbidden(
      upgradeMessage(
        'Futures markets',
        lowestTierWith((e) => e.futures),
        true,
      ),
      { feature: 'futures' },
    );
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
          'settled and void ones; date (with offset, minutes) keeps the boards running on that day. Page with ' +
          'cursor = meta.next_cursor. Each price costs one data point, each board one more.',
        tags,
        params: Type.Object({ sportID: intPathParam() }),
        querystring: Type.Object(
          {
            ...filterParams,
            include_settled: boolParam('true adds settled and void boards (default false)'),
            limit: limitParam('boards per response', FUTURES_LIMIT_DEFAULT, FUTURES_LIMIT_MAX),
            cursor: queryParam('meta.next_cursor of the previous page'),
            date: dateParam('YYYY-MM-DD: only boards running on that day'),
            offset: offsetParam('minutes that shift the day boundary of date; default 0'),
          },
          { additionalProperties: true },
        ),
        response: {
          200: FuturesListSchema,
          ...errorResponses,
          ...forbiddenResponse,
        },
      },
    },
    async (request, reply) => {
      const sportId = parseSportId(deps.catalog, request.params.sportID);
      const { scope, view } = callerOf(deps, request);
      checkEntitled(scope);
      const q = request.query;
      const filter = parseFilter(scope, q);
      const limit = parseInteger('limit', q.limit, 1, FUTURES_LIMIT_MAX) ?? FUTURES_LIMIT_DEFAULT;
      const after = parseCursor(q.cursor);
      const offset = parseOffset(q.offset);
      const day = q.date !== undefined && q.date !== '' ? dayWindow(parseDate(q.date), offset) : undefined;
      const settled = parseBoolean('include_settled', q.include_settled, false);
      const running = (b: FuturesBoardState) =>
        !day || (Date.parse(b.header.starts_at) < day[1] && Date.parse(b.header.ends_at) >= day[0]);
      const matching = view
        .futuresOfSport(sportId)
        .filter((b) => (settled || b.settlement.state === 'open') && boardMatches(b, filter) && running(b));
      // Boards come ordered by ends_at, then event_id: a page starts after the cursor's place.
      const start = after
        ? matching.findIndex((b) => {
            const { ends_at, event_id } = b.header;
            return ends_at > after.endsAt || (ends_at === after.endsAt && event_id > after.eventId);
          })
        : 0;
      const page = start < 0 ? [] : matching.slice(start, start + limit);
      let prices = 0;
      const events = page.map((b) => {
        const v = viewFutures(b, filter);
        prices += v.prices;
        return listed(v.board);
      });
      const more = start >= 0 && start + limit < matching.length;
      meter(reply, events.length, prices);
      return {
        meta: {
          sport_id: sportId,
          count: events.length,
          total: matching.length,
          limit,
          next_cursor: more ? cursorOf(page[page.length - 1]!.header) : null,
        },
        events,
      };
    },
  );

  app.get(
    '/api/v2/sports/:sportID/futures/:eventID',
    {
      schema: {
        summary: 'One futures board, open or decided',
        description: 'Ultra tier and above. The board of /api/v2/sports/{sportID}/futures, by its event_id.',
        tags,
        params: Type.Object({ sportID: intPathParam(), eventID: Type.String() }),
        querystring: Type.Object(filterParams, { additionalProperties: true }),
        response: { 200: BoardSchema, ...errorResponses, ...forbiddenResponse },
      },
    },
    async (request, reply) => {
      const sportId = parseSportId(deps.catalog, request.params.sportID);
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
