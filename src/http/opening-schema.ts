import { Type } from '@sinclair/typebox';

/**
 * The answer of /api/v2/events/{eventID}/markets/opening (the published markets layout of an
 * event's opening prices), apart from its route so that the typed client (packages/client) takes
 * its type from it.
 */
export const OpeningLayoutSchema = Type.Object({
  meta: Type.Object({
    event_id: Type.String(),
    count: Type.Integer({ description: 'markets in `markets`' }),
  }),
  markets: Type.Record(
    Type.String({ description: 'market_id' }),
    Type.Object({
      market_id: Type.Integer(),
      market_name: Type.String(),
      lines: Type.Record(
        Type.String({ description: '"<participant_id>:<line>"' }),
        Type.Object({
          participant_id: Type.Integer(),
          participant_type: Type.String(),
          participant_name: Type.String(),
          prices: Type.Record(
            Type.String({ description: 'affiliate id' }),
            Type.Object({ price: Type.Number(), timestamp: Type.String() }),
          ),
        }),
      ),
    }),
  ),
});
