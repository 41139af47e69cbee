import type { TeamRecord } from '../../catalog/teams/types.ts';
import { hashUnit } from './rng.ts';

/**
 * Fictional players for every team sport's games (box scores, plays, player props, the batter and
 * pitcher of the live game state); in tennis and MMA the competitor is the one player. Deterministic
 * per seed and team.
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

const FIRST = [
  'Aaron',
  'Bryce',
  'Caleb',
  'Darius',
  'Elijah',
  'Felix',
  'Gavin',
  'Hunter',
  'Isaiah',
  'Jalen',
  'Keegan',
  'Landon',
  'Malik',
  'Nolan',
  'Owen',
  'Parker',
  'Quinn',
  'Reid',
  'Silas',
  'Tristan',
  'Victor',
  'Wesley',
  'Xavier',
  'Zane',
  'Amari',
  'Brooks',
  'Cortez',
  'Desmond',
  'Emmett',
  'Graham',
];
const LAST = [
  'Abernathy',
  'Blackwood',
  'Crandall',
  'Delacroix',
  'Eberhardt',
  'Fairweather',
  'Gladwell',
  'Holloway',
  'Ingersoll',
  'Jamison',
  'Kingsley',
  'Lockhart',
  'Montrose',
  'Northcutt',
  'Ogilvie',
  'Prescott',
  'Radcliffe',
  'Sutherland',
  'Thackeray',
  'Underwood',
  'Vandermeer',
  'Whitfield',
  'Yarborough',
  'Ashford',
  'Brightwater',
  'Castellano',
  'Dunleavy',
  'Everhart',
  'Fitzgerald',
  'Greenleaf',
];

interface Slot {
  position: string;
  usage: number;
  rebounding: number;
  assisting: number;
  threes: number;
}

const BASKETBALL: Slot[] = [
  { position: 'PG', usage: 1.15, rebounding: 0.5, assisting: 2.6, threes: 1.4 },
  { position: 'SG', usage: 1.25, rebounding: 0.6, assisting: 1.1, threes: 1.6 },
  { position: 'SF', usage: 1.1, rebounding: 0.9, assisting: 0.9, threes: 1.2 },
  { position: 'PF', usage: 0.95, rebounding: 1.4, assisting: 0.7, threes: 0.7 },
  { position: 'C', usage: 0.9, rebounding: 2.0, assisting: 0.6, threes: 0.2 },
  { position: 'G', usage: 0.55, rebounding: 0.4, assisting: 0.8, threes: 0.9 },
  { position: 'F', usage: 0.5, rebounding: 0.8, assisting: 0.4, threes: 0.5 },
  { position: 'C', usage: 0.4, rebounding: 1.0, assisting: 0.3, threes: 0.1 },
];

const positions = (list: readonly string[]): Slot[] =>
  list.map((position) => ({ position, usage: 1, rebounding: 0, assisting: 0, threes: 0 }));

/** Nine batters in order, then the starting and the relief pitcher. */
const BASEBALL = positions(['CF', 'SS', 'RF', '1B', 'DH', '3B', 'LF', 'C', '2B', 'SP', 'RP']);
const FOOTBALL = positions(['QB', 'RB', 'WR', 'WR', 'TE', 'K', 'P']);
const HOCKEY = positions(['C', 'LW', 'RW', 'D', 'D', 'G']);
const SOCCER = positions(['GK', 'DF', 'DF', 'DF', 'DF', 'MF', 'MF', 'MF', 'FW', 'FW', 'FW']);
/** The batting order; the last five bowl. */
const CRICKET = positions(['BAT', 'BAT', 'BAT', 'BAT', 'WK', 'AR', 'AR', 'BOWL', 'BOWL', 'BOWL', 'BOWL']);

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
 * per sport elsewhere; for an individual sport ('solo') the competitor alone, under its own name.
 */
export function roster(seed: number, team: TeamRecord, kind: RosterKind): Player[] {
  const key = `${seed}:${team.team_id}:${kind}`;
  const hit = cache.get(key);
  if (hit) return hit;
  if (kind === 'solo') {
    const solo = [{ ...positions([''])[0]!, id: team.team_id * 100 + 1, name: team.name, jersey: '', team_id: team.team_id }];
    cache.set(key, solo);
    return solo;
  }
  const slots = SLOTS[kind];
  const used = new Set<string>();
  const players = slots.map((slot, i) => {
    let name = '';
    for (let k = 0; name === '' || used.has(name); k++) {
      const first = FIRST[Math.floor(hashUnit(seed, 'first', team.team_id, i, k) * FIRST.length)];
      const last = LAST[Math.floor(hashUnit(seed, 'last', team.team_id, i, k) * LAST.length)];
      name = `${first} ${last}`;
    }
    used.add(name);
    const vary = (what: string) => 0.75 + 0.5 * hashUnit(seed, what, team.team_id, i);
    return {
      id: team.team_id * 100 + i + 1,
      name,
      position: slot.position,
      jersey: String(Math.floor(hashUnit(seed, 'jersey', team.team_id, i) * 50) * 2 + (i % 2)),
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
