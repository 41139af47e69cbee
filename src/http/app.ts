import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { AccessControl } from '../access/access-control.ts';
import type { Account, Authenticator } from '../access/authenticator.ts';
import type { ChangeFeed } from '../board/change-feed.ts';
import type { DelayedViews } from '../board/delayed-views.ts';
import type { HistoryStore } from '../store/history.ts';
import { ByteBudget, DEFAULT_CACHE_BYTES } from './byte-budget.ts';
import { ApiError, badRequest, internalError } from './errors.ts';
import { EventQueryCache } from './event-query.ts';
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
import { DEFAULT_SEND_BUDGET_BYTES, DEFAULT_SEND_TIMEOUT_MS, SendGuard } from './send-guard.ts';
import type { RouteDeps } from './route-kit.ts';
import { SnapshotCache } from './snapshot-cache.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account?: Account;
  }
  interface FastifyInstance {
    /** Destroys connections whose responses sit unread; its stats count them. */
    sendGuard: SendGuard;
  }
  interface FastifyContextConfig {
    /** Served without a key (spec: GET /api/v2/sports and GET /api/v2/affiliates). */
    public?: boolean;
  }
}

export interface AppDeps {
  views: DelayedViews;
  feed: ChangeFeed;
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
  /** Bytes that every cache of the HTTP layer together may hold (default DEFAULT_CACHE_BYTES). */
  cacheBytes?: number;
  /** How long a response may sit unread before its connection is destroyed. */
  sendTimeoutMs?: number;
  /** Unsent response bytes all connections together may hold; a quarter of it per connection. */
  sendBudgetBytes?: number;
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

  const sendBudget = deps.sendBudgetBytes ?? DEFAULT_SEND_BUDGET_BYTES;
  const guard = new SendGuard(
    {
      stallMs: deps.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
      totalBytes: sendBudget,
      connectionBytes: Math.floor(sendBudget / 4),
    },
    (fields, message) => app.log.warn(fields, message),
  );
  app.server.on('connection', (socket: Socket) => guard.watch(socket));
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => guard.track(req, res));
  app.addHook('onClose', async () => guard.close());
  app.decorate('sendGuard', guard);

  const budget = new ByteBudget(deps.cacheBytes ?? DEFAULT_CACHE_BYTES);
  const routeDeps: RouteDeps = {
    access: deps.access,
    views: deps.views,
    feed: deps.feed,
    history: deps.history,
    cache: new SnapshotCache(budget),
    queries: new EventQueryCache(budget),
    budget,
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
