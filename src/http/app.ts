import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, LogController } from 'fastify';
import type { AccessControl } from '../access/access-control.ts';
import type { Account, Authenticator } from '../access/authenticator.ts';
import type { ArchivedEvents } from '../board/archived-events.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ChangeFeed } from '../board/change-feed.ts';
import type { DelayedViews } from '../board/delayed-views.ts';
import type { LogFloor } from '../board/log-floor.ts';
import type { HeldSeasons } from '../board/season-records.ts';
import { lazyChildLogger, type LogStream } from '../ops/logging.ts';
import type { HistoryStore } from '../store/history.ts';
import type { GameReads } from './route-kit.ts';
import { ByteBudget } from '../perf/byte-budget.ts';
import { DEFAULT_CACHE_BYTES, DEFAULT_SEND_BUDGET_BYTES, DEFAULT_SEND_TIMEOUT_MS } from '../config.ts';
import { ApiError, badRequest, ClientGone, internalError } from '../projection/errors.ts';
import { EventQueryCache } from '../projection/event-query.ts';
import { acceptsGzip, GZIP_MIN_BYTES, gzipNow, VARY } from './encoding.ts';
import { Readable } from 'node:stream';
import { FastLane } from './fast-lane.ts';
import { schemaErrors } from './schema-errors.ts';
import { swaggerOptions } from './openapi.ts';
import { DOCUMENT_TYPE } from '../projection/param-schemas.ts';
import { answerUnrouted } from './unrouted.ts';
import { installAccess } from './plugins/access.ts';
import type { FailedKeyChecks } from '../access/failed-auth.ts';
import type { Sessions } from '../access/sessions.ts';
import type { TrustedProxies } from '../access/client-address.ts';
import { clientErrorHandler, installProtocolChecks } from './plugins/protocol.ts';
import { installCors } from './plugins/cors.ts';
import { redact } from '../projection/redact.ts';
import { bestLineRoutes } from './routes/v2/best-line.ts';
import { deltaRoutes } from './routes/v2/delta.ts';
import { eventRoutes } from './routes/v2/events.ts';
import { futuresRoutes } from './routes/v2/futures.ts';
import { historyRoutes } from './routes/v2/history.ts';
import { gameStatRoutes } from './routes/v2/game-stats.ts';
import { seasonStatRoutes } from './routes/v2/season-stats.ts';
import { playRoutes } from './routes/v2/plays.ts';
import { statRoutes } from './routes/v2/stats.ts';
import { BoxCache } from './box-score.ts';
import { SeasonStatsCache } from './season-stats.ts';
import { listingRoutes } from './routes/v2/listings.ts';
import { openersClosingRoutes } from './routes/v2/openers-closing.ts';
import { participantRoutes } from './routes/v2/participants.ts';
import { referenceRoutes } from './routes/v2/reference.ts';
import { rosterRoutes } from './routes/v2/rosters.ts';
import { v1Routes } from './routes/v1/index.ts';
import { teamRoutes } from './routes/v2/teams.ts';
import { SendGuard } from './send-guard.ts';
import type { RouteDeps } from './route-kit.ts';
import { SnapshotCache } from './snapshot-cache.ts';
import { PLAIN } from '../perf/switch.ts';
import { lazyCompilers } from '../perf/lazy-compilers.ts';
import type { Turns } from '../perf/turns.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account?: Account;
  }
  interface FastifyInstance {
    /** Destroys connections whose responses sit unread; its stats count them. */
    sendGuard: SendGuard;
    /** Answers repeated polls before routing; absent without the access layer or with a line per request. */
    fastLane: FastLane | undefined;
    /**
     * Requests begun so far, counted by the server's one 'request' listener: what tells a watcher
     * whether requests came (the idle compaction, src/server.ts) without a listener of its own.
     */
    readonly requestsBegun: number;
  }
  interface FastifyContextConfig {
    /** Served without a key (spec: GET /api/v2/sports and GET /api/v2/affiliates). */
    public?: boolean;
  }
}

