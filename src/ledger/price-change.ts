import type { PriceDetail } from '../changelog/change.ts';
import type { DeltaRow } from '../domain/types.ts';

/** A price row of the change log, whole: the Delta row as served plus its detail. */
export type PriceChange = DeltaRow & PriceDetail;

/** Reads a stored price row back into one object. */
export function parsePriceChange(payload: string, detail: string | null): PriceChange {
  return { ...(JSON.parse(payload) as DeltaRow), ...(JSON.parse(detail ?? '{}') as PriceDetail) };
}
