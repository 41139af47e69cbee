import type { Static } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import type { HeldSeason } from '../board/season-records.ts';
import { type SeasonGames, sumBoxes } from '../board/season-totals.ts';
import { type SeasonScope, type SeasonSums, seasonText } from '../perf/stats-text.ts';
import { pick } from '../perf/switch.ts';
import { type ByteBudget, stringBytes } from '../perf/byte-budget.ts';
import { type FreshCache, freshCache, KEEPING, type Keeping } from '../perf/fresh-cache.ts';
import {
  type BoxBody,
  type Group,
  groupPieces,
  groupsBytes,
  knownStats,
  type KeptStatsAnswer,
  KeptStatsAnswers,
  type SerializedBox,
} from './box-score.ts';
import { PlayerSeasonStatsSchema, TeamSeasonStatsSchema } from './stats-schemas.ts';

export type { SeasonScope } from '../perf/stats-text.ts';

/**
 * The season-stats responses (spec: Team season stats, Player season stats), serialised once per
 * change of the boxes they sum and kept as pieces, as the box scores are: the team's group and each
 * current roster player's, each stat row on its own, so `stats_ids` and `player_ids` filters are joins
 * of kept strings (box-score.ts `boxBody`).
 */

type TeamSeason = Static<typeof TeamSeasonStatsSchema>[number];
type PlayerSeason = Static<typeof PlayerSeasonStatsSchema>[number];
const teamSeasonJson = fastJson(TeamSeasonStatsSchema.items);
const teamSeasonRowJson = fastJson(TeamSeasonStatsSchema.items.properties.stats.items);
const playerSeasonJson = fastJson(PlayerSeasonStatsSchema.items);
const playerSeasonRowJson = fastJson(PlayerSeasonStatsSchema.items.properties.stats.items);

/** The plain twin of perf/stats-text.ts `seasonText`: each group as the schema's object, through its serialiser. */
export function schemaSeason(scope: SeasonScope, totals: SeasonSums): SerializedBox {
  const team = { team_id: scope.teamId, name: scope.teamName };
  const season = { year: scope.year, season_type: scope.seasonTypeId };
  const teamGroup: TeamSeason = {
    team,
    season,
    stats: knownStats(scope.stats, totals.team).map(([stat, value]) => ({
      stat_id: stat.id,
      name: stat.name,
      value: String(value),
    })),
  };
  const teams = [groupPieces(scope.teamId, teamGroup, teamSeasonJson, teamSeasonRowJson, (r) => r.stat_id)];
  const players: Group[] = [];
  for (const p of scope.roster) {
    const own = totals.players.get(p.player_id);
    if (!own) continue;
    const group: PlayerSeason = {
      player: { player_id: p.player_id, name: p.name, position: p.position },
      team,
      season,
      stats: knownStats(scope.stats, own).map(([stat, value]) => ({ stat_id: stat.id, name: stat.name, value })),
    };
    players.push(groupPieces(p.player_id, group, playerSeasonJson, playerSeasonRowJson, (r) => r.stat_id));
  }
  return { teams, players };
}

/** A season's groups as pieces: written by hand (perf/stats-text.ts), or by the schemas' serialisers. */
export const serializeSeason: (scope: SeasonScope, totals: SeasonSums) => SerializedBox = pick(
  seasonText,
  schemaSeason,
);

/** Bytes of a kept scan, roughly: the entry, and each game's reference and event id. */
const SCAN_OVERHEAD = 128;
const SCAN_GAME = 96;

/**
 * What a kept season is current for: the key of the games it sums (or the id of the source's
 * record it shows), the catalog's version.
 */
interface SeasonToken {
  games: string;
  catalog: number;
}

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
  /** Per season, for the key of the games it sums and the catalog version (team name, roster). */
  private readonly seasons: FreshCache<string, SeasonToken, SerializedBox>;
  /** The games each season sums, as found at a head of the live board. */
  private readonly scans: FreshCache<string, number, SeasonGames>;

  /** Whole season bodies per (data delay, request URL). */
  readonly responses: KeptStatsAnswers<SeasonResponse>;

  /** `catalog`: the current catalog, whose version a kept season was made at. */
  constructor(
    budget: ByteBudget,
    private readonly catalog: { readonly version: number },
    keeping: Keeping = KEEPING,
  ) {
    this.seasons = freshCache(
      budget,
      { current: (kept, now) => kept.games === now.games && kept.catalog === now.catalog },
      keeping,
    );
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
    const token: SeasonToken = { games: found.key, catalog: this.catalog.version };
    const hit = this.seasons.get(id, token);
    if (hit) return hit;
    const season = serializeSeason(
      scope,
      sumBoxes(
        scope.teamId,
        found.games.map((g) => g.box),
      ),
    );
    this.seasons.set(id, token, season, stringBytes(found.key) + groupsBytes([...season.teams, ...season.players]));
    return season;
  }

  /** The season as a source's record gives it (SeasonRecords), serialised once per record and catalog version. */
  held(scope: SeasonScope, record: HeldSeason): SerializedBox {
    const id = `${scope.teamId}:${scope.year}:${scope.seasonTypeId}`;
    const token: SeasonToken = { games: `record:${record.id}`, catalog: this.catalog.version };
    const hit = this.seasons.get(id, token);
    if (hit) return hit;
    const season = serializeSeason(scope, record);
    this.seasons.set(id, token, season, stringBytes(token.games) + groupsBytes([...season.teams, ...season.players]));
    return season;
  }
}
