import { team } from './helpers.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';

const LEAGUE = 'Premier League';
const club = (id: number, name: string, abbreviation: string, venue: string, city: string): TeamRecord =>
  team(id, name, '', abbreviation, LEAGUE, '', venue, `${city}, England`);

/** The 20 clubs of the 2025-26 season. */
export const epl: LeagueCatalog = {
  key: 'epl',
  league_name: 'English Premier League',
  sport_ids: [11],
  individual: false,
  teams: [
    club(9001, 'Arsenal', 'ARS', 'Emirates Stadium', 'London'),
    club(9002, 'Aston Villa', 'AVL', 'Villa Park', 'Birmingham'),
    club(9003, 'Bournemouth', 'BOU', 'Vitality Stadium', 'Bournemouth'),
    club(9004, 'Brentford', 'BRE', 'Gtech Community Stadium', 'London'),
    club(9005, 'Brighton & Hove Albion', 'BHA', 'American Express Stadium', 'Brighton'),
    club(9006, 'Burnley', 'BUR', 'Turf Moor', 'Burnley'),
    club(9007, 'Chelsea', 'CHE', 'Stamford Bridge', 'London'),
    club(9008, 'Crystal Palace', 'CRY', 'Selhurst Park', 'London'),
    club(9009, 'Everton', 'EVE', 'Hill Dickinson Stadium', 'Liverpool'),
    club(9010, 'Fulham', 'FUL', 'Craven Cottage', 'London'),
    club(9011, 'Leeds United', 'LEE', 'Elland Road', 'Leeds'),
    club(9012, 'Liverpool', 'LIV', 'Anfield', 'Liverpool'),
    club(9013, 'Manchester City', 'MCI', 'Etihad Stadium', 'Manchester'),
    club(9014, 'Manchester United', 'MUN', 'Old Trafford', 'Manchester'),
    club(9015, 'Newcastle United', 'NEW', "St James' Park", 'Newcastle upon Tyne'),
    club(9016, 'Nottingham Forest', 'NFO', 'City Ground', 'Nottingham'),
    club(9017, 'Sunderland', 'SUN', 'Stadium of Light', 'Sunderland'),
    club(9018, 'Tottenham Hotspur', 'TOT', 'Tottenham Hotspur Stadium', 'London'),
    club(9019, 'West Ham United', 'WHU', 'London Stadium', 'London'),
    club(9020, 'Wolverhampton Wanderers', 'WOL', 'Molineux Stadium', 'Wolverhampton'),
  ],
};
