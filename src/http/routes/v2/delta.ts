import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CursorError } from '../../../board/change-feed.ts';
import { sportProfile } from '../../../catalog/sports.ts';
import { cursorToUuid, uuidToCursor } from '../../../domain/uuid-cursor.ts';
import type { ChangeRecord } from '../../../store/store.ts';
import { boardFor, type RouteDeps, sendJson, sendParts } from '../../app.ts';
import { badRequest, notFound } from '../../errors.ts';
import { parseEventQuery, type Query } from '../../event-query.ts';
import { parseInteger, parseIntList } from '../../params.ts';
import { PageCache } from '../../page-cache.ts';
import { DeltaRowSchema, errorResponses } from '../../schemas.ts';

const opt = (description: string) => Type.Optional(Type.String({ description }));

export const DELTA_LIMIT_DEFAULT = 1000;
export const DELTA_LIMIT_MAX = 5000;
const EVENT_DELTA_LIMIT_DEFAULT = 100;
const EVENT_DELTA_LIMIT_MAX = 500;
/** Most change ids one /api/v2/delta response looks at; has_more tells the client to go on. */
const EVENT_DELTA_MAX_SCAN = 500_000;
const CLOSE = Buffer.from(']}');


function sportFilter(raw: string | undefined): number | undefined {
  const id = parseInteger('sport_id', raw, 0, 1_000_000);
  if (id !== undefined && !sportProfile(id)) throw notFound(`sport ${id}`);
  return id;
}

function withCursorErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof CursorError) throw badRequest(err.message);
    throw err;
  }
}