export interface AppDeps {
  views: DelayedViews;
  /** The current catalog (the board's): what the listing routes list and the routes look up. */
  catalog: Catalog;
  /** Season aggregates a source published (the board's): served in place of the sums of games held. */
  seasonRecords: HeldSeasons;
  feed: ChangeFeed;
  history: HistoryStore;
  /** Play pages and a delayed plan's stat rows, read from the store. */
  games: GameReads;
  /** Events that left the board, read from the store by id. */
  archive: ArchivedEvents;
  /** How far back the log is whole (retention). */
  floor: LogFloor;
  auth: Authenticator;
  /**
   * Keys, limits and metering. Left out only to measure what the access layer costs (bench/):
   * without it every route is open and unmetered.
   */
  access?: AccessControl;
  /** Header that carries the key; compared case-insensitively. Default X-Service-Key. */
  keyHeader?: string;
  /** Failed key checks per address; the WebSocket upgrades share it. */
  failedKeys?: FailedKeyChecks;
  /** The odds screen's sessions, accepted in place of a key; the WebSocket upgrades share them. */
  sessions?: Sessions;
  /** Reverse proxies whose X-Forwarded-For names the client (`request.ip`); none by default. */
  trustProxy?: TrustedProxies;
  /** Origins whose browsers may call the REST routes; `*` for any; none (CORS off) by default. */
  corsOrigins?: readonly string[];
  /** A certificate and its key (PEM): the server speaks HTTPS and wss:// only. */
  tls?: { cert: Buffer; key: Buffer };
  /**
   * Structured logs; keys are redacted from them (see src/projection/redact.ts) at every level. `requests`: a line
   * per request (fastify's request logging), off unless asked for.
   */
  log?: { level: string; stream?: LogStream; requests?: boolean };
  version?: string;
  /** Bytes that every cache of the HTTP layer together may hold (default DEFAULT_CACHE_BYTES). */
  cacheBytes?: number;
  /** How long a response may sit unread before its connection is destroyed. */
  sendTimeoutMs?: number;
  /** Unsent response bytes all connections together may hold; a quarter of it per connection. */
  sendBudgetBytes?: number;
  /** The server's turns (src/perf/turns.ts), shared with the streams' writes. */
  turns: Turns;
}

/** Longest path parameter routed; a longer one is answered 414. */
const MAX_PARAM_LENGTH = 200;

