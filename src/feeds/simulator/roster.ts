import { rosterOf } from '../../catalog/rosters/index.ts';
import type { TeamRecord } from '../../catalog/teams/types.ts';
import { hashUnit } from './rng.ts';

/**
 * The players the games lean on, from the catalog's rosters: basketball's rotation (box numbers
 * and player props) and baseball's lineup with a starter and a reliever (the live game state). How
 * much each one shoots, rebounds or passes is the simulator's own, varied per seed.
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

/** Weights of a roster slot, in the catalog's roster order. */
interface Slot {
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

/** Nine batters in batting order, then a starting and a relief pitcher. */
const BASEBALL: Slot[] = Array.from({ length: 11 }, () => ({ usage: 1, rebounding: 0, assisting: 0, threes: 0 }));

const cache = new Map<string, Player[]>();

/** The team's players: eight for basketball, nine batters then two pitchers for baseball. */
export function roster(seed: number, team: TeamRecord, kind: 'basketball' | 'baseball'): Player[] {
  const key = `${seed}:${team.team_id}:${kind}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const slots = kind === 'basketball' ? BASKETBALL : BASEBALL;
  const squad = rosterOf(team.team_id) ?? [];
  if (squad.length < slots.length) throw new Error(`team ${team.team_id} has no ${kind} roster`);
  const players = slots.map((slot, i) => {
    const member = squad[i]!;
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
