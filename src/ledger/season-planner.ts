import { SEASON_EVENT_ID } from '../changelog/change.ts';
import type { StatLookup } from '../catalog/stat-table.ts';
import { SEASON_TYPES } from '../catalog/sports.ts';
import { type SeasonStats, type SeasonValue, seasonKey, seasonText } from '../domain/season-stats.ts';
import type { Board } from '../board/board.ts';
import type { BatchPlan } from './batch-plan.ts';
import { LedgerError } from './ledger-errors.ts';
import type { SeasonStatsUpdate } from './updates.ts';

/** What a season record is checked against: the team's league (the sports a season sums) and their stats. */
export interface SeasonCatalog {
  /** The sport ids of the team's home league; undefined for a team no league lists. */
  homeSportIds(teamId: number): readonly number[] | undefined;
  stats: StatLookup;
}

export interface SeasonFault {
  field: string;
  message: string;
}

/**
 * A season record's faults, each named by its field: the team must be one a league of the catalog
 * lists, the season type one /api/v2/season_types lists, and each value a number of a stat that
 * one of the league's sports keeps (the sports a season sums), a team value not of a player's stat
 * nor a player's of a team's stat (as box values are checked), each stat and player once.
 */
export function seasonFaults(season: SeasonStats, catalog: SeasonCatalog): SeasonFault[] {
  const faults: SeasonFault[] = [];
  const sportIds = catalog.homeSportIds(season.team_id);
  if (!sportIds)
    faults.push({ field: '/team_id', message: `team ${season.team_id} is listed by no league of the catalog` });
  if (!SEASON_TYPES.some((t) => t.season_type_id === season.season_type)) {
    faults.push({
      field: '/season_type',
      message: `must be one of ${SEASON_TYPES.map((t) => t.season_type_id).join(', ')}`,
    });
  }
  const group = (path: string, values: readonly SeasonValue[], isPlayer: boolean) => {
    const seen = new Set<number>();
    values.forEach((v, i) => {
      if (seen.has(v.stat_id))
        faults.push({ field: `${path}/${i}/stat_id`, message: `stat ${v.stat_id} is given twice` });
      seen.add(v.stat_id);
      const stat = sportIds && sportIds.map((s) => catalog.stats.statOf(s, v.stat_id)).find((s) => s !== undefined);
      if (sportIds && !stat) {
        faults.push({
          field: `${path}/${i}/stat_id`,
          message: `no sport of team ${season.team_id}'s league (${sportIds.join(', ')}) keeps stat ${v.stat_id}`,
        });
      } else if (stat?.scope === (isPlayer ? 'team' : 'player')) {
        const whose = isPlayer ? "a team's stat: a player" : "a player's stat: a team";
        faults.push({ field: `${path}/${i}/stat_id`, message: `${stat.name} is ${whose} has no value of it` });
      }
      if (v.value.trim() === '' || !Number.isFinite(Number(v.value))) {
        faults.push({ field: `${path}/${i}/value`, message: `not a number: ${JSON.stringify(v.value)}` });
      }
    });
  };
  group('/stats', season.stats, false);
  const players = new Set<number>();
  season.players.forEach((p, i) => {
    if (players.has(p.player_id)) {
      faults.push({ field: `/players/${i}/player_id`, message: `player ${p.player_id} is given twice` });
    }
    players.add(p.player_id);
    group(`/players/${i}/stats`, p.stats, true);
  });
  return faults;
}

/**
 * Plans a season record: a `season` row (event id `#season`) when it differs from the newest of
 * its key, committed or earlier in the batch; nothing when it is equal. Refuses the batch with the
 * record's first fault.
 */
export function planSeasonStats(board: Board, plan: BatchPlan, u: SeasonStatsUpdate, at: string): void {
  const { kind: _kind, ...season } = u;
  const [fault] = seasonFaults(season, { homeSportIds: (t) => board.catalog.homeSportIds(t), stats: plan.stats() });
  if (fault) {
    throw new LedgerError(
      `season stats of team ${season.team_id} (${season.year}, type ${season.season_type}), ${fault.field}: ${fault.message}`,
    );
  }
  const key = seasonKey(season);
  const text = seasonText(season);
  if ((plan.seasonTexts.get(key) ?? board.seasonRecords.newestText(key)) === text) return;
  plan.seasonTexts.set(key, text);
  const id = plan.nextId();
  plan.add(
    {
      id,
      kind: 'season',
      event_id: SEASON_EVENT_ID,
      sport_id: board.catalog.homeSportOf(season.team_id) ?? 0,
      at,
      committed_ms: plan.committedMs,
      price_id: null,
      affiliate_id: null,
      market_id: null,
      payload: text,
      detail: null,
    },
    {
      kind: 'info',
      change: { kind: 'season', id, committed_ms: plan.committedMs, season: JSON.parse(text) as SeasonStats, text },
    },
  );
}
