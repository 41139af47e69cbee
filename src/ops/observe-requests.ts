import type { FastifyInstance } from 'fastify';
import type { AccessSummary } from './access-summary.ts';
import type { Metrics } from './metrics.ts';

/**
 * Counts every answered request, on every route, by its route pattern (never the raw URL, which
 * would make the label values unbounded), method and status, with its time; and adds it to the
 * access summary when requests are not logged one by one. Paths that match no route are `unmatched`.
 * The fast lane's answers never reach fastify's hooks: it reports them itself.
 */
export function observeRequests(app: FastifyInstance, metrics: Metrics, summary?: AccessSummary): void {
  app.addHook('onResponse', (request, reply, done) => {
    const ms = reply.elapsedTime;
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, ms / 1000);
    summary?.record(reply.statusCode, ms);
    done();
  });
  app.fastLane?.observe((method, route, status, ms) => {
    metrics.request(method, route, status, ms / 1000);
    summary?.record(status, ms);
  });
}
