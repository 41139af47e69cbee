import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  LineMessageSchema,
  LiveDeltaSchema,
  MarketPriceMessageSchema,
  MarketsDeltaSchema,
  MultiplexHeartbeatSchema,
  ResumeCompleteSchema,
  ResyncAckSchema,
  ResyncSchema,
  ScoreDeltaSchema,
  SnapshotCompleteSchema,
  SnapshotErrorSchema,
  SnapshotFrameSchema,
  SnapshotRequestSchema,
  StreamErrorSchema,
  StreamHeartbeatSchema,
  SubscribedSchema,
  SubscribeSchema,
  UnsubscribedSchema,
  UnsubscribeSchema,
  UsageRequestSchema,
  UsageSchema,
} from './message-schemas.ts';
import { MARKETS_PATH, MULTIPLEX_PATH, V1_PATH } from './upgrade.ts';

/**
 * The AsyncAPI 3.0 document of the three WebSocket endpoints, served at /asyncapi.json beside the
 * OpenAPI document (docs/spec-gaps.md: The OpenAPI and AsyncAPI documents). It is made from the
 * message schemas (message-schemas.ts); the refusals at the upgrade are HTTP answers and are
 * described in words, since AsyncAPI has no place for them.
 */

export const ASYNCAPI_PATH = '/asyncapi.json';

interface Message {
  name: string;
  title: string;
  summary: string;
  payload: TSchema;
}

/** Plain JSON: TypeBox's symbols and modifiers stay out of the document. */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const message = (name: string, title: string, summary: string, payload: TSchema): Message => ({
  name,
  title,
  summary,
  payload,
});

const dedicatedQuery = (period: boolean) => ({
  type: 'object',
  properties: {
    sport_ids: { type: 'string', description: 'comma-separated sport ids; none: every sport the plan covers' },
    event_ids: { type: 'string', description: 'comma-separated event ids' },
    ...(period
      ? { period: { type: 'string', description: 'comma-separated V1 period names (period_full_game …) or ids (0-7)' } }
      : { market_ids: { type: 'string', description: 'comma-separated market ids; 1, 2, 3 bring 41, 42, 43' } }),
    affiliate_ids: { type: 'string', description: 'comma-separated affiliate ids' },
    key: { type: 'string', description: 'the API key (the key header is recommended instead)' },
    token: { type: 'string', description: 'a stream token from POST /api/v2/ws/token' },
  },
});

const UPGRADE =
  'Refusals come before the handshake as HTTP answers with the REST error bodies: 401 without a valid key, ' +
  '403 without WebSocket access (Ultra and above), 429 at the burst ceiling or the connection cap, 400 for a ' +
  'bad filter. A plain GET without an upgrade is answered 426.';

