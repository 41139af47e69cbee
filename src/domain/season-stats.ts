/**
 * A team's season aggregate as a source publishes it (spec: Team season stats, Player season stats):
 * one team's season of one year and season type, whole. A source's aggregate is the truth where it
 * has one: it counts games this server never held (docs/feeds.md, "Season aggregates").
 */

/** One season value: a stat id and a number written as text, as the spec's stat values are. */
export interface SeasonValue {
  stat_id: number;
  value: string;
}

export interface SeasonStats {
  team_id: number;
  year: number;
  /** A season type id as /api/v2/season_types lists it (2: regular season). */
  season_type: number;
  /** The team's own values. */
  stats: SeasonValue[];
  /** Each player's values; the season routes list those of the team's current roster. */
  players: { player_id: number; stats: SeasonValue[] }[];
}

/** What a season record replaces: the record of the same team, year and season type. */
export function seasonKey(s: Pick<SeasonStats, 'team_id' | 'year' | 'season_type'>): string {
  return `${s.team_id}:${s.year}:${s.season_type}`;
}

/**
 * The record as stored: its fields in one order and each value as its number reads (`"7.50"` is
 * `"7.5"`, as box values are written), so a record sent again equal to the held one is found equal.
 */
export function seasonText(s: SeasonStats): string {
  const values = (list: readonly SeasonValue[]) =>
    list.map((v) => ({ stat_id: v.stat_id, value: String(Number(v.value)) }));
  return JSON.stringify({
    team_id: s.team_id,
    year: s.year,
    season_type: s.season_type,
    stats: values(s.stats),
    players: s.players.map((p) => ({ player_id: p.player_id, stats: values(p.stats) })),
  } satisfies SeasonStats);
}
