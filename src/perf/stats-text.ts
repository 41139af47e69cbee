import type { RosterPlayer } from '../catalog/rosters/index.ts';
import type { SportStat } from '../catalog/stats.ts';
import type { GameState, PlayerLine } from '../domain/event-state.ts';
import type { EventInfo } from '../domain/types.ts';

/**
 * The box-score and season-stats responses as pieces of JSON text: each team's and player's group
 * opening, and each stat row on its own, so that a `stats_ids`, `team_id` or `player_ids` filter
 * is a join of kept strings (http/box-score.ts `boxBody`). The trick here writes the pieces by
 * hand; its plain twins (http/box-score.ts, http/season-stats.ts) build each group as the schema's
 * object and cut the pieces from what the schema's serialiser writes. Same bytes
 * (test/unit/schema-twins.test.ts).
 */

export interface Row {
  statId: number;
  json: string;
}

export interface Group {
  /** team_id, or player id. */
  id: number;
  /** `{"team":{...},"meta":{...},"stats":[` (or the player's). */
  head: string;
  rows: Row[];
}

export interface SerializedBox {
  teams: Group[];
  players: Group[];
}

/** A player's group header as the box score shows it (the rule lives with the route: passed in). */
export interface PlayerHead {
  id: number;
  display_name: string;
  position: string;
  team_id: number;
  sport_id: number;
  first_name: string;
  last_name: string;
  jersey: string;
}

/** Where a stat id's definition is found: the current catalog (`Catalog.statById`). */
export interface StatsById {
  statById(statId: number): SportStat | undefined;
}

/** Which season aggregate: a team, a season year and a season type id. */
export interface SeasonScope {
  /** The catalog's stat definitions: values of a stat it does not list are left out. */
  stats: StatsById;
  teamId: number;
  teamName: string;
  year: number;
  seasonTypeId: number;
  /** The team's current roster in the catalog: the players a season lists, in roster order. */
  roster: readonly RosterPlayer[];
}

/** A season's sums: the team's, and each player's (player id -> stat id -> value). */
export interface SeasonSums {
  team: ReadonlyMap<number, number>;
  players: ReadonlyMap<number, ReadonlyMap<number, number>>;
}

const statJson = (s: SportStat): string =>
  JSON.stringify({
    id: s.id,
    name: s.name,
    display_name: s.display_name,
    abbreviation: s.abbreviation,
    sport_id: s.sport_id,
  });

function rowsOf(
  defs: StatsById,
  stats: ReadonlyMap<number, number>,
  row: (stat: SportStat, value: number) => string,
): Row[] {
  return [...stats.keys()]
    .sort((a, b) => a - b)
    .flatMap((statId) => {
      const stat = defs.statById(statId);
      return stat ? [{ statId, json: row(stat, stats.get(statId)!) }] : [];
    });
}

/** The box of an event as groups of pieces written by hand; `complete` once the event is final. */
export function boxText(
  info: EventInfo,
  game: GameState | undefined,
  complete: boolean,
  playerHead: (id: number, line: PlayerLine, sportId: number) => PlayerHead,
  defs: StatsById,
): SerializedBox {
  const eventId = JSON.stringify(info.event_id);
  const meta = `"meta":{"complete":${complete},"event_id":${eventId}}`;
  const teams = info.teams.map((t) => ({
    id: t.team_id,
    head: `{"team":${JSON.stringify({
      team_id: t.team_id,
      name: t.name,
      mascot: t.mascot,
      abbreviation: t.abbreviation,
      is_away: t.is_away,
      is_home: t.is_home,
    })},${meta},"stats":[`,
    rows: rowsOf(
      defs,
      game?.teams.get(t.team_id) ?? new Map(),
      (stat, value) =>
        `{"team_id":${t.team_id},"stat_id":${stat.id},"stat":${statJson(stat)},"event_id":${eventId},"value":${JSON.stringify(String(value))}}`,
    ),
  }));
  const players: Group[] = [];
  // Away team's players first, then home's, each in the order they first appeared.
  for (const t of info.teams) {
    for (const [id, line] of game?.players ?? []) {
      if (line.team_id !== t.team_id) continue;
      players.push({
        id,
        head: `{"player":${JSON.stringify(playerHead(id, line, info.sport_id))},${meta},"stats":[`,
        rows: rowsOf(
          defs,
          line.stats,
          (stat, value) => `{"stat":${statJson(stat)},"value":${JSON.stringify(String(value))}}`,
        ),
      });
    }
  }
  return { teams, players };
}

/**
 * A season group's stat rows. The spec gives team season values as strings; player season values
 * go out as numbers, as existing clients read them (the spec shows no type for them).
 */
function seasonRows(defs: StatsById, totals: ReadonlyMap<number, number>, asNumber: boolean): Row[] {
  return rowsOf(defs, totals, (stat, value) =>
    JSON.stringify({ stat_id: stat.id, name: stat.name, value: asNumber ? value : String(value) }),
  );
}

/**
 * The team's group, and one group per player of the team's current roster with a line in the
 * season's games, in roster order (player rows follow current roster association).
 */
export function seasonText(scope: SeasonScope, totals: SeasonSums): SerializedBox {
  const team = JSON.stringify({ team_id: scope.teamId, name: scope.teamName });
  const season = JSON.stringify({ year: scope.year, season_type: scope.seasonTypeId });
  const teams: Group[] = [
    {
      id: scope.teamId,
      head: `{"team":${team},"season":${season},"stats":[`,
      rows: seasonRows(scope.stats, totals.team, false),
    },
  ];
  const players: Group[] = [];
  for (const p of scope.roster) {
    const own = totals.players.get(p.player_id);
    if (!own) continue;
    const player = JSON.stringify({ player_id: p.player_id, name: p.name, position: p.position });
    players.push({
      id: p.player_id,
      head: `{"player":${player},"team":${team},"season":${season},"stats":[`,
      rows: seasonRows(scope.stats, own, true),
    });
  }
  return { teams, players };
}
