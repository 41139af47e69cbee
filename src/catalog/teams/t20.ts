import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const nation = (id: number, name: string, abbreviation: string, membership: string): TeamRecord =>
  team(id, name, '', abbreviation, membership, '', '', '');

const FULL = 'ICC Full Member';
const ASSOCIATE = 'ICC Associate Member';

/** National cricket teams for T20 internationals; conference is the ICC membership status. */
export const t20: LeagueCatalog = {
  key: 't20',
  league_name: 'T20 Internationals',
  sport_ids: [21],
  individual: false,
  teams: [
    nation(9951, 'India', 'IND', FULL),
    nation(9952, 'Australia', 'AUS', FULL),
    nation(9953, 'England', 'ENG', FULL),
    nation(9954, 'Pakistan', 'PAK', FULL),
    nation(9955, 'South Africa', 'SA', FULL),
    nation(9956, 'New Zealand', 'NZ', FULL),
    nation(9957, 'Sri Lanka', 'SL', FULL),
    nation(9958, 'West Indies', 'WI', FULL),
    nation(9959, 'Bangladesh', 'BAN', FULL),
    nation(9960, 'Afghanistan', 'AFG', FULL),
    nation(9961, 'Ireland', 'IRE', FULL),
    nation(9962, 'Zimbabwe', 'ZIM', FULL),
    nation(9963, 'Netherlands', 'NED', ASSOCIATE),
    nation(9964, 'Scotland', 'SCO', ASSOCIATE),
    nation(9965, 'United States', 'USA', ASSOCIATE),
    nation(9966, 'Nepal', 'NEP', ASSOCIATE),
  ],
};
