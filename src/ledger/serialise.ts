import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';

/**
 * Serialisers of the price rows the ledger writes: compiled from schemas once, about twice as fast
 * as JSON.stringify, and with a fixed field order (the Delta row's order in the specification).
 */

const DeltaRowSchema = Type.Object({
  id: Type.Integer(),
  event_id: Type.String(),
  sport_id: Type.Integer(),
  affiliate_id: Type.Integer(),
  market_id: Type.Integer(),
  market_name: Type.String(),
  participant_id: Type.Integer(),
  participant_type: Type.String(),
  participant_name: Type.String(),
  line: Type.String(),
  price: Type.String(),
  previous_price: Type.String(),
  change_type: Type.String(),
  is_main_line: Type.Boolean(),
  closed_at: Type.String(),
  updated_at: Type.String(),
});

const PriceDetailSchema = Type.Object({
  price_id: Type.Integer(),
  period_id: Type.Integer(),
  market_instance_id: Type.Integer(),
  line_id: Type.String(),
  price_delta: Type.Number(),
  liquidity_usd: Type.Optional(Type.Number()),
  source_id: Type.Optional(Type.String()),
});

export const serialiseDeltaRow = fastJson(DeltaRowSchema);
export const serialisePriceDetail = fastJson(PriceDetailSchema);