/** The two cursor-driven feeds: price rows by integer id, changed events by UUIDv7. */
export async function deltaRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { feed, cache } = deps;
  const pages = new PageCache();

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
            last_id: opt('integer cursor (required; 0 for an initial fetch)'),
            sport_id: opt('only this sport'),
            affiliate_ids: opt('comma-separated affiliate ids'),
            market_ids: opt('comma-separated market ids, matched literally'),
            event_id: opt('only this event'),
            limit: opt(`rows per response, default ${DELTA_LIMIT_DEFAULT}, at most ${DELTA_LIMIT_MAX}`),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({
            meta: Type.Object({
              delta_last_id: Type.String(),
              count: Type.Integer(),
              has_more: Type.Boolean(),
            }),
            deltas: Type.Array(DeltaRowSchema),
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const q = request.query as Query;
      if (q.last_id === undefined || q.last_id === '') {
        throw badRequest(
          'last_id is required: the meta.delta_last_id of an events snapshot, or 0 for an initial fetch',
        );
      }
      if (!/^\d{1,16}$/.test(q.last_id))
        throw badRequest(`last_id must be a non-negative integer, got '${q.last_id}'`);
      const limit = parseInteger('limit', q.limit, 1, DELTA_LIMIT_MAX) ?? DELTA_LIMIT_DEFAULT;
      const sportId = sportFilter(q.sport_id);
      const affiliateIds = parseIntList('affiliate_ids', q.affiliate_ids, 100);
      const marketIds = parseIntList('market_ids', q.market_ids, 100);
      const eventId = q.event_id || undefined;
      if (eventId !== undefined && !deps.board.getEvent(eventId)) throw notFound(`event ${eventId}`);
      // A delayed plan sees the log only as far as its delayed board has come.
      const visible = boardFor(deps, request.account).head;
      const afterId = withCursorErrors(() => feed.resolveCursor(Number(q.last_id), visible));
      const key = `${afterId}|${limit}|${sportId}|${eventId}|${affiliateIds}|${marketIds}`;
      // A full page never changes; the last page holds until the next commit, hence the head in its key.
      const page = pages.get(key, visible) ?? pages.get(`${key}|${visible}`, visible);
      if (page) {
        reply.meter(page.points);
        return sendParts(reply, page.parts);
      }
      const read = feed.readPayloadPage(
        { afterId, sportId, eventId, affiliateIds, marketIds },
        limit,
        visible,
      );
      const parts = [
        Buffer.from(
          `{"meta":{"delta_last_id":"${read.lastId}","count":${read.count},"has_more":${read.hasMore}},"deltas":[`,
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
      return sendParts(reply, parts);
    },
  );

  app.get(
    '/api/v2/delta',
    {
      config: { v1Plans: true },
      schema: {
        summary: 'Events changed since a UUID cursor, each with its full update',
        description:
          'last_id is a UUIDv7 cursor from a previous response; without last_id the response carries no items ' +
          'and a cursor at the newest change, which is how a client gets its first cursor. Integer cursors ' +
          '(those of /api/v2/markets/delta and of events snapshots) are rejected.',
        tags: ['delta'],
        querystring: Type.Object(
          {
            last_id: opt('UUID cursor from a previous /api/v2/delta response'),
            sport_id: opt('only this sport'),
            limit: opt(
              `events per response, default ${EVENT_DELTA_LIMIT_DEFAULT}, at most ${EVENT_DELTA_LIMIT_MAX}`,
            ),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({
            meta: Type.Object({
              delta_last_id: Type.String(),
              count: Type.Integer(),
              has_more: Type.Boolean(),
            }),
            deltas: Type.Array(
              Type.Object({
                id: Type.String({
                  description: 'UUIDv7 of the event’s latest change in this page',
                }),
                event_id: Type.String(),
                sport_id: Type.Integer(),
                updated_at: Type.String(),
                json: Type.String({
                  description: 'the full event (events snapshot shape) as a JSON string',
                }),
              }),
            ),
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const q = request.query as Query;
      const limit = parseInteger('limit', q.limit, 1, EVENT_DELTA_LIMIT_MAX) ?? EVENT_DELTA_LIMIT_DEFAULT;
      const sportId = sportFilter(q.sport_id);
      const board = boardFor(deps, request.account);
      if (q.last_id === undefined || q.last_id === '') {
        const head = board.head;
        const cursor = cursorToUuid(head, feed.committedMsAt(head));
        return sendJson(
          reply,
          `{"meta":{"delta_last_id":"${cursor}","count":0,"has_more":false},"deltas":[]}`,
        );
      }
      if (/^\d+$/.test(q.last_id)) {
        throw badRequest(
          'last_id must be a UUID cursor from /api/v2/delta; integer cursors belong to /api/v2/markets/delta. ' +
            'Call /api/v2/delta without last_id to get a first cursor',
        );
      }
      const id = uuidToCursor(q.last_id);
      if (id === undefined)
        throw badRequest(`last_id is not a cursor of this feed: '${q.last_id.slice(0, 40)}'`);
      let afterId = withCursorErrors(() => feed.resolveCursor(id, board.head));
      const scanEnd = afterId + EVENT_DELTA_MAX_SCAN;

      // Latest change per event, in order of that change, stopping before a (limit + 1)th event.
      const latest = new Map<string, ChangeRecord>();
      let lastId = afterId;
      let hasMore = false;
      scan: for (;;) {
        const read = feed.read({ pricesOnly: false, afterId, sportId }, 5000, board.head);
        for (const row of read.rows) {
          if (!latest.has(row.event_id) && latest.size === limit) {
            hasMore = true;
            break scan;
          }
          latest.delete(row.event_id);
          latest.set(row.event_id, row);
          lastId = row.id;
        }
        lastId = read.lastId;
        afterId = read.lastId;
        if (!read.hasMore) break;
        if (afterId >= scanEnd) {
          hasMore = true;
          break;
        }
      }
      const items: string[] = [];
      let points = 0;
      for (const row of latest.values()) {
        const state = board.getEvent(row.event_id);
        if (!state) continue;
        const filter = parseEventQuery({}, state.info.sport_id, request.account);
        const view = cache.event(state, filter.filter, filter.filterKey);
        points += view.points;
        const json = view.json;
        items.push(
          JSON.stringify({
            id: cursorToUuid(row.id, row.committed_ms),
            event_id: row.event_id,
            sport_id: row.sport_id,
            updated_at: new Date(row.committed_ms).toISOString(),
            json,
          }),
        );
      }
      const cursor = cursorToUuid(lastId, feed.committedMsAt(lastId));
      reply.meter(points);
      return sendJson(
        reply,
        `{"meta":{"delta_last_id":"${cursor}","count":${items.length},"has_more":${hasMore}},` +
          `"deltas":[${items.join(',')}]}`,
      );
    },
  );
}
