import { type TSchema, Type } from '@sinclair/typebox';
import { EventSchema, ScoreSchema } from '../projection/schemas.ts';
import { ERROR_CODES, SNAPSHOT_ERROR_CODES } from './errors.ts';
import { CHANNELS } from './frames.ts';
import { LineDataSchema } from './line-frames.ts';

/**
 * The streams' messages as JSON Schemas, for the AsyncAPI document (asyncapi.ts) and the tests that
 * hold real messages to it. The frames are written by hand for speed (frames.ts, connection.ts,
 * multiplex.ts, snapshots.ts); these describe what they write, docs/spec-gaps.md (WebSocket streams)
 * in schema form. Payloads the spec leaves open and the server passes through (plays, game stats,
 * futures rows, live game state) are objects described in words.
 */

const literal = (value: string) => Type.Literal(value);
const strings = (values: readonly string[]) => Type.Union(values.map(literal));
/** A message or part of one that carries exactly these fields. */
const closed = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
const openObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** A change-log position: the id of a frame's last row and the log's epoch. */
export const PositionSchema = closed({ id: Type.Integer(), epoch: Type.String() });

/**
 * The dedicated stream's market_price data (spec: Events), also the markets channel's delta data;
 * the typed client's `MarketPrice` is its Static<>.
 */
export const MarketPriceDataSchema = closed({
  id: Type.Integer({ description: 'market_line_price id: the REST Price id' }),
  event_id: Type.String(),
  affiliate_id: Type.Integer(),
  market_id: Type.Integer({ description: 'the in-play id for live rows (41/42/43), never relabeled' }),
  market_participant_id: Type.Integer(),
  normalized_market_participant_id: Type.Integer({ description: 'the REST participant.id' }),
  normalized_market_participant_type: Type.Integer({ description: '1 team, 2 player, 3 result' }),
  line: Type.String(),
  price: Type.String({ description: 'American odds; 0.0001 = off the board' }),
  previous_price: Type.String(),
  price_delta: Type.Number(),
  is_main_line: Type.Boolean(),
  sport_id: Type.Integer(),
  updated_at: Type.String({ description: 'ISO 8601' }),
  closed_at: Type.String({ description: 'empty while the line is open' }),
  liquidity_usd: Type.Optional(Type.Number({ description: 'omitted when unavailable' })),
  snapshot: Type.Boolean(),
});

/** `meta` of the dedicated streams' messages. */
const meta = (type: string, version: string) =>
  closed({ type: literal(type), version: literal(version), timestamp: Type.Integer({ description: 'Unix seconds' }) });

export const MarketPriceMessageSchema = closed({ meta: meta('market_price', 'v2'), data: MarketPriceDataSchema });

export const StreamHeartbeatSchema = (version: 'v1' | 'v2') =>
  closed({ meta: meta('heartbeat', version), data: closed({ now: Type.Integer({ description: 'Unix seconds' }) }) });

export const LineMessageSchema = Type.Object(
  { meta: meta('line', 'v1'), data: LineDataSchema },
  { description: 'one line set (event, book, V1 period) as it stands after a committed batch' },
);

// The multiplexed endpoint: what the client sends.

const subscriptionId = Type.String({ minLength: 1, maxLength: 64, description: 'client-chosen subscription id' });
const idList = (what: string) =>
  Type.Union([Type.Array(Type.Integer()), Type.String(), Type.Integer()], {
    description: `${what}: an array, a comma string or one value`,
  });

