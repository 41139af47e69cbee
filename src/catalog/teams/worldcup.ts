import { euro } from './euro.ts';
import { pickTeams, team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const nation = (id: number, name: string, abbreviation: string, confederation: string): TeamRecord =>
  team(id, name, '', abbreviation, confederation, '', '', '');

/** National teams that are not in the euro file; conference is the confederation. */
const otherNations: readonly TeamRecord[] = [
  nation(9725, 'Qatar', 'QAT', 'AFC'),
  nation(9726, 'Ecuador', 'ECU', 'CONMEBOL'),
  nation(9727, 'Senegal', 'SEN', 'CAF'),
  nation(9728, 'Iran', 'IRN', 'AFC'),
  nation(9729, 'United States', 'USA', 'CONCACAF'),
  nation(9730, 'Wales', 'WAL', 'UEFA'),
  nation(9731, 'Argentina', 'ARG', 'CONMEBOL'),
  nation(9732, 'Saudi Arabia', 'KSA', 'AFC'),
  nation(9733, 'Mexico', 'MEX', 'CONCACAF'),
  nation(9734, 'Australia', 'AUS', 'AFC'),
  nation(9735, 'Tunisia', 'TUN', 'CAF'),
  nation(9736, 'Costa Rica', 'CRC', 'CONCACAF'),
  nation(9737, 'Japan', 'JPN', 'AFC'),
  nation(9738, 'Canada', 'CAN', 'CONCACAF'),
  nation(9739, 'Morocco', 'MAR', 'CAF'),
  nation(9740, 'Brazil', 'BRA', 'CONMEBOL'),
  nation(9741, 'Cameroon', 'CMR', 'CAF'),
  nation(9742, 'Ghana', 'GHA', 'CAF'),
  nation(9743, 'Uruguay', 'URU', 'CONMEBOL'),
  nation(9744, 'South Korea', 'KOR', 'AFC'),
];

/**
 * The 32 national teams of the 2022 FIFA World Cup. The European sides reuse their euro records
 * (so their division is their Euro group), the rest are defined above.
 */
export const worldcup: LeagueCatalog = {
  key: 'worldcup',
  league_name: 'FIFA World Cup',
  sport_ids: [18],
  individual: false,
  teams: [
    // Netherlands, England, Poland, France, Denmark, Spain, Germany, Belgium, Croatia, Serbia,
    // Switzerland, Portugal
    ...pickTeams(euro.teams, [9714, 9712, 9713, 9716, 9710, 9705, 9701, 9717, 9706, 9711, 9704, 9723]),
    ...otherNations,
  ],
};
