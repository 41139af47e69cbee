import type { EventInfo } from '../domain/types.ts';
import type { SeasonTotalsRecord } from '../store/store.ts';
import type { GameState, PlayerLine } from './event-state.ts';
import { GAME_STARTED } from './event-state.ts';

/**
 * The season totals of games that left the board (archived, see the ledger's retention): per sport,
 * team, season year and season type, the sum of their boxes as one box, so a season aggregate
 * counts them as it counts the games still on the board, at the memory of one box per team and season.
 */
export interface ArchivedSeason {
  /** Games summed. */
  games: number;
  /** The team's sums under its team id, its players' under theirs. */
  box: GameState;
}

/** The stored body of a season's totals. */
interface Body {
  games: number;
  version: number;
  team: [number, number][];
  players: [number, [number, number][]][];
}

export function seasonKey(sportId: number, teamId: number, year: number, seasonType: string): string {
  return `${sportId}|${teamId}|${year}|${seasonType}`;
}

export class SeasonArchive {
  private readonly seasons = new Map<string, ArchivedSeason>();

  get(sportId: number, teamId: number, year: number, seasonType: string): ArchivedSeason | undefined {
    return this.seasons.get(seasonKey(sportId, teamId, year, seasonType));
  }

  get size(): number {
    return this.seasons.size;
  }

  clear(): void {
    this.seasons.clear();
  }

  /** Restores the totals a store kept. */
  load(records: readonly SeasonTotalsRecord[]): void {
    for (const r of records) {
      const body = JSON.parse(r.body) as Body;
      const teamId = Number(r.key.split('|')[1]);
      const players = new Map<number, PlayerLine>();
      for (const [playerId, stats] of body.players) {
        players.set(playerId, { team_id: teamId, display_name: '', position: '', stats: new Map(stats) });
      }
      this.seasons.set(r.key, {
        games: body.games,
        box: { plays: 0, teams: new Map([[teamId, new Map(body.team)]]), players, version: body.version },
      });
    }
  }

  /**
   * The totals of each team of a game leaving the board with its box added, as records to store;
   * nothing for a game a season aggregate does not count (not started, or without a box). The
   * caller applies them with `put` once the store has them.
   */
  totalsWith(info: EventInfo, game: GameState | undefined, adding: Map<string, ArchivedSeason>): SeasonTotalsRecord[] {
    if (!game || game.version === 0 || !GAME_STARTED.has(info.score?.event_status ?? '')) return [];
    const out: SeasonTotalsRecord[] = [];
    for (const { team_id: teamId } of info.teams) {
      const key = seasonKey(info.sport_id, teamId, info.schedule.season_year, info.schedule.season_type);
      const before = adding.get(key) ?? this.seasons.get(key);
      const next = addGame(before, teamId, game);
      adding.set(key, next);
      out.push({ key, body: JSON.stringify(bodyOf(next, teamId)) });
    }
    return out;
  }

  /** The totals as `load` takes them, in the store's form (a board snapshot keeps them so). */
  records(): SeasonTotalsRecord[] {
    return [...this.seasons].map(([key, season]) => ({
      key,
      body: JSON.stringify(bodyOf(season, Number(key.split('|')[1]))),
    }));
  }

  /** Takes the totals `totalsWith` made, once stored. */
  put(adding: ReadonlyMap<string, ArchivedSeason>): void {
    for (const [key, season] of adding) this.seasons.set(key, season);
  }
}

/** A new season box: `before` (not changed) plus the team's part of `game`. */
function addGame(before: ArchivedSeason | undefined, teamId: number, game: GameState): ArchivedSeason {
  const team = new Map(before?.box.teams.get(teamId));
  for (const [statId, v] of game.teams.get(teamId) ?? []) team.set(statId, (team.get(statId) ?? 0) + v);
  const players = new Map<number, PlayerLine>();
  for (const [id, line] of before?.box.players ?? []) players.set(id, { ...line, stats: new Map(line.stats) });
  for (const [id, line] of game.players) {
    if (line.team_id !== teamId) continue;
    let own = players.get(id);
    if (!own) players.set(id, (own = { team_id: teamId, display_name: '', position: '', stats: new Map() }));
    for (const [statId, v] of line.stats) own.stats.set(statId, (own.stats.get(statId) ?? 0) + v);
  }
  return {
    games: (before?.games ?? 0) + 1,
    box: {
      plays: 0,
      teams: new Map([[teamId, team]]),
      players,
      version: Math.max(before?.box.version ?? 0, game.version),
    },
  };
}

function bodyOf(season: ArchivedSeason, teamId: number): Body {
  return {
    games: season.games,
    version: season.box.version,
    team: [...(season.box.teams.get(teamId) ?? [])],
    players: [...season.box.players].map(([id, line]) => [id, [...line.stats]]),
  };
}
