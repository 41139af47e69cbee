import type { Catalog } from '../catalog/catalog.ts';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl } from '../access/access-control.ts';
import { countText } from '../access/count-text.ts';
import { type PlanScope, scopeOf } from '../access/plan-scope.ts';
import type { StatsRequest } from '../access/stats-policy.ts';
import type { ArchivedEvents } from '../board/archived-events.ts';
import type { EventState } from '../board/event-state.ts';
import type { BoardView } from '../board/board-view.ts';
import type { ChangeFeed } from '../board/change-feed.ts';
import type { DelayedViews } from '../board/delayed-views.ts';
import type { LogFloor } from '../board/log-floor.ts';
import type { HeldSeasons } from '../board/season-records.ts';
import type { HistoryStore } from '../store/history.ts';
import type { Store } from '../store/store.ts';
import type { BoxCache, KeptStatsAnswer, KeptStatsAnswers, Standing } from './box-score.ts';
import type { ByteBudget } from '../perf/byte-budget.ts';
import { acceptsGzip, matchesEtag, VARY } from './encoding.ts';
import { ClientGone } from '../projection/errors.ts';
import { applyRule, historyWindow, rulesOf, statsPolicy } from './caller-rules.ts';
import type { EventQueryCache } from '../projection/event-query.ts';
import type { V1EventCache, V1FilterCache } from '../projection/v1-event.ts';
import type { Envelope } from './events-envelope.ts';
import type { FastLane, LaneEntry } from './fast-lane.ts';
import type { SeasonStatsCache } from './season-stats.ts';
import { countHeldBody } from './send-guard.ts';
import type { KeptAnswer, SnapshotCache } from './snapshot-cache.ts';
import type { TurnRank, Turns } from '../perf/turns.ts';

/**
 * What route plugins share: the narrow set of services they read (never the server), and the
 * helpers every route uses to apply the caller's plan. Routes import this, not the app, so the app
 * can import the routes without a cycle.
 */
export interface RouteDeps {
  access?: AccessControl;
  /** Repeated polls answered before routing: routes that answer from a kept body register there. */
  lane?: FastLane;
  /** Expensive builds take turns of the event loop, so cheap answers never wait behind many. */
  turns: Turns;
  /** The board each plan sees: the live one, or a view held back by the plan's data delay. */
  views: DelayedViews;
  /** The current catalog: reference data is served as it is now, to every plan. */
  catalog: Catalog;
  feed: ChangeFeed;
  history: HistoryStore;
  games: GameReads;
  /** Serialised box scores, per event and change of its box. */
  boxes: BoxCache;
  /** Season aggregates a source published, by the version a view's head shows. */
  seasonRecords: HeldSeasons;
  /** Serialised season aggregates, per team, season and change of the boxes they sum. */
  seasons: SeasonStatsCache;
  cache: SnapshotCache;
  /** Parsed event-route query strings, per plan. */
  queries: EventQueryCache;
  /** The bytes every cache draws from; routes that keep their own caches charge them here. */
  budget: ByteBudget;
  /** Events that left the board, read from the store by id. */
  archive: ArchivedEvents;
  /** How far back the log is whole (retention): history reads start no earlier. */
  floor: LogFloor;
}

/** What the V1 routes share: the route dependencies, the serialised V1 events and the parsed filters. */
export interface V1Deps extends RouteDeps {
  v1Cache: V1EventCache;
  v1Filters: V1FilterCache;
}

/**
 * An event by id as the caller's view shows it, or, once it has left the board (archived after it
 * was over), as the store kept it: the reads by id (event, openers, closing, box scores, plays) go on.
 */
export async function eventById(deps: RouteDeps, view: BoardView, eventId: string): Promise<EventState | undefined> {
  return view.getEvent(eventId) ?? (await deps.archive.get(eventId));
}

/** What the stats and plays routes read from the store. */
export type GameReads = Pick<Store, 'readPlays' | 'readStats'>;

/** What the caller may see, and the board view it reads: every route starts here. */
export interface Caller {
  scope: PlanScope;
  view: BoardView;
}

