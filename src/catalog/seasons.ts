import type { SportProfile } from './sports.ts';

/** The simulator's soccer sports that play a calendar year (MLS, JPN1) and the Europa League as it counts it. */
const CALENDAR_SOCCER: ReadonlySet<number> = new Set([10, 19, 33]);

/**
 * Season year as leagues name it: winter leagues by the year they end, soccer by the year it starts.
 * A sport is its catalog record: a feed's own soccer league counts seasons as the European leagues
 * do, and a special event (a tournament: its record's season type) by its calendar year.
 */
export function seasonYear(
  sport: Pick<SportProfile, 'sport_id' | 'discipline' | 'season_type'>,
  startMs: number,
): number {
  const d = new Date(startMs);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  switch (sport.discipline) {
    case 'basketball':
    case 'hockey':
      return sport.sport_id === 8 || sport.sport_id === 32 ? year : month >= 8 ? year + 1 : year;
    case 'football':
      return month <= 2 ? year - 1 : year;
    case 'soccer':
      return CALENDAR_SOCCER.has(sport.sport_id) || sport.season_type === 'Special'
        ? year
        : month >= 7
          ? year
          : year - 1;
    default:
      return year;
  }
}
