import { GAME_STARTED, type GameState } from './event-state.ts';
import type { BoardView } from './board-view.ts';

/**
 * Season aggregates of a team and its players (spec: Team season stats, Player season stats): sums
 * of the box scores of the team's games of one season and season type that the board holds, final
 * and in progress alike. Every stat the catalog keeps is a count, so a season value is a sum.
 */

/** Which games a season aggregate counts. */
export interface SeasonSelector {
  teamId: number;
  /** The sport ids the team's league plays under (regular season, preseason, playoffs, ...). */
  sportIds: readonly number[];
  year: number;
  /** Season type name as schedules carry it ('Regular Season', ...). */
  seasonType: string;
}

/** A counted game: its event id and its box on the board (or an archived season's summed box). */
export interface SeasonGame {
  eventId: string;
  box: GameState;
}

/** The started games of a season with a box score, and a key that changes whenever any of their boxes does. */
export interface SeasonGames {
  games: SeasonGame[];
  /** `max stat change id:games:sum of their stat change ids`. */
  key: string;
}

export function seasonGames(view: BoardView, sel: SeasonSelector): SeasonGames {
  const games: SeasonGame[] = [];
  let max = 0;
  let sum = 0;
  for (const sportId of sel.sportIds) {
    for (const ev of view.eventsOfSport(sportId)) {
      const { info, game } = ev;
      if (!game || game.version === 0) continue;
      if (info.schedule.season_year !== sel.year || info.schedule.season_type !== sel.seasonType) continue;
      if (!GAME_STARTED.has(info.score?.event_status ?? '')) continue;
      if (!info.teams.some((t) => t.team_id === sel.teamId)) continue;
      games.push({ eventId: info.event_id, box: game });
      max = Math.max(max, game.version);
      sum += game.version;
    }
    // Games that left the board count through their season's summed box.
    const archived = view.archivedSeason(sportId, sel.teamId, sel.year, sel.seasonType);
    if (archived) {
      games.push({ eventId: `archived:${sportId}`, box: archived.box });
      max = Math.max(max, archived.box.version);
      sum += archived.box.version * archived.games;
    }
  }
  return { games, key: `${max}:${games.length}:${sum}` };
}

/** stat id -> season value. */
export type StatTotals = Map<number, number>;

export interface SeasonTotals {
  team: StatTotals;
  /** player id -> totals, for every player with a line in one of the boxes, in first-seen order. */
  players: Map<number, StatTotals>;
}

function addInto(into: StatTotals, from: ReadonlyMap<number, number>): void {
  for (const [statId, value] of from) into.set(statId, (into.get(statId) ?? 0) + value);
}

/** The team's and its players' sums over `boxes`, each a game of the team. */
export function sumBoxes(teamId: number, boxes: Iterable<GameState>): SeasonTotals {
  const team: StatTotals = new Map();
  const players = new Map<number, StatTotals>();
  for (const box of boxes) {
    const own = box.teams.get(teamId);
    if (own) addInto(team, own);
    for (const [playerId, line] of box.players) {
      if (line.team_id !== teamId) continue;
      let totals = players.get(playerId);
      if (!totals) {
        totals = new Map();
        players.set(playerId, totals);
      }
      addInto(totals, line.stats);
    }
  }
  return { team, players };
}
