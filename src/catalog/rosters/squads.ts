import type { Discipline } from '../sports.ts';

/**
 * The make-up of a squad per discipline: its positions in roster order and the jersey numbers it
 * draws from. The first entries are the players the simulator plays most (basketball's eight-man
 * rotation, baseball's batting order then a starter and a reliever), so their ids stay the ones
 * the player props already carry.
 */

const repeat = (position: string, n: number): string[] => Array.from({ length: n }, () => position);

export interface SquadPlan {
  positions: readonly string[];
  /** Jersey numbers the squad may wear; each player gets a different one. */
  jerseys: readonly string[];
}

const numbers = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

const BASKETBALL: SquadPlan = {
  positions: ['PG', 'SG', 'SF', 'PF', 'C', 'G', 'F', 'C', 'G', 'F', 'G', 'F', 'C'],
  jerseys: ['0', '00', ...numbers(1, 55)],
};

const BASEBALL: SquadPlan = {
  positions: [
    'CF',
    'SS',
    'RF',
    '1B',
    'DH',
    '3B',
    'LF',
    'C',
    '2B',
    'SP',
    'RP',
    ...repeat('SP', 4),
    ...repeat('RP', 7),
    'C',
    'SS',
    'OF',
    '2B',
  ],
  jerseys: numbers(1, 99),
};

const FOOTBALL: SquadPlan = {
  positions: [
    ...repeat('QB', 3),
    ...repeat('RB', 4),
    ...repeat('WR', 6),
    ...repeat('TE', 3),
    ...repeat('OT', 4),
    ...repeat('OG', 4),
    ...repeat('C', 2),
    ...repeat('DE', 4),
    ...repeat('DT', 4),
    ...repeat('LB', 6),
    ...repeat('CB', 6),
    ...repeat('S', 4),
    'K',
    'P',
    'LS',
  ],
  jerseys: numbers(1, 99),
};

const HOCKEY: SquadPlan = {
  positions: [...repeat('C', 4), ...repeat('LW', 4), ...repeat('RW', 4), ...repeat('D', 8), ...repeat('G', 3)],
  jerseys: numbers(1, 98),
};

const SOCCER: SquadPlan = {
  positions: ['GK', ...repeat('DF', 8), ...repeat('MF', 8), ...repeat('FW', 6), 'GK', 'GK'],
  jerseys: numbers(1, 40),
};

const CRICKET: SquadPlan = {
  positions: [
    ...repeat('Batter', 5),
    'Wicketkeeper',
    ...repeat('All-rounder', 4),
    ...repeat('Bowler', 5),
    'Wicketkeeper',
  ],
  jerseys: numbers(1, 99),
};

/** The squad of a team sport; undefined where competitors are individuals or there are no players. */
export function squadPlan(discipline: Discipline): SquadPlan | undefined {
  switch (discipline) {
    case 'basketball':
      return BASKETBALL;
    case 'baseball':
      return BASEBALL;
    case 'football':
      return FOOTBALL;
    case 'hockey':
      return HOCKEY;
    case 'soccer':
      return SOCCER;
    case 'cricket':
      return CRICKET;
    default:
      return undefined;
  }
}
