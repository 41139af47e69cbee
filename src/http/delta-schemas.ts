import { Type } from '@sinclair/typebox';
import { DeltaRowSchema } from '../domain/delta-row-schema.ts';
import { V1EventSchema } from '../projection/v1-schemas.ts';

/**
 * The wire shapes of the delta feeds, apart from their routes so that the typed client
 * (packages/client) takes its types from them without the routes' server code.
 */

/** `meta.epoch` of the delta answers (beyond the spec): the log the cursor belongs to. */
export const LogEpochSchema = Type.String({
  description:
    'the change log’s epoch: it changes when the log is restored from a backup or recreated, and a cursor from another epoch is refused',
});

/** The /api/v2/markets/delta body: price rows after the cursor, in id order. */
export const MarketsDeltaSchema = Type.Object({
  meta: Type.Object({
    delta_last_id: Type.String(),
    count: Type.Integer(),
    has_more: Type.Boolean(),
    epoch: LogEpochSchema,
  }),
  deltas: Type.Array(DeltaRowSchema),
});

/** The /api/v2/delta body: one item per changed event, the event's snapshot JSON as a string. */
export const V2EventDeltaSchema = Type.Object({
  meta: Type.Object({
    delta_last_id: Type.String(),
    count: Type.Integer(),
    has_more: Type.Boolean(),
    epoch: LogEpochSchema,
  }),
  deltas: Type.Array(
    Type.Object({
      id: Type.String({ description: 'UUIDv7 of the event’s latest change in this page' }),
      event_id: Type.String(),
      sport_id: Type.Integer(),
      updated_at: Type.String(),
      json: Type.String({ description: 'the full event (events snapshot shape) as a JSON string' }),
    }),
  ),
});

/** The /api/v1/delta and /api/v1/sports/{id}/events/delta body: full V1 events that changed. */
export const V1DeltaSchema = Type.Object({
  meta: Type.Object({
    delta_last_id: Type.String({ description: 'the cursor to send as last_id next' }),
    count: Type.Integer(),
    has_more: Type.Boolean(),
    epoch: LogEpochSchema,
  }),
  events: Type.Array(V1EventSchema, { description: 'each changed event once, in the order of its latest change' }),
});