export function asyncApiDocument(opts: { version: string; keyHeader: string }): unknown {
  const channels: Record<
    string,
    { address: string; title: string; description: string; query?: unknown; messages: Message[] }
  > = {
    marketsStream: {
      address: MARKETS_PATH,
      title: 'Dedicated market stream',
      description: `One message per price change, and a heartbeat every 15 seconds. Takes no messages. ${UPGRADE}`,
      query: dedicatedQuery(false),
      messages: [
        message('marketPrice', 'market_price', 'one price change', MarketPriceMessageSchema),
        message('heartbeat', 'heartbeat', 'every 15 seconds', StreamHeartbeatSchema('v2')),
      ],
    },
    multiplexed: {
      address: MULTIPLEX_PATH,
      title: 'Multiplexed endpoint',
      description:
        'Channels markets, scores, plays, stats, live, live_game_state (game_state) and futures, chosen by ' +
        `subscribe messages; answers and deltas carry the subscription id. ${UPGRADE}`,
      messages: [
        message('subscribe', 'subscribe', 'open a subscription', SubscribeSchema),
        message('unsubscribe', 'unsubscribe', 'close a subscription', UnsubscribeSchema),
        message('snapshotRequest', 'snapshot', 'a fresh snapshot of a subscription', SnapshotRequestSchema),
        message('resync', 'resync', 'resume a subscription from a position, or take a snapshot', ResyncSchema),
        message('usageRequest', 'usage', 'the key’s usage (free)', UsageRequestSchema),
        message('subscribed', 'subscribed', 'a subscription is open', SubscribedSchema),
        message('unsubscribed', 'unsubscribed', 'a subscription is closed', UnsubscribedSchema),
        message('snapshot', 'snapshot', 'one frame of a snapshot', SnapshotFrameSchema),
        message(
          'snapshotComplete',
          'snapshot_complete',
          'the snapshot is whole: deltas follow',
          SnapshotCompleteSchema,
        ),
        message('marketsDelta', 'delta (markets)', 'one price change on a markets subscription', MarketsDeltaSchema),
        message('scoreDelta', 'delta (scores)', 'a score change on a scores subscription', ScoreDeltaSchema),
        message('liveDelta', 'delta (live, plays, stats, futures)', 'a change on the other channels', LiveDeltaSchema),
        message('resyncAck', 'resync_ack', 'a resync is under way', ResyncAckSchema),
        message('resumeComplete', 'resume_complete', 'the missed deltas are replayed', ResumeCompleteSchema),
        message('usage', 'usage', 'the key’s usage', UsageSchema),
        message('error', 'error', 'an in-band error', StreamErrorSchema),
        message('snapshotError', 'snapshot_error', 'a snapshot or resume could not be served', SnapshotErrorSchema),
        message('heartbeat', 'heartbeat', 'every 15 seconds', MultiplexHeartbeatSchema),
      ],
    },
    v1Stream: {
      address: V1_PATH,
      title: 'V1 line stream',
      description:
        'One message per line set (event, book, V1 period) that a committed batch changed, and a heartbeat every ' +
        `15 seconds; needs a V1 subscription. Takes no messages. ${UPGRADE}`,
      query: dedicatedQuery(true),
      messages: [
        message('line', 'line', 'one line set after a change', LineMessageSchema),
        message('heartbeat', 'heartbeat', 'every 15 seconds', StreamHeartbeatSchema('v1')),
      ],
    },
  };
  /** Client messages: what the server receives; everything else it sends. */
  const received = new Set(['subscribe', 'unsubscribe', 'snapshotRequest', 'resync', 'usageRequest']);
  const security = [
    { $ref: '#/components/securitySchemes/serviceKey' },
    { $ref: '#/components/securitySchemes/queryKey' },
    { $ref: '#/components/securitySchemes/streamToken' },
  ];
  const operations: Record<string, unknown> = {};
  for (const [channelName, c] of Object.entries(channels)) {
    const refs = (names: string[]) => names.map((n) => ({ $ref: `#/channels/${channelName}/messages/${n}` }));
    const sent = c.messages.map((m) => m.name).filter((n) => !received.has(n));
    const taken = c.messages.map((m) => m.name).filter((n) => received.has(n));
    operations[`${channelName}Send`] = {
      action: 'send',
      title: `${c.title}: server messages`,
      channel: { $ref: `#/channels/${channelName}` },
      messages: refs(sent),
      security: channelName === 'multiplexed' ? [security[0], security[2]] : security,
    };
    if (taken.length > 0) {
      operations[`${channelName}Receive`] = {
        action: 'receive',
        title: `${c.title}: client messages`,
        channel: { $ref: `#/channels/${channelName}` },
        messages: refs(taken),
        security: [security[0], security[2]],
      };
    }
  }
  return json({
    asyncapi: '3.0.0',
    info: {
      title: 'oddsbase streams',
      version: opts.version,
      description:
        'The WebSocket endpoints of the sports odds, scores and statistics API (interface version 2.0.0). ' +
        'The REST routes are in /openapi.json.',
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
    },
    defaultContentType: 'application/json',
    channels: Object.fromEntries(
      Object.entries(channels).map(([name, c]) => [
        name,
        {
          address: c.address,
          title: c.title,
          description: c.description,
          messages: Object.fromEntries(
            c.messages.map((m) => [m.name, { name: m.title, title: m.title, summary: m.summary, payload: m.payload }]),
          ),
          ...(c.query ? { bindings: { ws: { query: c.query, bindingVersion: '0.1.0' } } } : {}),
        },
      ]),
    ),
    operations,
    components: {
      securitySchemes: {
        serviceKey: { type: 'httpApiKey', in: 'header', name: opts.keyHeader, description: 'the API key' },
        queryKey: { type: 'httpApiKey', in: 'query', name: 'key', description: 'the API key (dedicated streams only)' },
        streamToken: {
          type: 'httpApiKey',
          in: 'query',
          name: 'token',
          description: 'a single-use stream token from POST /api/v2/ws/token, for pages that cannot set headers',
        },
      },
    },
  });
}

/** GET /asyncapi.json: public like /openapi.json, and left out of it. */
export function asyncApiRoute(app: FastifyInstance, opts: { version: string; keyHeader: string }): void {
  const body = JSON.stringify(asyncApiDocument(opts));
  app.get(ASYNCAPI_PATH, { schema: { hide: true }, config: { public: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
}
