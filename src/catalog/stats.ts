import { type Discipline, SPORTS } from './sports.ts';

/**
 * The simulator's game-stat definitions per sport (spec: Statistics resources), by discipline. Ids
 * are sport id x 1000 plus the stat's place in its discipline's list, so they stay the same from
 * one start to the next; clients discover them through /api/v2/stats and never hard-code them.
 * The simulator writes them as `stats` catalog records (simulator-catalog.ts); what the server
 * serves and checks is the current catalog's (`Catalog.statOf`, `statNamed`), which a feed's own
 * records extend. The lookups here are the simulator's own, for what it plays.
 */

export interface StatDefinition {
  id: number;
  name: string;
  display_name: string;
  abbreviation: string;
  sport_id: number;
  category: string;
  /** What the stat counts and where it is kept (existing clients show it). */
  description: string;
}

/**
 * Where a stat is kept: `team` only on the team's box, `player` only on players' lines, `both` on a
 * player's line and summed into the team's (so the team's value is the sum of its players').
 */
export type StatScope = 'team' | 'player' | 'both';

interface StatSpec {
  name: string;
  display_name: string;
  abbreviation: string;
  category: string;
  scope: StatScope;
}

const s = (
  name: string,
  display_name: string,
  abbreviation: string,
  category: string,
  scope: StatScope = 'both',
): StatSpec => ({ name, display_name, abbreviation, category, scope });

const BY_DISCIPLINE: Readonly<Record<Discipline, readonly StatSpec[]>> = {
  basketball: [
    s('points', 'Points', 'PTS', 'scoring'),
    s('fieldGoalsMade', 'Field Goals Made', 'FGM', 'scoring'),
    s('fieldGoalsAttempted', 'Field Goals Attempted', 'FGA', 'scoring'),
    s('threePointFieldGoalsMade', 'Three Point Field Goals Made', '3PM', 'scoring'),
    s('threePointFieldGoalsAttempted', 'Three Point Field Goals Attempted', '3PA', 'scoring'),
    s('freeThrowsMade', 'Free Throws Made', 'FTM', 'scoring'),
    s('freeThrowsAttempted', 'Free Throws Attempted', 'FTA', 'scoring'),
    s('offensiveRebounds', 'Offensive Rebounds', 'OREB', 'rebounding'),
    s('defensiveRebounds', 'Defensive Rebounds', 'DREB', 'rebounding'),
    s('rebounds', 'Rebounds', 'REB', 'rebounding'),
    s('assists', 'Assists', 'AST', 'playmaking'),
    s('turnovers', 'Turnovers', 'TO', 'playmaking'),
    s('fouls', 'Personal Fouls', 'PF', 'defense'),
  ],
  football: [
    s('points', 'Points', 'PTS', 'scoring', 'team'),
    s('totalYards', 'Total Yards', 'YDS', 'offense', 'team'),
    s('firstDowns', 'First Downs', '1D', 'offense', 'team'),
    s('turnovers', 'Turnovers', 'TO', 'offense', 'team'),
    s('punts', 'Punts', 'PUNT', 'special teams'),
    s('passingAttempts', 'Passing Attempts', 'ATT', 'passing'),
    s('completions', 'Completions', 'CMP', 'passing'),
    s('passingYards', 'Passing Yards', 'PYDS', 'passing'),
    s('passingTouchdowns', 'Passing Touchdowns', 'PTD', 'passing'),
    s('interceptionsThrown', 'Interceptions Thrown', 'INT', 'passing'),
    s('rushingAttempts', 'Rushing Attempts', 'CAR', 'rushing'),
    s('rushingYards', 'Rushing Yards', 'RYDS', 'rushing'),
    s('rushingTouchdowns', 'Rushing Touchdowns', 'RTD', 'rushing'),
    s('fumblesLost', 'Fumbles Lost', 'FUM', 'rushing'),
    s('receptions', 'Receptions', 'REC', 'receiving', 'player'),
    s('receivingYards', 'Receiving Yards', 'RECYDS', 'receiving', 'player'),
    s('receivingTouchdowns', 'Receiving Touchdowns', 'RECTD', 'receiving', 'player'),
    s('fieldGoalsMade', 'Field Goals Made', 'FG', 'kicking'),
    s('extraPointsMade', 'Extra Points Made', 'XP', 'kicking'),
  ],
  baseball: [
    s('runs', 'Runs', 'R', 'batting', 'team'),
    s('atBats', 'At Bats', 'AB', 'batting'),
    s('hits', 'Hits', 'H', 'batting'),
    s('doubles', 'Doubles', '2B', 'batting'),
    s('triples', 'Triples', '3B', 'batting'),
    s('homeRuns', 'Home Runs', 'HR', 'batting'),
    s('runsBattedIn', 'Runs Batted In', 'RBI', 'batting'),
    s('walks', 'Walks', 'BB', 'batting'),
    s('hitByPitch', 'Hit By Pitch', 'HBP', 'batting'),
    s('strikeouts', 'Strikeouts', 'K', 'batting'),
    s('pitchesThrown', 'Pitches Thrown', 'PC', 'pitching', 'player'),
    s('battersFaced', 'Batters Faced', 'BF', 'pitching', 'player'),
    s('outsRecorded', 'Outs Recorded', 'OUTS', 'pitching', 'player'),
    s('runsAllowed', 'Runs Allowed', 'RA', 'pitching', 'player'),
    s('strikeoutsPitched', 'Strikeouts Pitched', 'SO', 'pitching', 'player'),
    s('startingPitcher', 'Starting Pitcher', 'SP', 'pitching', 'player'),
    s('positionPlayerPitching', 'Position Player Pitching', 'PPP', 'pitching', 'player'),
  ],
  hockey: [
    s('goals', 'Goals', 'G', 'scoring'),
    s('assists', 'Assists', 'A', 'scoring', 'player'),
    s('shotsOnGoal', 'Shots On Goal', 'SOG', 'shooting'),
    s('powerPlayGoals', 'Power Play Goals', 'PPG', 'scoring'),
    s('penalties', 'Penalties', 'PEN', 'penalties'),
    s('penaltyMinutes', 'Penalty Minutes', 'PIM', 'penalties'),
    s('saves', 'Saves', 'SV', 'goaltending', 'player'),
    s('goalsAgainst', 'Goals Against', 'GA', 'goaltending', 'player'),
    s('shootoutGoals', 'Shootout Goals', 'SOG-SO', 'scoring', 'team'),
  ],
  soccer: [
    s('goals', 'Goals', 'G', 'attacking'),
    s('shots', 'Shots', 'SH', 'attacking'),
    s('shotsOnTarget', 'Shots On Target', 'SOT', 'attacking'),
    s('cornerKicks', 'Corner Kicks', 'CK', 'attacking'),
    s('saves', 'Saves', 'SV', 'goalkeeping', 'player'),
    s('yellowCards', 'Yellow Cards', 'YC', 'discipline'),
  ],
  tennis: [
    s('pointsWon', 'Points Won', 'PTS', 'match'),
    s('servicePointsWon', 'Service Points Won', 'SPW', 'serve'),
    s('aces', 'Aces', 'ACE', 'serve'),
    s('doubleFaults', 'Double Faults', 'DF', 'serve'),
    s('gamesWon', 'Games Won', 'GW', 'match'),
    s('breaksOfServe', 'Breaks Of Serve', 'BRK', 'return'),
    s('setsWon', 'Sets Won', 'SETS', 'match'),
  ],
  mma: [
    s('significantStrikes', 'Significant Strikes Landed', 'SIG', 'striking'),
    s('takedowns', 'Takedowns', 'TD', 'grappling'),
    s('roundsWon', 'Rounds Won On The Cards', 'RW', 'judging'),
  ],
  cricket: [
    s('runs', 'Runs', 'R', 'batting'),
    s('ballsFaced', 'Balls Faced', 'B', 'batting', 'player'),
    s('fours', 'Fours', '4s', 'batting'),
    s('sixes', 'Sixes', '6s', 'batting'),
    s('extras', 'Extras', 'EXT', 'batting', 'team'),
    s('wicketsLost', 'Wickets Lost', 'W', 'batting', 'team'),
    s('ballsBowled', 'Balls Bowled', 'BB', 'bowling', 'player'),
    s('runsConceded', 'Runs Conceded', 'RC', 'bowling', 'player'),
    s('wicketsTaken', 'Wickets Taken', 'WKT', 'bowling', 'player'),
  ],
  // A vote count has no box score.
  politics: [],
  golf: [],
  motorsport: [],
};

