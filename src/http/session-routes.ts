import { setTimeout as sleep } from 'node:timers/promises';
import fastifyCookie from '@fastify/cookie';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl } from '../access/access-control.ts';
import type { Account, Authenticator } from '../access/authenticator.ts';
import type { FailedKeyChecks } from '../access/failed-auth.ts';
import { hashKey } from '../access/keys.ts';
import { FOREIGN_ORIGIN_MESSAGE, foreignOrigin, SESSION_COOKIE, sessionToken } from '../access/session-cookie.ts';
import type { Session, Sessions } from '../access/sessions.ts';
import { tierLabel } from '../catalog/tiers.ts';
import { isLoopback } from '../config.ts';
import {
  ApiError,
  foreignOriginSession,
  planUnsupported,
  tooManyFailedKeyChecks,
  unauthorized,
} from '../projection/errors.ts';
import { ErrorBody } from '../projection/schemas.ts';

export interface SessionRouteDeps {
  auth: Authenticator;
  access: AccessControl;
  sessions: Sessions;
  /** Failed key checks per address: a key presented here counts as on every other route. */
  failedKeys: FailedKeyChecks;
  /** Whether the server listens on loopback only: the demo key signs a page in only then. */
  loopbackOnly: boolean;
  /** The demo key in clear, if this data directory has one (store meta). */
  demoKey: () => Promise<string | undefined>;
}

const SessionBody = Type.Object({
  tier: Type.String({ description: 'The plan of the key, as X-Tier names it' }),
  expires_at: Type.String({ format: 'date-time' }),
});
const SessionState = Type.Object({
  tier: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
  demo: Type.Boolean({ description: 'Signed in with the demo key of a loopback-only server' }),
});
const tags = ['session'];

/**
 * The odds screen's sign-in (docs/spec-gaps.md, Web sessions): a key presented once to POST
 * /session, or the demo key of a loopback-only server to POST /session/demo, is exchanged for an
 * HttpOnly, SameSite=Strict cookie holding an opaque session token; the key is never sent back.
 * GET /session says who the page is signed in as, DELETE /session signs it out. None of these
 * routes meters data points; every one refuses a page of another origin.
 */
export async function sessionRoutes(app: FastifyInstance, deps: SessionRouteDeps): Promise<void> {
  // Scoped to these routes: its onSend hook (which writes Set-Cookie) then runs on no other answer.
  await app.register(async (scope) => {
    await scope.register(fastifyCookie, { hook: false });
    routes(scope, deps);
  });
}

function routes(app: FastifyInstance, deps: SessionRouteDeps): void {
  const { auth, access, sessions, failedKeys } = deps;
  const config = { public: true };

  app.post<{ Body: { key: string } }>(
    '/session',
    {
      config,
      schema: {
        summary: 'Sign a page in with a key',
        description:
          'Exchanges a key for a session cookie (HttpOnly, SameSite=Strict) that every route and WebSocket endpoint ' +
          'accepts in place of the key, with its entitlements, limits and metering, from this server’s own pages.',
        tags,
        body: Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: SessionBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request, reply) => {
      refuseForeign(request);
      const key = request.body.key;
      const blocked = failedKeys.blockedFor(request.ip);
      if (blocked > 0 && !failedKeys.isKnown(hashKey(key))) {
        access.refused('failed_key_ceiling');
        throw tooManyFailedKeyChecks(blocked, failedKeys.limits.ceiling, failedKeys.limits.windowMs);
      }
      const account = await auth.authenticate(key);
      if (!account) {
        const wait = failedKeys.fail(request.ip);
        if (wait > 0) {
          access.refused('failed_key_throttle');
          await sleep(wait);
        }
        throw unauthorized();
      }
      failedKeys.passed(account.keyHash);
      return signIn(request, reply, account, false);
    },
  );

  app.post(
    '/session/demo',
    {
      config,
      schema: {
        summary: 'Sign a page in with the demo key',
        description:
          'On a server that listens on loopback only, opens a session of the demo key (the page never sees the key); ' +
          'elsewhere 403.',
        tags,
        response: { 200: SessionBody, 403: ErrorBody, 503: ErrorBody },
      },
    },
    async (request, reply) => {
      refuseForeign(request);
      // The client's address too: a proxy on this machine may forward others' requests.
      if (!deps.loopbackOnly || !isLoopback(request.ip)) {
        throw new ApiError(403, {
          message: 'the demo session is offered only by a server listening on loopback: sign in with a key',
        });
      }
      const key = await deps.demoKey();
      const account = key === undefined ? undefined : await auth.authenticate(key);
      if (!account) {
        throw new ApiError(403, {
          message:
            'this server has no demo key (it was revoked, or keys existed before its first start): sign in with a key',
        });
      }
      return signIn(request, reply, account, true);
    },
  );

  app.get(
    '/session',
    {
      config,
      schema: {
        summary: 'The page’s session',
        tags,
        response: { 200: SessionState, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request) => {
      refuseForeign(request);
      const token = sessionToken(request.headers);
      const session = token === undefined ? undefined : await sessions.resolve(token);
      if (!session) throw unauthorized();
      return { ...describe(session), demo: session.demo };
    },
  );

  app.delete(
    '/session',
    {
      config,
      schema: { summary: 'Sign the page out', tags, response: { 204: Type.Null(), 403: ErrorBody } },
    },
    async (request, reply) => {
      refuseForeign(request);
      const token = sessionToken(request.headers);
      if (token !== undefined) sessions.end(token);
      return reply.code(204).clearCookie(SESSION_COOKIE, { path: '/' }).send();
    },
  );

  function signIn(request: FastifyRequest, reply: FastifyReply, account: Account, demo: boolean) {
    if (account.unservable) throw planUnsupported(account);
    const session = sessions.open(account, demo);
    reply.setCookie(SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      maxAge: Math.round((session.expiresAt - access.time()) / 1000),
      // request.protocol reads X-Forwarded-Proto from a trusted proxy only.
      secure: request.protocol === 'https',
    });
    return describe(session);
  }
}

function describe(session: Session): { tier: string; expires_at: string } {
  return { tier: tierLabel(session.account.tier), expires_at: new Date(session.expiresAt).toISOString() };
}

function refuseForeign(request: FastifyRequest): void {
  if (foreignOrigin(request.headers)) throw foreignOriginSession(FOREIGN_ORIGIN_MESSAGE);
}
