import type { FastifyInstance } from 'fastify';
import type { AccessControl, Denial } from '../../access/access-control.ts';
import type { Authenticator } from '../../access/authenticator.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { FailedAuthThrottle } from '../../access/failed-auth.ts';
import { ApiError, forbidden, unauthorized } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Data points this response costs; set by metered routes before they reply. */
    points: number;
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
 * Access wraps every route: key, then the burst ceiling, then (on metered routes) the caps; after
 * the route answers, the points are counted and the usage and entitlement headers set. Public
 * routes (`config.public`) and the docs skip it; unknown paths are left to the 404 handler so a
 * typo reads as a typo.
 */
export function installAccess(
  app: FastifyInstance,
  auth: Authenticator,
  access: AccessControl,
  keyHeader: string,
): void {
  const header = keyHeader.toLowerCase();
  const throttle = new FailedAuthThrottle();

  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (url === undefined || request.routeOptions.config.public || url.startsWith('/docs')) return;
    const fromHeader = request.headers[header];
    const query = request.query as Record<string, unknown>;
    const presented =
      typeof fromHeader === 'string' ? fromHeader : typeof query.key === 'string' ? query.key : undefined;
    const account = auth.authenticate(presented);
    if (!account) {
      const wait = throttle.fail(request.ip);
      if (wait > 0) await sleep(wait);
      throw unauthorized();
    }
    request.account = account;
    if (!account.v2 && url.startsWith('/api/v2/') && !request.routeOptions.config.v1Plans) {
      throw forbidden(
        'This endpoint needs a V2 subscription; V1 plans may use /api/v2/delta and /api/v2/markets/delta',
      );
    }
    const burst = await access.checkBurst(account);
    if (burst) throw deny(burst);
    if (!request.routeOptions.config.free) {
      const cap = await access.checkCaps(account);
      if (cap) throw deny(cap);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const account = request.account;
    if (!account || request.routeOptions.config.free || reply.statusCode !== 200) return payload;
    const usage = await access.consume(account, request.points);
    reply.headers(access.usageHeaders(account, usage));
    reply.headers(access.entitlementHeaders(account));
    return payload;
  });
}
