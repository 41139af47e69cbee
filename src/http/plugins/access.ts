import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import type { AccessControl, Denial } from '../../access/access-control.ts';
import type { Account, Authenticator } from '../../access/authenticator.ts';
import { FailedKeyChecks } from '../../access/failed-auth.ts';
import { hashKey } from '../../access/keys.ts';
import { FOREIGN_ORIGIN_MESSAGE, foreignOrigin, sessionToken } from '../../access/session-cookie.ts';
import type { Sessions } from '../../access/sessions.ts';
import type { FastLane } from '../fast-lane.ts';
import {
  ApiError,
  forbidden,
  foreignOriginSession,
  planUnsupported,
  tooManyFailedKeyChecks,
  unauthorized,
} from '../../projection/errors.ts';

declare module 'fastify' {
  interface FastifyReply {
    /**
     * Counts `points` against the caller's allowance and sets the usage and entitlement headers.
     * Metered routes call it once, just before they answer 200; elsewhere it does nothing.
     */
    meter(points: number): FastifyReply;
  }
  interface FastifyRequest {
    /** Set by access once the key and limits pass on a metered route: `reply.meter` counts it. */
    metered: boolean;
    /** The page session the request was admitted by, when a session cookie stood for the key. */
    session: string | undefined;
  }
  interface FastifyContextConfig {
    /** Catalog routes: authenticated but free, without usage headers. */
    free?: boolean;
    /** V2 routes that V1 plans may use too (spec: the two delta feeds). */
    v1Plans?: boolean;
  }
}

const deny = (d: Denial) => new ApiError(d.status, d.body, d.headers);

/**
 * Access wraps every route: key, then the burst ceiling, then (on metered routes) the caps; the
 * route's answer is counted by `reply.meter`, which sets the usage and entitlement headers. Public
 * routes (`config.public`) and the docs skip it; unknown paths are left to the 404 handler so a
 * typo reads as a typo. A request without a key may carry a page's session cookie instead, which
 * acts as its key in every respect (`Sessions`), from this server's own pages only.
 */
export function installAccess(
  app: FastifyInstance,
  auth: Authenticator,
  access: AccessControl,
  keyHeader: string,
  /** Shared with the WebSocket upgrades, so a guess counts the same on either path. */
  failed: FailedKeyChecks = new FailedKeyChecks(),
  /** Requests it refused for a limit come here with that decision, already counted. */
  lane?: FastLane,
  /** The odds screen's sessions; absent, a session cookie is not looked at. */
  sessions?: Sessions,
): void {
  const header = keyHeader.toLowerCase();
  app.decorateRequest('metered', false);
  app.decorateRequest('session', undefined);
  // A method rather than an onSend hook: a hook would run on every response of every route.
  app.decorateReply('meter', function meter(this: FastifyReply, points: number) {
    const request = this.request;
    if (request.metered) access.meter(request.account!, points, this);
    return this;
  });

  // A refusal after the key check (an entitlement 403 from here or from a route, a limit's 429) names
  // the plan that refused it. An onError hook runs on failures only: served answers pay nothing.
  app.addHook('onError', (request, reply, error, done) => {
    const status = (error as { statusCode?: number }).statusCode;
    if (request.account && (status === 403 || status === 429)) access.entitle(request.account, reply);
    done();
  });

  // Each route gets its own hook, made when the route is added, so the route's policy is read once
  // there: fastify builds a new object on every read of `request.routeOptions`.
  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    if (config.public || route.url.startsWith('/docs')) return;
    const free = config.free === true;
    const needsV2 = route.url.startsWith('/api/v2/') && !config.v1Plans;
    const needsV1 = route.url.startsWith('/api/v1/');
    const admit = (request: FastifyRequest, account: Account | undefined, done: HookHandlerDoneFunction) => {
      if (!account) {
        const wait = failed.fail(request.ip);
        if (wait > 0) {
          access.refused('failed_key_throttle');
          setTimeout(() => done(unauthorized()), wait);
        } else done(unauthorized());
        return;
      }
      if (account.unservable) return done(planUnsupported(account));
      request.account = account;
      if (needsV2 && !account.v2) {
        return done(
          forbidden('This endpoint needs a V2 subscription; V1 plans may use /api/v2/delta and /api/v2/markets/delta'),
        );
      }
      if (needsV1 && !account.v1) {
        return done(forbidden('This endpoint needs a V1 subscription; V2 plans use the /api/v2 paths'));
      }
      const denial = lane?.takeRefusal(request.raw) ?? access.admit(account, !free);
      if (denial) return done(deny(denial));
      request.metered = !free;
      done();
    };
    const hook: onRequestHookHandler = (request, _reply, done) => {
      const fromHeader = request.headers[header];
      const query = request.query as Record<string, unknown>;
      const presented =
        typeof fromHeader === 'string' ? fromHeader : typeof query.key === 'string' ? query.key : undefined;
      if (!presented) {
        const token = sessions && sessionToken(request.headers);
        // No key is not a guess: nothing to count; nor is a session token, too long to guess.
        if (!token) return done(unauthorized());
        if (foreignOrigin(request.headers)) return done(foreignOriginSession(FOREIGN_ORIGIN_MESSAGE));
        request.session = token;
        const open = sessions.cached(token);
        if (open) return admit(request, open.account, done);
        sessions.resolve(token).then(
          (session) => (session ? admit(request, session.account, done) : done(unauthorized())),
          (err: unknown) => done(err as Error),
        );
        return;
      }
      // A key seen within the cache's time is admitted without waiting on the store.
      const known = auth.cached(presented);
      if (known) return admit(request, known, done);
      // Past its ceiling an address may present only keys that passed before: others are refused
      // before any lookup, so a guess made then tells nothing.
      const blocked = failed.blockedFor(request.ip);
      if (blocked > 0 && !failed.isKnown(hashKey(presented))) {
        access.refused('failed_key_ceiling');
        return done(tooManyFailedKeyChecks(blocked, failed.limits.ceiling, failed.limits.windowMs));
      }
      auth.authenticate(presented).then(
        (account) => {
          if (account) failed.passed(account.keyHash);
          admit(request, account, done);
        },
        (err: unknown) => done(err as Error),
      );
    };
    const existing = route.onRequest;
    const others = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    route.onRequest = [hook, ...others];
  });
}
