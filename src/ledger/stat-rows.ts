import type { StatValue } from '../changelog/change.ts';
import type { StatLookup } from '../catalog/stat-table.ts';
import type { PlayInput } from '../domain/plays.ts';
import type { EventInfo } from '../domain/types.ts';
import type { BoxScoreUpdate, BoxValue } from './updates.ts';

/** One value of a box score: a team's (no player_id) or a player's stat. */
export type GameCell = Pick<StatValue, 'team_id' | 'player_id' | 'stat_id'>;

/**
 * The box-score values a play changes, as they are after it, in the order its credits name them.
 * A player's credit goes to the player's line unless the stat is the team's only, and to the team's
 * value unless it is the player's only; so every team value is the sum of the credits of its plays.
 * A value seen for the first time is written even when the credit adds nothing (a 0-yard carry puts
 * the runner in the box). A player's first row carries the name and position the play gives
 * (`isKnown`: the player already has a line). `current` reads a value as committed and planned so far; `fail` refuses
 * the batch (a stat the sport does not keep, by the catalog's `stats`, a team not in the event).
 */
export function statRowsOf(
  info: Pick<EventInfo, 'sport_id' | 'teams' | 'event_id'>,
  stats: StatLookup,
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
    const stat = stats.statNamed(info.sport_id, c.stat);
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

/** What a box-score update names that its event cannot hold: a JSON pointer into the update and why. */
export interface BoxFault {
  field: string;
  message: string;
}

/**
 * Every fault of a `box_score` update against its event: a team not in the event, a stat the
 * event's sport does not keep, a team value of a player's stat or a player's value of a team's stat,
 * a value that is not a number. The ledger refuses an update with any; the ingest check names each.
 */
export function boxFaults(
  info: Pick<EventInfo, 'sport_id' | 'teams' | 'event_id'>,
  box: BoxScoreUpdate,
  stats: StatLookup,
): BoxFault[] {
  const faults: BoxFault[] = [];
  const group = (path: string, teamId: number, values: readonly BoxValue[], isPlayer: boolean) => {
    if (!info.teams.some((t) => t.team_id === teamId)) {
      faults.push({ field: `${path}/team_id`, message: `team ${teamId} does not play in event ${info.event_id}` });
    }
    values.forEach((v, i) => {
      const stat = stats.statOf(info.sport_id, v.stat_id);
      if (!stat) {
        faults.push({
          field: `${path}/stats/${i}/stat_id`,
          message: `sport ${info.sport_id} keeps no stat ${v.stat_id}`,
        });
      } else if (stat.scope === (isPlayer ? 'team' : 'player')) {
        const whose = isPlayer ? "a team's stat: a player" : "a player's stat: a team";
        faults.push({ field: `${path}/stats/${i}/stat_id`, message: `${stat.name} is ${whose} has no value of it` });
      }
      if (!Number.isFinite(numberOf(v.value))) {
        faults.push({ field: `${path}/stats/${i}/value`, message: `not a number: ${JSON.stringify(v.value)}` });
      }
    });
  };
  box.teams.forEach((t, i) => group(`/teams/${i}`, t.team_id, t.stats, false));
  box.players.forEach((p, i) => group(`/players/${i}`, p.team_id, p.stats, true));
  return faults;
}

/** A value's number; NaN for text that is none (blank included). */
function numberOf(value: string): number {
  return value.trim() === '' ? Number.NaN : Number(value);
}

/**
 * The stat rows a `box_score` update writes: one per value that differs from the one held (or is not
 * held yet), teams first, then players in the order given, each player's first row carrying the name
 * and position the update gives (`isKnown`: the player already has a line). Values are written as
 * their numbers read (`"7.50"` is `"7.5"`, as the board serves it). A `whole` box then takes away
 * each value `held` (the box as committed and planned) that it does not name, teams first. `fail`
 * refuses the batch with the update's first fault (`boxFaults`).
 */
export function boxRowsOf(
  info: Pick<EventInfo, 'sport_id' | 'teams' | 'event_id'>,
  box: BoxScoreUpdate,
  stats: StatLookup,
  current: (cell: GameCell) => number | undefined,
  isKnown: (playerId: number) => boolean,
  held: () => readonly GameCell[],
  fail: (message: string) => never,
): StatValue[] {
  const [fault] = boxFaults(info, box, stats);
  if (fault) fail(`box score of event ${info.event_id}, ${fault.field}: ${fault.message}`);
  const out: StatValue[] = [];
  const named = new Set<number>();
  for (const team of box.teams) {
    for (const v of team.stats) {
      const cell = { team_id: team.team_id, stat_id: v.stat_id };
      const n = numberOf(v.value);
      if (current(cell) !== n) out.push({ ...cell, value: String(n) });
    }
  }
  for (const p of box.players) {
    for (const v of p.stats) {
      const cell = { team_id: p.team_id, player_id: p.player_id, stat_id: v.stat_id };
      const n = numberOf(v.value);
      if (current(cell) === n) continue;
      const row: StatValue = { ...cell, value: String(n) };
      // A player's first value says who the player is, once.
      if (!isKnown(p.player_id) && !named.has(p.player_id)) {
        row.display_name = p.display_name;
        row.position = p.position;
        named.add(p.player_id);
      }
      out.push(row);
    }
  }
  if (box.whole) out.push(...removalsOf(box, held()));
  return out;
}

/** A removal row for each held value a whole box does not name: team values first, then players'. */
function removalsOf(box: BoxScoreUpdate, held: readonly GameCell[]): StatValue[] {
  const named = new Set<string>();
  for (const t of box.teams) for (const v of t.stats) named.add(`${t.team_id}::${v.stat_id}`);
  for (const p of box.players) for (const v of p.stats) named.add(`${p.team_id}:${p.player_id}:${v.stat_id}`);
  const gone = held.filter((c) => !named.has(`${c.team_id}:${c.player_id ?? ''}:${c.stat_id}`));
  gone.sort((a, b) => (a.player_id === undefined ? 0 : 1) - (b.player_id === undefined ? 0 : 1));
  return gone.map((c): StatValue => ({ ...c, value: '', removed: true }));
}
