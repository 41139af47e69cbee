import { bundesliga } from './bundesliga.ts';
import { epl } from './epl.ts';
import { otherEuropeanClubs } from './europe.ts';
import { pickTeams } from './helpers.ts';
import { laliga } from './laliga.ts';
import { ligue1 } from './ligue1.ts';
import { seriea } from './seriea.ts';
import type { LeagueCatalog } from './types.ts';

const pool = [
  ...epl.teams,
  ...ligue1.teams,
  ...bundesliga.teams,
  ...laliga.teams,
  ...seriea.teams,
  ...otherEuropeanClubs,
];

/**
 * Champions League clubs. Every club keeps the one record (team_id, names, venue, domestic
 * conference) it has in its domestic league file or in otherEuropeanClubs.
 */
export const ucl: LeagueCatalog = {
  key: 'ucl',
  league_name: 'UEFA Champions League',
  sport_ids: [16],
  individual: false,
  teams: pickTeams(
    pool,
    [
      // England: Liverpool, Arsenal, Manchester City, Chelsea, Newcastle United, Tottenham Hotspur
      9012, 9001, 9013, 9007, 9015, 9018,
      // Spain: Barcelona, Real Madrid, Atlético Madrid, Athletic Club, Villarreal
      9304, 9315, 9303, 9302, 9320,
      // Germany: Bayern Munich, Bayer Leverkusen, Eintracht Frankfurt, Borussia Dortmund
      9215, 9212, 9205, 9204,
      // Italy: Napoli, Inter, Atalanta, Juventus
      9414, 9409, 9401, 9410,
      // France: Paris Saint-Germain, Marseille, Monaco
      9115, 9109, 9111,
      // Elsewhere: Benfica, Sporting CP, PSV, Ajax, Club Brugge, Union Saint-Gilloise, Galatasaray,
      // Olympiacos, Slavia Prague, Bodø/Glimt, Copenhagen, Qarabağ, Kairat Almaty
      9601, 9602, 9605, 9606, 9608, 9609, 9613, 9615, 9617, 9619, 9620, 9633, 9634,
    ],
  ),
};
