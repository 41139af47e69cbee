import { Readable } from 'node:stream';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { AccessControl } from '../access/access-control.ts';
import type { Account, Authenticator } from '../access/authenticator.ts';
import type { Board } from '../board/board.ts';
import type { ChangeFeed } from '../board/change-feed.ts';
import type { DelayedBoards } from '../board/delayed-boards.ts';
import type { HistoryStore } from '../store/history.ts';
import type { Store } from '../store/store.ts';
import { ApiError, badRequest, internalError } from './errors.ts';
import { installAccess } from './plugins/access.ts';
import { bestLineRoutes } from './routes/v2/best-line.ts';
import { deltaRoutes } from './routes/v2/delta.ts';
import { eventRoutes } from './routes/v2/events.ts';
import { historyRoutes } from './routes/v2/history.ts';
import { listingRoutes } from './routes/v2/listings.ts';
import { openersClosingRoutes } from './routes/v2/openers-closing.ts';
import { participantRoutes } from './routes/v2/participants.ts';
import { referenceRoutes } from './routes/v2/reference.ts';
import { teamRoutes } from './routes/v2/teams.ts';
import { SnapshotCache } from './snapshot-cache.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account?: Account;
  }
  interface FastifyContextConfig {
    /** Served without a key (spec: GET /api/v2/sports and GET /api/v2/affiliates). */
    public?: boolean;
  }
}

export interface AppDeps {
  board: Board;
  boards: DelayedBoards;
  feed: ChangeFeed;
  store: Store;
  history: HistoryStore;
  auth: Authenticator;
  /**
   * Keys, limits and metering. Left out only to measure what the access layer costs (bench/):
   * without it every route is open and unmetered.
   */
  access?: AccessControl;
  /** Header that carries the key; compared case-insensitively. Default X-Service-Key. */
  keyHeader?: string;
  /** Structured request logs; the `key` query parameter is always redacted from them. */
  log?: { level: string; stream?: NodeJS.WritableStream };
  version?: string;
}

/** Dependencies the route plugins receive: the narrow set they read, never the server. */
export interface RouteDeps {
  board: Board;
  access?: AccessControl;
  /** The board each plan sees: the live one, or one held back by the plan's data delay. */
  boards: DelayedBoards;
  feed: ChangeFeed;
  store: Store;
  history: HistoryStore;
  cache: SnapshotCache;
}

/** The board a caller sees: live for real-time plans, held back by the plan's delay otherwise. */
export function boardFor(deps: RouteDeps, account: Account | undefined): Board {
  return deps.boards.forDelay(account?.entitlements.delaySeconds ?? 0);
}

/** Sends bytes that are already JSON (cached or concatenated) without serialising them again. */
export function sendJson(reply: FastifyReply, body: string | Buffer): FastifyReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(body);
}

/**
 * Sends JSON made of several buffers (a page of the change log between its envelope) without
 * copying them into one: a 2 MB copy costs more than the rest of such a request.
 */
export function sendParts(reply: FastifyReply, parts: readonly Buffer[]): FastifyReply {
  let length = 0;
  for (const p of parts) length += p.length;
  return reply
    .header('content-type', 'application/json; charset=utf-8')
    .header('content-length', String(length))
    .send(Readable.from(parts, { objectMode: false }));
}

/** Refuses a date outside the caller's history window (403 with the earliest date it may ask for). */
export function gateDate(deps: RouteDeps, account: Account | undefined, dateMs: number): void {
  const denial = account && deps.access?.checkHistoryWindow(account, dateMs);
  if (denial) throw new ApiError(denial.status, denial.body, denial.headers);
}

/** Removes the `key` query parameter's value from a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]key=)[^&]*/gi, '$1[redacted]');
}

/** Builds the application; it does not listen (the caller does, and closes it). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.log
      ? {
          level: deps.log.level,
          ...(deps.log.stream ? { stream: deps.log.stream } : {}),
          serializers: {
            req: (req: { method: string; url: string; ip?: string }) => ({
              method: req.method,
              url: redactUrl(req.url),
              ip: req.ip,
            }),
          },
        }
      : false,
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      maxParamLength: 200,
    },
  });
  app.decorateRequest('account', undefined);

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send(error.body);
    }
    const e = error as {
      validation?: unknown;
      statusCode?: number;
      message?: string;
    };
    if (e.validation || (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)) {
      const err = badRequest(e.message ?? 'invalid request');
      return reply.code(400).send(err.body);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(internalError().body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = redactUrl(request.url).split('?')[0];
    reply.code(404).send({ message: `path not found: ${request.method} ${path}` });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'oddsbase',
        description: 'Sports odds, scores and statistics API (interface version 2.0.0)',
        version: deps.version ?? '0.0.0',
      },
      components: {
        securitySchemes: {
          serviceKey: {
            type: 'apiKey',
            in: 'header',
            name: deps.keyHeader ?? 'X-Service-Key',
          },
          queryKey: { type: 'apiKey', in: 'query', name: 'key' },
        },
      },
      security: [{ serviceKey: [] }, { queryKey: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list' },
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  if (deps.access) installAccess(app, deps.auth, deps.access, deps.keyHeader ?? 'X-Service-Key');
  else
    app.decorateReply('meter', function (this: FastifyReply) {
      return this;
    });

  const routeDeps: RouteDeps = {
    board: deps.board,
    access: deps.access,
    boards: deps.boards,
    feed: deps.feed,
    store: deps.store,
    history: deps.history,
    cache: new SnapshotCache(),
  };
  await app.register(referenceRoutes, routeDeps);
  await app.register(listingRoutes, routeDeps);
  await app.register(teamRoutes, routeDeps);
  await app.register(eventRoutes, routeDeps);
  await app.register(deltaRoutes, routeDeps);
  await app.register(historyRoutes, routeDeps);
  await app.register(openersClosingRoutes, routeDeps);
  await app.register(participantRoutes, routeDeps);
  await app.register(bestLineRoutes, routeDeps);
  return app;
}
