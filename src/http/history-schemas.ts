import { Type } from '@sinclair/typebox';

/**
 * The wire shapes of price history and line charts, apart from their routes so that the typed
 * client (packages/client) takes its types from them without the routes' server code.
 */

export const HistoryRowSchema = Type.Object({
  id: Type.Integer({
    description: 'change id of the row (the markets delta cursor value)',
  }),
  market_line_price_id: Type.Integer({
    description: 'the price id (Price.id of event snapshots)',
  }),
  event_id: Type.String(),
  sport_id: Type.Integer(),
  affiliate_id: Type.Integer(),
  market_participant_id: Type.Integer({
    description: 'participant.id of the event markets',
  }),
  market_id: Type.Integer({ description: 'actual (possibly in-play) id' }),
  line: Type.String({ description: 'empty for moneyline' }),
  price: Type.String(),
  previous_price: Type.String({
    description: 'empty for the first row of a price',
  }),
  change_type: Type.String({ description: 'new, price_change or line_change' }),
  is_main_line: Type.Boolean(),
  closed_at: Type.String({ description: 'empty when active' }),
  updated_at: Type.String(),
});

export const HistoryResponse = Type.Object({
  meta: Type.Object({
    event_id: Type.String({
      description: 'the event of the rows; on /api/v2/markets/history empty when they span several events or none',
    }),
    count: Type.Integer(),
  }),
  history: Type.Array(HistoryRowSchema, { description: 'newest first' }),
});

export const ChartPointSchema = Type.Object({
  t: Type.String({ description: 'updated_at' }),
  l: Type.String({ description: 'line value; empty for moneyline' }),
  p: Type.Number({ description: 'American odds; 0.0001 = off the board' }),
  m: Type.Boolean({ description: 'is_main_line' }),
  c: Type.Optional(Type.String({ description: 'closed_at, only on a closed row' })),
});

export const ChartResponse = Type.Object({
  meta: Type.Object(
    { event_id: Type.String(), market_id: Type.Integer(), market_name: Type.String() },
    { description: 'what existing clients read; event_id and market_id are repeated at the top level' },
  ),
  event_id: Type.String(),
  market_id: Type.Integer(),
  series: Type.Record(Type.String(), Type.Array(ChartPointSchema), {
    description: 'keyed by affiliate id; points oldest first',
  }),
});
