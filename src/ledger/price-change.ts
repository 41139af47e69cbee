import type { DeltaRow } from '../domain/types.ts';

/** What a price row records beyond the spec's Delta row (the `detail` of its change record). */
export interface PriceDetail {
  price_id: number;
  period_id: number;
  market_instance_id: number;
  line_id: string;
  price_delta: number;
  liquidity_usd?: number;
  source_id?: string;
}

/** A price row of the change log, whole: the Delta row as served plus its detail. */
export type PriceChange = DeltaRow & PriceDetail;

/** Reads a stored price row back into one object. */
export function parsePriceChange(payload: string, detail: string | null): PriceChange {
  return { ...(JSON.parse(payload) as DeltaRow), ...(JSON.parse(detail ?? '{}') as PriceDetail) };
}
