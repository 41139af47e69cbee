import type { EventInfo, Score } from './types.ts';

/**
 * How an event's header, score and live game state follow from its rows: the one merge the
 * ledger's plan, the board's apply and every store's load use, so that a restart rebuilds exactly
 * the state the live board holds.
 *
 * - A header row replaces the header and keeps the score and live state the event had.
 * - A score row replaces the score (none: no score); its live state replaces the event's, `null`
 *   clears it, and a row without one keeps the event's.
 */

/** What a score row carries. */
export interface ScoreFacts {
  score?: Score | undefined;
  /** Replaces the live state; null clears it; absent keeps it. */
  live_game_state?: Record<string, unknown> | null;
}

/** The event after a header row: `header`'s fields, with the score and live state of `before`. */
export function withHeader(
  before: EventInfo | undefined,
  header: Omit<EventInfo, 'score' | 'live_game_state'>,
): EventInfo {
  const info: EventInfo = { ...header };
  delete info.score;
  delete info.live_game_state;
  if (before?.score) info.score = before.score;
  if (before?.live_game_state) info.live_game_state = before.live_game_state;
  return info;
}

/** The event after a score row. */
export function withScore(before: EventInfo, facts: ScoreFacts): EventInfo {
  const info: EventInfo = { ...before };
  if (facts.score === undefined) delete info.score;
  else info.score = facts.score;
  if (facts.live_game_state === null) delete info.live_game_state;
  else if (facts.live_game_state !== undefined) info.live_game_state = facts.live_game_state;
  return info;
}

/** Whether a score row's facts name a live state (set or cleared), rather than keep the event's. */
export const movesLiveState = (facts: ScoreFacts): boolean => facts.live_game_state !== undefined;

/**
 * An event as its rows up to some id leave it, from the rows that decide it: its last header row,
 * its last score row, and the last score row that set or cleared its live state (which may be the
 * same row, or none). The order between the header and the score rows does not matter: neither
 * touches what the other sets.
 */
export function eventFromRows(
  header: Omit<EventInfo, 'score' | 'live_game_state'>,
  lastLive: ScoreFacts | undefined,
  lastScore: ScoreFacts | undefined,
): EventInfo {
  let info = withHeader(undefined, header);
  if (lastLive) info = withScore(info, lastLive);
  if (lastScore) info = withScore(info, lastScore);
  return info;
}
