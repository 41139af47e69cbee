import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { lowestTierWith, upgradeMessage } from '../access/entitlements.ts';
import { forbidden } from '../projection/errors.ts';
import { ErrorBody } from '../projection/schemas.ts';
import type { StreamTokens } from './tokens.ts';

/**
 * POST /api/v2/ws/token: a short-lived, single-use stream token for the caller's key, for pages
 * that cannot set the key header on a WebSocket (`wss://.../api/v2/ws?token=...`). Authenticated
 * like every route, free of data points; WebSocket access (Ultra and above) is required. V1 plans
 * may ask too, for /api/v1/ws: the upgrade checks which endpoints the key's plan opens.
 */
export function streamTokenRoute(app: FastifyInstance, tokens: StreamTokens): void {
  app.post(
    '/api/v2/ws/token',
    {
      config: { free: true, v1Plans: true },
      schema: {
        summary: 'A stream token for browsers',
        description:
          'Returns a token that opens one WebSocket connection (markets stream, multiplexed, or V1 /api/v1/ws) as this key, ' +
          'once, before expires_at. Pages use it as the `token` query parameter and never hold the key.',
        tags: ['streams'],
        response: {
          200: Type.Object({ token: Type.String(), expires_at: Type.String() }),
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (request) => {
      const account = request.account;
      if (account && !account.entitlements.websocket) {
        throw forbidden(
          upgradeMessage(
            'WebSocket streams',
            lowestTierWith((e) => e.websocket),
            true,
          ),
        );
      }
      const issued = tokens.issue(account ?? null, request.session);
      return { token: issued.token, expires_at: new Date(issued.expiresAt).toISOString() };
    },
  );
}
