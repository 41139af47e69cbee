import type { Catalog } from '../catalog/catalog.ts';
import type { Static, TObject } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BoardView } from '../board/board-view.ts';
import { CursorError, type ChangeFeed } from '../board/change-feed.ts';
import { changedEvents } from '../board/changed-events.ts';
import { cursorToUuid, uuidToCursor } from '../domain/uuid-cursor.ts';
import type { ChangeRecord } from '../store/store.ts';
import { badRequest, quote } from '../projection/errors.ts';
import { parseInteger, sportFilter } from '../projection/params.ts';
import { callerOf, type RouteDeps, sendJson } from './route-kit.ts';
import { intParam, limitParam, queryParam } from '../projection/param-schemas.ts';
import fastJson from 'fast-json-stringify';
import { listOpen, type PageMeta, pageOpen } from '../perf/envelope-text.ts';
import { pick } from '../perf/switch.ts';
import { V2EventDeltaSchema } from './delta-schemas.ts';

/**
 * What the delta routes share: their cursor parameters, cursor errors as 400s, and the feed of changed
 * events behind a UUID cursor (/api/v2/delta, /api/v1/delta, /api/v1/deltaV2).
 */

export const EVENT_DELTA_LIMIT_DEFAULT = 100;
export const EVENT_DELTA_LIMIT_MAX = 500;

/** Runs a cursor read, turning the feed's refusal (too old, ahead of the head) into a 400. */
export async function withCursorErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof CursorError) throw badRequest(err.message);
    throw err;
  }
}

/** The UUID-cursor feeds' own parameters (each route adds what it needs, e.g. include). */
export const eventDeltaParams = {
  last_id: queryParam('UUID cursor from a previous response; 00000000-0000-0000-0000-000000000000 for the first'),
  sport_id: intParam('only this sport', 0, 1_000_000),
  limit: limitParam('events per response', EVENT_DELTA_LIMIT_DEFAULT, EVENT_DELTA_LIMIT_MAX),
};

export type EventDeltaQuery = Static<TObject<typeof eventDeltaParams>>;

export interface EventDeltaPage {
  /** The latest change of each changed event, in the order of those changes. */
  latest: ChangeRecord[];
  hasMore: boolean;
  /** meta.delta_last_id: the UUID cursor to continue from. */
  cursor: string;
}

/**
 * One page of the changed-events feed behind a UUID cursor, as `view` sees the log. Without last_id
 * the page is empty and its cursor is the newest change; a foreign UUID is a 400, and so is an integer
 * cursor (the markets delta's, an events snapshot's) unless `integerCursors` (V1's feed takes them).
 */
export async function eventDeltaPage(
  feed: ChangeFeed,
  catalog: Catalog,
  view: BoardView,
  q: EventDeltaQuery,
  path: string,
  integerCursors = false,
): Promise<EventDeltaPage> {
  const limit = parseInteger('limit', q.limit, 1, EVENT_DELTA_LIMIT_MAX) ?? EVENT_DELTA_LIMIT_DEFAULT;
  const sportId = sportFilter(catalog, q.sport_id);
  if (q.last_id === undefined || q.last_id === '') {
    const head = view.head;
    return { latest: [], hasMore: false, cursor: cursorToUuid(head, await feed.committedMsAt(head)) };
  }
  if (integerCursors && /^\d{1,16}$/.test(q.last_id)) {
    // The meta.delta_last_id of an events snapshot: the same log position as its UUID form.
    const afterId = await withCursorErrors(() => feed.resolveCursor(Number(q.last_id), view.head));
    return changedPage(feed, view, afterId, sportId, limit);
  }
  if (/^\d+$/.test(q.last_id)) {
    throw badRequest(
      `last_id must be a UUID cursor from ${path}; integer cursors belong to /api/v2/markets/delta. ` +
        `Call ${path} without last_id to get a first cursor`,
    );
  }
  const id = uuidToCursor(q.last_id);
  if (id === undefined) throw badRequest(`last_id is not a cursor of this feed: '${quote(q.last_id)}'`);
  const afterId = await withCursorErrors(() => feed.resolveCursor(id, view.head));
  return changedPage(feed, view, afterId, sportId, limit);
}

async function changedPage(
  feed: ChangeFeed,
  view: BoardView,
  afterId: number,
  sportId: number | undefined,
  limit: number,
): Promise<EventDeltaPage> {
  const { latest, lastId, hasMore } = await withCursorErrors(() =>
    changedEvents(feed, { afterId, sportId }, limit, view.head),
  );
  return { latest, hasMore, cursor: cursorToUuid(lastId, await feed.committedMsAt(lastId)) };
}

type EventDeltaItem = Static<typeof V2EventDeltaSchema>['deltas'][number];
const serializeEventDelta = fastJson(V2EventDeltaSchema);

/** The page up to its items: written by hand, or cut from the schema's serialiser. */
export const eventDeltaOpen: (meta: PageMeta) => string = pick(pageOpen('deltas'), (meta) =>
  listOpen(serializeEventDelta({ meta, deltas: [] })),
);

/** One item: JSON.stringify of its object, or the schema's serialiser of an item. */
export const eventDeltaItem: (item: EventDeltaItem) => string = pick(
  (item) => JSON.stringify(item),
  fastJson(V2EventDeltaSchema.properties.deltas.items),
);

/**
 * Answers a page of /api/v2/delta (served at `path`): each changed event as the events snapshot
 * shows it with default markets, within the caller's plan; each costs that event's snapshot points.
 */
export async function answerV2EventDelta(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  query: EventDeltaQuery,
  path: string,
): Promise<FastifyReply> {
  const { scope, view } = callerOf(deps, request);
  const { latest, hasMore, cursor } = await eventDeltaPage(deps.feed, deps.catalog, view, query, path);
  const items: string[] = [];
  let points = 0;
  for (const row of latest) {
    const state = view.getEvent(row.event_id);
    if (!state) continue;
    const filter = deps.queries.get('', {}, state.info.sport_id, scope);
    const serialised = deps.cache.event(state, filter.filter, filter.filterKey);
    points += serialised.points;
    items.push(
      eventDeltaItem({
        id: cursorToUuid(row.id, row.committed_ms),
        event_id: row.event_id,
        sport_id: row.sport_id,
        updated_at: new Date(row.committed_ms).toISOString(),
        json: serialised.body.toString('utf8'),
      }),
    );
  }
  reply.meter(points);
  const meta = { delta_last_id: cursor, count: items.length, has_more: hasMore, epoch: deps.feed.epoch };
  return sendJson(reply, `${eventDeltaOpen(meta)}${items.join(',')}]}`);
}