export function callerOf(deps: RouteDeps, request: FastifyRequest): Caller {
  const scope = scopeOf(request.account, deps.catalog);
  return { scope, view: deps.views.forDelay(scope.delaySeconds) };
}

/** The server's clock: the access layer's, which tests inject. */
export function nowOf(deps: RouteDeps): number {
  return deps.access?.time() ?? Date.now();
}

/** A day of the clock: the current season and the default year may turn with it. */
const DAY_MS = 86_400_000;

/** Where `view`, the live board, the day and the catalog stand now: what a kept stats answer is current for. */
export function standing(deps: RouteDeps, view: BoardView): Standing {
  return {
    head: view.head,
    liveHead: deps.views.forDelay(0).head,
    day: Math.floor(nowOf(deps) / DAY_MS),
    catalog: deps.catalog.version,
  };
}

/**
 * How the fast lane answers a stats URL again: the answer kept under `key` while it is current for
 * the views and the day (the lane asks the rules it was given under). Made here, not in a handler,
 * so the function keeps no request alive.
 */
export function keptStatsLane<T extends KeptStatsAnswer>(
  deps: RouteDeps,
  answers: KeptStatsAnswers<T>,
  key: string,
  delay: number,
): LaneEntry['answer'] {
  return () => answers.get(key, standing(deps, deps.views.forDelay(delay)))?.lane;
}

/** Sends bytes that are already JSON (cached or concatenated) without serialising them again. */
export function sendJson(reply: FastifyReply, body: string | Buffer): FastifyReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(body);
}

/**
 * Sends JSON made of several buffers (a page of the change log between its envelope) without
 * copying them into one: a 2 MB copy costs more than the rest of such a request. With `turn`, each
 * part of TURN_BYTES or more is written in a turn of its own (the server's turns, src/perf/turns.ts):
 * written at once, a 1.8 MB page went to the kernel in one writev, which was a quarter of the event
 * loop's stalls under the unread-clients load (docs/benchmarks.md).
 */
export function sendParts(
  reply: FastifyReply,
  parts: readonly Buffer[],
  turn?: () => Promise<void>,
  release?: () => void,
): FastifyReply {
  if (release) afterResponse(reply, release);
  let length = 0;
  for (const p of parts) length += p.length;
  /** Bytes not yet handed to the stream. */
  let unread = length;
  async function* inTurns(): AsyncGenerator<Buffer> {
    for (const p of parts) {
      if (turn && p.length >= TURN_BYTES) await turn();
      unread -= p.length;
      yield p;
    }
  }
  function* atOnce(): Generator<Buffer> {
    for (const p of parts) {
      unread -= p.length;
      yield p;
    }
  }
  const body = Readable.from(turn ? inTurns() : atOnce(), { objectMode: false });
  // The send guard counts what the stream holds: a reader that stops would otherwise hold whole
  // pages unseen (500 such connections pipelining 4 pages each took the server past 3 GB).
  countHeldBody(reply.raw, () => unread + body.readableLength);
  return reply
    .header('content-type', 'application/json; charset=utf-8')
    .header('content-length', countText(length))
    .send(body);
}

/**
 * Calls `done` once nothing more of the response will be written: it has been written out, or its
 * connection is closed (a response queued behind others pipelined on the connection may never
 * start). Bytes lent for a response are given back then.
 */
function afterResponse(reply: FastifyReply, done: () => void): void {
  const res = reply.raw;
  const socket = reply.request.raw.socket;
  if (socket.destroyed) {
    done();
    return;
  }
  const once = () => {
    res.off('close', once);
    socket.off('close', once);
    done();
  };
  res.once('close', once);
  socket.once('close', once);
}

/**
 * The server's turns for a request's expensive work, ending it when the client has gone: its
 * connection is closed (also for a request waiting behind others pipelined before it), and the
 * pages such clients asked for were otherwise read through, queued reads included (500 connections
 * pipelining 4 pages each, closed by the send guard, kept the server busy reading them). The
 * connection tells, not the request: a request whose body was read to its end (a GET with a body,
 * read and dropped by the protocol checks) is destroyed as a finished stream while its client waits.
 */
