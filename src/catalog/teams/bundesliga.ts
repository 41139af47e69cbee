import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const LEAGUE = 'Bundesliga';
const club = (id: number, name: string, abbreviation: string, venue: string, city: string): TeamRecord =>
  team(id, name, '', abbreviation, LEAGUE, '', venue, `${city}, Germany`);

/** The 18 clubs of the 2025-26 season. */
export const bundesliga: LeagueCatalog = {
  key: 'bundesliga',
  league_name: 'Bundesliga',
  sport_ids: [13],
  individual: false,
  teams: [
    club(9201, 'FC Augsburg', 'FCA', 'WWK Arena', 'Augsburg'),
    club(9202, 'Union Berlin', 'FCU', 'Stadion An der Alten Försterei', 'Berlin'),
    club(9203, 'Werder Bremen', 'SVW', 'Weserstadion', 'Bremen'),
    club(9204, 'Borussia Dortmund', 'BVB', 'Signal Iduna Park', 'Dortmund'),
    club(9205, 'Eintracht Frankfurt', 'SGE', 'Deutsche Bank Park', 'Frankfurt'),
    club(9206, 'SC Freiburg', 'SCF', 'Europa-Park Stadion', 'Freiburg'),
    club(9207, 'Hamburger SV', 'HSV', 'Volksparkstadion', 'Hamburg'),
    club(9208, '1. FC Heidenheim', 'FCH', 'Voith-Arena', 'Heidenheim'),
    club(9209, 'TSG Hoffenheim', 'TSG', 'PreZero Arena', 'Sinsheim'),
    club(9210, '1. FC Köln', 'KOE', 'RheinEnergieStadion', 'Cologne'),
    club(9211, 'RB Leipzig', 'RBL', 'Red Bull Arena', 'Leipzig'),
    club(9212, 'Bayer Leverkusen', 'B04', 'BayArena', 'Leverkusen'),
    club(9213, 'Mainz 05', 'M05', 'Mewa Arena', 'Mainz'),
    club(9214, 'Borussia Mönchengladbach', 'BMG', 'Borussia-Park', 'Mönchengladbach'),
    club(9215, 'Bayern Munich', 'FCB', 'Allianz Arena', 'Munich'),
    club(9216, 'FC St. Pauli', 'STP', 'Millerntor-Stadion', 'Hamburg'),
    club(9217, 'VfB Stuttgart', 'VFB', 'MHPArena', 'Stuttgart'),
    club(9218, 'VfL Wolfsburg', 'WOB', 'Volkswagen Arena', 'Wolfsburg'),
  ],
};
