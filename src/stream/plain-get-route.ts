import type { FastifyInstance } from 'fastify';
import { MARKETS_PATH, MULTIPLEX_PATH, V1_PATH } from './upgrade.ts';

/**
 * A plain GET on a stream path (no `Upgrade: websocket`; an upgrade never reaches the router):
 * 426 saying how to open it. The router's 404 would tell a client that tries the URL in a browser
 * or with curl that the path does not exist. Authenticated like every route, free of data points.
 */
export function streamPlainGetRoutes(app: FastifyInstance): void {
  for (const path of [MARKETS_PATH, MULTIPLEX_PATH, V1_PATH]) {
    app.get(path, { config: { free: true, v1Plans: true }, schema: { hide: true } }, async (_request, reply) => {
      return reply
        .code(426)
        .header('upgrade', 'websocket')
        .send({ message: `${path} is a WebSocket endpoint: open it with a WebSocket client at wss://<host>${path}` });
    });
  }
}
