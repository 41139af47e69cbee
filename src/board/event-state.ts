import type { ParticipantType } from '../domain/types.ts';
import type { EventState, GameState } from '../domain/event-state.ts';

/**
 * The state of an event on the board, apart from the Board that holds it, so that the board's views
 * and season sums can name it without importing the Board. The shapes are domain/event-state.ts's.
 */

export type {
  EventState,
  GameState,
  LineState,
  MarketState,
  ParticipantState,
  PlayerLine,
  PriceState,
} from '../domain/event-state.ts';

/** Statuses of a game that has a box score to count: in progress, at half time, or final. */
export const GAME_STARTED: ReadonlySet<string> = new Set(['STATUS_IN_PROGRESS', 'STATUS_HALFTIME', 'STATUS_FINAL']);

/** The event's game state, made on first use. */
export function gameOf(ev: EventState): GameState {
  ev.game ??= { plays: 0, teams: new Map(), players: new Map(), version: 0 };
  return ev.game;
}

export const marketKey = (marketId: number, periodId: number): string => `${marketId}:${periodId}`;
export const participantKey = (type: ParticipantType, id: number): string => `${type}:${id}`;
