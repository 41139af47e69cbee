import type { EventInfo, ParticipantType, PriceExtras } from './types.ts';

/**
 * The state of an event as the board holds it (its markets, lines, prices and game): plain data,
 * here rather than in board/ so that the speed tricks of perf/, which may not import the board,
 * read the same shapes the board keeps.
 */

/** One sportsbook's current price on one line. */
export interface PriceState extends PriceExtras {
  /** market_line_price id. */
  id: number;
  affiliate_id: number;
  price: number;
  is_main_line: boolean;
  updated_at: string;
  /** '' while active. */
  closed_at: string;
  price_delta: number;
  /**
   * Set when the row that last wrote this price moved the book's main line here: the line value it
   * moved from (what the line-based interface's point deltas are measured against).
   */
  moved_from?: string;
  /** Id of the change row that last wrote this price. */
  change_id: number;
}

export interface LineState {
  id: string;
  value: string;
  prices: Map<number, PriceState>;
}

export interface ParticipantState {
  id: number;
  type: ParticipantType;
  name: string;
  lines: Map<string, LineState>;
  /** Current main line value per affiliate_id (the flag is per book, participant, market and period). */
  mainLines: Map<number, string>;
}

export interface MarketState {
  id: number;
  market_id: number;
  period_id: number;
  participants: Map<string, ParticipantState>;
}

/** A player's line in an event's box score. */
export interface PlayerLine {
  team_id: number;
  display_name: string;
  position: string;
  /** stat id -> value. */
  stats: Map<number, number>;
}

/**
 * An event's plays and box score as the stat rows left them. The plays themselves stay in the
 * store (their pages are read from it); the board keeps their count, which numbers the next one.
 */
export interface GameState {
  /** Sequence of the last play (0 before the first). */
  plays: number;
  /** team id -> stat id -> value. */
  teams: Map<number, Map<number, number>>;
  /** player id -> line, in the order players first appeared. */
  players: Map<number, PlayerLine>;
  /** Id of the last stat row applied (0 before any): the key that invalidates a cached box. */
  version: number;
}

export interface EventState {
  info: EventInfo;
  /** Plays and box score, from the first play on. */
  game?: GameState;
  /** event_date in epoch ms, for date windows. */
  startMs: number;
  /** Keyed by `${market_id}:${period_id}`, in market-instance-id order (creation order on one ledger). */
  markets: Map<string, MarketState>;
  /** Id of the last change row that touched this event: the key that invalidates cached views. */
  version: number;
}
