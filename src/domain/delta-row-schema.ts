import { Type } from '@sinclair/typebox';
import { ChangeTypeSchema, ParticipantTypeSchema } from './value-sets.ts';

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
  participant_type: ParticipantTypeSchema,
  participant_name: Type.String(),
  line: Type.String(),
  price: Type.String(),
  previous_price: Type.String({ description: 'empty when new' }),
  change_type: ChangeTypeSchema,
  is_main_line: Type.Boolean(),
  closed_at: Type.String({ description: 'empty when active' }),
  updated_at: Type.String(),
});
