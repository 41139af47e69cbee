import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the request carries `Authorization: Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  return header !== undefined && timingSafeEqual(digest(header), digest(`Bearer ${token}`));
}

/**
 * `/metrics` on the API port, for a scraper on another machine: public as far as API keys go
 * (no key, no metering), and refused without the admin token. Added only when a token is set.
 */
export function metricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ message: 'unauthorized' });
    }
    return reply.header('content-type', metrics.contentType).send(await metrics.text());
  });
}

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/**
 * The metrics listener: a small HTTP server of its own that answers `GET /metrics` and nothing
 * else, on a loopback address unless a token protects it (the configuration refuses otherwise).
 * Apart from the API port, so that neither a proxy in front of the API nor API keys reach it.
 */
export function listenMetrics(
  metrics: Metrics,
  opts: { host: string; port: number; token?: string },
): Promise<MetricsListener> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return end(res, 404, { message: 'not found: the metrics are at /metrics' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return end(res, 405, { message: 'method not allowed' });
    if (opts.token !== undefined && !bearerMatches(req.headers.authorization, opts.token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return end(res, 401, { message: 'unauthorized' });
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => end(res, 500, { message: `metrics failed: ${String(err)}` }),
    );
  };
  const server = createServer(handle);
  return new Promise((resolve, reject) => {
    server.once('error', (err) =>
      reject(new Error(`the metrics listener cannot listen on ${opts.host}:${opts.port}: ${err.message}`)),
    );
    server.listen(opts.port, opts.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      resolve({
        url: `http://${host}:${port}/metrics`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

function end(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
