import type { EventInfo, ParticipantType, PriceExtras } from '../domain/types.ts';

/**
 * The state of an event on the board (its markets, lines, prices and game), apart from the Board
 * that holds it, so that the board's views and season sums can name it without importing the Board.
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

/**
 * A price state with its optional fields in the literal. V8 keeps a literal's properties inside the
 * object; one added afterwards goes to a property array of its own (40-60 bytes), which every state
 * of the exchange's and the prediction market's prices had, and every copy the delayed views keep of
 * them (2.2 MB in a heap snapshot of a mixed load). `moved_from` is rare (main-line moves) and added.
 */
export function priceState(
  id: number,
  affiliateId: number,
  price: number,
  isMainLine: boolean,
  updatedAt: string,
  closedAt: string,
  priceDelta: number,
  changeId: number,
  liquidityUsd: number | undefined,
  sourceId: string | undefined,
  movedFrom: string | undefined,
): PriceState {
  let state: PriceState;
  if (liquidityUsd !== undefined && sourceId !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      liquidity_usd: liquidityUsd,
      source_id: sourceId,
    };
  } else if (liquidityUsd !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      liquidity_usd: liquidityUsd,
    };
  } else if (sourceId !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      source_id: sourceId,
    };
  } else {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
    };
  }
  if (movedFrom !== undefined) state.moved_from = movedFrom;
  return state;
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

/** Statuses of a game that has a box score to count: in progress, at half time, or final. */
export const GAME_STARTED: ReadonlySet<string> = new Set(['STATUS_IN_PROGRESS', 'STATUS_HALFTIME', 'STATUS_FINAL']);

export interface EventState {
  info: EventInfo;
  /** Plays and box score, from the first play on. */
  game?: GameState;
  /** event_date in epoch ms, for date windows. */
  startMs: number;
  /** Keyed by `${market_id}:${period_id}`, in creation order. */
  markets: Map<string, MarketState>;
  /** Id of the last change row that touched this event: the key that invalidates cached views. */
  version: number;
}

/** The event's game state, made on first use. */
export function gameOf(ev: EventState): GameState {
  ev.game ??= { plays: 0, teams: new Map(), players: new Map(), version: 0 };
  return ev.game;
}

export const marketKey = (marketId: number, periodId: number): string => `${marketId}:${periodId}`;
export const participantKey = (type: ParticipantType, id: number): string => `${type}:${id}`;
