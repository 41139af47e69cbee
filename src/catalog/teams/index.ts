import { atp } from './atp.ts';
import { bundesliga } from './bundesliga.ts';
import { epl } from './epl.ts';
import { euro } from './euro.ts';
import { golf } from './golf.ts';
import { ipl } from './ipl.ts';
import { jleague } from './jleague.ts';
import { laliga } from './laliga.ts';
import { ligue1 } from './ligue1.ts';
import { mlb } from './mlb.ts';
import { mls } from './mls.ts';
import { mma } from './mma.ts';
import { motorsport } from './motorsport.ts';
import { nba } from './nba.ts';
import { ncaab } from './ncaab.ts';
import { ncaaf } from './ncaaf.ts';
import { nfl } from './nfl.ts';
import { nhl } from './nhl.ts';
import { politics } from './politics.ts';
import { seriea } from './seriea.ts';
import { t20 } from './t20.ts';
import type { LeagueCatalog, TeamRecord } from './types.ts';
import { ucl } from './ucl.ts';
import { uel } from './uel.ts';
import { wnba } from './wnba.ts';
import { worldcup } from './worldcup.ts';
import { wta } from './wta.ts';

export type { LeagueCatalog, TeamRecord } from './types.ts';

/** Every league, in sport-id order of their first sport id. */
export const leagues: LeagueCatalog[] = [
  ncaaf,
  nfl,
  mlb,
  nba,
  ncaab,
  nhl,
  mma,
  wnba,
  mls,
  epl,
  ligue1,
  bundesliga,
  laliga,
  seriea,
  ucl,
  euro,
  worldcup,
  jleague,
  ipl,
  t20,
  politics,
  uel,
  atp,
  wta,
  golf,
  motorsport,
];

const leagueBySport = new Map<number, LeagueCatalog>();
const teamsById = new Map<number, TeamRecord>();
const homeLeagues = new Map<number, LeagueCatalog>();
for (const league of leagues) {
  for (const sportId of league.sport_ids) leagueBySport.set(sportId, league);
  // Clubs shared between leagues (UEFA competitions, World Cup) are the same record, so the
  // first occurrence stands for all: a club's home league is its domestic one.
  for (const record of league.teams)
    if (!teamsById.has(record.team_id)) {
      teamsById.set(record.team_id, record);
      homeLeagues.set(record.team_id, league);
    }
}

/** The league whose teams play under a sport id, if any. */
export function leagueForSport(sportId: number): LeagueCatalog | undefined {
  return leagueBySport.get(sportId);
}

/** The record of a team or athlete by its normalized id, in whichever league it appears. */
export function teamById(teamId: number): TeamRecord | undefined {
  return teamsById.get(teamId);
}

/** The league a team is listed under first: its domestic league where it plays in several. */
export function homeLeagueOf(teamId: number): LeagueCatalog | undefined {
  return homeLeagues.get(teamId);
}