export interface SportStat extends StatDefinition {
  scope: StatScope;
}

const SCOPE_TEXT: Record<StatScope, string> = {
  team: 'counted for the team',
  player: 'counted per player',
  both: 'counted per player and summed for the team',
};

function build(): { all: SportStat[]; bySport: Map<number, Map<string, SportStat>>; byId: Map<number, SportStat> } {
  const all: SportStat[] = [];
  const bySport = new Map<number, Map<string, SportStat>>();
  const byId = new Map<number, SportStat>();
  for (const sport of SPORTS) {
    const names = new Map<string, SportStat>();
    BY_DISCIPLINE[sport.discipline].forEach((spec, i) => {
      const stat: SportStat = {
        id: sport.sport_id * 1000 + i + 1,
        name: spec.name,
        display_name: spec.display_name,
        abbreviation: spec.abbreviation,
        sport_id: sport.sport_id,
        category: spec.category,
        description: `${spec.display_name} (${spec.category}): ${SCOPE_TEXT[spec.scope]}`,
        scope: spec.scope,
      };
      all.push(stat);
      names.set(spec.name, stat);
      byId.set(stat.id, stat);
    });
    bySport.set(sport.sport_id, names);
  }
  return { all, bySport, byId };
}

const CATALOG = build();

/** Every stat definition, by sport id then id. */
export const STAT_DEFINITIONS: readonly SportStat[] = CATALOG.all;

/** A sport's stat by its name, or undefined when the sport does not keep it. */
export function statByName(sportId: number, name: string): SportStat | undefined {
  return CATALOG.bySport.get(sportId)?.get(name);
}

export function statById(id: number): SportStat | undefined {
  return CATALOG.byId.get(id);
}

/** The stat definition as served (without the internal scope). */
export function publicStat(stat: SportStat): StatDefinition {
  return {
    id: stat.id,
    name: stat.name,
    display_name: stat.display_name,
    abbreviation: stat.abbreviation,
    sport_id: stat.sport_id,
    category: stat.category,
    description: stat.description,
  };
}
