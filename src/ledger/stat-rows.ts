import type { StatValue } from '../changelog/change.ts';
import { statByName } from '../catalog/stats.ts';
import type { PlayInput } from '../domain/plays.ts';
import type { EventInfo } from '../domain/types.ts';

/** One value of a box score: a team's (no player_id) or a player's stat. */
export type GameCell = Pick<StatValue, 'team_id' | 'player_id' | 'stat_id'>;

/**
 * The box-score values a play changes, as they are after it, in the order its credits name them.
 * A player's credit goes to the player's line unless the stat is the team's only, and to the team's
 * value unless it is the player's only; so every team value is the sum of the credits of its plays.
 * A value seen for the first time is written even when the credit adds nothing (a 0-yard carry puts
 * the runner in the box). A player's first row carries the name and position the play gives
 * (`isKnown`: the player already has a line). `current` reads a value as committed and planned so far; `fail` refuses
 * the batch (a stat the sport does not keep, a team not in the event).
 */
export function statRowsOf(
  info: Pick<EventInfo, 'sport_id' | 'teams' | 'event_id'>,
  play: PlayInput,
  current: (cell: GameCell) => number | undefined,
  isKnown: (playerId: number) => boolean,
  fail: (message: string) => never,
): StatValue[] {
  const next = new Map<string, StatValue & { n: number }>();
  const add = (cell: GameCell, n: number) => {
    const key = `${cell.team_id}:${cell.player_id ?? ''}:${cell.stat_id}`;
    let row = next.get(key);
    if (!row) {
      row = { ...cell, value: '', n: current(cell) ?? Number.NaN };
      next.set(key, row);
      if (Number.isNaN(row.n)) {
        row.n = 0;
        row.value = 'new';
      }
    }
    row.n += n;
  };
  for (const c of play.credits) {
    const stat = statByName(info.sport_id, c.stat);
    if (!stat) fail(`sport ${info.sport_id} keeps no stat named ${c.stat} (event ${info.event_id})`);
    if (!info.teams.some((t) => t.team_id === c.team_id))
      fail(`team ${c.team_id} does not play in event ${info.event_id}`);
    if (!Number.isFinite(c.n)) fail(`a credit of ${c.stat} is not a finite number (event ${info.event_id})`);
    if (c.player_id === undefined && stat.scope === 'player')
      fail(`${c.stat} is a player's stat: its credit needs a player_id`);
    if (c.player_id !== undefined && stat.scope !== 'team')
      add({ team_id: c.team_id, player_id: c.player_id, stat_id: stat.id }, c.n);
    if (stat.scope !== 'player') add({ team_id: c.team_id, stat_id: stat.id }, c.n);
  }
  const out: StatValue[] = [];
  const named = new Set<number>();
  for (const row of next.values()) {
    const fresh = row.value === 'new';
    if (!fresh && current(row) === row.n) continue;
    if (row.player_id === undefined) {
      out.push({ team_id: row.team_id, stat_id: row.stat_id, value: String(row.n) });
      continue;
    }
    const v: StatValue = { team_id: row.team_id, player_id: row.player_id, stat_id: row.stat_id, value: String(row.n) };
    // A player's first value says who the player is, once per play.
    if (fresh && !isKnown(row.player_id) && !named.has(row.player_id)) {
      const who = play.people.find((p) => p.id === row.player_id);
      if (!who) fail(`play credits player ${row.player_id} without saying who it is (event ${info.event_id})`);
      v.display_name = who.display_name;
      v.position = who.position;
      named.add(row.player_id);
    }
    out.push(v);
  }
  return out;
}
