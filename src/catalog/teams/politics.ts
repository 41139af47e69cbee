import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const party = (id: number, name: string, abbreviation: string): TeamRecord =>
  team(id, name, '', abbreviation, '', '', '', '');

/** Fictional political parties for the politics markets. None is a real party or person. */
export const politics: LeagueCatalog = {
  key: 'politics',
  league_name: 'Politics',
  sport_ids: [22],
  individual: false,
  teams: [
    party(9991, 'Harbor Party', 'HBR'),
    party(9992, 'Meadow Alliance', 'MDW'),
    party(9993, 'Lantern Coalition', 'LTN'),
    party(9994, 'Granite Union', 'GRN'),
    party(9995, 'Tidewater League', 'TDW'),
    party(9996, 'Summit Reform Party', 'SMT'),
    party(9997, 'Cedar Movement', 'CDR'),
    party(9998, 'Beacon Progressives', 'BCN'),
  ],
};
