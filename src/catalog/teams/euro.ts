import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const nation = (id: number, name: string, abbreviation: string, group: string): TeamRecord =>
  team(id, name, '', abbreviation, 'UEFA', `Group ${group}`, '', '');

/** The 24 national teams of UEFA Euro 2024, with their group. worldcup reuses these records. */
export const euro: LeagueCatalog = {
  key: 'euro',
  league_name: 'UEFA European Championship',
  sport_ids: [17],
  individual: false,
  teams: [
    nation(9701, 'Germany', 'GER', 'A'),
    nation(9702, 'Scotland', 'SCO', 'A'),
    nation(9703, 'Hungary', 'HUN', 'A'),
    nation(9704, 'Switzerland', 'SUI', 'A'),
    nation(9705, 'Spain', 'ESP', 'B'),
    nation(9706, 'Croatia', 'CRO', 'B'),
    nation(9707, 'Italy', 'ITA', 'B'),
    nation(9708, 'Albania', 'ALB', 'B'),
    nation(9709, 'Slovenia', 'SVN', 'C'),
    nation(9710, 'Denmark', 'DEN', 'C'),
    nation(9711, 'Serbia', 'SRB', 'C'),
    nation(9712, 'England', 'ENG', 'C'),
    nation(9713, 'Poland', 'POL', 'D'),
    nation(9714, 'Netherlands', 'NED', 'D'),
    nation(9715, 'Austria', 'AUT', 'D'),
    nation(9716, 'France', 'FRA', 'D'),
    nation(9717, 'Belgium', 'BEL', 'E'),
    nation(9718, 'Slovakia', 'SVK', 'E'),
    nation(9719, 'Romania', 'ROU', 'E'),
    nation(9720, 'Ukraine', 'UKR', 'E'),
    nation(9721, 'Turkey', 'TUR', 'F'),
    nation(9722, 'Georgia', 'GEO', 'F'),
    nation(9723, 'Portugal', 'POR', 'F'),
    nation(9724, 'Czech Republic', 'CZE', 'F'),
  ],
};
