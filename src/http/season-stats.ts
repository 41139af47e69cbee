import { type SeasonGames, type StatTotals, sumBoxes, type SeasonTotals } from '../board/season-totals.ts';
import { rosterOf } from '../catalog/rosters/index.ts';
import { statById } from '../catalog/stats.ts';
import { type ByteBudget, stringBytes } from '../perf/byte-budget.ts';
import { type FreshCache, freshCache, KEEPING, type Keeping } from '../perf/fresh-cache.ts';
import {
  type BoxBody,
  type Group,
  groupsBytes,
  type KeptStatsAnswer,
  KeptStatsAnswers,
  type Row,
  type SerializedBox,
} from './box-score.ts';

/**
 * The season-stats responses (spec: Team season stats, Player season stats), serialised once per
 * change of the boxes they sum and kept as pieces, as the box scores are: the team's group and each
 * current roster player's, each stat row on its own, so `stats_ids` and `player_ids` filters are joins
 * of kept strings (box-score.ts `boxBody`).
 */

/** Which aggregate: a team, a season year and a season type id (as /api/v2/season_types lists them). */
export interface SeasonScope {
  teamId: number;
  teamName: string;
  year: number;
  seasonTypeId: number;
}

/**
 * A group's stat rows. The spec gives team season values as strings; player season values go out as
 * numbers, as existing clients read them (the spec shows no type for them).
 */
function rowsOf(totals: StatTotals, asNumber: boolean): Row[] {
  return [...totals.keys()]
    .sort((a, b) => a - b)
    .flatMap((statId) => {
      const stat = statById(statId);
      const value = totals.get(statId)!;
      return stat
        ? [{ statId, json: JSON.stringify({ stat_id: statId, name: stat.name, value: asNumber ? value : String(value) }) }]
        : [];
    });
}

/**
 * The team's group, and one group per player of the team's current roster with a line in the
 * season's games, in roster order (player rows follow current roster association).
 */
export function serializeSeason(scope: SeasonScope, totals: SeasonTotals): SerializedBox {
  const team = JSON.stringify({ team_id: scope.teamId, name: scope.teamName });
  const season = JSON.stringify({ year: scope.year, season_type: scope.seasonTypeId });
  const teams: Group[] = [{ id: scope.teamId, head: `{"team":${team},"season":${season},"stats":[`, rows: rowsOf(totals.team, false) }];
  const players: Group[] = [];
  for (const p of rosterOf(scope.teamId) ?? []) {
    const own = totals.players.get(p.player_id);
    if (!own) continue;
    const player = JSON.stringify({ player_id: p.player_id, name: p.name, position: p.position });
    players.push({ id: p.player_id, head: `{"player":${player},"team":${team},"season":${season},"stats":[`, rows: rowsOf(own, true) });
  }
  return { teams, players };
}

/** Bytes of a kept scan, roughly: the entry, and each game's reference and event id. */
const SCAN_OVERHEAD = 128;
const SCAN_GAME = 96;

/** A served season body (the live board finds the season's games; the day decides the default year). */
export interface SeasonResponse extends BoxBody, KeptStatsAnswer {
  json: Buffer;
}

/**
 * Serialised season aggregates per (team, year, season type), recomputed from the board's boxes
 * only when the key of the games they sum has moved (a stat row of one of them, or a game joining
 * or leaving the season). Uses of the one fresh cache (src/perf/fresh-cache.ts); entries draw from
 * the shared byte budget, least recently used out first.
 */
export class SeasonStatsCache {
  /** Per season, for the key of the games it sums. */
  private readonly seasons: FreshCache<string, string, SerializedBox>;
  /** The games each season sums, as found at a head of the live board. */
  private readonly scans: FreshCache<string, number, SeasonGames>;

  /** Whole season bodies per (data delay, request URL). */
  readonly responses: KeptStatsAnswers<SeasonResponse>;

  constructor(budget: ByteBudget, keeping: Keeping = KEEPING) {
    this.seasons = freshCache(budget, {}, keeping);
    this.scans = freshCache(budget, {}, keeping);
    this.responses = new KeptStatsAnswers(budget, undefined, keeping);
  }

  /**
   * The season's games, found again only when the live board has moved: finding them walks the
   * league's events, which costs more than the rest of a request, and polls come many per commit.
   */
  games(scope: SeasonScope, head: number, find: () => SeasonGames): SeasonGames {
    const id = `${scope.teamId}:${scope.year}:${scope.seasonTypeId}`;
    const hit = this.scans.get(id, head);
    if (hit) return hit;
    const found = find();
    this.scans.set(id, head, found, SCAN_OVERHEAD + SCAN_GAME * found.games.length);
    return found;
  }

  season(scope: SeasonScope, found: SeasonGames): SerializedBox {
    const id = `${scope.teamId}:${scope.year}:${scope.seasonTypeId}`;
    const hit = this.seasons.get(id, found.key);
    if (hit) return hit;
    const season = serializeSeason(scope, sumBoxes(scope.teamId, found.games.map((g) => g.box)));
    this.seasons.set(id, found.key, season, stringBytes(found.key) + groupsBytes([...season.teams, ...season.players]));
    return season;
  }
}