export function turnsWhileAsked(
  deps: Pick<RouteDeps, 'turns'>,
  request: FastifyRequest,
): (rank?: TurnRank) => Promise<void> {
  return async (rank) => {
    await deps.turns.next(rank);
    if (request.raw.socket.destroyed) throw new ClientGone();
  };
}

/** A part this large or larger waits for a turn before it is written. */
const TURN_BYTES = 64 * 1024;

/**
 * How the fast lane answers a dated snapshot URL again (the V2 and V1 events of a sport and date):
 * the body kept under `key` for the view head (the lane asks the rules it was given under). Made
 * here, not in a handler, so the function keeps no request alive.
 */
export function keptSnapshot(deps: RouteDeps, key: string, delay: number): LaneEntry['answer'] {
  const { cache, views } = deps;
  return () => cache.response(key, views.forDelay(delay).head);
}

/**
 * Answers a dated snapshot (the V2 and V1 events of a sport and date) from the body kept under
 * `key` for the view's head, else builds it in a turn of the loop of its own (src/perf/turns.ts)
 * and keeps it. The head is read again after the wait: the board may have moved, and another
 * request may have built the same answer meanwhile. A build that refreshes an answer kept at an
 * older head takes its turns ahead of first builds (`build` is told so for its later slices). A
 * request whose client closed while it waited is not built (ClientGone).
 */
export async function sendSnapshot(
  deps: RouteDeps,
  reply: FastifyReply,
  key: string,
  view: BoardView,
  build: (ahead: boolean) => Envelope | Promise<Envelope>,
): Promise<FastifyReply> {
  let kept = deps.cache.response(key, view.head);
  const ahead = !kept && deps.cache.askedBefore(key);
  if (!kept) {
    await turnsWhileAsked(deps, reply.request)(ahead ? 'refresh' : 'new');
    kept = deps.cache.response(key, view.head);
  }
  if (!kept) {
    // Read before the build: views made before a catalog change may go into it.
    const catalog = deps.cache.catalogVersion;
    const built = await build(ahead);
    kept = deps.cache.storeResponse(key, built.head, catalog, built.body, built.points, rulesOf(reply.request));
  }
  return sendKept(reply, kept);
}

/**
 * Sends a kept answer as the fast lane does: 304 with no body and no data points when the client's
 * If-None-Match names its ETag; else its gzip bytes to a client that takes gzip, or its plain bytes
 * (which the compression hook may compress per request when the answer has no kept gzip).
 */
export function sendKept(reply: FastifyReply, kept: KeptAnswer): FastifyReply {
  const headers = reply.request.headers;
  reply.header('vary', VARY).header('etag', kept.etag);
  if (matchesEtag(headers['if-none-match'], kept.etag)) {
    reply.meter(0);
    return reply.code(304).send();
  }
  reply.meter(kept.points);
  if (kept.gzip && acceptsGzip(headers['accept-encoding'])) {
    reply.header('content-encoding', 'gzip');
    return sendJson(reply, kept.gzip);
  }
  return sendJson(reply, kept.body);
}

/**
 * Refuses a date outside the caller's history window (403 with the earliest date it may ask for),
 * a rule an answer kept from this request carries (src/http/caller-rules.ts).
 */
export function gateDate(deps: RouteDeps, request: FastifyRequest, dateMs: number): void {
  if (deps.access) applyRule(request, historyWindow(deps.access, dateMs));
}

/** The oldest instant the caller's history reaches, or undefined without a window. */
export function historyFloorOf(deps: RouteDeps, request: FastifyRequest): number | undefined {
  return request.account && deps.access ? deps.access.historyFloorMs(request.account) : undefined;
}

/**
 * Refuses a stats feature the caller's account may not read under the stats-access policy: 403
 * with `feature`, `upgrade_url` and `sample_url`, or 503 `stats_policy_unsupported`; a rule an
 * answer kept from this request carries (src/http/caller-rules.ts). Stats routes call it before
 * they read or meter anything, so a refusal costs no data points.
 */
export function requireStats(deps: RouteDeps, request: FastifyRequest, stats: StatsRequest): void {
  if (deps.access) applyRule(request, statsPolicy(deps.access, stats));
}
