import { Type } from '@sinclair/typebox';
import type { Same } from '../domain/shape-tie.ts';
import type { PriceDetail } from './change.ts';

/**
 * A price row's detail (PriceDetail), as the change log stores it beside the Delta row: what the
 * board needs of the row that the spec's row does not carry. Its compiled serialiser is the plain
 * twin of the detail the ledger writes by hand (perf/delta-row-text.ts).
 */
export const PriceDetailSchema = Type.Object({
  price_id: Type.Integer(),
  period_id: Type.Integer(),
  market_instance_id: Type.Integer(),
  line_id: Type.String(),
  price_delta: Type.Number(),
  liquidity_usd: Type.Optional(Type.Number()),
  source_id: Type.Optional(Type.String()),
  moved_from: Type.Optional(Type.String()),
  quote_unchanged: Type.Optional(Type.Literal(true)),
});

const _detail: Same<PriceDetail, typeof PriceDetailSchema> = true;
