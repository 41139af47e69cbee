/**
 * The Store: the system of record. Only the ledger commits to it; routes read history from it.
 * Implementations: sqlite/ (embedded, the default). Every commit is one transaction.
 */

export type ChangeKind = 'price' | 'event' | 'score';

/** One row of the change log. `payload` is the change serialised once, at commit. */
export interface ChangeRecord {
  id: number;
  kind: ChangeKind;
  event_id: string;
  sport_id: number;
  /** The time the change describes (a back-filled row can lie in the past). */
  at: string;
  /** Wall-clock time of the commit in epoch ms; never decreases along the id sequence. */
  committed_ms: number;
  /** Price rows only: the market_line_price id, its book and market. */
  price_id: number | null;
  affiliate_id: number | null;
  market_id: number | null;
  /** The row as served: for price rows exactly the spec's Delta row, serialised once. */
  payload: string;
  /** Price rows: what the board and history need beyond the Delta row (ids, delta, liquidity). */
  detail: string | null;
}

export interface EventRecord {
  event_id: string;
  sport_id: number;
  event_date: string;
  /** JSON of the EventInfo (header, score, live state). */
  info: string;
  change_id: number;
}

/** A market instance: its integer id is the `id` of a Market inside an event. */
export interface MarketRecord {
  id: number;
  event_id: string;
  market_id: number;
  period_id: number;
}

export interface Commit {
  changes: ChangeRecord[];
  events: EventRecord[];
  markets: MarketRecord[];
}

export interface LoadedState {
  events: EventRecord[];
  markets: MarketRecord[];
  /** The newest change row of every price (the current state of each market_line_price). */
  latestPrices: ChangeRecord[];
  headId: number;
  /** committed_ms of the head row, 0 on an empty store. */
  headCommittedMs: number;
}

/** A read of change rows after a cursor, in id order. */
export interface ChangeQuery {
  /** Only price rows (the markets delta) or every kind (the event delta). */
  pricesOnly: boolean;
  afterId: number;
  /** Highest id to look at (the head when the read began); bounds the scan. */
  toId: number;
  limit: number;
  sportId?: number;
  eventId?: string;
  affiliateIds?: readonly number[];
  marketIds?: readonly number[];
}

export interface PayloadBytes {
  bytes: Buffer;
  count: number;
  /** Id of the last row read (0 when none). */
  lastRowId: number;
  /** Another matching row follows at or below the query's toId. */
  more: boolean;
}

export type PriceRowSummary = Pick<
  ChangeRecord,
  'id' | 'sport_id' | 'event_id' | 'affiliate_id' | 'market_id' | 'payload'
>;

export interface Store {
  /** Reads everything needed to rebuild the Board after a restart. */
  load(): LoadedState;
  /** Writes one batch atomically: all of it or none of it. */
  commit(commit: Commit): void;
  readChanges(q: ChangeQuery): ChangeRecord[];
  /** The payloads of the same rows as readChanges joined by commas, in id order: the markets delta's read. */
  readPayloadBytes(q: ChangeQuery): PayloadBytes;
  /** Every price row in (afterId, toId], oldest first, with what a delta filter looks at. */
  scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): void;
  /** Every row with afterId < id <= toId, in id order. */
  readChangesRange(afterId: number, toId: number): ChangeRecord[];
  /** The state as it was after change `uptoId` was committed (for delayed views). */
  loadUpTo(uptoId: number): LoadedState;
  /** committed_ms of the newest row with an id at or below `id`, or undefined. */
  committedMsAt(id: number): number | undefined;
  /** The smallest change id committed at or after `ms`, or undefined when none is. */
  firstIdCommittedSince(ms: number): number | undefined;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  close(): void;
}
