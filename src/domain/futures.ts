import type { ParticipantType } from './types.ts';

/**
 * Futures boards: outright markets on a competition's winner (a season's champion, a tournament's
 * or a race's winner). The spec names them and leaves their layout unshown; the layout here is
 * recorded in docs/spec-gaps.md and follows the V2 event: an event id, markets, participants and
 * prices keyed by book.
 */

/** open: priced; settled: decided, with a winner; void: called off, every bet refunded. */
export type FuturesState = 'open' | 'settled' | 'void';
export const FUTURES_STATES: readonly FuturesState[] = ['open', 'settled', 'void'];

export interface FuturesParticipant {
  /** TYPE_TEAM: the normalized team id; TYPE_PLAYER: the athlete's id. */
  id: number;
  name: string;
  type: ParticipantType;
  /** The team a player drives or plays for, where there is one. */
  team_id?: number;
}

export interface FuturesMarketHeader {
  market_id: number;
  name: string;
  participants: FuturesParticipant[];
}

/** A board as a feed opens it: everything but its prices and its settlement. */
export interface FuturesHeader {
  event_id: string;
  sport_id: number;
  /** "NBA Championship 2026-11-16 to 2026-11-29", "Golf Tour Week of 2026-11-23". */
  name: string;
  season_year: number;
  /** When the competition begins and when it is expected to be decided (ISO 8601). */
  starts_at: string;
  ends_at: string;
  markets: FuturesMarketHeader[];
}

export interface FuturesSettlement {
  state: FuturesState;
  /** The winning participant's id once settled; null while open and when void. */
  winner_participant_id: number | null;
  /** '' while open, as closed_at is while a price is active. */
  settled_at: string;
}

export const OPEN_SETTLEMENT: FuturesSettlement = { state: 'open', winner_participant_id: null, settled_at: '' };

/** One book's price on one participant, as served. */
export interface FuturesPrice {
  affiliate_id: number;
  /** American odds, an integer. */
  price: number;
  price_delta: number;
  updated_at: string;
  /** '' while the price is active; the settlement time once the board is settled or void. */
  closed_at: string;
}

export interface FuturesParticipantView extends FuturesParticipant {
  /** Keyed by affiliate id as a string, as a V2 Line's prices are. */
  prices: Record<string, FuturesPrice>;
}

export interface FuturesMarketView {
  market_id: number;
  name: string;
  participants: FuturesParticipantView[];
}

/** A futures board as /api/v2/sports/{sportID}/futures serves it. */
export interface FuturesBoardView extends Omit<FuturesHeader, 'markets'> {
  updated_at: string;
  settlement: FuturesSettlement;
  markets: FuturesMarketView[];
}

/** One book's current price on one participant of a futures board, as the board holds it. */
export interface FuturesPriceState {
  affiliate_id: number;
  price: number;
  price_delta: number;
  updated_at: string;
  /** '' while active; the settlement time once the board is decided. */
  closed_at: string;
  /** Id of the change row that last wrote it. */
  change_id: number;
}
