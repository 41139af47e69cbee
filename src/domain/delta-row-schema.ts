import { Type } from '@sinclair/typebox';

/**
 * The Delta row of the markets delta feed, as the spec defines it. It lives here rather than with
 * the other wire schemas because the ledger serialises every change row with it when it commits.
 */
export const DeltaRowSchema = Type.Object({
  id: Type.Integer({ description: 'cursor value' }),
  event_id: Type.String(),
  sport_id: Type.Integer(),
  affiliate_id: Type.Integer(),
  market_id: Type.Integer({ description: 'actual (possibly in-play) id' }),
  market_name: Type.String(),
  participant_id: Type.Integer(),
  participant_type: Type.String(),
  participant_name: Type.String(),
  line: Type.String(),
  price: Type.String(),
  previous_price: Type.String({ description: 'empty when new' }),
  change_type: Type.String({ description: 'new, price_change or line_change' }),
  is_main_line: Type.Boolean(),
  closed_at: Type.String({ description: 'empty when active' }),
  updated_at: Type.String(),
});
