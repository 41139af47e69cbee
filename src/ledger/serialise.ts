import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { DeltaRowSchema } from '../http/schemas.ts';

/**
 * Serialisers of the price rows the ledger writes: compiled from schemas once, about twice as fast
 * as JSON.stringify, and with a fixed field order (the Delta row's order in the specification).
 */

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