export const SubscribeParamsSchema = Type.Object(
  {
    sport_ids: Type.Optional(idList('sport ids')),
    event_ids: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.String()], { description: 'event ids: an array or a comma string' }),
    ),
    market_ids: Type.Optional(idList('market ids (markets and futures channels; 1, 2, 3 bring 41, 42, 43)')),
    affiliate_ids: Type.Optional(idList('affiliate ids (markets and futures channels)')),
    main_line: Type.Optional(Type.Boolean()),
    snapshot: Type.Optional(Type.Boolean({ description: 'the current state first, within a bounded scope' })),
    conflate: Type.Optional(Type.Boolean({ description: 'markets: keep the latest price per line while behind' })),
    date: Type.Optional(Type.String({ format: 'date' })),
    offset: Type.Optional(
      Type.Union([Type.Integer(), Type.String()], { description: 'minutes that shift the day of date' }),
    ),
    participant_type: Type.Optional(strings(['TYPE_TEAM', 'TYPE_PLAYER', 'TYPE_RESULT'])),
    event_status: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()])),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, description: 'plays: plays per event in a snapshot' }),
    ),
    resume_from: Type.Optional(PositionSchema),
    resume: Type.Optional(
      Type.Object(
        { plays: Type.Record(Type.String(), Type.Integer()) },
        { description: 'plays: the last sequence held per event' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const SubscribeSchema = closed({
  action: literal('subscribe'),
  id: subscriptionId,
  channel: strings(CHANNELS),
  params: Type.Optional(SubscribeParamsSchema),
});
export const UnsubscribeSchema = closed({ action: literal('unsubscribe'), id: subscriptionId });
export const SnapshotRequestSchema = closed({ action: literal('snapshot'), id: subscriptionId });
export const ResyncSchema = closed({
  action: literal('resync'),
  id: subscriptionId,
  resume_from: Type.Optional(PositionSchema),
  resume: Type.Optional(Type.Object({ plays: Type.Record(Type.String(), Type.Integer()) })),
});
export const UsageRequestSchema = closed({ action: literal('usage'), id: Type.Optional(Type.String()) });

// The multiplexed endpoint: what the server sends.

const nullableList = <T extends TSchema>(item: T) => Type.Union([Type.Array(item), Type.Null()]);

export const SubscribedSchema = closed({
  type: literal('subscribed'),
  id: Type.String(),
  channel: strings(CHANNELS),
  params: closed({
    sport_ids: nullableList(Type.Integer()),
    event_ids: nullableList(Type.String()),
    market_ids: nullableList(Type.Integer()),
    affiliate_ids: nullableList(Type.Integer()),
    main_line: Type.Boolean(),
    snapshot: Type.Boolean(),
    conflate: Type.Boolean(),
    participant_type: Type.Union([Type.String(), Type.Null()]),
    event_status: nullableList(Type.String()),
    limit: Type.Union([Type.Integer(), Type.Null()]),
  }),
  position: PositionSchema,
});

export const UnsubscribedSchema = closed({ type: literal('unsubscribed'), id: Type.String() });

export const SnapshotFrameSchema = Type.Object(
  {
    type: literal('snapshot'),
    id: Type.String(),
    channel: strings(CHANNELS),
    position: PositionSchema,
    event_id: Type.Optional(Type.String()),
    sport_id: Type.Optional(Type.Integer()),
    scope: Type.Optional(
      Type.Object({
        requested_market_ids: Type.Array(Type.Integer()),
        returned_market_ids: Type.Array(Type.Integer()),
      }),
    ),
    cursor: Type.Optional(
      Type.Union([Type.Object({ oldest_sequence: Type.Integer(), newest_sequence: Type.Integer() }), Type.Null()]),
    ),
    resumed_after: Type.Optional(Type.Integer()),
    data: Type.Union([EventSchema, Type.Array(openObject('a play')), openObject('the channel’s snapshot data')], {
      description:
        'markets: the REST event; plays: the plays, newest first; scores, live, live_game_state and futures: ' +
        'the channel’s data (docs/spec-gaps.md)',
    }),
  },
  { additionalProperties: false },
);

export const SnapshotCompleteSchema = closed({
  type: literal('snapshot_complete'),
  id: Type.String(),
  channel: strings(CHANNELS),
  position: PositionSchema,
  frames: Type.Integer(),
});

const deltaEnvelope = {
  type: literal('delta'),
  id: Type.String(),
  channel: strings(CHANNELS),
  sub_sequence: Type.Integer({ minimum: 1, description: 'the subscription’s deltas, counted from 1 without gaps' }),
  position: PositionSchema,
  conflated: Type.Optional(
    Type.Literal(true, { description: 'markets with conflate: the latest price of a line that waited' }),
  ),
};

export const MarketsDeltaSchema = closed({
  ...deltaEnvelope,
  kind: literal('market_price'),
  data: MarketPriceDataSchema,
});

export const ScoreDeltaSchema = closed({
  ...deltaEnvelope,
  kind: literal('score'),
  data: closed({ event_id: Type.String(), sport_id: Type.Integer(), score: Type.Union([ScoreSchema, Type.Null()]) }),
});

export const LiveDeltaSchema = closed({
  ...deltaEnvelope,
  kind: strings([
    'live',
    'live_game_state',
    'play',
    'game_stats',
    'futures_board',
    'futures_price',
    'futures_settlement',
  ]),
  data: openObject(
    'live: event_id, sport_id, event_status, score, live_game_state; play: the REST play; game_stats: ' +
      'row-level stat deltas, a completion marker or an invalidation; futures: the change row (docs/spec-gaps.md)',
  ),
});

export const ResyncAckSchema = closed({ type: literal('resync_ack'), id: Type.String(), position: PositionSchema });

export const ResumeCompleteSchema = closed({
  type: literal('resume_complete'),
  id: Type.String(),
  channel: strings(CHANNELS),
  position: PositionSchema,
  replayed: Type.Integer(),
  cursors: Type.Object({ plays: Type.Optional(Type.Record(Type.String(), Type.Integer())) }),
});

export const UsageSchema = closed({
  type: literal('usage'),
  id: Type.Union([Type.String(), Type.Null()]),
  metered: Type.Optional(Type.Boolean()),
  tier: Type.Optional(Type.String()),
  used: Type.Optional(Type.Number()),
  remaining: Type.Optional(Type.Number()),
  limit: Type.Optional(Type.Number()),
  period: Type.Optional(Type.String()),
  reset: Type.Optional(Type.String()),
  connections: Type.Optional(Type.Integer()),
  connection_limit: Type.Optional(Type.Integer()),
  subscriptions: Type.Optional(Type.Integer()),
  subscription_limit: Type.Optional(Type.Integer()),
});

export const StreamErrorSchema = closed({
  type: literal('error'),
  id: Type.Union([Type.String(), Type.Null()], { description: 'the message’s id when it is a valid subscription id' }),
  code: strings(Object.keys(ERROR_CODES)),
  message: Type.String(),
});

export const SnapshotErrorSchema = closed({
  type: literal('snapshot_error'),
  id: Type.String(),
  code: strings(Object.keys(SNAPSHOT_ERROR_CODES)),
  message: Type.String(),
  retry_after: Type.Optional(Type.Integer({ description: 'resume_busy only: seconds' })),
});

export const MultiplexHeartbeatSchema = closed({
  type: literal('heartbeat'),
  now: Type.Integer({ description: 'Unix seconds' }),
});
