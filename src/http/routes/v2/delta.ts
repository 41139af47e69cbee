import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { answerV2EventDelta, eventDeltaParams, withCursorErrors } from '../../delta-kit.ts';
import { MarketsDeltaSchema, V2EventDeltaSchema } from '../../delta-schemas.ts';
import { badRequest, notFound, quote } from '../../../projection/errors.ts';
import { parseInteger, parseIntList, sportFilter } from '../../../projection/params.ts';
import { PageCache } from '../../page-cache.ts';
import { callerOf, type RouteDeps, sendParts, turnsWhileAsked } from '../../route-kit.ts';
import { errorResponses } from '../../../projection/schemas.ts';
import { intListParam, intParam, limitParam, queryParam } from '../../../projection/param-schemas.ts';
import fastJson from 'fast-json-stringify';
import { listOpen, type PageMeta, pageOpen } from '../../../perf/envelope-text.ts';
import { pick } from '../../../perf/switch.ts';

export const DELTA_LIMIT_DEFAULT = 1000;
export const DELTA_LIMIT_MAX = 5000;
const CLOSE = Buffer.from(']}');

const serializeMarketsDelta = fastJson(MarketsDeltaSchema);

/** The page up to its rows: written by hand, or cut from the schema's serialiser. */
export const marketsDeltaOpen: (meta: PageMeta) => string = pick(pageOpen('deltas'), (meta) =>
  listOpen(serializeMarketsDelta({ meta, deltas: [] })),
);

/** The two cursor-driven feeds: price rows by integer id, changed events by UUIDv7. */
export async function deltaRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { feed } = deps;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const pages = new PageCache(deps.budget);

  app.get(
    '/api/v2/markets/delta',
    {
      config: { v1Plans: true },
      schema: {
        summary: 'Price changes since an integer cursor',
        description:
          'Bootstrap last_id from the meta.delta_last_id of an events snapshot (0 starts at the oldest retained ' +
          'row); store each response’s meta.delta_last_id for the next poll and page while has_more is true. ' +
          'market_ids are matched literally: add 41,42,43 for full-game live prices.',
        tags: ['delta'],
        querystring: Type.Object(
          {
            last_id: intParam('integer cursor (0 for an initial fetch)', 0, Number.MAX_SAFE_INTEGER, {
              required: true,
            }),
            sport_id: intParam('only this sport', 0, 1_000_000),
            affiliate_ids: intListParam('comma-separated affiliate ids, at most 100', 100),
            market_ids: intListParam('comma-separated market ids, matched literally, at most 100', 100),
            event_id: queryParam('only this event'),
            limit: limitParam('rows per response', DELTA_LIMIT_DEFAULT, DELTA_LIMIT_MAX),
          },
          { additionalProperties: true },
        ),
        response: {
          200: MarketsDeltaSchema,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      if (q.last_id === undefined || q.last_id === '') {
        throw badRequest(
          'last_id is required: the meta.delta_last_id of an events snapshot, or 0 for an initial fetch',
        );
      }
      if (!/^\d{1,16}$/.test(q.last_id))
        throw badRequest(`last_id must be a non-negative integer, got '${quote(q.last_id)}'`);
      const limit = parseInteger('limit', q.limit, 1, DELTA_LIMIT_MAX) ?? DELTA_LIMIT_DEFAULT;
      const sportId = sportFilter(deps.catalog, q.sport_id);
      const { scope, view } = callerOf(deps, request);
      // Plan coverage narrows the filters: a book, market or period outside it is never read.
      const books = scope.booksFor(parseIntList('affiliate_ids', q.affiliate_ids, 100));
      const affiliateIds = books ? [...books].sort((a, b) => a - b) : undefined;
      const marketIds = scope.marketIdsFor(parseIntList('market_ids', q.market_ids, 100));
      const periodIds = scope.periods ? [...scope.periods].sort((a, b) => a - b) : undefined;
      const eventId = q.event_id || undefined;
      if (eventId !== undefined && !view.getEvent(eventId)) throw notFound('event', eventId);
      // A delayed plan sees the log only as far as its delayed view has come.
      const visible = view.head;
      const lastId = q.last_id;
      const afterId = await withCursorErrors(() => feed.resolveCursor(Number(lastId), visible));
      const key = `${afterId}|${limit}|${sportId}|${eventId}|${affiliateIds}|${marketIds}|${periodIds}`;
      // A full page never changes; the last page holds until the next commit, hence the head in its key.
      const page = pages.get(key, visible) ?? pages.get(`${key}|${visible}`, visible);
      if (page) {
        reply.meter(page.points);
        return sendParts(reply, page.parts, () => deps.turns.next('started'));
      }
      const read = await withCursorErrors(() =>
        feed.readPayloadPage(
          { afterId, sportId, eventId, affiliateIds, marketIds, periodIds },
          limit,
          visible,
          turnsWhileAsked(deps, request),
        ),
      );
      const parts = [
        Buffer.from(
          marketsDeltaOpen({
            delta_last_id: String(read.lastId),
            count: read.count,
            has_more: read.hasMore,
            epoch: feed.epoch,
          }),
        ),
        ...read.parts,
        CLOSE,
      ];
      // Pages read from memory are slices of the feed's buffers and cheap to read again; keeping
      // them would hold those buffers past their time.
      if (read.fromStore) {
        const full = read.hasMore && read.count === limit;
        pages.set(full ? key : `${key}|${visible}`, parts, read.lastId, read.count);
      }
      // One odds point per delivered row.
      reply.meter(read.count);
      return sendParts(reply, parts, () => deps.turns.next('started'), read.release);
    },
  );

  app.get(
    '/api/v2/delta',
    {
      config: { v1Plans: true },
      schema: {
        summary: 'Events changed since a UUID cursor, each with its full update',
        description:
          'last_id is a UUIDv7 cursor from a previous response, or the nil UUID ' +
          '00000000-0000-0000-0000-000000000000 to start at the oldest change the feed keeps; without last_id ' +
          'the response carries no items and a cursor at the newest change. Integer cursors (those of ' +
          '/api/v2/markets/delta and of events snapshots) are rejected.',
        tags: ['delta'],
        querystring: Type.Object(eventDeltaParams, { additionalProperties: true }),
        response: {
          200: V2EventDeltaSchema,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => answerV2EventDelta(deps, request, reply, request.query, '/api/v2/delta'),
  );
}
