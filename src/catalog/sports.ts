import type { Sport } from '../domain/types.ts';

/** The disciplines: a sport's discipline decides scoring, periods, markets and defaults. */
export const DISCIPLINES = [
  'football',
  'basketball',
  'baseball',
  'hockey',
  'soccer',
  'mma',
  'tennis',
  'cricket',
  'politics',
  'golf',
  'motorsport',
] as const;
export type Discipline = (typeof DISCIPLINES)[number];

/** Season type names as served in schedules; ids as /api/v2/season_types lists them. */
export const SEASON_TYPE_NAMES = ['Preseason', 'Regular Season', 'Postseason', 'Special'] as const;
export type SeasonTypeName = (typeof SEASON_TYPE_NAMES)[number];

export interface SportProfile extends Sport {
  discipline: Discipline;
  season_type: SeasonTypeName;
  /** Soccer league ids (10-19, 33) and hockey (6) default to markets 1,2,3,563. */
  three_way: boolean;
  /** Golf and motor racing: outright (futures) boards only, no games and no event markets. */
  futures_only: boolean;
}

const p = (
  sport_id: number,
  sport_name: string,
  discipline: Discipline,
  season_type: SeasonTypeName = 'Regular Season',
): SportProfile => ({
  sport_id,
  sport_name,
  discipline,
  season_type,
  three_way: discipline === 'soccer' || sport_id === 6,
  futures_only: discipline === 'golf' || discipline === 'motorsport',
});

/** Every sport id the spec lists, and the futures-only sports, in id order. */
export const SPORTS: readonly SportProfile[] = [
  p(1, 'NCAA Football', 'football'),
  p(2, 'NFL', 'football'),
  p(3, 'MLB', 'baseball'),
  p(4, 'NBA', 'basketball'),
  p(5, 'NCAA Men’s Basketball', 'basketball'),
  p(6, 'NHL', 'hockey'),
  p(7, 'UFC/MMA', 'mma'),
  p(8, 'WNBA', 'basketball'),
  p(10, 'MLS', 'soccer'),
  p(11, 'EPL', 'soccer'),
  p(12, 'FRA1', 'soccer'),
  p(13, 'GER1', 'soccer'),
  p(14, 'ESP1', 'soccer'),
  p(15, 'ITA1', 'soccer'),
  p(16, 'UEFA Champions League', 'soccer'),
  p(17, 'UEFA Euro', 'soccer', 'Special'),
  p(18, 'FIFA World Cup', 'soccer', 'Special'),
  p(19, 'JPN1', 'soccer'),
  p(20, 'IPL', 'cricket'),
  p(21, 'T20 Internationals', 'cricket'),
  p(22, 'Politics', 'politics', 'Special'),
  p(23, 'NBA Preseason', 'basketball', 'Preseason'),
  p(24, 'NBA Playoffs', 'basketball', 'Postseason'),
  p(25, 'NFL Preseason', 'football', 'Preseason'),
  p(26, 'NFL Playoffs', 'football', 'Postseason'),
  p(27, 'NHL Preseason', 'hockey', 'Preseason'),
  p(28, 'NHL Playoffs', 'hockey', 'Postseason'),
  p(30, 'MLB Spring Training', 'baseball', 'Preseason'),
  p(31, 'MLB Playoffs', 'baseball', 'Postseason'),
  p(32, 'NBA Summer League', 'basketball', 'Special'),
  p(33, 'UEFA Europa League', 'soccer'),
  p(38, 'ATP', 'tennis'),
  p(39, 'WTA', 'tennis'),
  // The spec leaves the futures-only sports' ids unshown: the next free ids (docs/spec-gaps.md).
  p(40, 'Golf', 'golf'),
  p(41, 'Motor Racing', 'motorsport'),
];

const byId = new Map(SPORTS.map((s) => [s.sport_id, s]));

export function sportProfile(sportId: number): SportProfile | undefined {
  return byId.get(sportId);
}

export const SEASON_TYPES = [
  { season_type_id: 1, name: 'Preseason' },
  { season_type_id: 2, name: 'Regular Season' },
  { season_type_id: 3, name: 'Postseason' },
  { season_type_id: 4, name: 'Special' },
] as const;
