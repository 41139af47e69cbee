import { setStat } from '../board/apply.ts';
import type { GameState } from '../board/event-state.ts';
import { playerById } from '../catalog/rosters/index.ts';
import { statById, statByName } from '../catalog/stats.ts';
import { leagueForSport } from '../catalog/teams/index.ts';
import type { EventTeam } from '../domain/types.ts';
import { boxBody, serializeBox } from './box-score.ts';

/**
 * The static sample box score (docs/spec-gaps.md: Statistics): one finished NBA game between the
 * league's first two teams, two players a side, in exactly the shapes of the two box routes. It is
 * built once from the stat catalog, so its stat ids and names are the ones the listing serves.
 */

const SAMPLE_EVENT_ID = '00000000000000000000000000000000';
const NBA = 4;

/** [name, position, points, rebounds, assists] per player, away side first. */
const LINES: readonly (readonly [string, string, number, number, number])[][] = [
  [
    ['Jalen Whitfield', 'PG', 27, 4, 9],
    ['Malik Northcutt', 'C', 18, 12, 2],
  ],
  [
    ['Owen Castellano', 'SG', 31, 5, 4],
    ['Reid Holloway', 'PF', 14, 9, 3],
  ],
];

export function sampleBox(): { event_id: string; team_stats: unknown; player_stats: unknown } {
  const [awayTeam, homeTeam] = leagueForSport(NBA)!.teams;
  const team = (t: NonNullable<typeof awayTeam>, away: boolean): EventTeam => ({
    team_id: t.team_id,
    name: t.name,
    mascot: t.mascot,
    abbreviation: t.abbreviation,
    record: '',
    is_away: away,
    is_home: !away,
  });
  const teams = [team(awayTeam!, true), team(homeTeam!, false)];
  const game: GameState = { plays: 0, teams: new Map(), players: new Map(), version: 0 };
  teams.forEach((t, side) => {
    const totals = new Map<string, number>();
    LINES[side]!.forEach(([name, position, points, rebounds, assists], i) => {
      const id = t.team_id * 100 + i + 1;
      const values = { points, rebounds, assists };
      for (const [stat, value] of Object.entries(values)) {
        const def = statByName(NBA, stat)!;
        setStat(
          game,
          { team_id: t.team_id, player_id: id, stat_id: def.id, value: String(value), display_name: name, position },
          0,
        );
        totals.set(stat, (totals.get(stat) ?? 0) + value);
      }
    });
    for (const [stat, value] of totals) {
      setStat(game, { team_id: t.team_id, stat_id: statByName(NBA, stat)!.id, value: String(value) }, 0);
    }
  });
  const info = {
    event_id: SAMPLE_EVENT_ID,
    sport_id: NBA,
    event_uuid: SAMPLE_EVENT_ID,
    event_date: '2026-01-15T00:30:00Z',
    teams,
    schedule: { season_type: 'Regular Season', season_year: 2026, event_name: '', league_name: 'NBA' },
  };
  // Built from the simulator's tables, as its teams are.
  const box = serializeBox(info, game, true, { player: playerById, statById });
  return {
    event_id: SAMPLE_EVENT_ID,
    team_stats: JSON.parse(boxBody(box.teams, undefined, undefined).json.toString()),
    player_stats: JSON.parse(boxBody(box.players, undefined, undefined).json.toString()),
  };
}
