import type { ChangeRecord } from '../changelog/change.ts';

/**
 * Reads of the recorded price rows (the `changes` rows with a price id) for the history, chart,
 * openers and closing routes. Every read is bounded: by `limit`, or by one row per price.
 */

/** One recorded price row as the ledger wrote it: the Delta row (`payload`) and its detail. */
export type PriceRecord = Pick<ChangeRecord, 'id' | 'payload' | 'detail'> & {
  price_id: number;
};

/** Which rows a history read looks at. */
export type HistoryScope =
  /** Every price row of an event, or of one market id of it. */
  | { eventId: string; marketId?: number }
  /** The rows of these market_line_prices, wherever they belong (none for an empty list). */
  | { priceIds: readonly number[] };

export type HistoryQuery = HistoryScope & {
  /** Highest change id to look at: the head of the board the caller sees (older on a delayed plan). */
  uptoId: number;
  /** Inclusive bounds on the row time, as 24-character UTC ISO strings (they compare as text). */
  from?: string;
  to?: string;
  /** Only rows whose is_main_line flag is set. */
  mainLineOnly?: boolean;
  /** A plan's coverage: rows of other books, markets or periods are left out (an empty list leaves every row out). */
  coverage?: Coverage;
  limit: number;
};

export interface Coverage {
  affiliateIds?: readonly number[];
  marketIds?: readonly number[];
  periodIds?: readonly number[];
}

/** Contract: test/contract/history.contract.ts, run against every implementation. */
export interface HistoryStore {
  /** The newest `limit` matching rows, newest (highest id) first. */
  rows(q: HistoryQuery): Promise<PriceRecord[]>;
  /** The first recorded row of each price, up to `uptoId`; prices without one are left out. */
  firstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]>;
  /** The last row of each price, up to `uptoId`, whose time is at or before `cutoff` (24-char UTC ISO). */
  lastRowsAtOrBefore(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]>;
}
