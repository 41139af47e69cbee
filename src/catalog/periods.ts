import { isLiveVariant } from './markets.ts';

/**
 * Period ids and the names that the line-based interface keys `line_periods` by and that best line
 * accepts beside ids. Prematch: 0 full game, 1 and 2 the halves, 3 to 6 the quarters or periods
 * (tennis: 3 and 4 are sets 1 and 2). In play: 7 the full game, 13 and 14 the halves, 15 to 18 the
 * quarters or periods (tennis: 15 and 16 the sets).
 */
export interface NamedPeriod {
  readonly name: string;
  readonly periodId: number;
  readonly live: boolean;
}

const named = (name: string, periodId: number, live = false): NamedPeriod => ({ name, periodId, live });

export const NAMED_PERIODS: readonly NamedPeriod[] = [
  named('period_full_game', 0),
  named('period_first_half', 1),
  named('period_second_half', 2),
  named('period_first_period', 3),
  named('period_second_period', 4),
  named('period_third_period', 5),
  named('period_fourth_period', 6),
  named('period_live_full_game', 7, true),
  named('period_live_first_half', 13, true),
  named('period_live_second_half', 14, true),
  named('period_live_first_period', 15, true),
  named('period_live_second_period', 16, true),
  named('period_live_third_period', 17, true),
  named('period_live_fourth_period', 18, true),
];

const byName = new Map(NAMED_PERIODS.map((p) => [p.name, p]));
const byId = new Map(NAMED_PERIODS.map((p) => [p.periodId, p]));
const FULL_GAME = byId.get(0)!;
const LIVE_FULL_GAME = byId.get(7)!;

export function periodByName(name: string): NamedPeriod | undefined {
  return byName.get(name);
}

/**
 * The named period a market of an event belongs to. The in-play full-game markets (41, 42, 43 and
 * the other live variants) carry period 0 outside tennis, so their period is the live full game;
 * half markets keep their ids and periods in play, so they stay in the prematch half.
 */
export function periodOf(marketId: number, periodId: number): NamedPeriod | undefined {
  if (periodId === FULL_GAME.periodId && isLiveVariant(marketId)) return LIVE_FULL_GAME;
  return byId.get(periodId);
}

/** The period ids that markets of a named period carry (see periodOf). */
export function periodIdsOf(p: NamedPeriod): number[] {
  return p === LIVE_FULL_GAME ? [LIVE_FULL_GAME.periodId, FULL_GAME.periodId] : [p.periodId];
}
