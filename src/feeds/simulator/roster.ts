import { rosterOf } from '../../catalog/rosters/index.ts';
import type { Discipline } from '../../catalog/sports.ts';
import type { TeamRecord } from '../../catalog/teams/types.ts';
import { hashUnit } from './rng.ts';

/**
 * The players the games lean on, from the catalog's rosters (box scores, plays, player props, the
 * batter and pitcher of the live game state): a lineup per sport picked by position, in roster
 * order; in tennis and MMA the competitor is the one player. How much each one shoots, rebounds or
 * passes is the simulator's own, varied per seed.
 */

export interface Player {
  /** team_id * 100 + n: unique across every team. */
  id: number;
  name: string;
  position: string;
  jersey: string;
  team_id: number;
  /** Relative weights of the player's share of shots, rebounds, assists and threes. */
  usage: number;
  rebounding: number;
  assisting: number;
  threes: number;
}

/** A lineup slot: the position it takes from the squad (the next player when absent) and its weights. */
interface Slot {
  position?: string;
  usage: number;
  rebounding: number;
  assisting: number;
  threes: number;
}

const BASKETBALL: Slot[] = [
  { usage: 1.15, rebounding: 0.5, assisting: 2.6, threes: 1.4 },
  { usage: 1.25, rebounding: 0.6, assisting: 1.1, threes: 1.6 },
  { usage: 1.1, rebounding: 0.9, assisting: 0.9, threes: 1.2 },
  { usage: 0.95, rebounding: 1.4, assisting: 0.7, threes: 0.7 },
  { usage: 0.9, rebounding: 2.0, assisting: 0.6, threes: 0.2 },
  { usage: 0.55, rebounding: 0.4, assisting: 0.8, threes: 0.9 },
  { usage: 0.5, rebounding: 0.8, assisting: 0.4, threes: 0.5 },
  { usage: 0.4, rebounding: 1.0, assisting: 0.3, threes: 0.1 },
];

const positions = (list: readonly string[]): Slot[] =>
  list.map((position) => ({ position, usage: 1, rebounding: 0, assisting: 0, threes: 0 }));

/** Nine batters in order, then the starting and the relief pitcher. */
const BASEBALL = positions(['CF', 'SS', 'RF', '1B', 'DH', '3B', 'LF', 'C', '2B', 'SP', 'RP']);
const FOOTBALL = positions(['QB', 'RB', 'WR', 'WR', 'TE', 'K', 'P']);
const HOCKEY = positions(['C', 'LW', 'RW', 'D', 'D', 'G']);
const SOCCER = positions(['GK', 'DF', 'DF', 'DF', 'DF', 'MF', 'MF', 'MF', 'FW', 'FW', 'FW']);
/** The batting order; the last five bowl. */
const CRICKET = positions([
  ...Array.from({ length: 4 }, () => 'Batter'),
  'Wicketkeeper',
  'All-rounder',
  'All-rounder',
  ...Array.from({ length: 4 }, () => 'Bowler'),
]);

/** The athlete of an individual sport: the catalog's roster of one. */
const SOLO: Slot[] = [{ usage: 1, rebounding: 0, assisting: 0, threes: 0 }];

export type RosterKind = 'basketball' | 'baseball' | 'football' | 'hockey' | 'soccer' | 'cricket' | 'solo';

const SLOTS: Record<Exclude<RosterKind, 'solo'>, Slot[]> = {
  basketball: BASKETBALL,
  baseball: BASEBALL,
  football: FOOTBALL,
  hockey: HOCKEY,
  soccer: SOCCER,
  cricket: CRICKET,
};

const cache = new Map<string, Player[]>();

/**
 * The team's players: eight for basketball, nine batters then two pitchers for baseball, a lineup
 * per sport elsewhere; for an individual sport ('solo') the athlete, the catalog's roster of one.
 */
export function roster(seed: number, team: TeamRecord, kind: RosterKind): Player[] {
  const key = `${seed}:${team.team_id}:${kind}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const squad = rosterOf(team.team_id) ?? [];
  const slots = kind === 'solo' ? SOLO : SLOTS[kind];
  const taken = new Set<number>();
  const players = slots.map((slot, i) => {
    const member = squad.find(
      (m) => !taken.has(m.player_id) && (slot.position === undefined || m.position === slot.position),
    );
    if (!member)
      throw new Error(`team ${team.team_id} has no ${slot.position ?? 'player'} left for its ${kind} lineup`);
    taken.add(member.player_id);
    const vary = (what: string) => 0.75 + 0.5 * hashUnit(seed, what, team.team_id, i);
    return {
      id: member.player_id,
      name: member.name,
      position: member.position,
      jersey: member.jersey_number,
      team_id: team.team_id,
      usage: slot.usage * vary('usage'),
      rebounding: slot.rebounding * vary('reb'),
      assisting: slot.assisting * vary('ast'),
      threes: slot.threes * vary('3pt'),
    };
  });
  cache.set(key, players);
  return players;
}

/** The players a game of the discipline fields for `team`: none where there are no players. */
export function lineup(seed: number, team: TeamRecord, discipline: Discipline): Player[] {
  switch (discipline) {
    case 'politics':
    case 'golf':
    case 'motorsport':
      return [];
    case 'tennis':
    case 'mma':
      return roster(seed, team, 'solo');
    default:
      return roster(seed, team, discipline);
  }
}