/** Builds the application; it does not listen (the caller does, and closes it). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const budget = new ByteBudget(deps.cacheBytes ?? DEFAULT_CACHE_BYTES);
  // A request logged line by line must pass through fastify, which writes the line. The lane is a
  // trick whose plain twin is the router itself (ODDSBASE_PLAIN=1).
  const lane =
    deps.access && !deps.log?.requests && !PLAIN
      ? new FastLane(budget, deps.auth, deps.access, deps.keyHeader ?? 'X-Service-Key', deps.catalog)
      : undefined;
  const cors = (deps.corsOrigins?.length ?? 0) > 0;
  let begun = 0;
  const sendBudget = deps.sendBudgetBytes ?? DEFAULT_SEND_BUDGET_BYTES;
  const guard = new SendGuard(
    {
      stallMs: deps.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
      totalBytes: sendBudget,
      connectionBytes: Math.floor(sendBudget / 4),
    },
    (fields, message) => app.log.warn(fields, message),
  );
  const app = Fastify({
    logger: deps.log
      ? {
          level: deps.log.level,
          ...(deps.log.stream ? { stream: deps.log.stream } : {}),
          // Headers are never logged (one carries the key); URLs and errors only once redacted.
          serializers: {
            req: (req: { method: string; url: string; ip?: string }) => ({
              method: req.method,
              url: redact(req.url),
              ip: req.ip,
            }),
            err: (err: Error & { code?: string }) => ({
              type: err.name,
              code: err.code,
              message: redact(err.message),
              stack: redact(err.stack ?? ''),
            }),
          },
        }
      : false,
    // request.ip, which the failed-key ceiling and the logs read: the right-most untrusted hop.
    ...(deps.trustProxy && !deps.trustProxy.empty ? { trustProxy: deps.trustProxy.trusts } : {}),
    logController: new LogController({ disableRequestLogging: deps.log?.requests !== true }),
    ...(deps.log?.requests ? {} : { childLoggerFactory: lazyChildLogger }),
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      maxParamLength: MAX_PARAM_LENGTH,
    },
    // The server is made here so that the fast lane sees each request before fastify's router;
    // the timeouts are fastify's own, as it sets them on a server it makes.
    serverFactory: (handler, options) => {
      // One 'request' listener: with two, node copies the listener list on every request.
      const listener = (req: IncomingMessage, res: ServerResponse) => {
        begun++;
        guard.track(req, res);
        // A cross-origin request goes through fastify, whose CORS hook adds the headers it needs.
        if ((cors && req.headers.origin !== undefined) || !lane?.serve(req, res)) handler(req, res);
      };
      // Node would answer a missing Host with an empty 400; the protocol checks answer it in JSON.
      const server: Server = deps.tls
        ? (createHttpsServer({ ...deps.tls, requireHostHeader: false }, listener) as unknown as Server)
        : createServer({ requireHostHeader: false }, listener);
      server.keepAliveTimeout = options.keepAliveTimeout as number;
      server.requestTimeout = options.requestTimeout as number;
      server.setTimeout(options.connectionTimeout as number);
      return server;
    },
    clientErrorHandler,
    schemaErrorFormatter: schemaErrors,
    // The parameters' document types (src/projection/param-schemas.ts): annotations, never checked.
    ajv: { customOptions: { keywords: [DOCUMENT_TYPE] } },
    // Each route's validator and serializer compiled at its first use (src/perf/lazy-compilers.ts).
    schemaController: { compilersFactory: lazyCompilers() },
    // A malformed percent-encoding and an over-long path parameter (no route has an async
    // constraint, the one other case): fastify's own answers quote the whole URL, key included.
    frameworkErrors: (error, _request, res) => {
      const reply = res as FastifyReply;
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        reply.code(414).send({ message: `a path segment is longer than ${MAX_PARAM_LENGTH} characters` });
      } else {
        reply.code(400).send({ message: 'malformed URL: its path is not valid percent-encoded UTF-8' });
      }
    },
  });
  app.decorateRequest('account', undefined);
  installProtocolChecks(app, app.initialConfig.bodyLimit!);
  if (cors) installCors(app, deps.corsOrigins!, deps.keyHeader ?? 'X-Service-Key');

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send(error.body);
    }
    if (error instanceof ClientGone) {
      return reply.code(error.statusCode).send({ message: error.message });
    }
    const e = error as {
      validation?: unknown;
      statusCode?: number;
      message?: string;
    };
    const status = e.validation ? 400 : (e.statusCode ?? 500);
    // Client errors from fastify and its plugins (schema validation, a bad body, the docs' 403)
    // keep their status; their texts are fastify's own, redacted all the same.
    if (status >= 400 && status < 500) {
      const text = redact(e.message || STATUS_CODES[status] || 'client error');
      return reply.code(status).send(status === 400 ? badRequest(text).body : { message: text });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(internalError().body);
  });

  app.setNotFoundHandler((request, reply) => answerUnrouted(app, request, reply, (text) => ({ message: text })));

  await app.register(
    swagger,
    swaggerOptions({
      version: deps.version ?? '0.0.0',
      keyHeader: deps.keyHeader ?? 'X-Service-Key',
      description:
        'Sports odds, scores and statistics API (interface version 2.0.0). The WebSocket endpoints ' +
        '(/api/v2/ws/markets, /api/v2/ws, /api/v1/ws) are described by the AsyncAPI document at /asyncapi.json.',
    }),
  );
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list' },
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  app.decorate('fastLane', lane);
  app.decorate('requestsBegun', { getter: () => begun });
  if (deps.access)
    installAccess(app, deps.auth, deps.access, deps.keyHeader ?? 'X-Service-Key', deps.failedKeys, lane, deps.sessions);
  else
    app.decorateReply('meter', function (this: FastifyReply) {
      return this;
    });

  // Compressed answers (src/http/encoding.ts): a kept answer arrives with its gzip bytes already
  // (content-encoding set); any other JSON answer of a 2xx status is compressed here, per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    const status = reply.statusCode;
    if (status < 200 || status >= 300 || payload === null || payload === undefined) return done(null, payload);
    if (!reply.hasHeader('vary')) reply.header('vary', VARY);
    const type = reply.getHeader('content-type');
    if (reply.hasHeader('content-encoding') || typeof type !== 'string' || !type.startsWith('application/json')) {
      return done(null, payload);
    }
    if (!acceptsGzip(request.headers['accept-encoding'])) return done(null, payload);
    if (payload instanceof Readable) {
      reply.header('content-encoding', 'gzip').removeHeader('content-length');
      return done(null, gzipNow(payload));
    }
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    if (size < GZIP_MIN_BYTES) return done(null, payload);
    const gzip = gzipNow(payload);
    reply.header('content-encoding', 'gzip').header('content-length', String(gzip.length));
    return done(null, gzip);
  });

  app.server.on('connection', (socket: Socket) => guard.watch(socket));
  app.addHook('onClose', async () => guard.close());
  app.decorate('sendGuard', guard);

  const routeDeps: RouteDeps = {
    lane,
    turns: deps.turns,
    access: deps.access,
    views: deps.views,
    catalog: deps.catalog,
    seasonRecords: deps.seasonRecords,
    feed: deps.feed,
    history: deps.history,
    games: deps.games,
    archive: deps.archive,
    floor: deps.floor,
    boxes: new BoxCache(budget, deps.views.forDelay(0), deps.catalog),
    seasons: new SeasonStatsCache(budget, deps.catalog),
    cache: new SnapshotCache(budget, deps.catalog),
    queries: new EventQueryCache(budget, deps.catalog),
    budget,
  };
  await app.register(referenceRoutes, routeDeps);
  await app.register(listingRoutes, routeDeps);
  await app.register(teamRoutes, routeDeps);
  await app.register(rosterRoutes, routeDeps);
  await app.register(eventRoutes, routeDeps);
  await app.register(deltaRoutes, routeDeps);
  await app.register(historyRoutes, routeDeps);
  await app.register(openersClosingRoutes, routeDeps);
  await app.register(participantRoutes, routeDeps);
  await app.register(bestLineRoutes, routeDeps);
  await app.register(statRoutes, routeDeps);
  await app.register(gameStatRoutes, routeDeps);
  await app.register(seasonStatRoutes, routeDeps);
  await app.register(playRoutes, routeDeps);
  await app.register(futuresRoutes, routeDeps);
  await app.register(async (v1) => v1Routes(v1, routeDeps), { prefix: '/api/v1' });
  return app;
}
