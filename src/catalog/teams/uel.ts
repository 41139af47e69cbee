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

/** Europa League clubs; as in ucl, each club reuses its one existing record. */
export const uel: LeagueCatalog = {
  key: 'uel',
  league_name: 'UEFA Europa League',
  sport_ids: [33],
  individual: false,
  teams: pickTeams(
    pool,
    [
      // England: Aston Villa, Nottingham Forest
      9002, 9016,
      // Italy: Roma, Bologna
      9417, 9402,
      // France: Lyon, Lille, Nice
      9108, 9106, 9113,
      // Spain: Real Betis, Celta Vigo
      9314, 9305,
      // Germany: SC Freiburg, VfB Stuttgart
      9206, 9217,
      // Elsewhere
      9603, 9604, 9607, 9610, 9611, 9612, 9614, 9616, 9618, 9621, 9622, 9623, 9624, 9625, 9626, 9627, 9628, 9629, 9630,
      9631, 9632,
    ],
  ),
};
