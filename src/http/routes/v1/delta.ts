import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { BoardView } from '../../../board/board-view.ts';
import { changedEvents } from '../../../board/changed-events.ts';
import type { ChangeRecord } from '../../../store/store.ts';
import {
  answerV2EventDelta,
  EVENT_DELTA_LIMIT_DEFAULT,
  EVENT_DELTA_LIMIT_MAX,
  eventDeltaPage,
  eventDeltaParams,
  withCursorErrors,
} from '../../delta-kit.ts';
import { V1DeltaSchema, V2EventDeltaSchema } from '../../delta-schemas.ts';
import { badRequest, quote } from '../../../projection/errors.ts';
import { parseInteger, parseSportId } from '../../../projection/params.ts';
import { joinJson } from '../../../projection/json-bytes.ts';
import { callerOf, sendJson, type V1Deps } from '../../route-kit.ts';
import { type V1Filter, V1EventQuerySchema } from '../../../projection/v1-event.ts';
import { v1ErrorResponses } from '../../../projection/v1-schemas.ts';
import { intParam, limitParam, intPathParam } from '../../../projection/param-schemas.ts';
import fastJson from 'fast-json-stringify';
import { listOpen, type PageMeta, pageOpen } from '../../../perf/envelope-text.ts';
import { pick } from '../../../perf/switch.ts';

const serializeV1Delta = fastJson(V1DeltaSchema);

/** The envelope up to its events: written by hand, or cut from the schema's serialiser. */
export const v1DeltaOpen: (meta: PageMeta) => string = pick(pageOpen('events'), (meta) =>
  listOpen(serializeV1Delta({ meta, events: [] })),
);

const viewParams = {
  include: V1EventQuerySchema.properties.include,
  affiliate_ids: V1EventQuerySchema.properties.affiliate_ids,
};

/** Feeds of changed events as full V1 events, and the V2 event feed through the V1 path. */
export async function v1DeltaRoutes(fastify: FastifyInstance, deps: V1Deps): Promise<void> {
  const { feed, v1Cache } = deps;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['v1'];

  /** Answers the page: each event as the V1 snapshot shows it now, at its snapshot cost. */
  const answer = (
    reply: FastifyReply,
    view: BoardView,
    f: V1Filter,
    latest: readonly ChangeRecord[],
    cursor: string,
    hasMore: boolean,
  ) => {
    const items: Buffer[] = [];
    let points = 0;
    for (const row of latest) {
      const state = view.getEvent(row.event_id);
      if (!state) continue;
      const serialised = v1Cache.event(state, f);
      items.push(serialised.body);
      points += serialised.points;
    }
    reply.meter(points);
    const open = v1DeltaOpen({ delta_last_id: cursor, count: items.length, has_more: hasMore, epoch: feed.epoch });
    return sendJson(reply, joinJson(open, items, ']}'));
  };

  app.get(
    '/sports/:sportID/events/delta',
    {
      schema: {
        summary: 'V1: events of a sport changed since an integer cursor, as full V1 events',
        description:
          'last_id is the meta.delta_last_id of a V1 events snapshot or of the previous response (0 starts at the ' +
          'oldest retained change); the same cursor as /api/v2/markets/delta. Page while has_more is true.',
        tags,
        params: Type.Object({ sportID: intPathParam() }),
        querystring: Type.Object(
          {
            last_id: intParam('integer cursor', 0, Number.MAX_SAFE_INTEGER, { required: true }),
            limit: limitParam('events per response', EVENT_DELTA_LIMIT_DEFAULT, EVENT_DELTA_LIMIT_MAX),
            ...viewParams,
          },
          { additionalProperties: true },
        ),
        response: { 200: V1DeltaSchema, ...v1ErrorResponses },
      },
    },
    async (request, reply) => {
      const sportId = parseSportId(deps.catalog, request.params.sportID);
      const q = request.query;
      if (q.last_id === undefined || q.last_id === '') {
        throw badRequest('last_id is required: the meta.delta_last_id of a V1 events snapshot, or 0');
      }
      if (!/^\d{1,16}$/.test(q.last_id)) {
        throw badRequest(`last_id must be a non-negative integer, got '${quote(q.last_id)}'`);
      }
      const limit = parseInteger('limit', q.limit, 1, EVENT_DELTA_LIMIT_MAX) ?? EVENT_DELTA_LIMIT_DEFAULT;
      const { scope, view } = callerOf(deps, request);
      const f = deps.v1Filters.get(scope, q);
      const afterId = await withCursorErrors(() => feed.resolveCursor(Number(q.last_id), view.head));
      const { latest, lastId, hasMore } = await withCursorErrors(() =>
        changedEvents(feed, { afterId, sportId }, limit, view.head),
      );
      return answer(reply, view, f, latest, String(lastId), hasMore);
    },
  );

  app.get(
    '/delta',
    {
      schema: {
        summary: 'V1: events changed since a UUID cursor, as full V1 events',
        description:
          'The cursor of /api/v2/delta: the nil UUID 00000000-0000-0000-0000-000000000000 starts at the oldest ' +
          'retained change; without last_id the response is empty with a cursor at the newest change. The ' +
          'meta.delta_last_id (an integer) of any V1 events response is taken too; the next cursor is a UUID.',
        tags,
        querystring: Type.Object({ ...eventDeltaParams, ...viewParams }, { additionalProperties: true }),
        response: { 200: V1DeltaSchema, ...v1ErrorResponses },
      },
    },
    async (request, reply) => {
      const { scope, view } = callerOf(deps, request);
      const f = deps.v1Filters.get(scope, request.query);
      const page = await eventDeltaPage(feed, deps.catalog, view, request.query, '/api/v1/delta', true);
      return answer(reply, view, f, page.latest, page.cursor, page.hasMore);
    },
  );

  app.get(
    '/deltaV2',
    {
      schema: {
        summary: 'V1 path to /api/v2/delta: changed events in the V2 format',
        description: 'The same cursor, parameters and body as /api/v2/delta.',
        tags,
        querystring: Type.Object(eventDeltaParams, { additionalProperties: true }),
        response: { 200: V2EventDeltaSchema, ...v1ErrorResponses },
      },
    },
    async (request, reply) => answerV2EventDelta(deps, request, reply, request.query, '/api/v1/deltaV2'),
  );
}
