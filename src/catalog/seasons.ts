import type { SportProfile } from './sports.ts';

/** Season year as leagues name it: winter leagues by the year they end, soccer by the year they start. */
export function seasonYear(sport: Pick<SportProfile, 'sport_id' | 'discipline'>, startMs: number): number {
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
      return sport.sport_id === 10 || sport.sport_id === 19 || sport.sport_id >= 17
        ? year
        : month >= 7
          ? year
          : year - 1;
    default:
      return year;
  }
}
