import type { FuturesState } from '../domain/futures.ts';
import type { EventInfo } from '../domain/types.ts';

/** Identity of one sportsbook's price on one line (a market_line_price). */
export interface PriceKey {
  event_id: string;
  market_id: number;
  period_id: number;
  participant_id: number;
  line: string;
  affiliate_id: number;
}

export interface PriceSnapshot {
  price: number;
  is_main_line: boolean;
  closed: boolean;
}

/**
 * What a feed may read of the committed state, so that it can resume after a restart.
 * Implemented by the Board; a feed never writes through it.
 */
export interface FeedStateReader {
  /** The event's header, score and live state as last committed, or undefined. */
  event(eventId: string): EventInfo | undefined;
  /** The ids of every committed event. */
  eventIds(): Iterable<string>;
  price(key: PriceKey): PriceSnapshot | undefined;
  /** The committed prices of one book for one participant of a market, by line (empty when none). */
  linePrices(group: Omit<PriceKey, 'line'>): ReadonlyMap<string, PriceSnapshot>;
  /** A committed futures board's settlement state, or undefined for a board never opened. */
  futuresState(eventId: string): FuturesState | undefined;
  /** The last committed change id, 0 on an empty store. */
  headId(): number;
  /** A player's committed box-score value of a stat id in an event; 0 when there is none. */
  playerStat(eventId: string, playerId: number, statId: number): number;
}
