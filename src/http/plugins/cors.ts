import type { FastifyInstance } from 'fastify';

/** Response headers a browser script may read: usage, entitlements, limits and cursors' pacing. */
const EXPOSED = [
  'Retry-After',
  'X-Datapoints',
  'X-Datapoints-Used',
  'X-Datapoints-Remaining',
  'X-Datapoints-Limit',
  'X-Datapoints-Period',
  'X-Datapoints-Reset',
  'X-Datapoints-Monthly-Used',
  'X-Datapoints-Monthly-Remaining',
  'X-Datapoints-Monthly-Reset',
  'X-Datapoints-Credit-Balance',
  'X-Datapoints-Credit-Expiry',
  'X-Tier',
  'X-Rate-Limit',
  'X-Data-Delay-Seconds',
  'X-Bookmakers',
  'X-Periods',
  'X-History-Access',
  'X-Live-Odds-Access',
  'X-Websocket-Access',
].join(', ');

/** The methods of the REST routes: GET (and HEAD), and POST for the stream token. */
const METHODS = ['GET', 'HEAD', 'POST'];

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * CORS for the REST routes, for the origins given (`*`: any). Off unless origins are given. The
 * key travels in a header, not a cookie, so no credentials are allowed. A preflight (OPTIONS with
 * Origin and Access-Control-Request-Method) for a routed path is answered 204 before the access
 * checks, as browsers send it without the key; any other OPTIONS is answered as before (405).
 */
export function installCors(app: FastifyInstance, origins: readonly string[], keyHeader: string): void {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const allowHeaders = `${keyHeader}, Content-Type`;
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    // Vary on Origin even when refused: a shared cache must not hand one origin's answer to another.
    reply.header('vary', 'Origin');
    if (!any && !allowed.has(origin)) return done();
    reply.header('access-control-allow-origin', any ? '*' : origin);
    const wanted = request.headers['access-control-request-method'];
    if (request.method !== 'OPTIONS' || typeof wanted !== 'string') {
      reply.header('access-control-expose-headers', EXPOSED);
      return done();
    }
    const path = request.url.split('?')[0]!;
    if (!METHODS.some((method) => app.findRoute({ method, url: path }) !== null)) return done();
    reply
      .code(204)
      .header('access-control-allow-methods', METHODS.join(', '))
      .header('access-control-allow-headers', allowHeaders)
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE))
      .send();
  });
}
